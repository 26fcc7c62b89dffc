/* sm90_fp8_gemm_tensorwise.cu - f8bench's own Hopper fp8 GEMM, tensorwise
 * scales, fast accumulation: D = (sa * sb) * A @ B^T with the wgmma fp32
 * accumulator over all of K (doc/gemm-kernels.md has the picture).
 *
 * One persistent CTA per SM, 384 threads in three warpgroups:
 *   warpgroup 0 (producer): gives registers back (setmaxnreg.dec 40); one
 *     thread walks the CTA's tiles and K-blocks, waits for a free stage of
 *     the ring (empty barrier), arms the stage's full barrier with the
 *     bytes to expect, and issues two TMA loads into it (A: 128 x 128
 *     bytes, B: BN x 128 bytes, 128-byte swizzled);
 *   warpgroups 1 and 2 (consumers): take registers (setmaxnreg.inc 232);
 *     each owns 64 rows of the 128-row tile and all BN columns.  Per
 *     K-block: wait for the stage (full barrier), issue four
 *     wgmma m64nBNk32 (K = 4 x 32 = 128), commit, then wait until only
 *     this group is in flight and free the previous stage (empty barrier:
 *     one arrival per consumer warp, 8 in all).  After the tile's last
 *     K-block: wait for all, scale, convert and store D from registers.
 * The ring's stage and phase run on across tiles, so the producer loads
 * the next tile while the consumers store this one.
 *
 * K not a multiple of 128 and M, N not multiples of the tile: TMA fills
 * the out-of-bounds part of a box with zeros (adding nothing to the sums);
 * the stores are guarded.  The host (src/backend/cuda_gemm_f8b.c) refuses
 * what TMA cannot address (K not a multiple of 16: row strides must be
 * 16-byte multiples).
 *
 * The kernel body exists only in the sm_90a image (wgmma, setmaxnreg and
 * TMA are sm_90a features); the compute_89 PTX the build also embeds gets
 * an empty body, and f8b_kgemm_prepare() tells the host which it has.
 */
#include "../kernels_internal.cuh"
#include "gemm.h"
#include "common/smem.cuh"
#include "ptx/cluster.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/regs.cuh"
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"
#include "scheduler.cuh"

#include <cuda.h> /* CUtensorMap (the type only: libcuda is not linked) */

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define F8B_GEMM_SM90A 1
#endif

