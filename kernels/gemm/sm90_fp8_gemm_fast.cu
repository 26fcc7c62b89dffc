/* sm90_fp8_gemm_fast.cu - the fp8 GEMM's FAST variants (tensorwise or
 * axiswise scales, fast_accum on: the wgmma accumulator over all of K),
 * one per tile of F8B_KGEMM_TILE_LIST that lists the mode, dtype pair and
 * output type.  The kernel: sm90_fp8_gemm_kernel.cuh. */
#include "sm90_fp8_gemm_kernel.cuh"

f8b_kgemm_fn f8b_kgemm_pick_fast(int tile, int a, int b, int out)
{
	return f8b_kg_pick_mode<F8B_KGEMM_FAST>(tile, a, b, out);
}
