/* ptx/wgmma.cuh - warpgroup matrix multiply-accumulate on fp8 operands in
 * shared memory (PTX ISA, "Asynchronous Warpgroup Level Matrix
 * Multiply-Accumulate Instructions").
 *
 *   wgmma.fence       orders earlier register/shared accesses before the
 *                     next wgmma (wgmma.fence); needed before the first
 *                     wgmma and whenever other instructions touched the
 *                     accumulators (the epilogue of the previous tile)
 *   wgmma.mma_async   D (64 x N, fp32, registers) = A (64 x 32) . B (32 x N)
 *                     + D when scale-d is true, A and B K-major in shared
 *                     memory, described by 64-bit descriptors
 *   commit_group      closes the wgmma ops issued so far into a group
 *   wait_group N      waits until at most N groups are pending
 *
 * The accumulator fragment of m64nNk32 with .f32 ("Register
 * Fragments and Shared Memory Matrix Layouts": the figure of the .m64nNk32
 * accumulator D): thread t of the warpgroup (warp w =
 * t / 32, lane l = t % 32) holds d[4j + i], j < N/8, at
 *   row 16 w + l/4 + 8 (i/2),  column 8 j + 2 (l % 4) + (i % 2).
 *
 * f8b_wgmma<N, AT, BT>::mma(d, desc_a, desc_b, scale_d) is one
 * wgmma.mma_async.sync.aligned.m64nNk32.f32.AT.BT with imm-scale-a =
 * imm-scale-b = 1 (no negation); fp8 wgmma has no transpose operands (both
 * operands K-major).  The operand lists are long (N/2 accumulators), so
 * they are spelled out once per N in the macros below (N = 128, 192, 256;
 * wgmma takes any multiple of 8 up to 256 for fp8).
 */
#ifndef F8B_GEMM_PTX_WGMMA_CUH
#define F8B_GEMM_PTX_WGMMA_CUH

#include <stdint.h>

__device__ __forceinline__ void f8b_wgmma_fence()
{
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void f8b_wgmma_commit_group()
{
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void f8b_wgmma_wait_group()
{
	static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Ties a register to the point of the call, so the compiler moves no read
 * or write of an accumulator across a wgmma fence or wait (the registers
 * are written by the tensor cores behind its back between the two). */
__device__ __forceinline__ void f8b_reg_fence(float &r)
{
	asm volatile("" : "+f"(r)::"memory");
}

/* PTX type names of enum f8b_dtype's fp8 values. */
enum { F8B_WG_E4M3 = 0, F8B_WG_E5M2 = 1 };

template <int N, int AT, int BT> struct f8b_wgmma;

#define F8B_WGMMA_M64N128K32(AT, BT)                                                               \
	asm volatile(                                                                              \
	    "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                           \
	    "wgmma.mma_async.sync.aligned.m64n128k32.f32." AT "." BT " {"                          \
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "               \
	    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "     \
	    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "     \
	    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"       \
	    "}, %64, %65, p, 1, 1;\n}\n"                                                           \
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
	      "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),           \
	      "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),        \
	      "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),        \
	      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),        \
	      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),        \
	      "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),        \
	      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),        \
	      "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),        \
	      "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),        \
	      "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                                                \
	    : "l"(desc_a), "l"(desc_b), "r"(scale_d))

#define F8B_WGMMA_M64N256K32(AT, BT)                                                               \
	asm volatile(                                                                              \
	    "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                          \
	    "wgmma.mma_async.sync.aligned.m64n256k32.f32." AT "." BT " {"                          \
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "               \
	    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "     \
	    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "     \
	    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "     \
	    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "     \
	    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "     \
	    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "     \
	    "%110, %111, "                                                                         \
	    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, " \
	    "%126, %127"                                                                           \
	    "}, %128, %129, p, 1, 1;\n}\n"                                                         \
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
	      "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),           \
	      "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),        \
	      "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),        \
	      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),        \
	      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),        \
	      "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),        \
	      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),        \
	      "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),        \
	      "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),        \
	      "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]),        \
	      "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),        \
	      "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),        \
	      "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),        \
	      "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),        \
	      "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]),        \
	      "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]),     \
	      "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]),  \
	      "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]),  \
	      "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),  \
	      "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]),  \
	      "+f"(d[127])                                                                         \
	    : "l"(desc_a), "l"(desc_b), "r"(scale_d))

#define F8B_WGMMA_M64N192K32(AT, BT)                                                               \
	asm volatile(                                                                              \
	    "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"                                           \
	    "wgmma.mma_async.sync.aligned.m64n192k32.f32." AT "." BT " {"                          \
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "                         \
	    "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "               \
	    "%28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, "               \
	    "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "               \
	    "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "               \
	    "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "               \
	    "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"                           \
	    "}, %96, %97, p, 1, 1;\n}\n"                                                           \
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
	      "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),           \
	      "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),        \
	      "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),        \
	      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),        \
	      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),        \
	      "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),        \
	      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),        \
	      "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),        \
	      "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),        \
	      "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]),        \
	      "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),        \
	      "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),        \
	      "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),        \
	      "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),        \
	      "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])                      \
	    : "l"(desc_a), "l"(desc_b), "r"(scale_d))

#define F8B_WGMMA_DEFINE(N, ATN, BTN, ATS, BTS)                                                    \
	template <> struct f8b_wgmma<N, ATN, BTN> {                                                \
		static __device__ __forceinline__ void mma(float *d, uint64_t desc_a,              \
		                                           uint64_t desc_b, uint32_t scale_d)      \
		{                                                                                  \
			F8B_WGMMA_M64N##N##K32(ATS, BTS);                                          \
		}                                                                                  \
	};

F8B_WGMMA_DEFINE(128, F8B_WG_E4M3, F8B_WG_E4M3, "e4m3", "e4m3")
F8B_WGMMA_DEFINE(128, F8B_WG_E4M3, F8B_WG_E5M2, "e4m3", "e5m2")
F8B_WGMMA_DEFINE(128, F8B_WG_E5M2, F8B_WG_E4M3, "e5m2", "e4m3")
F8B_WGMMA_DEFINE(128, F8B_WG_E5M2, F8B_WG_E5M2, "e5m2", "e5m2")
F8B_WGMMA_DEFINE(192, F8B_WG_E4M3, F8B_WG_E4M3, "e4m3", "e4m3")
F8B_WGMMA_DEFINE(192, F8B_WG_E4M3, F8B_WG_E5M2, "e4m3", "e5m2")
F8B_WGMMA_DEFINE(192, F8B_WG_E5M2, F8B_WG_E4M3, "e5m2", "e4m3")
F8B_WGMMA_DEFINE(192, F8B_WG_E5M2, F8B_WG_E5M2, "e5m2", "e5m2")
F8B_WGMMA_DEFINE(256, F8B_WG_E4M3, F8B_WG_E4M3, "e4m3", "e4m3")
F8B_WGMMA_DEFINE(256, F8B_WG_E4M3, F8B_WG_E5M2, "e4m3", "e5m2")
F8B_WGMMA_DEFINE(256, F8B_WG_E5M2, F8B_WG_E4M3, "e5m2", "e4m3")
F8B_WGMMA_DEFINE(256, F8B_WG_E5M2, F8B_WG_E5M2, "e5m2", "e5m2")

#endif
