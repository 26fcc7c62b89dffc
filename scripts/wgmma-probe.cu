/* wgmma-probe.cu - how long one warpgroup's wgmma group takes from issue
 * to the end of its wait, and how busy 1, 2 or 3 warpgroups keep the
 * tensor cores of one SM when each waits for its group before the next
 * (the promotion in halves of the fp8 GEMM, doc/gemm-kernels.md) or keeps
 * one group queued (fast accumulation).  A study tool, not part of the
 * build:
 *
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ikernels \
 *        scripts/wgmma-probe.cu -o wgmma-probe && ./wgmma-probe [GROUPS [GRID|all]]
 *
 * One CTA of WGS warpgroups on one SM (GRID: that many CTAs, "all": one an
 * SM, all doing the same; the launch's TFLOP/s, from CUDA events, is then the
 * whole GPU's, under its power cap).  Each group is four
 * m64n128k32 e4m3 wgmma (one half of a 128x256 tile's K-block: 64 x 128 x
 * 128 multiply-adds), on one A box and one B box in shared memory filled
 * with e4m3 values 0.5-0.94 (no zeros, no NaN).  Modes:
 *   promote: issue, wait_group 0, then 64 fp32 adds of the partial into
 *            the accumulator, as the kernel's halves do;
 *   fast:    issue into the accumulator, wait_group 1 (one group queued
 *            behind the one running), as FAST does.
 * Thread 0 of each warpgroup reads clock64 around every group (issue to
 * the end of its wait) and around the whole loop.  Printed per case: the
 * cycles a group takes from issue to the end of its wait (mean over the
 * warpgroups' means), the SM's cycles per group (the loop's span over all
 * warpgroups' groups), and the fastest case's cycles per group over it:
 * how much of the tensor pipe the case keeps busy.  The accumulators are written out, so nothing is
 * optimised away, and checked against the exact sum: promotion to 1e-3,
 * fast accumulation (which keeps fewer bits) only to 0.5, its error
 * printed. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <stdint.h>

#include "gemm/common/smem.cuh"
#include "gemm/ptx/wgmma.cuh"

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* A mode that waits for each group and then leaves its partial unread
 * was dropped: ptxas removed the groups whose results the next group
 * overwrote (it ran at up to 3x the tensor cores' peak). */
enum { PROMOTE = 0, FAST = 1 };
constexpr int A_BYTES = 64 * 128, B_BYTES = 128 * 128;

/* out[wg * 3 + 0]: sum over groups of issue-to-wait cycles; [1]: the
 * loop's first clock; [2]: its last. */
template <int MODE>
__global__ void __launch_bounds__(384, 1) probe(long long *out, float *acc_out, int iters)
{
	extern __shared__ uint8_t raw[];
	const uint32_t base = (f8b_smem_u32(raw) + 1023u) & ~1023u;
	uint8_t *p = raw + (base - f8b_smem_u32(raw));
	for (int i = threadIdx.x; i < A_BYTES + B_BYTES; i += blockDim.x)
		p[i] = (uint8_t)(0x30 + i % 8); /* e4m3 0.5 to 0.9375 */
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	const int wg = threadIdx.x / 128;
	const uint64_t da = f8b_desc_sw128_kmajor(base), db = f8b_desc_sw128_kmajor(base + A_BYTES);
	float acc[64], part[64];
	for (int i = 0; i < 64; i++)
		acc[i] = part[i] = 0.0f;
	long long lat = 0;
	const long long first = clock64();
	for (int it = 0; it < iters; it++) {
		float *d = MODE == FAST ? acc : part;
		const long long t0 = clock64();
#pragma unroll
		for (int i = 0; i < 64; i++)
			f8b_reg_fence(d[i]);
		f8b_wgmma_fence();
#pragma unroll
		for (int kk = 0; kk < 4; kk++)
			f8b_wgmma<128, F8B_WG_E4M3, F8B_WG_E4M3>::mma(
			    d, da + 2 * kk, db + 2 * kk,
			    (MODE == FAST && it > 0) || kk > 0 ? 1u : 0u);
		f8b_wgmma_commit_group();
		if constexpr (MODE == FAST) {
			f8b_wgmma_wait_group<1>(); /* no fence: the next group is writing d */
		} else {
			f8b_wgmma_wait_group<0>();
#pragma unroll
			for (int i = 0; i < 64; i++)
				f8b_reg_fence(d[i]);
		}
		lat += clock64() - t0;
		if (MODE == PROMOTE)
#pragma unroll
			for (int i = 0; i < 64; i++)
				acc[i] += part[i];
	}
	f8b_wgmma_wait_group<0>();
#pragma unroll
	for (int i = 0; i < 64; i++)
		f8b_reg_fence(acc[i]);
	const long long last = clock64();
	for (int i = 0; i < 64; i++)
		acc_out[(size_t)threadIdx.x * 64 + i] = acc[i];
	if (blockIdx.x == 0 && threadIdx.x % 128 == 0) {
		out[wg * 3 + 0] = lat;
		out[wg * 3 + 1] = first;
		out[wg * 3 + 2] = last;
	}
}

