/* sm90_fp8_gemm_kernel.cuh - f8bench's own Hopper fp8 GEMM: the kernel
 * template every variant is compiled from (doc/gemm-kernels.md has the
 * pictures).  Included by one .cu file per accumulation mode
 * (sm90_fp8_gemm_{fast,promote,blockwise}.cu), each instantiating the
 * tiles of F8B_KGEMM_TILE_LIST that list its mode, so the variants compile
 * in parallel.
 *
 * One persistent CTA per SM, 384 threads in three warpgroups:
 *   warpgroup 0 (producer): gives registers back (setmaxnreg.dec 40); one
 *     thread walks the CTA's tiles and K-blocks, waits for a free stage of
 *     the ring (empty barrier), arms the stage's full barrier with the
 *     bytes to expect, and issues two TMA loads into it (A: 128 x 128
 *     bytes, B: BN x 128 bytes, 128-byte swizzled); BLOCK_1X128 on
 *     128x256: a warp, which also copies the K-block's column scales of
 *     B into the scale ring (F8B_KGEMM_SMEM_SCALES);
 *   warpgroups 1 and 2 (consumers): take registers (setmaxnreg.inc 232);
 *     each owns 64 rows of the 128-row tile and all BN columns.  Per
 *     K-block (128 of K, one stage): wait for the stage (full barrier),
 *     issue four wgmma m64nBNk32 (K = 4 x 32 = 128) and commit them; then
 *       FAST: wait until only this group is in flight and free the
 *         previous stage (the accumulator runs on over all of K);
 *       PROMOTE / BLOCK / BLOCK_1X128: the four wgmma write a partial
 *         accumulator (the first with scale-d = 0); wait for the group,
 *         free its stage, and add the partial into the fp32 accumulator
 *         (times the K-block's scales for the block modes).  At BN = 128
 *         (PROMOTE, BLOCK: F8B_KGEMM_OVERLAPS) the next K-block is issued
 *         into a second partial first, so the adds overlap it; at BN =
 *         256 each K-block runs as two n128 halves, each waited for and
 *         added in turn; else the other consumer warpgroup's wgmma may
 *         fill the gap.
 *     After the tile's last K-block: scale (FAST, PROMOTE), convert and
 *     store D from registers.
 * The ring's stage and phase run on across tiles, so the producer loads
 * the next tile while the consumers store this one.
 * The ping-pong schedule (FAST, sm90_fp8_gemm_pingpong.cuh) has the same
 * producer; its consumers take the CTA's tiles in turn, each a whole
 * 128 x BN tile, so one stores while the other's wgmma run.
 *
 * K not a multiple of 128 and M, N not multiples of the tile: TMA fills
 * the out-of-bounds part of a box with zeros (adding nothing to the sums);
 * the stores are guarded, scale reads clamped.  The host
 * (src/backend/cuda_gemm_f8b.c) refuses what TMA cannot address (K not a
 * multiple of 16: row strides must be 16-byte multiples).
 *
 * The kernel body exists only in the sm_90a image (wgmma, setmaxnreg and
 * TMA are sm_90a features); the compute_89 PTX the build also embeds gets
 * an empty body, and f8b_kgemm_prepare() tells the host which it has.
 */
#ifndef F8B_GEMM_SM90_FP8_GEMM_KERNEL_CUH
#define F8B_GEMM_SM90_FP8_GEMM_KERNEL_CUH

#include "../kernels_internal.cuh"
#include "gemm.h"
#include "common/smem.cuh"
#include "ptx/barrier.cuh"
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

constexpr int F8B_KG_BM = 128;      /* 2 consumer warpgroups x 64 rows */
constexpr int F8B_KG_BK = 128;      /* bytes of K per stage: one 128-byte swizzle row */
constexpr int F8B_KG_THREADS = 384; /* producer + 2 consumer warpgroups */
/* Dynamic shared memory is declared 128-byte aligned, and its base is
 * rounded up to the swizzle period (F8B_SW128_GROUP_BYTES, 1024): at most
 * 896 bytes of it lie below the first stage. */
constexpr int F8B_KG_SMEM_ALIGN = 128;
constexpr int F8B_KG_ALIGN_SLACK = (int)F8B_SW128_GROUP_BYTES - F8B_KG_SMEM_ALIGN;
constexpr int F8B_KG_SBLK = 128; /* rows and K of a scale block */
/* The TMA-store epilogue (sm90_fp8_gemm_epilogue.cuh): boxes of 64 rows x
 * 128 bytes, up to two a consumer warpgroup, and the warpgroups' named
 * barriers (the ping-pong schedule's are 1 and 2). */
