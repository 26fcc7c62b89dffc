/* sm90_fp8_gemm_promote.cu - the fp8 GEMM's PROMOTE variants (tensorwise
 * or axiswise scales, fast_accum off: each 128 of K summed by wgmma, then
 * added into fp32 registers).  The kernel: sm90_fp8_gemm_kernel.cuh. */
#include "sm90_fp8_gemm_kernel.cuh"

f8b_kgemm_fn f8b_kgemm_pick_promote(int tile, int a, int b, int out)
{
	return f8b_kg_pick_mode<F8B_KGEMM_PROMOTE>(tile, a, b, out);
}
