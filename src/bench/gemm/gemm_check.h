/* gemm_check.h - is a GEMM's output right?  Checked once before a GEMM is
 * timed, by every benchmark that times one (gemm, ceilings).
 *
 * A block of D - every row and column for small shapes, else max_rows x
 * max_cols sampled ones, the last row and column always among them so
 * ragged tiles and scale blocks are covered - is compared with a double
 * GEMM of the very operands the kernel read (dequantised with their
 * scale_inv tensors): the relative error must stay within
 * f8b_gemm_tolerance(), which a wrong kernel or scale layout (error O(1))
 * never does.  With the high-precision inputs given, the SQNR of D against
 * a double GEMM of them is the accuracy fp8 costs (doc/gemm.md). */
#ifndef F8B_GEMM_CHECK_H
#define F8B_GEMM_CHECK_H

#include "backend/backend.h"

struct f8b_gemm_data {
	const struct f8b_gemm_desc *desc;
	const struct f8b_tensor *a, *b;         /* as the GEMM read them (fp8 or bf16) */
	const float *a_scale_inv, *b_scale_inv; /* backend memory; NULL for bf16 */
	const struct f8b_tensor *a_hp, *b_hp;   /* high-precision inputs; NULL: no SQNR */
	const struct f8b_tensor *d;             /* the output */
};

struct f8b_gemm_verdict {
	double rel_error, tolerance;
	double sqnr_db;     /* NaN without high-precision inputs */
	int64_t rows, cols; /* the checked block of D */
	bool ok;            /* rel_error <= tolerance (NaN fails) */
	bool sampled;       /* the block is smaller than D */
};

int f8b_gemm_check(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                   const struct f8b_gemm_data *g, int64_t max_rows, int64_t max_cols, uint64_t seed,
                   struct f8b_gemm_verdict *v);

/* Sampled indices: all of 0..n-1 when n <= want, else `want` of them, one
 * per stride with a seeded offset, n-1 last.  Returns how many. */
int64_t f8b_sample_indices(int64_t n, int64_t want, uint64_t seed, int64_t *idx);

#endif