constexpr int F8B_KG_EPI_BOX_BYTES = 64 * 128;
constexpr int F8B_KG_EPI_BAR = 3;       /* 3 for consumer 0, 4 for consumer 1 */
constexpr int F8B_KG_SMEM_MAX = 232448; /* 227 KiB: an sm_90 CTA's opt-in maximum */

/* 1: the promoting halves form overlaps each tile's epilogue with the next
 * tile's first wgmma group (f8b_kg_consumer_ov::tile_overlapped); 0 builds
 * it without, for an A/B (scripts/gemm-bisect.sh's variant noov). */
#ifndef F8B_KG_EPIOV
#define F8B_KG_EPIOV 1
#endif

#define F8B_KG_FAST  (1u << F8B_KGEMM_FAST)
#define F8B_KG_PROMO (1u << F8B_KGEMM_PROMOTE)
#define F8B_KG_BLK   (1u << F8B_KGEMM_BLOCK)
#define F8B_KG_BLK1  (1u << F8B_KGEMM_BLOCK_1X128)

/* Schedules of the consumer warpgroups (struct f8b_kgemm_tile's sched):
 * COOP, both on one 128 x BN tile, 64 rows each; PP (ping-pong, FAST
 * only), each on whole tiles in turn (sm90_fp8_gemm_pingpong.cuh). */
#define F8B_KG_COOP F8B_KGEMM_SCHED_COOP
#define F8B_KG_PP   F8B_KGEMM_SCHED_PINGPONG

/* The tile table: (BN, stages, cluster, schedule, modes, e4m3_modes).
 * e4m3_modes: the modes also compiled with an e4m3 D (e4m3 x e4m3 only,
 * with its amax: doc/gemm-kernels.md "fp8 output"), so far FAST and
 * PROMOTE of the 128x128 and 128x256 tiles without a cluster, four
 * kernels.  Each stage holds A (128 x
 * 128 bytes) and B (BN x 128 bytes): 32 KiB for BN = 128 (6 stages, 192
 * KiB), 40 KiB for BN = 192 (5 stages, 200 KiB), 48 KiB for BN = 256 (4
 * stages, 192 KiB), under the 227 KiB an H100 CTA may have, beside the
 * epilogue's boxes (2 x 2 x 8 KiB; 2 x 1 x 8 KiB beside 128x192's 200
 * KiB of ring).  cluster 2:
 * two CTAs on tile rows 2i and 2i+1 of one tile column share B, each
 * loading half of it and multicasting it to both.  Promotion holds two
 * accumulator sets (BN/2 + BN/2 registers a thread), so its tiles are at
 * most 192 wide, but for 128x256, which promotes each K-block as two
 * n128 halves into one BN/4 partial (the halves form, the fastest
 * promoting tile measured: doc/gemm-kernels.md); BLOCK_1X128 holds BN/4
 * column scales a thread at 128x128, and has its own 128x256 entry, in
 * halves, whose column scales the producer stages in shared memory
 * (F8B_KGEMM_SMEM_SCALES: a ring of 4 x 1 KiB beside the stages, so one
 * epilogue box a consumer).  BLOCK on 128x256 reads A's row scales from
 * a ring of 4 x 512 bytes the producer copies with each stage
 * (F8B_KGEMM_SMEM_ROWSCALES), which fits beside two boxes a consumer
 * with the 896-byte alignment slack: 3-6% faster than reading them from
 * global memory at six of eight shapes on an H100
 * (results/h100/experiments/f8b-gemm-block-cost/, call 8).
 * The ping-pong tile (last) gives each consumer a whole 128 x 128 tile
 * (2 x 64 accumulators a thread); an --autotune candidate only.  Cluster
 * tiles of promotion (128x128/c2, 128x192/c2) were measured no faster
 * than their single-CTA forms on an H100 (958 and 968 TFLOP/s at 4096^3
 * against 1022 and 977; 917 and 1022 at 8192^3 against 960 and 1029:
 * results/h100/experiments/f8b-gemm-tma-store/) and are not built. */
