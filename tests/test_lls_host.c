/* test_lls_host.c - the host golden twins of the lls ops (host_lls.c):
 * LayerNorm forward/backward against a double-precision reference and
 * against finite differences of the loss sum(dy * y); sigmoid forward and
 * backward; amax_t = amax of the transpose; cast_transpose = the cast of x
 * and of x^T; layernorm_amax_t / layernorm_cast_t = those two of the y
 * layernorm_fwd stores; every fused cast equal, bit for bit, to the unfused
 * ops it stands for; ragged shapes (not multiples of 8 or 128) and refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/fp8.h"
#include "core/scaling.h"
#include "tap.h"

static const struct f8b_backend_ops *ops = &f8b_backend_host;
static struct f8b_backend *be;

static struct f8b_tensor mk(enum f8b_dtype dt, int64_t rows, int64_t cols)
{
	struct f8b_tensor t;
	if (f8b_tensor_alloc(ops, be, &t, dt, rows, cols) != F8B_OK) {
		fprintf(stderr, "test_lls_host: %s\n", f8b_last_error());
		exit(99);
	}
	memset(t.data, 0, f8b_tensor_bytes(&t));
	return t;
}

static float *fbuf(int64_t n)
{
	float *p = calloc((size_t)(n > 0 ? n : 1), sizeof *p);
	if (!p)
		exit(99);
	return p;
}

static void fill(struct f8b_tensor *t, uint64_t seed, float mean, float std)
{
	struct f8b_fill_spec s = {.seed = seed, .mean = mean, .std = std};
	if (ops->fill(be, t, &s) != F8B_OK)
		exit(99);
}

static double bf(const struct f8b_tensor *t, int64_t i)
{
	return (double)f8b_bf16_to_f32(((const uint16_t *)t->data)[i]);
}

/* One bf16 ulp at |v| (2^(e-7) for v in [2^e, 2^(e+1))), at least 2^-133. */
static double bf16_ulp(double v)
{
	int e;
	v = fabs(v);
	if (v < 0x1p-126)
		return 0x1p-133;
	(void)frexp(v, &e);
	return ldexp(1.0, e - 8);
}

static bool same_bytes(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n) == 0;
}

/* ------------------------------------------------------------ LayerNorm */

/* Double LayerNorm of row m: y_d[k] (unrounded), and its mean/rstd. */
static void ln_ref(const double *x, int64_t K, double eps, double *y, double *mu, double *rs)
{
	double s = 0, q = 0;
	for (int64_t k = 0; k < K; k++)
		s += x[k];
	*mu = s / K;
	for (int64_t k = 0; k < K; k++)
		q += (x[k] - *mu) * (x[k] - *mu);
	*rs = 1.0 / sqrt(q / K + eps);
	for (int64_t k = 0; k < K; k++)
		y[k] = (x[k] - *mu) * *rs;
}