/* The exact value of every accumulator after `groups` groups (all equal:
 * each output element is the sum over K = 128 of a(r, k) b(c, k), and the
 * fill depends on the byte offset only through i % 8, which every row of
 * 128 bytes repeats, so every element's sum is the same). */
static double expected(int groups)
{
	double s = 0;
	for (int k = 0; k < 128; k++) {
		const double v = 0.5 + 0.0625 * (k % 8); /* e4m3 0x30 + j: 0.5 + j/16 */
		s += v * v;
	}
	return s * groups;
}

struct result {
	double lat, per_group, err; /* err: the worst relative error of a sum */
	double tflops;              /* the whole launch, CUDA events: every CTA's groups */
	bool ok;
};

template <int MODE> static result run(int wgs, int iters, int grid)
{
	long long *d_out;
	float *d_acc;
	/* 120 KiB, of which it uses 25: more than half an SM's 228 KiB, so
	 * that no two CTAs share an SM when GRID > 1 */
	const size_t smem = 120 * 1024;
	static_assert(A_BYTES + B_BYTES + 1024 <= 120 * 1024, "the boxes fit");
	CHECK(cudaMalloc(&d_out, sizeof(long long) * 9));
	CHECK(cudaMalloc(&d_acc, sizeof(float) * 384 * 64));
	CHECK(cudaFuncSetAttribute(probe<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           (int)smem));
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	probe<MODE><<<grid, 128 * wgs, smem>>>(d_out, d_acc, 8); /* warm-up */
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(e0));
	probe<MODE><<<grid, 128 * wgs, smem>>>(d_out, d_acc, iters);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(e1));
	CHECK(cudaDeviceSynchronize());
	float ms = 0;
	CHECK(cudaEventElapsedTime(&ms, e0, e1));
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	long long h[9];
	float *acc = (float *)malloc(sizeof(float) * 384 * 64);
	CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(acc, d_acc, sizeof(float) * 384 * 64, cudaMemcpyDeviceToHost));
	const double want = expected(iters);
	/* promotion adds each group's partial in fp32 (to 1e-3);
	 * fast accumulation keeps fewer bits in the tensor cores, so its sum
	 * drifts: printed, as the reason promotion exists */
	double worst = 0;
	for (int i = 0; i < 128 * wgs * 64; i++) {
		const double e = fabs(acc[i] - want) / want;
		worst = e > worst || e != e ? e : worst;
	}
	const bool ok = MODE == FAST ? worst <= 0.5 : worst <= 1e-3;
	long long lo = h[1], hi = h[2];
	double lat = 0;
	for (int w = 0; w < wgs; w++) {
		lat += (double)h[w * 3] / iters / wgs;
		lo = h[w * 3 + 1] < lo ? h[w * 3 + 1] : lo;
		hi = h[w * 3 + 2] > hi ? h[w * 3 + 2] : hi;
	}
	free(acc);
	CHECK(cudaFree(d_out));
	CHECK(cudaFree(d_acc));
	const double flops = 2.0 * 64 * 128 * 128 * (double)iters * wgs * grid;
	return {lat, (double)(hi - lo) / ((double)iters * wgs), worst, flops / (ms * 1e9), ok};
}

int main(int argc, char **argv)
{
	const int iters = argc > 1 ? atoi(argv[1]) : 4096;
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	/* GRID CTAs, "all" for one an SM (the per-group cycles are CTA 0's) */
	const int grid = argc <= 2                    ? 1
	                 : strcmp(argv[2], "all") == 0 ? prop.multiProcessorCount
	                                              : atoi(argv[2]);
	if (iters < 1 || grid < 1 || grid > prop.multiProcessorCount) {
		fprintf(stderr, "usage: wgmma-probe [GROUPS [GRID <= %d | all]]\n",
		        prop.multiProcessorCount);
		return 2;
	}
	printf("# %s, %d SMs; %d groups of 4 x m64n128k32 e4m3 a warpgroup, %d CTAs; cycles of "
	       "clock64 (CTA 0)\n",
	       prop.name, prop.multiProcessorCount, iters, grid);
	const char *names[] = {"promote", "fast"};
	result r[2][3];
	double best = 0; /* the fastest case's SM cycles a group */
	for (int mode = 0; mode < 2; mode++)
		for (int w = 0; w < 3; w++) {
			r[mode][w] =
			    mode == PROMOTE ? run<PROMOTE>(w + 1, iters, grid)
			                    : run<FAST>(w + 1, iters, grid);
			if (best == 0 || r[mode][w].per_group < best)
				best = r[mode][w].per_group;
		}
	printf("%-8s %4s %16s %16s %10s %10s %s\n", "mode", "wgs", "issue-to-wait",
	       "SM cycles/group", "pipe busy", "TFLOP/s", "sum: worst relative error");
	bool all = true;
	for (int mode = 0; mode < 2; mode++)
		for (int w = 0; w < 3; w++) {
			const result &x = r[mode][w];
			printf("%-8s %4d %16.1f %16.1f %9.1f%% %10.0f %.3g%s\n", names[mode], w + 1,
			       x.lat, x.per_group, 100.0 * best / x.per_group, x.tflops, x.err,
			       x.ok ? "" : " WRONG");
			all = all && x.ok;
		}
	return all ? 0 : 1;
}