namespace
{

constexpr int BM = 128;           /* 2 consumer warpgroups x 64 rows */
constexpr int BK = 128;           /* bytes of K per stage: one 128-byte swizzle row */
constexpr int THREADS = 384;      /* producer + 2 consumer warpgroups */
constexpr int ALIGN_SLACK = 1024; /* dynamic smem rounded up to the swizzle period */

/* The tile table: (BN, stages, cluster).  Each stage holds A (128 x 128
 * bytes) and B (BN x 128 bytes): 32 KiB for BN = 128 (6 stages, 192 KiB),
 * 48 KiB for BN = 256 (4 stages, 192 KiB), under the 227 KiB an H100 CTA
 * may have.  cluster 2: two CTAs on tile rows 2i and 2i+1 of one tile
 * column share B, each loading half of it and multicasting it to both. */
#define F8B_KGEMM_TILE_LIST(X) X(128, 6, 1) X(256, 4, 1) X(256, 4, 2)

__host__ __device__ constexpr int stage_bytes(int bn)
{
	return (BM + bn) * BK;
}

__host__ __device__ constexpr int smem_bytes(int bn, int stages)
{
	return stages * stage_bytes(bn) + ALIGN_SLACK + 2 * stages * 8;
}

template <int BN, int STAGES, int CL, int AT, int BT, typename OutT>
__global__ void __launch_bounds__(THREADS, 1)
    tensorwise_kernel(const __grid_constant__ CUtensorMap tmap_a,
                      const __grid_constant__ CUtensorMap tmap_b, const float *a_scale_inv,
                      const float *b_scale_inv, void *d_out, int m, int n, int k)
{
#ifdef F8B_GEMM_SM90A
	/* Arrivals that free a stage: every consumer warp of the cluster (a
	 * stage of B is written into both CTAs by each one's producer). */
	constexpr int CONSUMER_WARPS = 8 * CL;
	constexpr uint32_t B_PART = (BN / CL) * BK; /* bytes of B each CTA loads */
	constexpr int PRODUCER_REGS = 40; /* setmaxnreg: 128 x 40 + 256 x 232 = 64512 <= 65536 */
	constexpr int CONSUMER_REGS = 232;
	constexpr uint32_t A_BYTES = BM * BK, STAGE = stage_bytes(BN);
	extern __shared__ uint8_t smem_raw[];
	const uint32_t base =
	    (f8b_smem_u32(smem_raw) + (ALIGN_SLACK - 1)) & ~(uint32_t)(ALIGN_SLACK - 1);
	const uint32_t bars = base + STAGES * STAGE;
	/* full[s] at bars + 8 s, empty[s] at bars + 8 (STAGES + s) */
	const int wg = threadIdx.x / 128;
	/* A cluster takes CL tile rows of one tile column at a time. */
	const f8b_gemm_sched sched(m, n, BM * CL, BN);
	const int kblocks = (k + BK - 1) / BK;
	const uint32_t rank = CL > 1 ? f8b_cluster_ctarank() : 0;
	const int cluster = blockIdx.x / CL, clusters = gridDim.x / CL;

	if (threadIdx.x == 0) {
		for (int s = 0; s < STAGES; s++) {
			f8b_mbarrier_init(bars + 8 * s, 1); /* the producer's arrive.expect_tx */
			f8b_mbarrier_init(bars + 8 * (STAGES + s), CONSUMER_WARPS);
		}
		f8b_fence_barrier_init();
	}
	/* The last block-wide barrier: roles split below.  In a cluster the
	 * peer's barriers must be initialised before anything lands in them. */
	if constexpr (CL > 1)
		f8b_cluster_sync();
	else
		__syncthreads();

	if (wg == 0) {
		f8b_setmaxnreg_dec<PRODUCER_REGS>();
		if (threadIdx.x != 0)
			return;
		f8b_tma_prefetch_desc(&tmap_a);
		f8b_tma_prefetch_desc(&tmap_b);
		uint32_t it = 0;
		for (int t = cluster; t < sched.tiles; t += clusters) {
			int stm, tn;
			sched.tile(t, stm, tn);
			const int tm = stm * CL + (int)rank;
			for (int kb = 0; kb < kblocks; kb++, it++) {
				const uint32_t s = it % STAGES, phase = (it / STAGES) & 1;
				const uint32_t full = bars + 8 * s, empty = bars + 8 * (STAGES + s);
				const uint32_t sa = base + s * STAGE, sb = sa + A_BYTES;
				f8b_mbarrier_wait(empty, phase ^ 1);
				/* Whole boxes count, out-of-bounds parts (zeros) included;
				 * in a cluster all of B lands here, half from the peer. */
				f8b_mbarrier_arrive_expect_tx(full, STAGE);
				f8b_tma_load_2d(sa, &tmap_a, full, kb * BK, tm * BM);
				if constexpr (CL == 1)
					f8b_tma_load_2d(sb, &tmap_b, full, kb * BK, tn * BN);
				else
					f8b_tma_load_2d_multicast(sb + rank * B_PART, &tmap_b, full,
					                          kb * BK,
					                          tn * BN + (int)rank * (BN / CL),
					                          (uint16_t)((1u << CL) - 1));
			}
		}
		if constexpr (CL > 1) {
			/* Stay until both CTAs' consumers have released every stage:
			 * the peer still arrives on our barriers and reads what we
			 * multicast into its memory until then. */
			for (int j = 0; j < STAGES; j++, it++)
				f8b_mbarrier_wait(bars + 8 * (STAGES + it % STAGES),
				                  ((it / STAGES) & 1) ^ 1);
		}
		return;
	}

	f8b_setmaxnreg_inc<CONSUMER_REGS>();
	const int cw = wg - 1; /* which 64 rows of the tile */
	const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
	const float scale = a_scale_inv[0] * b_scale_inv[0];
	const bool pairs = (n & 1) == 0; /* a pair (col, col+1) is 2-element aligned */
	float acc[BN / 2];
	uint32_t it = 0;

#pragma unroll
	for (int i = 0; i < BN / 2; i++)
		acc[i] = 0.0f;
	/* Free a stage: one arrival per consumer warp on the stage's empty
	 * barrier of every CTA of the cluster. */
	auto release = [&](uint32_t empty) {
		if (lane != 0)
			return;
		if constexpr (CL == 1)
			f8b_mbarrier_arrive(empty);
		else
			for (uint32_t r = 0; r < (uint32_t)CL; r++)
				f8b_mbarrier_arrive_cluster(f8b_mapa_shared(empty, r));
	};
	for (int t = cluster; t < sched.tiles; t += clusters) {
		int stm, tn;
		sched.tile(t, stm, tn);
		const int tm = stm * CL + (int)rank;
		uint32_t prev_empty = 0;
		for (int kb = 0; kb < kblocks; kb++, it++) {
			const uint32_t s = it % STAGES, phase = (it / STAGES) & 1;
			const uint32_t sa = base + s * STAGE + cw * (64 * BK),
			               sb = base + s * STAGE + A_BYTES;
			f8b_mbarrier_wait(bars + 8 * s, phase);
#pragma unroll
			for (int i = 0; i < BN / 2; i++)
				f8b_reg_fence(acc[i]);
			f8b_wgmma_fence();
			const uint64_t da = f8b_desc_sw128_kmajor(sa),
			               db = f8b_desc_sw128_kmajor(sb);
#pragma unroll
			for (int kk = 0; kk < BK / 32; kk++) {
				/* 32 bytes of K further along the swizzled rows: +2 in
				 * the descriptor's address field (bytes >> 4). */
				f8b_wgmma<BN, AT, BT>::mma(acc, da + 2 * kk, db + 2 * kk,
				                           (kb > 0 || kk > 0) ? 1u : 0u);
			}
			f8b_wgmma_commit_group();
#pragma unroll
			for (int i = 0; i < BN / 2; i++)
				f8b_reg_fence(acc[i]);
			if (kb > 0) {
				/* The previous K-block's group is done: its stage is free. */
				f8b_wgmma_wait_group<1>();
				release(prev_empty);
			}
			prev_empty = bars + 8 * (STAGES + s);
		}
		f8b_wgmma_wait_group<0>();
#pragma unroll
		for (int i = 0; i < BN / 2; i++)
			f8b_reg_fence(acc[i]);
		release(prev_empty);

		/* Epilogue: the m64nBNk32 fragment (ptx/wgmma.cuh), scaled once
		 * as (sa * sb) * acc, rounded once to the output type. */
		OutT *d = static_cast<OutT *>(d_out);
		const int row0 = tm * BM + cw * 64 + warp * 16 + lane / 4;
		const int colb = tn * BN + 2 * (lane % 4);
#pragma unroll
		for (int j = 0; j < BN / 8; j++) {
			const int col = colb + 8 * j;
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int row = row0 + 8 * h;
				const float v0 = acc[4 * j + 2 * h] * scale;
				const float v1 = acc[4 * j + 2 * h + 1] * scale;
				if (row >= m || col >= n)
					continue;
				OutT *p = d + (size_t)row * (size_t)n + col;
				if (col + 1 < n && pairs) {
					if constexpr (sizeof(OutT) == 2)
						*reinterpret_cast<__nv_bfloat162 *>(p) =
						    __floats2bfloat162_rn(v0, v1);
					else
						*reinterpret_cast<float2 *>(p) =
						    make_float2(v0, v1);
				} else {
					p[0] = static_cast<OutT>(v0);
					if (col + 1 < n)
						p[1] = static_cast<OutT>(v1);
				}
			}
		}
	}
#else
	(void)tmap_a;
	(void)tmap_b;
	(void)a_scale_inv;
	(void)b_scale_inv;
	(void)d_out;
	(void)m;
	(void)n;
	(void)k;
#endif
}