static void test_layernorm(void)
{
	const int64_t M = 5, K = 200; /* K: not a multiple of 8 or 128 */
	const float eps = 1e-5f;
	struct f8b_tensor x = mk(F8B_BF16, M, K), y = mk(F8B_BF16, M, K);
	struct f8b_tensor dy = mk(F8B_BF16, M, K), dx = mk(F8B_BF16, M, K);
	float *mean = fbuf(M), *rstd = fbuf(M);
	double xr[200], yr[200];
	int bad_y = 0, bad_st = 0, bad_dx = 0;

	fill(&x, 7, 0.5f, 2.0f);
	fill(&dy, 8, 0.0f, 1.0f);
	tap_ok(ops->layernorm_fwd(be, &x, eps, &y, mean, rstd) == F8B_OK, "layernorm_fwd runs");
	tap_ok(ops->layernorm_bwd(be, &dy, &x, mean, rstd, &dx) == F8B_OK, "layernorm_bwd runs");
	for (int64_t m = 0; m < M; m++) {
		double mu, rs, a = 0, b = 0, gmax = 0;
		for (int64_t k = 0; k < K; k++)
			xr[k] = bf(&x, m * K + k);
		ln_ref(xr, K, eps, yr, &mu, &rs);
		if (fabs(mean[m] - mu) > 1e-6 * (fabs(mu) + 1) || fabs(rstd[m] - rs) > 1e-6 * rs)
			bad_st++;
		/* y: one rounding to bf16 (half an ulp) plus fp32 error */
		for (int64_t k = 0; k < K; k++)
			if (fabs(bf(&y, m * K + k) - yr[k]) > bf16_ulp(yr[k]))
				bad_y++;
		/* dx = rs * (dy - mean(dy) - y * mean(dy * y)) in double */
		for (int64_t k = 0; k < K; k++) {
			a += bf(&dy, m * K + k) / K;
			b += bf(&dy, m * K + k) * yr[k] / K;
		}
		double dref[200];
		for (int64_t k = 0; k < K; k++) {
			dref[k] = rs * (bf(&dy, m * K + k) - a - yr[k] * b);
			gmax = fmax(gmax, fabs(dref[k]));
		}
		/* one bf16 rounding, plus fp32 cancellation in (dy - a) - xh*b
		 * bounded by 2^-16 of the row's largest gradient */
		for (int64_t k = 0; k < K; k++)
			if (fabs(bf(&dx, m * K + k) - dref[k]) > bf16_ulp(dref[k]) + 0x1p-16 * gmax)
				bad_dx++;
	}
	tap_ok(bad_st == 0, "layernorm mean/rstd within 1e-6 of double (%d rows off)", bad_st);
	tap_ok(bad_y == 0, "layernorm y within 1 bf16 ulp of double (%d off)", bad_y);
	tap_ok(bad_dx == 0, "layernorm dx within 1 bf16 ulp of double (%d off)", bad_dx);

	/* finite differences of L(x) = sum_k dy[k] * LN(x)[k] on row 0, in
	 * double: dL/dx_k against the host's dx (bf16) */
	int bad_fd = 0;
	double fmaxv = 0, fd[200];
	for (int64_t k = 0; k < K; k++) {
		double h = 1e-4, lp = 0, lm = 0, mu, rs;
		for (int64_t j = 0; j < K; j++)
			xr[j] = bf(&x, j);
		xr[k] += h;
		ln_ref(xr, K, eps, yr, &mu, &rs);
		for (int64_t j = 0; j < K; j++)
			lp += bf(&dy, j) * yr[j];
		xr[k] -= 2 * h;
		ln_ref(xr, K, eps, yr, &mu, &rs);
		for (int64_t j = 0; j < K; j++)
			lm += bf(&dy, j) * yr[j];
		fd[k] = (lp - lm) / (2 * h);
		fmaxv = fmax(fmaxv, fabs(fd[k]));
	}
	for (int64_t k = 0; k < K; k++)
		if (fabs(bf(&dx, k) - fd[k]) > 0x1p-7 * fabs(fd[k]) + 1e-3 * fmaxv)
			bad_fd++;
	tap_ok(bad_fd == 0, "layernorm dx matches finite differences of sum(dy*y) (%d off)",
	       bad_fd);

	/* refusals: wrong dtype, mismatched shapes, no mean buffer */
	struct f8b_tensor xf = mk(F8B_F32, M, K), ys = mk(F8B_BF16, M, K - 1);
	tap_ok(ops->layernorm_fwd(be, &xf, eps, &y, mean, rstd) == F8B_EINVAL,
	       "layernorm_fwd refuses f32 input: %s", f8b_last_error());
	tap_ok(ops->layernorm_fwd(be, &x, eps, &ys, mean, rstd) == F8B_EINVAL,
	       "layernorm_fwd refuses a mismatched output: %s", f8b_last_error());
	tap_ok(ops->layernorm_fwd(be, &x, eps, &y, NULL, rstd) == F8B_EINVAL,
	       "layernorm_fwd refuses a missing mean: %s", f8b_last_error());
	tap_ok(ops->layernorm_bwd(be, &dy, &x, mean, rstd, &ys) == F8B_EINVAL,
	       "layernorm_bwd refuses a mismatched dx: %s", f8b_last_error());
	f8b_tensor_free(ops, be, &xf);
	f8b_tensor_free(ops, be, &ys);
	f8b_tensor_free(ops, be, &x);
	f8b_tensor_free(ops, be, &y);
	f8b_tensor_free(ops, be, &dy);
	f8b_tensor_free(ops, be, &dx);
	free(mean);
	free(rstd);
}