#define F8B_KGEMM_TILE_LIST(X)                                                                     \
	X(128, 6, 1, F8B_KG_COOP, F8B_KG_FAST | F8B_KG_PROMO | F8B_KG_BLK | F8B_KG_BLK1,           \
	  F8B_KG_FAST | F8B_KG_PROMO)                                                              \
	X(256, 4, 1, F8B_KG_COOP, F8B_KG_FAST | F8B_KG_PROMO | F8B_KG_BLK,                         \
	  F8B_KG_FAST | F8B_KG_PROMO)                                                              \
	X(256, 4, 2, F8B_KG_COOP, F8B_KG_FAST, 0)                                                  \
	X(192, 5, 1, F8B_KG_COOP, F8B_KG_PROMO | F8B_KG_BLK, 0)                                    \
	X(256, 4, 1, F8B_KG_COOP, F8B_KG_BLK1, 0)                                                  \
	X(128, 6, 1, F8B_KG_PP, F8B_KG_FAST, 0)

__host__ __device__ constexpr int f8b_kg_stage_bytes(int bn)
{
	return (F8B_KG_BM + bn) * F8B_KG_BK;
}

/* Bytes of the scale ring of a tile entry listing `modes`: BN floats a
 * stage where one of its variants reads B's column scales from shared
 * memory (F8B_KGEMM_SMEM_SCALES), 128 where one reads A's row scales
 * there (F8B_KGEMM_SMEM_ROWSCALES), else none.  A kernel passes its own
 * mode's bit. */
__host__ __device__ constexpr int f8b_kg_scale_ring(int bn, int stages, unsigned modes)
{
	return ((modes >> F8B_KGEMM_BLOCK_1X128) & 1u) &&
	               F8B_KGEMM_SMEM_SCALES(bn, F8B_KGEMM_BLOCK_1X128)
	           ? stages * bn * 4
	       : ((modes >> F8B_KGEMM_BLOCK) & 1u) && F8B_KGEMM_SMEM_ROWSCALES(bn, F8B_KGEMM_BLOCK)
	           ? stages * 128 * 4
	           : 0;
}

/* Boxes of the epilogue a consumer warpgroup: two where they fit beside
 * the ring and the scale ring (every tile but 128x192's five stages and
 * BLOCK_1X128's 128x256; BLOCK's 128x256 with 64 bytes to spare), else
 * one. */
__host__ __device__ constexpr int f8b_kg_epi_bufs(int bn, int stages, int scl)
{
	return stages * f8b_kg_stage_bytes(bn) + scl + 4 * F8B_KG_EPI_BOX_BYTES +
	                   F8B_KG_ALIGN_SLACK + 2 * stages * 8 <=
	               F8B_KG_SMEM_MAX
	           ? 2
	           : 1;
}

/* The ring, the two warpgroups' epilogue boxes, the scale ring (scl
 * bytes), the alignment slack and the full and empty barriers. */
__host__ __device__ constexpr int f8b_kg_smem_bytes(int bn, int stages, int scl)
{
	return stages * f8b_kg_stage_bytes(bn) +
	       2 * f8b_kg_epi_bufs(bn, stages, scl) * F8B_KG_EPI_BOX_BYTES + scl +
	       F8B_KG_ALIGN_SLACK + 2 * stages * 8;
}

typedef void (*f8b_kgemm_fn)(const CUtensorMap, const CUtensorMap, const CUtensorMap,
                             const CUtensorMap, const f8b_kgemm_args);

/* Per .cu file: the variant of (tile, a, b, out) in that file's mode, or
 * nullptr when the tile has none (out F8B_E4M3: only where the tile lists
 * the mode in e4m3_modes, and only for e4m3 x e4m3). */
f8b_kgemm_fn f8b_kgemm_pick_fast(int tile, int a, int b, int out);
f8b_kgemm_fn f8b_kgemm_pick_promote(int tile, int a, int b, int out);
f8b_kgemm_fn f8b_kgemm_pick_blockwise(int tile, int mode, int a, int b, int out);

#include "sm90_fp8_gemm_epilogue.cuh"
#include "sm90_fp8_gemm_scales.cuh"
#include "sm90_fp8_gemm_consumer.cuh"
#include "sm90_fp8_gemm_overlap.cuh"
#include "sm90_fp8_gemm_pingpong.cuh"

