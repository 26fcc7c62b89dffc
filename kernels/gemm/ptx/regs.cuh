/* ptx/regs.cuh - register reallocation between warpgroups (PTX ISA,
 * "Miscellaneous Instructions: setmaxnreg"): the producer warpgroup gives registers back, the
 * consumer warpgroups take them.  Every thread of a warpgroup executes the
 * same setmaxnreg; the count is a multiple of 8 in [24, 256]. */
#ifndef F8B_GEMM_PTX_REGS_CUH
#define F8B_GEMM_PTX_REGS_CUH

template <int N> __device__ __forceinline__ void f8b_setmaxnreg_dec()
{
	static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg count");
	asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <int N> __device__ __forceinline__ void f8b_setmaxnreg_inc()
{
	static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg count");
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

#endif