/* ------------------------------------------------------------ sigmoid */

static void test_sigmoid(void)
{
	const int64_t R = 3, C = 77;
	struct f8b_tensor z = mk(F8B_BF16, R, C), y = mk(F8B_BF16, R, C);
	struct f8b_tensor dy = mk(F8B_BF16, R, C), dz = mk(F8B_BF16, R, C);
	int bad_y = 0, bad_dz = 0;

	fill(&z, 11, 0.0f, 4.0f);
	fill(&dy, 12, 0.0f, 1.0f);
	tap_ok(ops->sigmoid_fwd(be, &z, &y) == F8B_OK, "sigmoid_fwd runs");
	tap_ok(ops->sigmoid_bwd(be, &y, &dy, &dz) == F8B_OK, "sigmoid_bwd runs");
	for (int64_t i = 0; i < R * C; i++) {
		double yr = 1.0 / (1.0 + exp(-bf(&z, i)));
		if (fabs(bf(&y, i) - yr) > bf16_ulp(yr))
			bad_y++;
		double yy = bf(&y, i), g = bf(&dy, i) * yy * (1.0 - yy);
		if (fabs(bf(&dz, i) - g) > bf16_ulp(g))
			bad_dz++;
	}
	tap_ok(bad_y == 0, "sigmoid y within 1 bf16 ulp of double (%d off)", bad_y);
	tap_ok(bad_dz == 0, "sigmoid dz within 1 bf16 ulp of double (%d off)", bad_dz);
	f8b_tensor_free(ops, be, &z);
	f8b_tensor_free(ops, be, &y);
	f8b_tensor_free(ops, be, &dy);
	f8b_tensor_free(ops, be, &dz);
}

/* ------------------------------------------------------------ casts */

/* x^T as a new tensor of x's dtype. */
static struct f8b_tensor transpose(const struct f8b_tensor *x)
{
	struct f8b_tensor t = mk(x->dtype, x->cols, x->rows);
	size_t es = f8b_dtype_size(x->dtype);
	for (int64_t r = 0; r < x->rows; r++)
		for (int64_t c = 0; c < x->cols; c++)
			memcpy((char *)t.data + (c * x->rows + r) * es,
			       (const char *)x->data + (r * x->cols + c) * es, es);
	return t;
}

/* amax + scales of x with granularity g: scale, scale_inv (allocated). */
static void dyn_scales(const struct f8b_tensor *x, enum f8b_granularity g, enum f8b_dtype dt,
                       const struct f8b_scale_opts *o, float **amax, float **scale, float **sinv)
{
	int64_t n = f8b_scale_count(g, x->rows, x->cols);
	*amax = fbuf(n);
	*scale = fbuf(n);
	*sinv = fbuf(n);
	if (ops->amax(be, x, g, *amax) != F8B_OK ||
	    ops->scales(be, *amax, n, dt, o, *scale, *sinv) != F8B_OK)
		exit(99);
}

