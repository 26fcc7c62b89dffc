/* ptx/mbarrier.cuh - one-line wrappers for the mbarrier instructions the
 * GEMM pipeline uses (PTX ISA, "Parallel
 * Synchronization and Communication Instructions: mbarrier"; sections are
 * named by title, their numbers move between ISA versions).  Addresses
 * are shared-window addresses (32 bits, from f8b_smem_u32).
 *
 * A barrier's phase completes when its pending arrival count reaches zero
 * and its transaction count (tx-count) is zero; try_wait.parity(P) returns
 * true once the phase of parity P has completed, and also for the phase
 * before the current one - so a producer that waits on parity 1 of a fresh
 * barrier (current phase 0) passes at once, which is how the ring starts
 * with every stage free.
 */
#ifndef F8B_GEMM_PTX_MBARRIER_CUH
#define F8B_GEMM_PTX_MBARRIER_CUH

#include <stdint.h>

/* mbarrier.init: expected arrival count `count` per phase (mbarrier.init). */
__device__ __forceinline__ void f8b_mbarrier_init(uint32_t bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* Makes the initialised barriers visible to the async proxy (TMA's
 * complete_tx) and, in a cluster, to other CTAs ("membar/fence":
 * fence.mbarrier_init, and fence.proxy.async for the generic-proxy writes
 * of mbarrier.init that TMA then updates). */
__device__ __forceinline__ void f8b_fence_barrier_init()
{
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* mbarrier.arrive.expect_tx: one arrival, and tx-count += bytes, which the
 * TMA copies that name this barrier then pay off (mbarrier.expect_tx,
 * mbarrier.arrive). */
__device__ __forceinline__ void f8b_mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
	asm volatile("{\n.reg .b64 state;\n"
	             "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(bar),
	             "r"(bytes)
	             : "memory");
}

/* mbarrier.expect_tx: tx-count += bytes, no arrival (relaxed, CTA scope;
 * mbarrier.expect_tx): the producer that arrives later, once it has
 * written the rest of the stage itself. */
__device__ __forceinline__ void f8b_mbarrier_expect_tx(uint32_t bar, uint32_t bytes)
{
	asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(bar),
	             "r"(bytes)
	             : "memory");
}

/* mbarrier.arrive: one arrival (release semantics at CTA scope, the
 * default; mbarrier.arrive). */
__device__ __forceinline__ void f8b_mbarrier_arrive(uint32_t bar)
{
	asm volatile("{\n.reg .b64 state;\n"
	             "mbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar)
	             : "memory");
}

/* How long a wait may last before the kernel gives up: 2^35 SM cycles,
 * about 17 s at 1.98 GHz, against microseconds for any wait of a working
 * pipeline (one K-block, or one tile's epilogue).  A wrong phase or
 * transaction count would otherwise hang the GPU; this turns it into a
 * launch failure ("unspecified launch failure" at the next sync) that the
 * tests report. */
#ifndef F8B_GEMM_WAIT_TIMEOUT_CYCLES
#define F8B_GEMM_WAIT_TIMEOUT_CYCLES (1ll << 35)
#endif

__device__ __forceinline__ uint32_t f8b_mbarrier_try_wait(uint32_t bar, uint32_t parity)
{
	uint32_t done;
	asm volatile("{\n.reg .pred p;\n"
	             "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
	             "selp.u32 %0, 1, 0, p;\n}\n"
	             : "=r"(done)
	             : "r"(bar), "r"(parity)
	             : "memory");
	return done;
}

/* mbarrier.test_wait.parity: 1 if the phase of parity `parity` has
 * completed, else 0 at once (never suspends; acquire semantics at CTA
 * scope when it returns 1, as try_wait's).  A test issued while a wgmma
 * group runs takes its latency off the path from that group's end to the
 * next issue: the consumer blocks in f8b_mbarrier_wait only where the
 * test said no. */
__device__ __forceinline__ uint32_t f8b_mbarrier_test_wait(uint32_t bar, uint32_t parity)
{
	uint32_t done;
	asm volatile("{\n.reg .pred p;\n"
	             "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
	             "selp.u32 %0, 1, 0, p;\n}\n"
	             : "=r"(done)
	             : "r"(bar), "r"(parity)
	             : "memory");
	return done;
}

/* mbarrier.try_wait.parity in a loop until the phase of parity `parity`
 * has completed (acquire semantics at CTA scope; mbarrier.test_wait/
 * try_wait).  try_wait itself suspends the thread for a system-dependent
 * time before it returns false, so the loop does not spin hot. */
__device__ __forceinline__ void f8b_mbarrier_wait(uint32_t bar, uint32_t parity)
{
	if (f8b_mbarrier_try_wait(bar, parity))
		return;
	const long long t0 = clock64();
	while (!f8b_mbarrier_try_wait(bar, parity))
		if (clock64() - t0 > F8B_GEMM_WAIT_TIMEOUT_CYCLES)
			__trap();
}

#endif