typedef void (*kernel_fn)(const CUtensorMap, const CUtensorMap, const float *, const float *,
                          void *, int, int, int);

template <int BN, int STAGES, int CL, typename OutT> kernel_fn pick_ab(int a, int b)
{
	if (a == F8B_E4M3 && b == F8B_E4M3)
		return tensorwise_kernel<BN, STAGES, CL, F8B_WG_E4M3, F8B_WG_E4M3, OutT>;
	if (a == F8B_E4M3 && b == F8B_E5M2)
		return tensorwise_kernel<BN, STAGES, CL, F8B_WG_E4M3, F8B_WG_E5M2, OutT>;
	if (a == F8B_E5M2 && b == F8B_E4M3)
		return tensorwise_kernel<BN, STAGES, CL, F8B_WG_E5M2, F8B_WG_E4M3, OutT>;
	return nullptr; /* e5m2 x e5m2: no fp8 GEMM takes it (doc/gemm.md) */
}

template <int BN, int STAGES, int CL> kernel_fn pick_out(int a, int b, int out)
{
	if (out == F8B_BF16)
		return pick_ab<BN, STAGES, CL, __nv_bfloat16>(a, b);
	if (out == F8B_F32)
		return pick_ab<BN, STAGES, CL, float>(a, b);
	return nullptr;
}