static void test_cast_transpose(void)
{
	const int64_t R = 200, C = 136; /* ragged 128-blocks both ways */
	struct f8b_scale_opts o = {0};

	for (int xd = 0; xd < 2; xd++) {
		struct f8b_tensor x = mk(xd ? F8B_F32 : F8B_BF16, R, C);
		fill(&x, 21 + xd, 0.0f, 3.0f);
		struct f8b_tensor xt = transpose(&x);
		for (int g = 0; g < F8B_GRAN_COUNT; g++) {
			enum f8b_dtype dt = g % 2 ? F8B_E5M2 : F8B_E4M3;
			float *a, *s, *si, *at, *st, *sit;
			dyn_scales(&x, g, dt, &o, &a, &s, &si);
			dyn_scales(&xt, g, dt, &o, &at, &st, &sit);
			int64_t nt = f8b_scale_count(g, C, R);
			float *at2 = fbuf(nt);
			tap_ok(ops->amax_t(be, &x, g, at2) == F8B_OK &&
			           same_bytes(at, at2, (size_t)nt * sizeof(float)),
			       "amax_t(x) == amax(x^T), %s %s", f8b_dtype_name(x.dtype),
			       f8b_granularity_name(g));
			struct f8b_tensor q = mk(dt, R, C), qt = mk(dt, C, R);
			struct f8b_tensor q1 = mk(dt, R, C), qt1 = mk(dt, C, R);
			int rc = ops->cast_transpose(be, &x, g, s, st, &q, &qt);
			int rc1 = ops->cast(be, &x, g, s, &q1);
			int rc2 = ops->cast(be, &xt, g, st, &qt1);
			tap_ok(rc == F8B_OK && rc1 == F8B_OK && rc2 == F8B_OK &&
			           same_bytes(q.data, q1.data, (size_t)(R * C)) &&
			           same_bytes(qt.data, qt1.data, (size_t)(R * C)),
			       "cast_transpose = cast(x), cast(x^T), %s -> %s %s",
			       f8b_dtype_name(x.dtype), f8b_dtype_name(dt),
			       f8b_granularity_name(g));
			free(a), free(s), free(si), free(at), free(st), free(sit), free(at2);
			f8b_tensor_free(ops, be, &q);
			f8b_tensor_free(ops, be, &qt);
			f8b_tensor_free(ops, be, &q1);
			f8b_tensor_free(ops, be, &qt1);
		}
		/* bf16 output: the plain transpose (bf16 in: bit copy) */
		struct f8b_tensor bt = mk(F8B_BF16, C, R);
		bool ok = ops->cast_transpose(be, &x, F8B_GRAN_TENSORWISE, NULL, NULL, NULL, &bt) ==
		          F8B_OK;
		for (int64_t i = 0; ok && i < R * C; i++) {
			uint16_t want =
			    xd ? f8b_f32_to_bf16(((float *)xt.data)[i]) : ((uint16_t *)xt.data)[i];
			ok = ((uint16_t *)bt.data)[i] == want;
		}
		tap_ok(ok, "cast_transpose to bf16 is the transpose (%s input)",
		       f8b_dtype_name(x.dtype));
		f8b_tensor_free(ops, be, &bt);
		f8b_tensor_free(ops, be, &xt);
		f8b_tensor_free(ops, be, &x);
	}
}

/* ------------------------------------------------------------ fused */

enum which { W_LN, W_SIG, W_PLAIN };

/* The fused op `w` with spec (g, dt, delayed, transposed copy) against
 * its composition: the unfused op, then amax + scales + cast (+ the cast
 * of the transpose), compared byte for byte. */
