/* ptx_selftest.cu - each layer of the sm_90a GEMM on its own, for
 * tests/gpu/test_f8b_gemm.c (STYLE.md: every inline-PTX wrapper tested on
 * its own), so that a wrong GEMM can be traced to the layer that is wrong:
 *
 *   tma:   one TMA box (128-byte swizzle) through an mbarrier into shared
 *          memory, copied out byte for byte: the tensor map, the
 *          expect_tx / complete_tx handshake and the swizzle pattern
 *          common/smem.cuh assumes (chunk c of row r at c ^ (r % 8));
 *   wgmma: one wgmma.mma_async m64nNk32 (N = 128 or 256) on boxes loaded
 *          that way, its K step `kstep` of four, the accumulators written
 *          out by the fragment layout ptx/wgmma.cuh states: the smem
 *          descriptors, the K advance inside a swizzled row, the fragment;
 *   tma store: one box of an output written in the epilogue's swizzle
 *          (128-byte, or 64-byte for an e4m3 D^T), published to the async
 *          proxy and stored with TMA, clipped at the tensor's edges: the
 *          output tensor maps, the store, and the swizzles
 *          sm90_fp8_gemm_epilogue.cuh writes its boxes in;
 *   bulk:  the non-tensor bulk copy (cp.async.bulk) of BLOCK_1X128's
 *          column scales: n bytes from global into shared memory on an
 *          mbarrier's tx count, and not a byte more;
 *   ring:  the producer / consumer parity protocol of the GEMM's ring over
 *          many wraps, with no TMA: the producer writes a stage's word and
 *          arrives, the consumers check it and release it (every consumer
 *          thread arriving, see ring_kernel);
 *   cluster: a 2-CTA cluster (ptx/cluster.cuh): each CTA's rank, one TMA
 *          box multicast by rank 0 into both CTAs' shared memory, and an
 *          arrival on the peer's mbarrier through its mapa address;
 *   named bars: the named barriers (ptx/barrier.cuh) between two
 *          warpgroups (bar.arrive / bar.sync, 256 threads: the order of
 *          their tickets; bar.sync on both sides: a buffer handed over),
 *          and inside one warpgroup (bar.sync, 128);
 *   setmaxnreg: the register split (ptx/regs.cuh): one warpgroup gives
 *          registers back, two take more than the launch gives a thread
 *          and hold more values live than it allows.
 * One CTA each (the cluster test: one cluster of two); bodies only in the
 * sm_90a image, like the GEMM.
 */
#include "../kernels_internal.cuh"
#include "gemm.h"
#include "common/smem.cuh"
#include "ptx/barrier.cuh"
#include "ptx/cluster.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/regs.cuh"
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"

#include <cuda.h>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define F8B_SELFTEST_SM90A 1
#endif

