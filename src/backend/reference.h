/* reference.h - the higher-precision GEMM reference and the error figures
 * every benchmark check uses (doc/gemm.md, "GEMM semantics and accuracy").
 *
 * How a check goes: dequantize the very fp8 operands (with their scale_inv
 * tensors) the kernel consumed, compute D in double from them, and compare
 * the kernel's D (converted to fp32) by relative error against
 * f8b_gemm_tolerance().  The quantisation error of the fp8 format is thus
 * not measured - only the kernel's own arithmetic, so a wrong kernel or a
 * wrong scale layout (relative error O(1)) is told apart from rounding.
 */
#ifndef F8B_REFERENCE_H
#define F8B_REFERENCE_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/common.h"
#include "core/scaling.h"

/* D = A @ B^T with A [m,k], B [n,k], D [m,n], all row-major; products are
 * exact in double and summed in double.  F8B_EINVAL on a non-positive
 * dimension.  About 1 s for 1024^3 on one core. */
int f8b_ref_gemm(const float *a, const float *b, int64_t m, int64_t n, int64_t k, double *d);

/* The same for the selected rows of D only (GPU checks of big shapes sample
 * rows): d is [nrows, n], its row r = row rows[r] of A @ B^T.  Bit-identical
 * to the corresponding rows of f8b_ref_gemm().  F8B_EINVAL when a row index
 * is outside [0, m). */
int f8b_ref_gemm_rows(const float *a, const float *b, int64_t m, int64_t n, int64_t k,
                      const int64_t *rows, int64_t nrows, double *d);

/* out = x widened to fp32, times its block's scale_inv for fp8 dtypes:
 *   out[r,c] = fp8_to_f32(x[r,c]) * scale_inv[f8b_scale_index(g, block of r,c)]
 * (one fp32 multiply, so exact when scales are powers of two).  For bf16
 * and f32 x, g and scale_inv are ignored (may be NULL).  x is rows x cols
 * row-major, host memory. */
int f8b_ref_dequantize(const void *x, enum f8b_dtype dt, int64_t rows, int64_t cols,
                       enum f8b_granularity g, const float *scale_inv, float *out);

/* ||x - ref||_2 / ||ref||_2 over n values, accumulated in double.
 * NaN when any x or ref is NaN or infinite (a non-finite output is never
 * "close").  When ||ref|| = 0: 0 if x is all zeros too, +inf otherwise. */
double f8b_rel_error(const float *x, const double *ref, size_t n);

/* Signal-to-quantisation-noise ratio in dB: 20 log10(||ref|| / ||x - ref||)
 * = -20 log10(rel_error).  +inf when x == ref exactly; NaN as above;
 * -inf when ||ref|| = 0 and x is not all zeros. */
double f8b_sqnr_db(const float *x, const double *ref, size_t n);

/* Largest relative error (as f8b_rel_error) a correct GEMM with contraction
 * length k, output dtype out_dtype (bf16, f32 or e4m3) and the given accumulation
 * mode may show against the double reference on the dequantized operands:
 *   2 u_out + 8 sqrt(k) 2^-23 + min(k, 128) 2^-16     (fast_accum off)
 *   2 u_out + 8 sqrt(k) 2^-23 + k 2^-16                (fast_accum on)
 * u_out = 2^-8 for bf16, 2^-23 for f32, 2^-4 for e4m3 (compared as
 * D / d_scale).  doc/gemm.md explains each term and
 * the H100 measurements behind it; a wrong kernel or scale layout gives
 * O(1).  Strictly increasing in k; larger with fast_accum for k > 128.
 * With fast_accum the bound passes 0.25 at k = 16384: past that such a
 * check only catches gross errors (run the same case without fast_accum
 * for a tight one). */
double f8b_gemm_tolerance(int64_t k, enum f8b_dtype out_dtype, bool fast_accum);

#ifdef __cplusplus
}
#endif

#endif
