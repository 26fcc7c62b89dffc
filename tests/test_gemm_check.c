/* test_gemm_check.c - the benchmarks' check of a GEMM's output
 * (src/bench/gemm/gemm_check.h) for an e4m3 D, on the host backend: a
 * right D and amax pass, whole and sampled; a code two steps off, a NaN
 * code, an amax too large, too small or NaN each fail; a code two steps
 * off where the value is near zero (e4m3's steps finer than the sum's own
 * error) passes; f8b_e4m3_steps and the e4m3 tolerance.  And B scaled
 * 1x128 as A is (the blockwise recipe's grad_weight GEMM, f8bench gemm
 * --scaling blockwise-1x128): the check reads B's N x ceil(K/128) scales
 * where f8b_scale_index() puts them, so a right D passes and a D from
 * other scales fails.  And the D^T check (f8b_gemm_check_t).  And the
 * kept reference sums: a second check of the same operands gives the same
 * verdict, new data in the same memory a new reference. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/reference.h"
#include "bench/gemm/gemm_check.h"
#include "core/fp8.h"
#include "tap.h"

static const struct f8b_backend_ops *ops = &f8b_backend_host;
static struct f8b_backend *be;

static void test_steps(void)
{
	tap_ok(f8b_e4m3_steps(0x00, 0x80) == 0, "+0 and -0 are one point");
	tap_ok(f8b_e4m3_steps(0x01, 0x81) == 2, "the smallest subnormals of both signs: 2 steps");
	tap_ok(f8b_e4m3_steps(0x7E, 0x7D) == 1 && f8b_e4m3_steps(0xFD, 0xFE) == 1,
	       "448 and 416: one step, either sign");
	tap_ok(f8b_e4m3_steps(0x38, 0x3A) == 2, "1.0 and 1.25: two steps");
	/* the sum's error: the accumulation tolerance at the rms, and with
	 * fp8 operands 2^-10 of the element's sum of |a b| */
	tap_ok(f8b_e4m3_sum_error(1e-3, 50.0, 8000.0, false) == 1e-3 * 50.0,
	       "sum error without tensor cores: t_acc x rms only");
	tap_ok(f8b_e4m3_sum_error(1e-3, 50.0, 0.0, true) == 1e-3 * 50.0 &&
	           f8b_e4m3_sum_error(1e-3, 50.0, 8192.0, true) == 1e-3 * 50.0 + 8.0,
	       "sum error with tensor cores: + 2^-10 of sum |a b| (%g at 8192)",
	       f8b_e4m3_sum_error(1e-3, 50.0, 8192.0, true));
	tap_ok(f8b_e4m3_steps(0x7F, 0xFF) == 0 && f8b_e4m3_steps(0x7F, 0x00) == INT_MAX &&
	           f8b_e4m3_steps(0x10, 0xFF) == INT_MAX,
	       "NaN: level with NaN only");
	/* e4m3 output rounds to 3 fraction bits: 2 x 2^-4 beside bf16's 2 x 2^-8 */
	double t8 = f8b_gemm_tolerance(1024, F8B_E4M3, false);
	double t16 = f8b_gemm_tolerance(1024, F8B_BF16, false);
	tap_ok(fabs((t8 - t16) - (2 * 0x1p-4 - 2 * 0x1p-8)) < 1e-12,
	       "e4m3 tolerance %.4g = bf16's %.4g + 2 (2^-4 - 2^-8)", t8, t16);
}

/* hp cast to e4m3 into q at granularity g (ns scales): amax, scale and
 * scale_inv per block, as the benchmark does; the scale_inv into sinv. */
static int quantize(struct f8b_tensor *hp, enum f8b_granularity g, int64_t ns, float *sinv,
                    struct f8b_tensor *q)
{
	float *amax = malloc(sizeof(float) * (size_t)ns), *s = malloc(sizeof(float) * (size_t)ns);
	int rc = amax && s ? F8B_OK : F8B_ENOMEM;
	if (rc == F8B_OK)
		rc = ops->amax(be, hp, g, amax);
	if (rc == F8B_OK)
		rc = ops->scales(be, amax, ns, F8B_E4M3, NULL, s, sinv);
	if (rc == F8B_OK)
		rc = ops->cast(be, hp, g, s, q);
	free(amax);
	free(s);
	return rc;
}