namespace
{

constexpr int ALIGN = 1024;

__global__ void tma_kernel(const __grid_constant__ CUtensorMap tmap, uint8_t *out, int box_rows,
                           int c0, int c1)
{
#ifdef F8B_SELFTEST_SM90A
	extern __shared__ uint8_t smem_raw[];
	const uint32_t base = (f8b_smem_u32(smem_raw) + (ALIGN - 1)) & ~(uint32_t)(ALIGN - 1);
	uint8_t *tile = smem_raw + (base - f8b_smem_u32(smem_raw));
	const uint32_t bar = base + (uint32_t)box_rows * 128;
	if (threadIdx.x == 0) {
		f8b_mbarrier_init(bar, 1);
		f8b_fence_barrier_init();
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		f8b_mbarrier_arrive_expect_tx(bar, (uint32_t)box_rows * 128);
		f8b_tma_load_2d(base, &tmap, bar, c0, c1);
	}
	f8b_mbarrier_wait(bar, 0);
	for (int i = threadIdx.x; i < box_rows * 128; i += blockDim.x)
		out[i] = tile[i];
#else
	(void)tmap;
	(void)out;
	(void)box_rows;
	(void)c0;
	(void)c1;
#endif
}

template <int N>
__global__ void wgmma_kernel(const __grid_constant__ CUtensorMap tmap_a,
                             const __grid_constant__ CUtensorMap tmap_b, float *out, int kstep)
{
#ifdef F8B_SELFTEST_SM90A
	extern __shared__ uint8_t smem_raw[];
	const uint32_t base = (f8b_smem_u32(smem_raw) + (ALIGN - 1)) & ~(uint32_t)(ALIGN - 1);
	const uint32_t sa = base, sb = base + 128 * 128, bar = sb + N * 128;
	if (threadIdx.x == 0) {
		f8b_mbarrier_init(bar, 1);
		f8b_fence_barrier_init();
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		f8b_mbarrier_arrive_expect_tx(bar, (uint32_t)(128 + N) * 128);
		f8b_tma_load_2d(sa, &tmap_a, bar, 0, 0);
		f8b_tma_load_2d(sb, &tmap_b, bar, 0, 0);
	}
	f8b_mbarrier_wait(bar, 0);
	float acc[N / 2];
#pragma unroll
	for (int i = 0; i < N / 2; i++)
		acc[i] = 0.0f;
#pragma unroll
	for (int i = 0; i < N / 2; i++)
		f8b_reg_fence(acc[i]);
	f8b_wgmma_fence();
	f8b_wgmma<N, F8B_WG_E4M3, F8B_WG_E4M3>::mma(acc, f8b_desc_sw128_kmajor(sa) + 2 * kstep,
	                                            f8b_desc_sw128_kmajor(sb) + 2 * kstep, 0u);
	f8b_wgmma_commit_group();
	f8b_wgmma_wait_group<0>();
#pragma unroll
	for (int i = 0; i < N / 2; i++)
		f8b_reg_fence(acc[i]);
	const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
	for (int i = 0; i < N / 2; i++) {
		int j = i / 4, r = 16 * warp + lane / 4 + 8 * ((i % 4) / 2);
		int c = 8 * j + 2 * (lane % 4) + (i % 2);
		out[r * N + c] = acc[i];
	}
#else
	(void)tmap_a;
	(void)tmap_b;
	(void)out;
	(void)kstep;
#endif
}

/* The GEMM's ring, STAGES stages, `uses` passes: the producer (thread 0)
 * waits for a free stage (empty, parity ph ^ 1), writes the use number
 * into the stage's word and arrives on full; 256 consumer threads wait on
 * full (parity ph), check the word, and each arrives on empty (the
 * second consumer warpgroup waiting only where a test_wait made while it
 * held the stage before found the next one not yet full).
 * errors[0] counts words a consumer found wrong.
 *
 * Unlike the GEMM, whose tiles are written by TMA and read by wgmma (the
 * async proxy), the word here is written and read by threads, so every
 * reader arrives itself: mbarrier.arrive releases only the arriving
 * thread's own accesses (compute-sanitizer racecheck, which orders shared
 * accesses through each thread's own arrive and wait, reported the reads
 * of lanes 1-31 as racing the next write when only lane 0 arrived after a
 * __syncwarp). */
template <int STAGES> __global__ void ring_kernel(int uses, unsigned *errors)
{
#ifdef F8B_SELFTEST_SM90A
	__shared__ __align__(8) uint64_t bars[2 * STAGES];
	__shared__ volatile int word[STAGES];
	const uint32_t b0 = f8b_smem_u32(bars);
	if (threadIdx.x == 0) {
		for (int s = 0; s < STAGES; s++) {
			f8b_mbarrier_init(b0 + 8 * s, 1);
			f8b_mbarrier_init(b0 + 8 * (STAGES + s), 256);
		}
		f8b_fence_barrier_init();
	}
	__syncthreads();
	if (threadIdx.x < 128) {
		if (threadIdx.x != 0)
			return;
		for (int it = 0; it < uses; it++) {
			uint32_t s = it % STAGES, ph = (it / STAGES) & 1;
			f8b_mbarrier_wait(b0 + 8 * (STAGES + s), ph ^ 1);
			word[s] = it;
			__threadfence_block();
			f8b_mbarrier_arrive(b0 + 8 * s);
		}
		return;
	}
	/* The second consumer warpgroup tests the next use's stage while it
	 * holds this one (mbarrier.test_wait), and skips that wait when the
	 * test said full, as the GEMM's promoting consumers do (test_next in
	 * sm90_fp8_gemm_consumer.cuh); past the last use the test says no. */
	const bool test_ahead = threadIdx.x >= 256;
	uint32_t ahead = 0;
	for (int it = 0; it < uses; it++) {
		uint32_t s = it % STAGES, ph = (it / STAGES) & 1;
		if (!ahead)
			f8b_mbarrier_wait(b0 + 8 * s, ph);
		if (test_ahead) {
			const uint32_t n = (uint32_t)it + 1;
			ahead = f8b_mbarrier_test_wait(b0 + 8 * (n % STAGES), (n / STAGES) & 1);
		}
		if (word[s] != it)
			atomicAdd(errors, 1u);
		f8b_mbarrier_arrive(b0 + 8 * (STAGES + s));
	}
#else
	(void)uses;
	(void)errors;
#endif
}

/* One box of an output, as the epilogue stores it (sm90_fp8_gemm_epilogue.cuh):
 * 64 rows of row_bytes, written by the threads with plain shared stores in
 * the swizzle the tensor map names (row_bytes 128: 16-byte chunk c of row r
 * at c ^ (r % 8), D's boxes and bf16 D^T's; 64: at c ^ ((r / 2) % 4), e4m3
 * D^T's), published to the async proxy (fence.proxy.async), and stored by
 * one thread with a TMA copy, which clips at the tensor's bounds. */
__global__ void tma_store_kernel(const __grid_constant__ CUtensorMap tmap, int row_bytes, int c0,
                                 int c1)
{
#ifdef F8B_SELFTEST_SM90A
	extern __shared__ uint8_t smem_raw[];
	const uint32_t base = (f8b_smem_u32(smem_raw) + (ALIGN - 1)) & ~(uint32_t)(ALIGN - 1);
	uint8_t *box = smem_raw + (base - f8b_smem_u32(smem_raw));
	for (int i = threadIdx.x; i < 64 * row_bytes; i += blockDim.x) {
		const int r = i / row_bytes, b = i % row_bytes;
		const int sw = row_bytes == 128 ? (r & 7) : ((r >> 1) & 3);
		box[r * row_bytes + (((b >> 4) ^ sw) << 4) + (b & 15)] =
		    F8B_KGEMM_SELFTEST_BYTE(r, b);
	}
	f8b_fence_proxy_async_smem();
	__syncthreads();
	if (threadIdx.x == 0) {
		f8b_tma_store_2d(&tmap, base, c0, c1);
		f8b_bulk_commit_group();
		f8b_bulk_wait_group_read<0>();
	}
#else
	(void)tmap;
	(void)row_bytes;
	(void)c0;
	(void)c1;
#endif
}

/* bulk: `bytes` of global memory at src into shared memory with the
 * non-tensor bulk copy (f8b_bulk_load) on an mbarrier's tx count, over a
 * region the threads first filled with 0xFF (fenced for the async proxy);
 * the whole 1 KiB region copied out, so that the bytes past the copy show
 * it wrote no more than it was asked. */
__global__ void bulk_kernel(const uint8_t *src, uint8_t *out, int bytes)
{
#ifdef F8B_SELFTEST_SM90A
	extern __shared__ uint8_t smem_raw[];
	const uint32_t base = (f8b_smem_u32(smem_raw) + (ALIGN - 1)) & ~(uint32_t)(ALIGN - 1);
	uint8_t *buf = smem_raw + (base - f8b_smem_u32(smem_raw));
	const uint32_t bar = base + F8B_KGEMM_SELFTEST_BULK;
	for (int i = threadIdx.x; i < F8B_KGEMM_SELFTEST_BULK; i += blockDim.x)
		buf[i] = 0xFF;
	f8b_fence_proxy_async_smem();
	if (threadIdx.x == 0) {
		f8b_mbarrier_init(bar, 1);
		f8b_fence_barrier_init();
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		f8b_mbarrier_arrive_expect_tx(bar, (uint32_t)bytes);
		f8b_bulk_load(base, src, (uint32_t)bytes, bar);
	}
	f8b_mbarrier_wait(bar, 0);
	for (int i = threadIdx.x; i < F8B_KGEMM_SELFTEST_BULK; i += blockDim.x)
		out[i] = buf[i];
#else
	(void)src;
	(void)out;
	(void)bytes;
#endif
}

/* cluster: a cluster of two CTAs of 128 threads.  Each CTA records its
 * rank (info[blockIdx.x]); after a cluster barrier (both CTAs' mbarriers
 * initialised before either is reached from the other), rank 0 loads the
 * box at (c0, c1) of tmap once, multicast to both CTAs (mask 0b11) at the
 * same shared offset, each CTA's `full` mbarrier expecting the box's bytes;
 * and each CTA arrives once on its peer's `peer` mbarrier (mapa of our own
 * address, then the remote arrive) and waits on its own, so that neither
 * passes unless the arrival reached the other CTA.  Each CTA copies its
 * box, as it lies in shared memory, to out + blockIdx.x * 128 * 128. */
__global__ void cluster_kernel(const __grid_constant__ CUtensorMap tmap, uint8_t *out,
                               unsigned *info, int c0, int c1)
{
#ifdef F8B_SELFTEST_SM90A
	extern __shared__ uint8_t smem_raw[];
	const uint32_t base = (f8b_smem_u32(smem_raw) + (ALIGN - 1)) & ~(uint32_t)(ALIGN - 1);
	uint8_t *tile = smem_raw + (base - f8b_smem_u32(smem_raw));
	const uint32_t full = base + 128 * 128, peer = full + 8;
	const uint32_t rank = f8b_cluster_ctarank();
	if (threadIdx.x == 0) {
		f8b_mbarrier_init(full, 1);
		f8b_mbarrier_init(peer, 1);
		f8b_fence_barrier_init();
	}
	f8b_cluster_sync();
	if (threadIdx.x == 0) {
		info[blockIdx.x] = rank;
		f8b_mbarrier_arrive_expect_tx(full, 128 * 128);
		if (rank == 0)
			f8b_tma_load_2d_multicast(base, &tmap, full, c0, c1, (uint16_t)0x3);
		f8b_mbarrier_arrive_cluster(f8b_mapa_shared(peer, rank ^ 1u));
	}
	f8b_mbarrier_wait(peer, 0);
	f8b_mbarrier_wait(full, 0);
	for (int i = threadIdx.x; i < 128 * 128; i += blockDim.x)
		out[(size_t)blockIdx.x * 128 * 128 + i] = tile[i];
	/* neither CTA leaves while the other may still reach its shared memory */
	f8b_cluster_sync();
#else
	(void)tmap;
	(void)out;
	(void)info;
	(void)c0;
	(void)c1;
#endif
}

/* named bars: 256 threads, `rounds` rounds.  Between the warpgroups, as
 * the ping-pong schedule hands the tensor cores over: warpgroup 1 takes
 * a ticket a thread (an atomic add on a global counter) and arrives on
 * barrier 1 (bar.arrive, 256); warpgroup 0 waits there (bar.sync, 256),
 * takes its tickets and arrives on barrier 2, where warpgroup 1 waits
 * before its next round.  Round r's tickets are then warpgroup 1's 128,
 * then warpgroup 0's: each thread checks that its ticket lies in its
 * warpgroup's range.  Shared memory handed over: warpgroup 1 writes buf,
 * both meet at barrier 4 (bar.sync, 256), warpgroup 0 checks a word
 * another warp wrote, and both meet at barrier 5 before the next write
 * (the hand-off through bar.arrive alone held in 1000 rounds on an H100,
 * but compute-sanitizer racecheck reported it as racing: each shared
 * access here is ordered by bar.sync on both sides).  Inside warpgroup 0:
 * each thread writes a word of `own`, meets its warpgroup at barrier 3
 * (bar.sync, 128), the only barrier between that write and the read, and
 * checks a word of another warp.  errors[0] counts what was found wrong. */
__global__ void named_bar_kernel(int rounds, unsigned *counter, unsigned *errors)
{
#ifdef F8B_SELFTEST_SM90A
	__shared__ int buf[128], own[128];
	const int t = threadIdx.x % 128, other = (t + 37) % 128;
	unsigned bad = 0;
	for (int r = 0; r < rounds; r++) {
		const unsigned first = 256u * (unsigned)r;
		if (threadIdx.x >= 128) {
			const unsigned k = atomicAdd(counter, 1u);
			bad += k < first || k >= first + 128;
			__syncwarp(); /* the atomic may leave the warp diverged; the
			               * barriers are .aligned */
			f8b_named_bar_arrive<1, 256>();
			f8b_named_bar_sync<2, 256>();
			buf[t] = r * 1024 + t;
		} else {
			f8b_named_bar_sync<1, 256>();
			const unsigned k = atomicAdd(counter, 1u);
			bad += k < first + 128 || k >= first + 256;
			__syncwarp();
			f8b_named_bar_arrive<2, 256>();
		}
		/* barriers 4 and 5 at one place for both warpgroups: synced
		 * from each warpgroup's own branch, compute-sanitizer synccheck
		 * reported divergent threads there */
		f8b_named_bar_sync<4, 256>();
		if (threadIdx.x < 128) {
			bad += buf[other] != r * 1024 + other;
			own[t] = r * 2048 + t;
			f8b_named_bar_sync<3, 128>();
			bad += own[other] != r * 2048 + other;
		}
		f8b_named_bar_sync<5, 256>();
	}
	if (bad)
		atomicAdd(errors, bad);
#else
	(void)rounds;
	(void)counter;
	(void)errors;
#endif
}

/* setmaxnreg: 384 threads under launch bounds that give each 168
 * registers.  Warpgroup 0 gives registers back (dec to 40) and writes
 * 2 x in[t]; warpgroups 1 and 2 take 232 (128 x 40 + 256 x 232 = 64,512 of
 * the 65,536) and hold F8B_KGEMM_SELFTEST_NREG_LIVE floats live through
 * F8B_KGEMM_SELFTEST_NREG_ITERS sweeps of v[i] = fma(v[i], v[i + 1 mod
 * LIVE], 0.5), then write their sum in order: ptxas compiles that with no
 * spill only under the larger count (tests/ptx_selftest_regs.sh checks
 * both).  The
 * host recomputes it the same way, so the sums must match exactly. */
__global__ void __launch_bounds__(384, 1) setmaxnreg_kernel(const float *in, float *out)
{
#ifdef F8B_SELFTEST_SM90A
	constexpr int LIVE = F8B_KGEMM_SELFTEST_NREG_LIVE;
	const int t = threadIdx.x;
	if (t < 128) {
		f8b_setmaxnreg_dec<40>();
		out[t] = 2.0f * in[t];
		return;
	}
#ifndef F8B_SELFTEST_NREG_NO_INC /* tests/ptx_selftest_regs.sh: without it, it spills */
	f8b_setmaxnreg_inc<232>();
#endif
	float v[LIVE];
#pragma unroll
	for (int i = 0; i < LIVE; i++)
		v[i] = in[(t + i) % 384];
#pragma unroll
	for (int it = 0; it < F8B_KGEMM_SELFTEST_NREG_ITERS; it++)
#pragma unroll
		for (int i = 0; i < LIVE; i++)
			v[i] = fmaf(v[i], v[(i + 1) % LIVE], 0.5f);
	float sum = 0.0f;
#pragma unroll
	for (int i = 0; i < LIVE; i++)
		sum += v[i];
	out[t] = sum;
#else
	(void)in;
	(void)out;
#endif
}

} // namespace

