/* gemm_out8.h - the GPU tests' run of a GEMM with an e4m3 D and its amax
 * (doc/gemm.md "fp8 output"), shared by test_gemm_cuda.c (cuBLASLt) and
 * test_f8b_gemm.c (f8bench's kernel).  It plans the GEMM, chooses d_scale
 * as f8bench gemm does (448 / the reference's amax over the checked rows,
 * halved when they are a sample), poisons D (0xFF: e4m3's NaN) and amax_d
 * (1e30, above any amax: a GEMM that maxed into amax_d instead of setting
 * it keeps it), runs and checks it with the benchmarks' check
 * (bench/gemm/gemm_check.h), then again at 4 x d_scale, where elements
 * must saturate to +-448 and never become NaN; with d->out_t, D^T is
 * compared with D, byte for byte, after each run.  It asserts nothing: the
 * test reads the result and says what failed (tap.h's counters are per
 * file). */
#ifndef F8B_GEMM_OUT8_H
#define F8B_GEMM_OUT8_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "bench/gemm/gemm_check.h"

#define OUT8_POISON 1e30f /* amax_d before each run */

struct out8_result {
	int rc;                    /* F8B_OK, or the status of the step that failed */
	const char *step;          /* that step: "plan", "run", "check", ... */
	bool unsupported;          /* the plan was refused with F8B_EUNSUPPORTED */
	struct f8b_algo_info info; /* the plan's */
	float d_scale;
	struct f8b_gemm_verdict v;    /* at d_scale */
	float amax_d;                 /* as the GEMM left it */
	struct f8b_gemm_verdict vsat; /* at 4 x d_scale */
	float amax_sat;
	int64_t nan_codes, sat_codes; /* codes of D at 4 x d_scale: NaN, +-448 */
	/* d->out_t: elements of D^T (poisoned before each run) that are not
	 * D's byte transposed, over both runs; -1 when no D^T was asked */
	int64_t t_off;
};

/* d: out_dtype e4m3; a, b the quantised operands (device) with their
 * scale_inv tensors; a_hp, b_hp the bf16 inputs (for the SQNR) or NULL;
 * max_rows: rows of D checked (M: all; fewer: sampled, as f8bench gemm). */
void out8_run(const struct f8b_backend_ops *ops, struct f8b_backend *be,
              const struct f8b_gemm_desc *d, int candidate, const struct f8b_tensor *a,
              const struct f8b_tensor *b, const float *a_scale_inv, const float *b_scale_inv,
              const struct f8b_tensor *a_hp, const struct f8b_tensor *b_hp, int64_t max_rows,
              struct out8_result *r);

#endif
