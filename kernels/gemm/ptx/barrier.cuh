/* ptx/barrier.cuh - named CTA barriers (PTX ISA, "Parallel Synchronization
 * and Communication Instructions: bar, barrier"): a subset of the CTA's
 * warps meets at barrier `id` (0..15; 0 is __syncthreads') once `count`
 * threads (a multiple of 32) have arrived.  bar.sync arrives and waits;
 * bar.arrive arrives without waiting, so one group of warps can signal
 * another (the producer-consumer use of the ISA's example).  Every thread
 * of a warp executes the same instruction (.aligned, the bar.* default).
 * The ping-pong GEMM (sm90_fp8_gemm_pingpong.cuh) hands the tensor cores
 * from one consumer warpgroup to the other with them. */
#ifndef F8B_GEMM_PTX_BARRIER_CUH
#define F8B_GEMM_PTX_BARRIER_CUH

#include <stdint.h>

/* The id and count are immediates, so ptxas knows which barriers the
 * kernel uses ("used N barriers" under -Xptxas -v) instead of assuming
 * all 16. */
template <int ID, int COUNT> __device__ __forceinline__ void f8b_named_bar_sync()
{
	static_assert(ID > 0 && ID < 16 && COUNT % 32 == 0, "named barrier id 1..15, warps");
	asm volatile("bar.sync %0, %1;\n" ::"n"(ID), "n"(COUNT) : "memory");
}

template <int ID, int COUNT> __device__ __forceinline__ void f8b_named_bar_arrive()
{
	static_assert(ID > 0 && ID < 16 && COUNT % 32 == 0, "named barrier id 1..15, warps");
	asm volatile("bar.arrive %0, %1;\n" ::"n"(ID), "n"(COUNT) : "memory");
}

#endif