template <int BN, int STAGES, int CL, int SCHED, int MODE, int AT, int BT, typename OutT>
__global__ void __launch_bounds__(F8B_KG_THREADS, 1)
    f8b_fp8_gemm_kernel(const __grid_constant__ CUtensorMap tmap_a,
                        const __grid_constant__ CUtensorMap tmap_b,
                        const __grid_constant__ CUtensorMap tmap_d,
                        const __grid_constant__ CUtensorMap tmap_t, const f8b_kgemm_args p)
{
#ifdef F8B_GEMM_SM90A
	constexpr int BM = F8B_KG_BM, BK = F8B_KG_BK;
	static_assert(SCHED == F8B_KG_COOP || (MODE == F8B_KGEMM_FAST && CL == 1),
	              "ping-pong: FAST, no cluster");
	static_assert(sizeof(OutT) > 1 || SCHED == F8B_KG_COOP,
	              "an e4m3 D: the cooperative consumer's epilogue (its amax flush)");
	/* Arrivals that free a stage: every consumer warp of the cluster (a
	 * stage of B is written into both CTAs by each one's producer); in
	 * ping-pong the 4 warps of the one consumer that reads it. */
	constexpr int CONSUMER_WARPS = SCHED == F8B_KG_PP ? 4 : 8 * CL;
	constexpr uint32_t B_PART = (BN / CL) * BK; /* bytes of B each CTA loads */
	/* setmaxnreg: 128 x 40 + 256 x 232 = 64512 <= 65536; promotion at BN
	 * = 192 (2 x 96 accumulators a thread) and in halves takes 128 x 24 +
	 * 256 x 240, but for BLOCK_1X128's halves, which spilled 4-20 bytes
	 * at 24 / 240 and whose consumers fit 232 (ptxas -v). */
	constexpr bool WIDE =
	    MODE != F8B_KGEMM_FAST && BN > 128 && !F8B_KGEMM_SMEM_SCALES(BN, MODE);
	constexpr int PRODUCER_REGS = WIDE ? 24 : 40;
	constexpr int CONSUMER_REGS = WIDE ? 240 : 232;
	constexpr uint32_t A_BYTES = BM * BK, STAGE = f8b_kg_stage_bytes(BN);
	/* The consumers' scale rings (sm90_fp8_gemm_scales.cuh), which the
	 * producer fills: COLSC, B's column scales (BLOCK_1X128 in halves);
	 * ROWSC, A's row scales (BLOCK in halves); SCRING, either. */
	using scales = f8b_kg_scales<BN, MODE>;
	constexpr bool COLSC = scales::COLSC, ROWSC = scales::ROWSC, SCRING = scales::SCRING;
	constexpr int SCL = f8b_kg_scale_ring(BN, STAGES, 1u << MODE);
	static_assert(!SCRING || (CL == 1 && SCHED == F8B_KG_COOP), "scale ring: one CTA, COOP");
	constexpr int EPI_BUFS = f8b_kg_epi_bufs(BN, STAGES, SCL);
	static_assert(f8b_kg_smem_bytes(BN, STAGES, SCL) <= F8B_KG_SMEM_MAX, "shared memory");
	extern __shared__ __align__(F8B_KG_SMEM_ALIGN) uint8_t smem_raw[];
	const uint32_t base =
	    (f8b_smem_u32(smem_raw) + (F8B_SW128_GROUP_BYTES - 1)) & ~(F8B_SW128_GROUP_BYTES - 1);
	if (base - f8b_smem_u32(smem_raw) > (uint32_t)F8B_KG_ALIGN_SLACK)
		__trap(); /* the declared alignment not honoured: past the CTA's bytes */
	/* ring | consumer 0's epilogue boxes | consumer 1's | scale ring |
	 * barriers; every stage and box 1024-aligned (the 128-byte swizzle's
	 * period) */
	const uint32_t epi = base + STAGES * STAGE;
	const uint32_t scl = epi + 2 * EPI_BUFS * F8B_KG_EPI_BOX_BYTES;
	const uint32_t bars = scl + SCL;
	/* full[s] at bars + 8 s, empty[s] at bars + 8 (STAGES + s) */
	/* The warpgroup, broadcast from lane 0 so that the compiler knows it is
	 * the same in every lane: the wgmma descriptors built from it (the
	 * consumer's rows of A in each stage) are then computed in uniform
	 * registers, where a QGMMA reads them, not in each thread's registers
	 * and moved over (R2UR) before every group.  Promotion is 2-4% faster
	 * (results/h100/experiments/f8b-gemm-uniform/). */
	const int wg = __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0);
	/* A cluster takes CL tile rows of one tile column at a time. */
	const f8b_gemm_sched sched(p.m, p.n, BM * CL, BN);
	const int kblocks = (p.k + BK - 1) / BK;
	const uint32_t rank = CL > 1 ? f8b_cluster_ctarank() : 0;
	const int cluster = blockIdx.x / CL, clusters = gridDim.x / CL;

	if constexpr (SCRING) {
		/* The scale ring zeroed once: a last tile column short of BN
		 * columns copies fewer scales, and its columns past N (zero
		 * partials, never stored) then read a zero or an earlier
		 * stage's scale, never uninitialised memory.  Generic writes
		 * that the bulk copies overwrite: fenced for the async proxy. */
		for (int i = threadIdx.x; i < SCL / 4; i += F8B_KG_THREADS)
			f8b_st_shared_f32(scl + 4 * i, 0.0f);
		f8b_fence_proxy_async_smem();
	}
	if (threadIdx.x == 0) {
		/* COLSC: the stage's scales come with its boxes (one bulk copy
		 * on the same full barrier), but the consumers read them with
		 * plain loads, so each reader arrives on the empty barrier after
		 * its reads: every consumer thread (an arrival orders only its
		 * own thread's accesses; compute-sanitizer's racecheck holds it
		 * to that). */
		for (int s = 0; s < STAGES; s++) {
			/* the producer's arrive.expect_tx */
			f8b_mbarrier_init(bars + 8 * s, 1);
			f8b_mbarrier_init(bars + 8 * (STAGES + s),
			                  CONSUMER_WARPS * (SCRING ? 32 : 1));
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
		/* One thread. */
		if (threadIdx.x != 0)
			return;
		f8b_tma_prefetch_desc(&tmap_a);
		f8b_tma_prefetch_desc(&tmap_b);
		if (p.tma_store)
			f8b_tma_prefetch_desc(&tmap_d);
		if (p.tma_t)
			f8b_tma_prefetch_desc(&tmap_t);
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
				 * in a cluster all of B lands here, half from the peer.
				 * COLSC: and B's scales of K-block kb for the tile's
				 * columns inside N (b_scale_inv[kb * N + n]: 64-byte
				 * multiples, N being a multiple of 16; the host checks
				 * the pointer's 16-byte alignment), one bulk copy. */
				const uint32_t sbytes =
				    COLSC   ? 4u * (uint32_t)min(BN, p.n - tn * BN)
				    : ROWSC ? 4u * (uint32_t)min(BM, p.m - tm * BM)
				            : 0u;
				f8b_mbarrier_arrive_expect_tx(full, STAGE + sbytes);
				f8b_tma_load_2d(sa, &tmap_a, full, kb * BK, tm * BM);
				if constexpr (CL == 1)
					f8b_tma_load_2d(sb, &tmap_b, full, kb * BK, tn * BN);
				else
					f8b_tma_load_2d_multicast(sb + rank * B_PART, &tmap_b, full,
					                          kb * BK,
					                          tn * BN + (int)rank * (BN / CL),
					                          (uint16_t)((1u << CL) - 1));
				if constexpr (COLSC)
					f8b_bulk_load(scl + s * (BN * 4),
					              p.b_scale_inv + (size_t)kb * (size_t)p.n +
					                  (size_t)tn * BN,
					              sbytes, full);
				/* ROWSC: A's scales of K-block kb for the tile's rows
				 * inside M (a_scale_inv[kb * M + m]: M a multiple of 16),
				 * one bulk copy. */
				if constexpr (ROWSC)
					f8b_bulk_load(scl + s * (BM * 4),
					              p.a_scale_inv + (size_t)kb * (size_t)p.m +
					                  (size_t)tm * BM,
					              sbytes, full);
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
	if constexpr (SCHED == F8B_KG_PP) {
		/* Consumer wg - 1 takes tiles j = wg - 1, wg + 1, ... of the
		 * CTA's sequence t_j = blockIdx.x + j * gridDim.x. */
		f8b_kg_pp_consumer<BN, STAGES, EPI_BUFS, AT, BT, OutT> c(
		    p, base, bars, epi + (wg - 1) * EPI_BUFS * F8B_KG_EPI_BOX_BYTES, &tmap_d,
		    wg - 1);
		uint32_t j = (uint32_t)(wg - 1);
		for (int t = blockIdx.x + (wg - 1) * gridDim.x; t < sched.tiles;
		     t += 2 * gridDim.x, j += 2) {
			int tm, tn;
			sched.tile(t, tm, tn);
			c.tile(j, tm, tn, kblocks, t + (int)gridDim.x < sched.tiles,
			       t + 2 * (int)gridDim.x >= sched.tiles);
		}
	} else if constexpr (f8b_kg_consumer<BN, STAGES, CL, MODE, EPI_BUFS, AT, BT, OutT>::EPIOV) {
		/* Each tile's epilogue overlapped with the next tile's first
		 * group (sm90_fp8_gemm_overlap.cuh; CL == 1: the tile row is
		 * stm) */
		f8b_kg_consumer_ov<BN, STAGES, CL, MODE, EPI_BUFS, AT, BT, OutT> c(
		    p, base, bars, epi + (wg - 1) * EPI_BUFS * F8B_KG_EPI_BOX_BYTES, scl, &tmap_d,
		    &tmap_t, wg - 1);
		int tm = 0, tn = 0;
		if (cluster < sched.tiles)
			sched.tile(cluster, tm, tn);
		c.first_prologue(cluster < sched.tiles);
		for (int t = cluster; t < sched.tiles; t += clusters) {
			const bool last = t + clusters >= sched.tiles;
			int ntm = tm, ntn = tn;
			if (!last)
				sched.tile(t + clusters, ntm, ntn);
			c.tile_overlapped(tm, tn, kblocks, last, ntm, ntn);
			tm = ntm;
			tn = ntn;
		}
	} else {
		f8b_kg_consumer<BN, STAGES, CL, MODE, EPI_BUFS, AT, BT, OutT> c(
		    p, base, bars, epi + (wg - 1) * EPI_BUFS * F8B_KG_EPI_BOX_BYTES, scl, &tmap_d,
		    &tmap_t, wg - 1);
		for (int t = cluster; t < sched.tiles; t += clusters) {
			int stm, tn;
			sched.tile(t, stm, tn);
			c.tile(stm * CL + (int)rank, tn, kblocks, t + clusters >= sched.tiles);
		}
	}
#else
	(void)tmap_a;
	(void)tmap_b;
	(void)tmap_d;
	(void)tmap_t;
	(void)p;
#endif
}

/* The variant of one tile entry for dtypes (a, b) and output out. */
template <int BN, int STAGES, int CL, int SCHED, int MODE, typename OutT>
f8b_kgemm_fn f8b_kg_pick_ab(int a, int b)
{
	if (a == F8B_E4M3 && b == F8B_E4M3)
		return f8b_fp8_gemm_kernel<BN, STAGES, CL, SCHED, MODE, F8B_WG_E4M3, F8B_WG_E4M3,
		                           OutT>;
	if (a == F8B_E4M3 && b == F8B_E5M2)
		return f8b_fp8_gemm_kernel<BN, STAGES, CL, SCHED, MODE, F8B_WG_E4M3, F8B_WG_E5M2,
		                           OutT>;
	if (a == F8B_E5M2 && b == F8B_E4M3)
		return f8b_fp8_gemm_kernel<BN, STAGES, CL, SCHED, MODE, F8B_WG_E5M2, F8B_WG_E4M3,
		                           OutT>;
	return nullptr; /* e5m2 x e5m2: no fp8 GEMM takes it (doc/gemm.md) */
}

template <int MODE> f8b_kgemm_fn f8b_kg_pick_mode(int tile, int a, int b, int out)
{
	int i = 0;
#define F8B_KG_PICK(BN, ST, CL, SCHED, MODES, E8MODES)                                             \
	if (tile == i++) {                                                                         \
		static_assert(((E8MODES) & ~(MODES)) == 0, "e4m3_modes within modes");             \
		if constexpr (((MODES) >> MODE) & 1u) {                                            \
			if (out == F8B_BF16)                                                       \
				return f8b_kg_pick_ab<BN, ST, CL, SCHED, MODE, __nv_bfloat16>(a,   \
				                                                              b);  \
			if (out == F8B_F32)                                                        \
				return f8b_kg_pick_ab<BN, ST, CL, SCHED, MODE, float>(a, b);       \
		}                                                                                  \
		if constexpr (((E8MODES) >> MODE) & 1u) {                                          \
			if (out == F8B_E4M3 && a == F8B_E4M3 && b == F8B_E4M3)                     \
				return f8b_fp8_gemm_kernel<BN, ST, CL, SCHED, MODE, F8B_WG_E4M3,   \
				                           F8B_WG_E4M3, __nv_fp8_e4m3>;            \
		}                                                                                  \
		return nullptr;                                                                    \
	}
	F8B_KGEMM_TILE_LIST(F8B_KG_PICK)
#undef F8B_KG_PICK
	return nullptr;
}

#endif