struct fixture {
	struct f8b_gemm_desc desc;
	struct f8b_tensor a_hp, b_hp, a, b, d;
	float sinv_a, sinv_b, d_scale, amax_d;
};

/* A tensorwise e4m3 x e4m3 GEMM M x K x N with an e4m3 D, d_scale chosen
 * as the gemm benchmark does (448 / the reference's amax over the whole D). */
static int setup(struct fixture *f, int64_t m, int64_t k, int64_t n)
{
	memset(f, 0, sizeof *f);
	f->desc = (struct f8b_gemm_desc){.m = m,
	                                 .n = n,
	                                 .k = k,
	                                 .a_dtype = F8B_E4M3,
	                                 .b_dtype = F8B_E4M3,
	                                 .out_dtype = F8B_E4M3,
	                                 .a_gran = F8B_GRAN_TENSORWISE,
	                                 .b_gran = F8B_GRAN_TENSORWISE};
	struct f8b_fill_spec fa = {.seed = 5, .std = 1.0f}, fb = {.seed = 6, .std = 1.0f};
	F8B_TRY(f8b_tensor_alloc(ops, be, &f->a_hp, F8B_BF16, m, k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &f->b_hp, F8B_BF16, n, k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &f->a, F8B_E4M3, m, k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &f->b, F8B_E4M3, n, k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &f->d, F8B_E4M3, m, n));
	F8B_TRY(ops->fill(be, &f->a_hp, &fa));
	F8B_TRY(ops->fill(be, &f->b_hp, &fb));
	F8B_TRY(quantize(&f->a_hp, F8B_GRAN_TENSORWISE, 1, &f->sinv_a, &f->a));
	return quantize(&f->b_hp, F8B_GRAN_TENSORWISE, 1, &f->sinv_b, &f->b);
}

static struct f8b_gemm_data data_of(struct fixture *f)
{
	return (struct f8b_gemm_data){.desc = &f->desc,
	                              .a = &f->a,
	                              .b = &f->b,
	                              .a_scale_inv = &f->sinv_a,
	                              .b_scale_inv = &f->sinv_b,
	                              .a_hp = &f->a_hp,
	                              .b_hp = &f->b_hp,
	                              .d = &f->d,
	                              .d_scale = &f->d_scale,
	                              .amax_d = &f->amax_d};
}

static int run(struct fixture *f, int64_t rows, int64_t cols)
{
	struct f8b_gemm_data g = data_of(f);
	double amax = 0;
	bool sampled = false;
	F8B_TRY(f8b_gemm_ref_amax(ops, be, &g, rows, cols, 1, &amax, &sampled));
	f->d_scale = (float)(448.0 / (sampled ? 2 * amax : amax));
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_gemm_args args = {.a = f->a.data,
	                             .b = f->b.data,
	                             .a_scale_inv = &f->sinv_a,
	                             .b_scale_inv = &f->sinv_b,
	                             .d = f->d.data,
	                             .d_scale = &f->d_scale,
	                             .amax_d = &f->amax_d};
	int rc = ops->gemm_plan(be, &f->desc, 0, &plan, NULL);
	if (rc == F8B_OK)
		rc = ops->gemm(be, plan, &args);
	ops->gemm_plan_free(be, plan);
	return rc;
}

static void teardown(struct fixture *f)
{
	f8b_tensor_free(ops, be, &f->a_hp);
	f8b_tensor_free(ops, be, &f->b_hp);
	f8b_tensor_free(ops, be, &f->a);
	f8b_tensor_free(ops, be, &f->b);
	f8b_tensor_free(ops, be, &f->d);
}

static bool check(struct fixture *f, int64_t rows, int64_t cols, struct f8b_gemm_verdict *v)
{
	struct f8b_gemm_data g = data_of(f);
	memset(v, 0, sizeof *v);
	return f8b_gemm_check(ops, be, &g, rows, cols, 1, v) == F8B_OK;
}

/* The checked element (all of D checked) whose |code| is the largest, or
 * the smallest non-zero one. */
static int64_t find_code(const struct fixture *f, bool largest)
{
	const uint8_t *q = f->d.data;
	int64_t at = -1;
	for (int64_t i = 0; i < f->d.rows * f->d.cols; i++) {
		int c = q[i] & 0x7F;
		if (c == 0)
			continue;
		if (at < 0 || (largest ? c > (q[at] & 0x7F) : c < (q[at] & 0x7F)))
			at = i;
	}
	return at;
}

