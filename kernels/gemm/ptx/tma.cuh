/* ptx/tma.cuh - the Tensor Memory Accelerator copies of the GEMM: the
 * loads its producer issues and the stores of its epilogue (PTX ISA, "Data
 * Movement and Conversion Instructions: cp.async.bulk.tensor",
 * "cp.async.bulk.commit_group", "cp.async.bulk.wait_group"; the tensor
 * map: "Tensor Maps" / CUDA driver API cuTensorMapEncodeTiled).
 *
 * The tensor map (CUtensorMap, 128 bytes) is encoded on the host with the
 * driver's cuTensorMapEncodeTiled (src/backend/cuda_gemm_f8b.c) and passed
 * as a __grid_constant__ kernel parameter, whose generic address is what
 * the instruction takes.  Coordinates are in elements, innermost first;
 * a box that reaches past the tensor's bounds is filled with zeros (the
 * map's OOB fill NONE), and still counts its full size in bytes against
 * the mbarrier's tx-count.
 */
#ifndef F8B_GEMM_PTX_TMA_CUH
#define F8B_GEMM_PTX_TMA_CUH

#include <stdint.h>

/* prefetch.tensormap: bring the descriptor into the constant cache ahead of
 * the first copy ("prefetch, prefetchu": prefetch.tensormap). */
__device__ __forceinline__ void f8b_tma_prefetch_desc(const void *tmap)
{
	asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmap) : "memory");
}

/* A 2-D box at (c0, c1) of the tensor into shared memory at dst, completing
 * `bytes` transactions on mbarrier bar when it lands. */
__device__ __forceinline__ void f8b_tma_load_2d(uint32_t dst, const void *tmap, uint32_t bar,
                                                int32_t c0, int32_t c1)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
	             "l"(tmap), "r"(bar), "r"(c0), "r"(c1)
	             : "memory");
}

/* The same load delivered to every CTA of the cluster in cta_mask (bit r =
 * rank r), at the same shared-memory offset in each, each CTA's mbarrier at
 * bar's offset completing the bytes it received (".multicast::cluster"). */
__device__ __forceinline__ void f8b_tma_load_2d_multicast(uint32_t dst, const void *tmap,
                                                          uint32_t bar, int32_t c0, int32_t c1,
                                                          uint16_t cta_mask)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
	             "l"(tmap), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
	             : "memory");
}

/* A 2-D box of shared memory at src stored to the tensor at (c0, c1), as
 * an operation of the calling thread's current bulk async-group (the
 * ".bulk_group" completion).  The parts of the box past the tensor's
 * bounds are not written. */
__device__ __forceinline__ void f8b_tma_store_2d(const void *tmap, uint32_t src, int32_t c0,
                                                 int32_t c1)
{
	asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
	             " [%0, {%2, %3}], [%1];\n" ::"l"(tmap),
	             "r"(src), "r"(c0), "r"(c1)
	             : "memory");
}

/* `bytes` contiguous bytes of global memory at src into shared memory at
 * dst (both 16-byte aligned, bytes a multiple of 16), completing that many
 * transactions on mbarrier bar when they land ("cp.async.bulk", the
 * non-tensor form: no tensor map, no bounds, no zero fill). */
__device__ __forceinline__ void f8b_bulk_load(uint32_t dst, const void *src, uint32_t bytes,
                                              uint32_t bar)
{
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
	             " [%0], [%1], %2, [%3];\n" ::"r"(dst),
	             "l"(src), "r"(bytes), "r"(bar)
	             : "memory");
}

/* Closes the calling thread's current bulk async-group. */
__device__ __forceinline__ void f8b_bulk_commit_group()
{
	asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Waits until at most N of the calling thread's bulk async-groups are
 * pending in their reads of shared memory (".read": the source may be
 * written again; the global writes may still be under way). */
template <int N> __device__ __forceinline__ void f8b_bulk_wait_group_read()
{
	asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* Orders this thread's earlier generic-proxy writes to shared memory (st.shared)
 * before later async-proxy operations on it (a TMA store reading it), once
 * a barrier has carried the order to the thread that issues the store
 * ("Memory Consistency Model: proxies"; fence.proxy.async). */
__device__ __forceinline__ void f8b_fence_proxy_async_smem()
{
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

#endif
