/* ptx/flag.cuh - a flag between CTAs of one grid (PTX ISA, "Memory
 * Consistency Model": release and acquire patterns at gpu scope), for the
 * GEMM's stream-K tail (streamk.h): the CTA that wrote a tile's partial
 * sums raises its flag; the CTA that adds them waits for it, then lowers
 * it.  One thread of each side calls these; the rest of its warpgroup
 * meets it at a named barrier (before the release: the writers' stores
 * are then ordered before it, the barrier and the fence being
 * cumulative; after the acquire: the readers' loads after it).  The
 * pattern is the one of a grid-wide barrier: fence, then the store; the
 * load, then the fence. */
#ifndef F8B_GEMM_PTX_FLAG_CUH
#define F8B_GEMM_PTX_FLAG_CUH

#include <stdint.h>

/* Sets *flag to 1 after every earlier write the thread has seen. */
__device__ __forceinline__ void f8b_flag_release(unsigned *flag)
{
	asm volatile("fence.acq_rel.gpu;\n"
	             "st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(flag),
	             "r"(1u)
	             : "memory");
}

/* Waits until *flag is 1, then sets it back to 0; later reads see what
 * was written before its release. */
__device__ __forceinline__ void f8b_flag_acquire(unsigned *flag)
{
	unsigned v = 0;
	do {
		asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
		             : "=r"(v)
		             : "l"(flag)
		             : "memory");
	} while (v == 0);
	asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n"
	             "fence.acq_rel.gpu;\n" ::"l"(flag),
	             "r"(0u)
	             : "memory");
}

#endif