kernel_fn pick(int tile, int a, int b, int out)
{
	int i = 0;
#define F8B_PICK(BN, ST, CL)                                                                       \
	if (tile == i++)                                                                           \
		return pick_out<BN, ST, CL>(a, b, out);
	F8B_KGEMM_TILE_LIST(F8B_PICK)
#undef F8B_PICK
	return nullptr;
}

} // namespace

#define F8B_TILE_ENTRY(BN, ST, CL)                                                                 \
	{BM, BN, BK, ST, THREADS, smem_bytes(BN, ST), CL, "128x" #BN "x128/c" #CL},
extern "C" const struct f8b_kgemm_tile f8b_kgemm_tiles[] = {F8B_KGEMM_TILE_LIST(F8B_TILE_ENTRY)};
#undef F8B_TILE_ENTRY
extern "C" const int f8b_kgemm_ntiles = sizeof f8b_kgemm_tiles / sizeof f8b_kgemm_tiles[0];

extern "C" int f8b_kgemm_prepare(int tile, int *ptx_version)
{
	static const int dts[][2] = {
	    {F8B_E4M3, F8B_E4M3}, {F8B_E4M3, F8B_E5M2}, {F8B_E5M2, F8B_E4M3}};
	static const int outs[] = {F8B_BF16, F8B_F32};

	*ptx_version = 0;
	if (tile < 0 || tile >= f8b_kgemm_ntiles)
		return (int)cudaErrorInvalidValue;
	for (const auto &dt : dts)
		for (int out : outs) {
			kernel_fn fn = pick(tile, dt[0], dt[1], out);
			cudaFuncAttributes attr;
			cudaError_t e = cudaFuncSetAttribute(
			    (const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
			    f8b_kgemm_tiles[tile].smem_bytes);
			if (e == cudaSuccess)
				e = cudaFuncGetAttributes(&attr, (const void *)fn);
			if (e != cudaSuccess)
				return (int)e;
			*ptx_version = attr.ptxVersion;
		}
	return (int)cudaSuccess;
}

extern "C" int f8b_kgemm_tensorwise(int tile, int a_dtype, int b_dtype, int out_dtype,
                                    const void *tmap_a, const void *tmap_b,
                                    const float *a_scale_inv, const float *b_scale_inv, void *d,
                                    int m, int n, int k, int grid, cudaStream_t stream)
{
	kernel_fn fn = pick(tile, a_dtype, b_dtype, out_dtype);
	if (!fn || grid < 1)
		return (int)cudaErrorInvalidValue;
	CUtensorMap ta, tb;
	memcpy(&ta, tmap_a, sizeof ta);
	memcpy(&tb, tmap_b, sizeof tb);
	void *args[] = {&ta, &tb, &a_scale_inv, &b_scale_inv, &d, &m, &n, &k};
	const int cl = f8b_kgemm_tiles[tile].cluster;
	if (cl == 1)
		return (int)cudaLaunchKernel((const void *)fn, dim3((unsigned)grid), dim3(THREADS),
		                             args, (size_t)f8b_kgemm_tiles[tile].smem_bytes,
		                             stream);
	if (grid % cl)
		return (int)cudaErrorInvalidValue;
	cudaLaunchAttribute attr[1];
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = (unsigned)cl;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)grid);
	cfg.blockDim = dim3(THREADS);
	cfg.dynamicSmemBytes = (size_t)f8b_kgemm_tiles[tile].smem_bytes;
	cfg.stream = stream;
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	return (int)cudaLaunchKernelExC(&cfg, (const void *)fn, args);
}