static void test_check(void)
{
	const int64_t m = 200, k = 256, n = 160;
	struct fixture f;
	struct f8b_gemm_verdict v;
	int rc = setup(&f, m, k, n);
	if (rc == F8B_OK)
		rc = run(&f, m, n);
	if (!tap_ok(rc == F8B_OK, "host e4m3 GEMM %lldx%lldx%lld: %s", (long long)m, (long long)k,
	            (long long)n, rc ? f8b_last_error() : "ran"))
		return;
	uint8_t *q = f.d.data;

	bool c = check(&f, m, n, &v);
	tap_ok(c && v.ok && !v.sampled && v.off == 0 && v.amax_ok && v.max_steps == 0 &&
	           fabs(v.amax_d - v.amax_ref) <= 1e-6 * v.amax_ref && v.tolerance > 0.125 &&
	           v.rel_error > 0x1p-8 && v.rel_error < v.tolerance && v.sqnr_db > 15,
	       "the right D, whole: ok (rel_error %.3g <= %.3g, SQNR %.1f dB, amax_d %.6g vs "
	       "%.6g, %d steps from max |D|)",
	       v.rel_error, v.tolerance, v.sqnr_db, v.amax_d, v.amax_ref, v.max_steps);

	/* two steps down at the largest element: far outside any sum's error */
	int64_t big = find_code(&f, true);
	uint8_t save = q[big];
	q[big] = (uint8_t)(save - 2);
	check(&f, m, n, &v);
	tap_ok(!v.ok && v.off == 1, "a code two steps off at |D| = %g fails (off %lld)",
	       f8b_e4m3_to_f32(save), (long long)v.off);
	q[big] = (uint8_t)(save - 1);
	check(&f, m, n, &v);
	tap_ok(v.ok && v.off == 0, "one step off passes (a sum on the other side of a tie)");
	q[big] = 0x7F;
	check(&f, m, n, &v);
	tap_ok(!v.ok && v.off == 1, "a NaN code fails (off %lld)", (long long)v.off);
	q[big] = save;

	/* near zero e4m3's steps are finer than the fp32 sum's own error:
	 * two steps there are within the allowance */
	int64_t small = find_code(&f, false);
	save = q[small];
	q[small] = (uint8_t)(save + 2);
	check(&f, m, n, &v);
	tap_ok(v.ok && v.off == 0, "two steps off at |D| = %g (near zero) pass",
	       f8b_e4m3_to_f32(save));
	q[small] = save;

	float amax = f.amax_d;
	f.amax_d = amax * 1.5f;
	check(&f, m, n, &v);
	tap_ok(!v.ok && !v.amax_ok, "amax_d 1.5x too large fails, whole D checked");
	f.amax_d = NAN;
	check(&f, m, n, &v);
	tap_ok(!v.ok && !v.amax_ok, "a NaN amax_d fails");
	f.amax_d = amax;

	/* Sampled: d_scale from the sample's amax, halved. */
	rc = run(&f, 16, 32);
	c = rc == F8B_OK && check(&f, 16, 32, &v);
	tap_ok(c && v.ok && v.sampled && v.rows == 16 && v.cols == 32 && v.amax_ok &&
	           v.max_steps == 0 && v.amax_d >= v.amax_ref,
	       "the right D, sampled 16x32: ok (amax_d %.6g >= the sample's %.6g)", v.amax_d,
	       v.amax_ref);
	amax = f.amax_d;
	f.amax_d = amax * 1.5f;
	check(&f, 16, 32, &v);
	tap_ok(!v.ok && !v.amax_ok && v.max_steps > 1,
	       "sampled: amax_d 1.5x too large fails against max |D| (%d steps)", v.max_steps);
	f.amax_d = (float)v.amax_ref * 0.5f;
	check(&f, 16, 32, &v);
	tap_ok(!v.ok && !v.amax_ok, "sampled: amax_d below the sample's amax fails");
	f.amax_d = amax;
	teardown(&f);
}

/* The check keeps the last block's reference sums for the next check of the
 * same operands (gemm_check.c, ref_memo), keyed by the operands' contents:
 * new data quantised into the same memory is a new reference (a D of the
 * old data then fails), and new high-precision inputs a new SQNR. */