static void fused_case(enum which w, enum f8b_granularity g, enum f8b_dtype dt, bool delayed,
                       bool want_t)
{
	const int64_t R = 9, C = 264; /* two whole 128-blocks and a ragged one */
	const float eps = 1e-5f;
	struct f8b_scale_opts o = {.margin = 0, .pow2 = g == F8B_GRAN_AXISWISE};
	struct f8b_tensor a = mk(F8B_BF16, R, C), b = mk(F8B_BF16, R, C);
	struct f8b_tensor v = mk(F8B_BF16, R, C), v2 = mk(F8B_BF16, R, C);
	int64_t ns = f8b_scale_count(g, R, C);
	float *mean = fbuf(R), *rstd = fbuf(R), *mean2 = fbuf(R), *rstd2 = fbuf(R);
	float given = 3.0f;
	float *gs = fbuf(1);
	gs[0] = given;
	struct f8b_cast_spec cs = {.gran = g, .dtype = dt, .opts = o};
	cs.scale = delayed ? gs : NULL;
	struct f8b_tensor q = mk(dt, R, C), qt = mk(dt, C, R);
	cs.q = &q;
	cs.q_t = want_t ? &qt : NULL;
	cs.amax = fbuf(ns);
	cs.scale_inv = fbuf(ns);
	int rc;

	fill(&a, 31, w == W_SIG ? 0.5f : 1.0f, w == W_SIG ? 0.2f : 2.0f);
	fill(&b, 32, 0.0f, 1.0f);
	/* fused, writing the high-precision value v too (where there is one) */
	if (w == W_LN)
		rc = ops->layernorm_fwd_cast(be, &a, eps, &v, mean, rstd, &cs);
	else if (w == W_SIG)
		rc = ops->sigmoid_bwd_cast(be, &a, &b, &v, &cs);
	else
		rc = ops->cast_fused(be, &a, &cs);
	/* unfused */
	int rc2 = F8B_OK;
	if (w == W_LN)
		rc2 = ops->layernorm_fwd(be, &a, eps, &v2, mean2, rstd2);
	else if (w == W_SIG)
		rc2 = ops->sigmoid_bwd(be, &a, &b, &v2);
	else
		memcpy(v2.data, a.data, (size_t)(R * C * 2));
	float *am, *s, *si;
	dyn_scales(&v2, g, dt, &o, &am, &s, &si);
	if (delayed) {
		s[0] = given;
		si[0] = 1.0f / given;
	}
	struct f8b_tensor q2 = mk(dt, R, C), qt2 = mk(dt, C, R);
	rc2 |= ops->cast(be, &v2, g, s, &q2);
	if (want_t)
		rc2 |= ops->cast_transpose(be, &v2, g, s, s, NULL, &qt2);
	bool ok = rc == F8B_OK && rc2 == F8B_OK && same_bytes(q.data, q2.data, (size_t)(R * C)) &&
	          same_bytes(cs.amax, am, (size_t)ns * 4) &&
	          same_bytes(cs.scale_inv, si, (size_t)ns * 4) &&
	          (!want_t || same_bytes(qt.data, qt2.data, (size_t)(R * C))) &&
	          (w == W_PLAIN || same_bytes(v.data, v2.data, (size_t)(R * C * 2))) &&
	          (w != W_LN || (same_bytes(mean, mean2, (size_t)R * 4) &&
	                         same_bytes(rstd, rstd2, (size_t)R * 4)));
	static const char *names[] = {"layernorm_fwd_cast", "sigmoid_bwd_cast", "cast_fused"};
	tap_ok(ok, "%s %s %s%s%s == unfused ops, bit for bit", names[w], f8b_granularity_name(g),
	       f8b_dtype_name(dt), delayed ? " delayed" : "", want_t ? " +T" : "");
	free(am), free(s), free(si), free(mean), free(rstd), free(mean2), free(rstd2), free(gs);
	free(cs.amax), free(cs.scale_inv);
	f8b_tensor_free(ops, be, &a);
	f8b_tensor_free(ops, be, &b);
	f8b_tensor_free(ops, be, &v);
	f8b_tensor_free(ops, be, &v2);
	f8b_tensor_free(ops, be, &q);
	f8b_tensor_free(ops, be, &qt);
	f8b_tensor_free(ops, be, &q2);
	f8b_tensor_free(ops, be, &qt2);
}

