/* sm90_fp8_gemm_blockwise.cu - the fp8 GEMM's block-scaled variants: A
 * block1x128 with B block128x128 (BLOCK) or B block1x128 (BLOCK_1X128),
 * the block scales applied to each 128-of-K partial sum as it is promoted
 * into fp32 registers.  The kernel: sm90_fp8_gemm_kernel.cuh. */
#include "sm90_fp8_gemm_kernel.cuh"

f8b_kgemm_fn f8b_kgemm_pick_blockwise(int tile, int mode, int a, int b, int out)
{
	if (mode == F8B_KGEMM_BLOCK)
		return f8b_kg_pick_mode<F8B_KGEMM_BLOCK>(tile, a, b, out);
	if (mode == F8B_KGEMM_BLOCK_1X128)
		return f8b_kg_pick_mode<F8B_KGEMM_BLOCK_1X128>(tile, a, b, out);
	return nullptr;
}
