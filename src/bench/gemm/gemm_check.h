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
 * a double GEMM of them is the accuracy fp8 costs (doc/gemm.md).
 *
 * An e4m3 D (doc/gemm.md "Checking an fp8 output") is decoded and divided
 * by d_scale for the relative error and SQNR, and besides: each checked
 * element is compared with the reference quantised the same way,
 * e4m3(fp32(ref) * d_scale), and counted as off when its code is more
 * than one step away and its value further from d_scale * ref than the
 * sum's own error allows (f8b_e4m3_sum_error: the accumulation part of
 * the tolerance at the block's rms, and the tensor cores' rounding of the
 * element's products); amax_d
 * is compared with the reference's amax (the checked block's, a lower
 * bound when sampled), and with the largest |D| over all of D: the e4m3
 * of amax_d * d_scale must be within one step of it.
 *
 * The reference sums of the last block are kept for the next check of the
 * same operands (f8b_gemm_ref_amax before the GEMM, both implementations
 * of a case, the tests' runs of one case): compared by their contents,
 * not their addresses, so new data in the same memory is a new reference. */
#ifndef F8B_GEMM_CHECK_H
#define F8B_GEMM_CHECK_H

#include "backend/backend.h"

struct f8b_gemm_data {
	const struct f8b_gemm_desc *desc;
	const struct f8b_tensor *a, *b;         /* as the GEMM read them (fp8 or bf16) */
	const float *a_scale_inv, *b_scale_inv; /* backend memory; NULL for bf16 */
	const struct f8b_tensor *a_hp, *b_hp;   /* high-precision inputs; NULL: no SQNR */
	const struct f8b_tensor *d;             /* the output */
	/* e4m3 output (backend memory, one float each), else NULL */
	const float *d_scale, *amax_d;
};

struct f8b_gemm_verdict {
	double rel_error, tolerance;
	double sqnr_db;     /* NaN without high-precision inputs */
	int64_t rows, cols; /* the checked block of D */
	bool ok;            /* rel_error <= tolerance (NaN fails), and for e4m3 the below */
	bool sampled;       /* the block is smaller than D */
	/* e4m3 output only (else 0 / NaN / true): */
	int64_t off;             /* checked elements off the quantised reference */
	double amax_d, amax_ref; /* the GEMM's amax; the reference's over the block */
	float d_scale;
	int max_steps; /* e4m3 steps between max |D| and e4m3(amax_d * d_scale) */
	bool amax_ok;  /* amax_d against amax_ref (equal within the tolerance, or
	                * at least it when sampled) and max_steps <= 1 */
};

int f8b_gemm_check(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                   const struct f8b_gemm_data *g, int64_t max_rows, int64_t max_cols, uint64_t seed,
                   struct f8b_gemm_verdict *v);

/* max |ref| over the block f8b_gemm_check compares (the same rows and
 * columns for the same arguments; D need not exist yet), for choosing an
 * e4m3 output's d_scale before the GEMM runs; *sampled: the block is
 * smaller than D, so the amax is a lower bound of D's. */
int f8b_gemm_ref_amax(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                      const struct f8b_gemm_data *g, int64_t max_rows, int64_t max_cols,
                      uint64_t seed, double *amax, bool *sampled);

/* A D^T written beside D (f8b_gemm_desc.out_t) against D, byte for byte
 * (the same values transposed: backend.h): D [m, n] and D^T [n, m], es
 * bytes an element, backend memory.  Every element when `whole` or when D
 * has at most 2^22 of them; else D's first and last 64 rows (the ragged
 * edge among them) at 64 columns spread over n, the first and last
 * included, each a row of D^T downloaded whole.  *off: elements that
 * differ, *checked: elements compared. */
int f8b_gemm_check_t(const struct f8b_backend_ops *ops, struct f8b_backend *be, const void *d,
                     const void *d_t, int64_t m, int64_t n, size_t es, bool whole, int64_t *off,
                     int64_t *checked);

/* The steps between two e4m3 codes along the number line (+0 and -0 are
 * one point; NaN codes: INT_MAX unless both are NaN, then 0). */
int f8b_e4m3_steps(uint8_t a, uint8_t b);

/* How far an element's fp32 sum may stray from the double reference, in
 * D's units (before d_scale), where the checked block's rms is `rms`, the
 * element's sum of |a_k b_k| is `absref` and t_acc is the accumulation part
 * of f8b_gemm_tolerance (fp32 output).  With fp8 operands (tensor_cores)
 * the wgmma accumulator's own rounding adds 2^-10 of absref: it keeps
 * about 14 bits of each 128-of-K partial (DeepSeek-V3's report; four
 * k32 steps, a factor 4 of margin), an error that follows the partials'
 * magnitudes, which an outlier in the element's row or column makes far
 * larger than the block's rms (the H100's promoting kernels, 2026-11-26:
 * 1 to 5 of 2.4 million elements two steps off at the rms-only bound). */
double f8b_e4m3_sum_error(double t_acc, double rms, double absref, bool tensor_cores);

/* Sampled indices: all of 0..n-1 when n <= want, else `want` of them, one
 * per stride with a seeded offset, n-1 last.  Returns how many. */
int64_t f8b_sample_indices(int64_t n, int64_t want, uint64_t seed, int64_t *idx);

#endif