static void test_fused(void)
{
	for (int w = W_LN; w <= W_PLAIN; w++) {
		fused_case(w, F8B_GRAN_TENSORWISE, F8B_E4M3, false, true);
		fused_case(w, F8B_GRAN_TENSORWISE, F8B_E5M2, true, true);
		fused_case(w, F8B_GRAN_TENSORWISE, F8B_E4M3, true, false);
		fused_case(w, F8B_GRAN_AXISWISE, F8B_E4M3, false, false);
		fused_case(w, F8B_GRAN_BLOCK1X128, F8B_E5M2, false, false);
	}
}

static void test_fused_refusals(void)
{
	struct f8b_tensor x = mk(F8B_BF16, 4, 16), q = mk(F8B_E4M3, 4, 16),
	                  qt = mk(F8B_E4M3, 16, 4);
	float amax[4], sinv[4], one = 1.0f;
	struct f8b_cast_spec cs = {.gran = F8B_GRAN_AXISWISE, .dtype = F8B_E4M3};
	cs.q = &q;
	cs.q_t = &qt;
	cs.amax = amax;
	cs.scale_inv = sinv;
	tap_ok(ops->cast_fused(be, &x, &cs) == F8B_EINVAL, "q_t refused with axiswise: %s",
	       f8b_last_error());
	cs.q_t = NULL;
	cs.gran = F8B_GRAN_BLOCK128X128;
	tap_ok(ops->cast_fused(be, &x, &cs) == F8B_EINVAL, "block128x128 refused: %s",
	       f8b_last_error());
	cs.gran = F8B_GRAN_AXISWISE;
	cs.scale = &one;
	tap_ok(ops->cast_fused(be, &x, &cs) == F8B_EINVAL,
	       "a given scale refused with axiswise: %s", f8b_last_error());
	cs.scale = NULL;
	cs.dtype = F8B_BF16;
	tap_ok(ops->cast_fused(be, &x, &cs) == F8B_EINVAL, "bf16 target refused: %s",
	       f8b_last_error());
	cs.dtype = F8B_E4M3;
	cs.q = &qt;
	tap_ok(ops->cast_fused(be, &x, &cs) == F8B_EINVAL, "q of the wrong shape refused: %s",
	       f8b_last_error());
	cs.q = &q;
	cs.amax = NULL;
	tap_ok(ops->cast_fused(be, &x, &cs) == F8B_EINVAL, "missing amax refused: %s",
	       f8b_last_error());
	tap_ok(ops->cast_transpose(be, &x, F8B_GRAN_TENSORWISE, NULL, NULL, &q, NULL) == F8B_EINVAL,
	       "cast_transpose refuses fp8 without a scale: %s", f8b_last_error());
	tap_ok(ops->cast_transpose(be, &x, F8B_GRAN_TENSORWISE, &one, &one, &q, &q) == F8B_EINVAL,
	       "cast_transpose refuses an out_t of x's shape: %s", f8b_last_error());
	f8b_tensor_free(ops, be, &x);
	f8b_tensor_free(ops, be, &q);
	f8b_tensor_free(ops, be, &qt);
}

/* layernorm_amax_t / layernorm_cast_t: amax_t and cast_transpose of the y
 * layernorm_fwd stores, formed again from x, mean and rstd (bit for bit);
 * and their refusals. */