static void test_memo(void)
{
	const int64_t m = 96, k = 192, n = 80;
	struct fixture f;
	struct f8b_gemm_verdict v, w;
	int rc = setup(&f, m, k, n);
	if (rc == F8B_OK)
		rc = run(&f, m, n);
	if (!tap_ok(rc == F8B_OK, "memo: host e4m3 GEMM %lldx%lldx%lld: %s", (long long)m,
	            (long long)k, (long long)n, rc ? f8b_last_error() : "ran"))
		return;
	bool c = check(&f, m, n, &v) && check(&f, m, n, &w);
	tap_ok(c && v.ok && w.ok && v.rel_error == w.rel_error && v.sqnr_db == w.sqnr_db &&
	           v.amax_ref == w.amax_ref,
	       "memo: the same D checked twice, the same verdict (rel_error %.3g, SQNR %.2f dB)",
	       v.rel_error, v.sqnr_db);
	/* A refilled and quantised again into the same memory; D left as the
	 * old data's */
	struct f8b_fill_spec fa = {.seed = 77, .std = 1.0f};
	rc = ops->fill(be, &f.a_hp, &fa);
	if (rc == F8B_OK)
		rc = quantize(&f.a_hp, F8B_GRAN_TENSORWISE, 1, &f.sinv_a, &f.a);
	c = rc == F8B_OK && check(&f, m, n, &v);
	tap_ok(c && !v.ok && v.rel_error > 0.5,
	       "memo: A's new data in the same memory, D of the old: fails (rel_error %.3g)",
	       v.rel_error);
	rc = run(&f, m, n);
	c = rc == F8B_OK && check(&f, m, n, &v);
	tap_ok(c && v.ok, "memo: D of the new data: ok (rel_error %.3g)", v.rel_error);
	/* the high-precision input changed, the quantised one not: the sums
	 * are kept, the SQNR's reference is not */
	struct f8b_fill_spec fb = {.seed = 78, .std = 1.0f};
	rc = ops->fill(be, &f.b_hp, &fb);
	c = rc == F8B_OK && check(&f, m, n, &w);
	tap_ok(c && w.ok && w.rel_error == v.rel_error && w.sqnr_db < v.sqnr_db - 10,
	       "memo: new high-precision B: the same rel_error, the SQNR against it (%.1f dB, "
	       "was %.1f)",
	       w.sqnr_db, v.sqnr_db);
	teardown(&f);
}

/* A and B block1x128, bf16 D, M != N (a scale indexed with A's rows for
 * B's lands elsewhere or out of bounds) and K ragged (656 = 5 x 128 + 16).
 * Outliers (1% of the inputs x100) make the blocks' scales differ by two
 * orders of magnitude, so dequantising a block with another block's scale
 * is far outside the tolerance. */
