/* cuda_gemm_f8b.h - the host-side choices of f8bench's own sm_90a fp8 GEMM
 * (cuda_gemm_f8b.c, doc/gemm-kernels.md) that need no GPU: which kernel
 * mode a problem takes, which tile of the table (kernels/gemm/gemm.h) the
 * plan picks, and the --autotune candidates.  Declared apart so that
 * tests/test_f8b_gemm_pick.c checks them on machines without a GPU. */
#ifndef F8B_CUDA_GEMM_F8B_H
#define F8B_CUDA_GEMM_F8B_H

#include <stdint.h>

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *mode = the enum f8b_kgemm_mode of d (FAST or PROMOTE for tensorwise /
 * axiswise by fast_accum, BLOCK or BLOCK_1X128 for the blockwise pairs),
 * or F8B_EUNSUPPORTED naming what is not taken ("impl f8b" in the
 * message; cfg names the case): also an e4m3 output other than e4m3 x
 * e4m3 in a mode with e4m3-output variants, without the fused sigmoid. */
int f8b_kgemm_mode_of(const struct f8b_gemm_desc *d, const char *cfg, int *mode);

/* OR'd into the `out` of the three functions below: D^T is written too
 * (f8b_gemm_desc.out_t), which only the cooperative tiles' epilogue does
 * (the ping-pong tile is no candidate then). */
#define F8B_KGEMM_OUT_T 0x100

/* The tile index the plan picks for an M x N output on `sms` SMs in mode
 * with output dtype out (the fewest waves, weighted by tile area; the
 * wider tile on ties; cluster and ping-pong tiles never), -1 when no tile
 * has the mode for that output (e4m3: the tiles' e4m3_modes). */
int f8b_kgemm_pick_tile(int64_t m, int64_t n, int sms, int mode, int out);

/* Tiles of the table compiled for mode and output dtype out; the tile of
 * candidate c (0: picked, then the others in table order), -1 past the
 * end. */
int f8b_kgemm_candidates(int mode, int out);
int f8b_kgemm_candidate_tile(int picked, int mode, int out, int c);

#ifdef __cplusplus
}
#endif

#endif