static void test_layernorm_t(void)
{
	const int64_t R = 200, C = 100; /* ragged: rows not of 128, columns not of 8 */
	struct f8b_scale_opts o = {0};
	struct f8b_tensor x = mk(F8B_BF16, R, C), y = mk(F8B_BF16, R, C);
	float *mean = fbuf(R), *rstd = fbuf(R);
	fill(&x, 31, 0.5f, 2.0f);
	tap_ok(ops->layernorm_fwd(be, &x, 1e-5f, &y, mean, rstd) == F8B_OK, "layernorm_fwd for _t");
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		enum f8b_dtype dt = g % 2 ? F8B_E5M2 : F8B_E4M3;
		int64_t nt = f8b_scale_count(g, C, R);
		float *a = fbuf(nt), *a2 = fbuf(nt), *s = fbuf(nt), *si = fbuf(nt);
		int rc = ops->amax_t(be, &y, g, a);
		int rc2 = ops->layernorm_amax_t(be, &x, mean, rstd, g, a2);
		tap_ok(
		    rc == F8B_OK && rc2 == F8B_OK && same_bytes(a, a2, (size_t)nt * sizeof(float)),
		    "layernorm_amax_t(x) == amax_t(layernorm_fwd y), %s", f8b_granularity_name(g));
		struct f8b_tensor qt = mk(dt, C, R), qt2 = mk(dt, C, R);
		rc = ops->scales(be, a, nt, dt, &o, s, si);
		rc |= ops->cast_transpose(be, &y, g, NULL, s, NULL, &qt);
		rc2 = ops->layernorm_cast_t(be, &x, mean, rstd, g, s, &qt2);
		tap_ok(rc == F8B_OK && rc2 == F8B_OK &&
		           same_bytes(qt.data, qt2.data, (size_t)(R * C)),
		       "layernorm_cast_t(x) == cast_transpose(layernorm_fwd y) out_t, %s %s",
		       f8b_dtype_name(dt), f8b_granularity_name(g));
		free(a), free(a2), free(s), free(si);
		f8b_tensor_free(ops, be, &qt);
		f8b_tensor_free(ops, be, &qt2);
	}
	/* refusals: f32 x, no statistics, a bf16 out_t, no out_t */
	struct f8b_tensor xf = mk(F8B_F32, R, C), qb = mk(F8B_BF16, C, R), q8 = mk(F8B_E4M3, C, R);
	float *a = fbuf(R * C);
	tap_ok(ops->layernorm_amax_t(be, &xf, mean, rstd, F8B_GRAN_AXISWISE, a) == F8B_EINVAL &&
	           strstr(f8b_last_error(), "bf16"),
	       "layernorm_amax_t refuses f32 x, naming bf16");
	tap_ok(ops->layernorm_amax_t(be, &x, NULL, rstd, F8B_GRAN_AXISWISE, a) == F8B_EINVAL &&
	           strstr(f8b_last_error(), "mean and rstd"),
	       "layernorm_amax_t refuses missing statistics");
	tap_ok(ops->layernorm_cast_t(be, &x, mean, rstd, F8B_GRAN_AXISWISE, a, &qb) == F8B_EINVAL &&
	           strstr(f8b_last_error(), "out_t is bf16"),
	       "layernorm_cast_t refuses a bf16 out_t");
	tap_ok(ops->layernorm_cast_t(be, &x, mean, rstd, F8B_GRAN_AXISWISE, a, NULL) == F8B_EINVAL,
	       "layernorm_cast_t refuses no out_t");
	tap_ok(ops->layernorm_cast_t(be, &x, mean, rstd, F8B_GRAN_AXISWISE, NULL, &q8) ==
	           F8B_EINVAL,
	       "layernorm_cast_t refuses no scale_t");
	free(a), free(mean), free(rstd);
	f8b_tensor_free(ops, be, &xf);
	f8b_tensor_free(ops, be, &qb);
	f8b_tensor_free(ops, be, &q8);
	f8b_tensor_free(ops, be, &x);
	f8b_tensor_free(ops, be, &y);
}

int main(void)
{
	if (ops->open(0, &be, NULL) != F8B_OK) {
		tap_ok(0, "host open: %s", f8b_last_error());
		return tap_done();
	}
	test_layernorm();
	test_sigmoid();
	test_cast_transpose();
	test_layernorm_t();
	test_fused();
	test_fused_refusals();
	ops->close(be);
	return tap_done();
}