extern "C" int f8b_kgemm_selftest_bulk(const void *src, void *out, int bytes, cudaStream_t stream)
{
	if (bytes <= 0 || bytes > F8B_KGEMM_SELFTEST_BULK || bytes % 16)
		return (int)cudaErrorInvalidValue;
	const uint8_t *s = static_cast<const uint8_t *>(src);
	uint8_t *o = static_cast<uint8_t *>(out);
	void *args[] = {&s, &o, &bytes};
	return (int)cudaLaunchKernel((const void *)bulk_kernel, dim3(1), dim3(128), args,
	                             (size_t)(F8B_KGEMM_SELFTEST_BULK + ALIGN + 8), stream);
}

extern "C" int f8b_kgemm_selftest_tma(const void *tmap, void *out, int box_rows, int c0, int c1,
                                      cudaStream_t stream)
{
	CUtensorMap m;
	memcpy(&m, tmap, sizeof m);
	int smem = box_rows * 128 + ALIGN + 8;
	cudaError_t e = cudaFuncSetAttribute((const void *)tma_kernel,
	                                     cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (e != cudaSuccess)
		return (int)e;
	uint8_t *o = static_cast<uint8_t *>(out);
	void *args[] = {&m, &o, &box_rows, &c0, &c1};
	return (int)cudaLaunchKernel((const void *)tma_kernel, dim3(1), dim3(128), args,
	                             (size_t)smem, stream);
}

extern "C" int f8b_kgemm_selftest_wgmma(const void *tmap_a, const void *tmap_b, float *out, int n,
                                        int kstep, cudaStream_t stream)
{
	CUtensorMap a, b;
	memcpy(&a, tmap_a, sizeof a);
	memcpy(&b, tmap_b, sizeof b);
	const void *fn =
	    n == 256 ? (const void *)wgmma_kernel<256> : (const void *)wgmma_kernel<128>;
	if (n != 128 && n != 256)
		return (int)cudaErrorInvalidValue;
	int smem = (128 + n) * 128 + ALIGN + 8;
	cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (e != cudaSuccess)
		return (int)e;
	void *args[] = {&a, &b, &out, &kstep};
	return (int)cudaLaunchKernel(fn, dim3(1), dim3(128), args, (size_t)smem, stream);
}

extern "C" int f8b_kgemm_selftest_ring(int uses, unsigned *errors, cudaStream_t stream)
{
	void *args[] = {&uses, &errors};
	return (int)cudaLaunchKernel((const void *)ring_kernel<4>, dim3(1), dim3(384), args, 0,
	                             stream);
}

extern "C" int f8b_kgemm_selftest_tma_store(const void *tmap, int row_bytes, int c0, int c1,
                                            cudaStream_t stream)
{
	if (row_bytes != 128 && row_bytes != 64)
		return (int)cudaErrorInvalidValue;
	CUtensorMap m;
	memcpy(&m, tmap, sizeof m);
	int smem = 64 * row_bytes + ALIGN;
	cudaError_t e = cudaFuncSetAttribute((const void *)tma_store_kernel,
	                                     cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (e != cudaSuccess)
		return (int)e;
	void *args[] = {&m, &row_bytes, &c0, &c1};
	return (int)cudaLaunchKernel((const void *)tma_store_kernel, dim3(1), dim3(128), args,
	                             (size_t)smem, stream);
}

extern "C" int f8b_kgemm_selftest_cluster(const void *tmap, void *out, unsigned *info, int c0,
                                          int c1, cudaStream_t stream)
{
	CUtensorMap m;
	memcpy(&m, tmap, sizeof m);
	uint8_t *o = static_cast<uint8_t *>(out);
	void *args[] = {&m, &o, &info, &c0, &c1};
	cudaLaunchAttribute attr[1];
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = 2;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(2);
	cfg.blockDim = dim3(128);
	cfg.dynamicSmemBytes = (size_t)(128 * 128 + ALIGN + 16);
	cfg.stream = stream;
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	return (int)cudaLaunchKernelExC(&cfg, (const void *)cluster_kernel, args);
}

extern "C" int f8b_kgemm_selftest_named_bar(int rounds, unsigned *words, cudaStream_t stream)
{
	unsigned *counter = words, *errors = words + 1;
	void *args[] = {&rounds, &counter, &errors};
	return (int)cudaLaunchKernel((const void *)named_bar_kernel, dim3(1), dim3(256), args, 0,
	                             stream);
}

extern "C" int f8b_kgemm_selftest_setmaxnreg(const float *in, float *out, cudaStream_t stream)
{
	void *args[] = {&in, &out};
	return (int)cudaLaunchKernel((const void *)setmaxnreg_kernel, dim3(1), dim3(384), args, 0,
	                             stream);
}