static void test_block_1x128(void)
{
	const int64_t m = 144, k = 656, n = 208;
	const enum f8b_granularity g = F8B_GRAN_BLOCK1X128;
	struct f8b_gemm_desc desc = {.m = m,
	                             .n = n,
	                             .k = k,
	                             .a_dtype = F8B_E4M3,
	                             .b_dtype = F8B_E4M3,
	                             .out_dtype = F8B_BF16,
	                             .a_gran = g,
	                             .b_gran = g};
	struct f8b_fill_spec fa = {
	    .seed = 7, .std = 1.0f, .outlier_frac = 0.01f, .outlier_scale = 100.0f};
	struct f8b_fill_spec fb = fa;
	fb.seed = 8;
	int64_t nsa = f8b_scale_count(g, m, k), nsb = f8b_scale_count(g, n, k);
	struct f8b_tensor a_hp = {0}, b_hp = {0}, a = {0}, b = {0}, d = {0};
	float *sinv_a = malloc(sizeof(float) * (size_t)nsa);
	float *sinv_b = malloc(sizeof(float) * (size_t)nsb);
	struct f8b_gemm_plan *plan = NULL;
	int rc = sinv_a && sinv_b ? F8B_OK : F8B_ENOMEM;
	if (rc == F8B_OK)
		rc = f8b_tensor_alloc(ops, be, &a_hp, F8B_BF16, m, k);
	if (rc == F8B_OK)
		rc = f8b_tensor_alloc(ops, be, &b_hp, F8B_BF16, n, k);
	if (rc == F8B_OK)
		rc = f8b_tensor_alloc(ops, be, &a, F8B_E4M3, m, k);
	if (rc == F8B_OK)
		rc = f8b_tensor_alloc(ops, be, &b, F8B_E4M3, n, k);
	if (rc == F8B_OK)
		rc = f8b_tensor_alloc(ops, be, &d, F8B_BF16, m, n);
	if (rc == F8B_OK)
		rc = ops->fill(be, &a_hp, &fa);
	if (rc == F8B_OK)
		rc = ops->fill(be, &b_hp, &fb);
	if (rc == F8B_OK)
		rc = quantize(&a_hp, g, nsa, sinv_a, &a);
	if (rc == F8B_OK)
		rc = quantize(&b_hp, g, nsb, sinv_b, &b);
	struct f8b_gemm_args args = {
	    .a = a.data, .b = b.data, .a_scale_inv = sinv_a, .b_scale_inv = sinv_b, .d = d.data};
	if (rc == F8B_OK)
		rc = ops->gemm_plan(be, &desc, 0, &plan, NULL);
	if (rc == F8B_OK)
		rc = ops->gemm(be, plan, &args);
	ops->gemm_plan_free(be, plan);
	if (tap_ok(rc == F8B_OK, "host block1x128 x block1x128 GEMM %lldx%lldx%lld: %s",
	           (long long)m, (long long)k, (long long)n, rc ? f8b_last_error() : "ran")) {
		/* the scales really differ: the largest B block scale_inv over
		 * the smallest (outliers x100 in some blocks only) */
		float lo = INFINITY, hi = 0;
		for (int64_t r = 0; r < n; r++)
			for (int64_t c = 0; c < (k + 127) / 128; c++) {
				float v = sinv_b[f8b_scale_index(g, n, k, r, c)];
				lo = fminf(lo, v);
				hi = fmaxf(hi, v);
			}
		struct f8b_gemm_data gd = {.desc = &desc,
		                           .a = &a,
		                           .b = &b,
		                           .a_scale_inv = sinv_a,
		                           .b_scale_inv = sinv_b,
		                           .a_hp = &a_hp,
		                           .b_hp = &b_hp,
		                           .d = &d};
		struct f8b_gemm_verdict v;
		memset(&v, 0, sizeof v);
		rc = f8b_gemm_check(ops, be, &gd, m, n, 1, &v);
		tap_ok(rc == F8B_OK && v.ok && !v.sampled && v.rel_error <= v.tolerance &&
		           v.sqnr_db > 15 && hi > 10 * lo,
		       "block1x128 B, the right D, whole: ok (rel_error %.3g <= %.3g, SQNR %.1f "
		       "dB; B's scale_inv %.3g to %.3g)",
		       v.rel_error, v.tolerance, v.sqnr_db, lo, hi);
		memset(&v, 0, sizeof v);
		rc = f8b_gemm_check(ops, be, &gd, 16, 32, 1, &v);
		tap_ok(rc == F8B_OK && v.ok && v.sampled && v.rows == 16 && v.cols == 32,
		       "block1x128 B, the right D, sampled 16x32 (the last row and column among "
		       "them): ok (rel_error %.3g)",
		       v.rel_error);
		/* B's scales of the ragged last K-block (16 of K), all N rows,
		 * x8 after the GEMM: D no longer matches what the check reads */
		for (int64_t r = 0; r < n; r++)
			sinv_b[f8b_scale_index(g, n, k, r, k / 128)] *= 8.0f;
		memset(&v, 0, sizeof v);
		rc = f8b_gemm_check(ops, be, &gd, m, n, 1, &v);
		tap_ok(rc == F8B_OK && !v.ok && v.rel_error > v.tolerance,
		       "block1x128 B, scales of the last K-block changed after the GEMM: fails "
		       "(rel_error %.3g > %.3g)",
		       v.rel_error, v.tolerance);
		for (int64_t r = 0; r < n; r++)
			sinv_b[f8b_scale_index(g, n, k, r, k / 128)] /= 8.0f;
		/* one block of one row of B, the last: only column n-1 of D */
		sinv_b[f8b_scale_index(g, n, k, n - 1, 0)] *= 8.0f;
		memset(&v, 0, sizeof v);
		rc = f8b_gemm_check(ops, be, &gd, 16, 32, 1, &v);
		tap_ok(rc == F8B_OK && !v.ok,
		       "block1x128 B, one scale of B's last row changed: fails, sampled too "
		       "(rel_error %.3g)",
		       v.rel_error);
	}
	f8b_tensor_free(ops, be, &a_hp);
	f8b_tensor_free(ops, be, &b_hp);
	f8b_tensor_free(ops, be, &a);
	f8b_tensor_free(ops, be, &b);
	f8b_tensor_free(ops, be, &d);
	free(sinv_a);
	free(sinv_b);
}

