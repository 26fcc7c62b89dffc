/* ptx/cluster.cuh - what a 2-CTA cluster of the GEMM needs (PTX ISA:
 * "Special Registers: %cluster_ctarank", "Data Movement and Conversion
 * Instructions: mapa", "Parallel Synchronization and Communication
 * Instructions: barrier.cluster" and "mbarrier.arrive"): the CTA's rank in
 * its cluster, a peer's copy of one of our shared-memory addresses, a
 * cluster-wide barrier, and an arrival on a peer's mbarrier. */
#ifndef F8B_GEMM_PTX_CLUSTER_CUH
#define F8B_GEMM_PTX_CLUSTER_CUH

#include <stdint.h>

__device__ __forceinline__ uint32_t f8b_cluster_ctarank()
{
	uint32_t r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
	return r;
}

/* Every thread of every CTA of the cluster arrives (release) and waits
 * (acquire): the cluster's __syncthreads. */
__device__ __forceinline__ void f8b_cluster_sync()
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n"
	             "barrier.cluster.wait.acquire.aligned;\n" ::
	                 : "memory");
}

/* The shared::cluster address of `addr` (ours) in CTA `rank`'s shared memory. */
__device__ __forceinline__ uint32_t f8b_mapa_shared(uint32_t addr, uint32_t rank)
{
	uint32_t r;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
	return r;
}

/* One arrival on the mbarrier at a shared::cluster address, ours or a
 * peer's (from f8b_mapa_shared), with the instruction's default semantics
 * (release at CTA scope).  The GEMM's consumers arrive here to free a
 * stage that only wgmma read (the async proxy, completed by wgmma's
 * wait_group): there is no generic-proxy write to publish to the peer, so
 * the .release.cluster form, which makes the arriving warp wait for every
 * earlier memory operation of the thread to be visible cluster-wide (the
 * epilogue's global stores among them), buys nothing and stalls each
 * K-block's release. */
__device__ __forceinline__ void f8b_mbarrier_arrive_cluster(uint32_t cluster_addr)
{
	asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_addr)
	             : "memory");
}

#endif