/* f8b_gemm_check_t, the D^T check of f8bench gemm --out-t and the GPU
 * tests: a right D^T passes, whole and sampled (the count the comment
 * promises: every element, or 2 x 64 rows at 64 columns); one wrong
 * element is found where the check looks (the last row, the last column:
 * the ragged edges) and, sampled, missed only where it does not look. */
static void test_check_t(void)
{
	static const struct {
		int64_t m, n;
		size_t es;
	} shapes[] = {{48, 80, 2}, {2064, 2048, 1}};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		const int64_t m = shapes[i].m, n = shapes[i].n;
		const size_t es = shapes[i].es, bytes = (size_t)(m * n) * es;
		const bool big = m * n > ((int64_t)1 << 22);
		uint8_t *hd = malloc(bytes), *ht = malloc(bytes);
		void *d = NULL, *dt = NULL;
		int rc = hd && ht ? ops->alloc(be, bytes, &d) : F8B_ENOMEM;
		if (rc == F8B_OK)
			rc = ops->alloc(be, bytes, &dt);
		for (int64_t r = 0; rc == F8B_OK && r < m; r++)
			for (int64_t c = 0; c < n; c++)
				for (size_t e = 0; e < es; e++) {
					uint8_t v = (uint8_t)(r * 31 + c * 7 + e * 3);
					hd[(size_t)(r * n + c) * es + e] = v;
					ht[(size_t)(c * m + r) * es + e] = v;
				}
		if (rc == F8B_OK)
			rc = ops->upload(be, d, hd, bytes);
		/* the element of D at (row, col), changed in D^T only */
		struct {
			int64_t row, col;
			bool seen_sampled;
		} flips[] = {{-1, -1, false}, {m - 1, n - 1, true}, {m / 2, 1, false}};
		for (size_t f = 0; rc == F8B_OK && f < sizeof flips / sizeof flips[0]; f++) {
			const int64_t row = flips[f].row, col = flips[f].col;
			if (row >= 0)
				ht[(size_t)(col * m + row) * es] ^= 0x40;
			rc = ops->upload(be, dt, ht, bytes);
			for (int whole = 1; rc == F8B_OK && whole >= 0; whole--) {
				int64_t off = -1, checked = -1;
				rc = f8b_gemm_check_t(ops, be, d, dt, m, n, es, whole != 0, &off,
				                      &checked);
				const int64_t want_checked = whole || !big ? m * n : 2 * 64 * 64;
				const int64_t want_off =
				    row < 0 ? 0 : (whole || !big || flips[f].seen_sampled ? 1 : 0);
				tap_ok(
				    rc == F8B_OK && off == want_off && checked == want_checked,
				    "D^T check %lldx%lld, %zu-byte elements, %s, %s: %lld of %lld "
				    "differ (want %lld of %lld)",
				    (long long)m, (long long)n, es,
				    whole ? "whole" : "as the bench",
				    row < 0 ? "right" : "one element wrong", (long long)off,
				    (long long)checked, (long long)want_off,
				    (long long)want_checked);
			}
			if (row >= 0)
				ht[(size_t)(col * m + row) * es] ^= 0x40;
		}
		tap_ok(rc == F8B_OK, "D^T check %lldx%lld: buffers", (long long)m, (long long)n);
		ops->free(be, d);
		ops->free(be, dt);
		free(hd);
		free(ht);
	}
}

int main(void)
{
	struct f8b_device_info info;
	test_steps();
	if (!tap_ok(ops->open(0, &be, &info) == F8B_OK, "open the host backend"))
		return tap_done();
	test_check();
	test_memo();
	test_block_1x128();
	test_check_t();
	ops->close(be);
	return tap_done();
}
