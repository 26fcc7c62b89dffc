/* test_lls_kernels.c - the cuda backend's lls ops (cuda_lls.c and the
 * kernels behind it) against the host golden twins (host_lls.c), through
 * the ops tables, on the same inputs:
 *   - amax_t, cast_transpose, their LayerNorm-sourced forms (from x, mean
 *     and rstd), sigmoid_bwd and every fp8 output: bit-exact;
 *   - fused casts: q, q_t, amax and scale_inv bit-exact against the host's
 *     cast_fused of the GPU's own bf16 intermediate (y / dz, which the
 *     fused ops expose when asked), and the same fp8 bytes whether or not
 *     the intermediate is written;
 *   - LayerNorm and sigmoid forward within the tolerances argued at
 *     close_bf16() (reductions and expf differ in rounding only).
 * Shapes cover the kernels' edges: ragged 64-tiles, 128-blocks and
 * 8-element chunks, each register depth of the row kernel (up to
 * F8B_LLS_ROW_MAX_COLS columns) and a misaligned input.  Without a usable
 * GPU: the TAP skip plan and exit 77.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/common.h"
#include "core/fp8.h"
#include "core/scaling.h"

#include "../tap.h"

static const struct f8b_backend_ops *H = &f8b_backend_host, *D = &f8b_backend_cuda;
static struct f8b_backend *hbe, *dbe;

/* ------------------------------------------------------------ plumbing */

static void die(const char *what)
{
	fprintf(stderr, "test_lls_kernels: %s: %s\n", what, f8b_last_error());
	exit(99); /* a hard error for the TAP driver */
}

/* A tensor on both backends; h holds the host's result or the input. */
struct pt {
	struct f8b_tensor h, d;
	void *dbase; /* the device allocation (d.data may be offset) */
};

/* off: elements by which the device data is shifted from the 256-byte
 * aligned allocation (1: every vector path is refused). */
static struct pt pmk(enum f8b_dtype dt, int64_t rows, int64_t cols, int off)
{
	struct pt p;
	size_t es = f8b_dtype_size(dt), bytes = (size_t)(rows * cols) * es;

	if (f8b_tensor_alloc(H, hbe, &p.h, dt, rows, cols) != F8B_OK)
		die("host alloc");
	memset(p.h.data, 0, bytes);
	p.d = p.h;
	if (D->alloc(dbe, bytes + 16, &p.dbase) != F8B_OK ||
	    D->memset(dbe, p.dbase, 0, bytes + 16) != F8B_OK)
		die("device alloc");
	p.d.data = (char *)p.dbase + (size_t)off * es;
	return p;
}

static void pfree(struct pt *p)
{
	f8b_tensor_free(H, hbe, &p->h);
	D->free(dbe, p->dbase);
}

static size_t pbytes(const struct pt *p)
{
	return f8b_tensor_bytes(&p->h);
}

/* Fills the host copy and uploads it. */
static void pfill(struct pt *p, uint64_t seed, float mean, float std)
{
	struct f8b_fill_spec s = {.seed = seed, .mean = mean, .std = std};
	if (H->fill(hbe, &p->h, &s) != F8B_OK || D->upload(dbe, p->d.data, p->h.data, pbytes(p)))
		die("fill");
}

/* The device copy, downloaded into a new host tensor. */
static struct f8b_tensor pdown(const struct pt *p)
{
	struct f8b_tensor t;
	if (f8b_tensor_alloc(H, hbe, &t, p->h.dtype, p->h.rows, p->h.cols) != F8B_OK ||
	    D->download(dbe, t.data, p->d.data, pbytes(p)) != F8B_OK)
		die("download");
	return t;
}

/* n floats on both sides. */
struct pf {
	float *h, *d;
	int64_t n;
};

static struct pf fmk(int64_t n)
{
	struct pf f = {calloc((size_t)(n > 0 ? n : 1), sizeof(float)), NULL, n};
	if (!f.h || D->alloc(dbe, (size_t)n * 4 + 4, (void **)&f.d) != F8B_OK ||
	    D->memset(dbe, f.d, 0, (size_t)n * 4 + 4) != F8B_OK)
		die("float buffers");
	return f;
}

static float *fdown(const struct pf *f)
{
	float *p = malloc((size_t)f->n * 4 + 4);
	if (!p || D->download(dbe, p, f->d, (size_t)f->n * 4) != F8B_OK)
		die("download floats");
	return p;
}

static void ffree(struct pf *f)
{
	free(f->h);
	D->free(dbe, f->d);
}

/* Byte-exact comparison; names the first difference. */
static bool same(const void *a, const void *b, size_t n, size_t es, const char *what)
{
	const unsigned char *x = a, *y = b;
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < n * es; i++)
		if (x[i] != y[i] && bad++ == 0)
			first = i / es;
	if (bad)
		tap_diag("%s: %zu bytes differ, first at element %zu", what, bad, first);
	return bad == 0;
}

static double bfv(const struct f8b_tensor *t, int64_t i)
{
	return (double)f8b_bf16_to_f32(((const uint16_t *)t->data)[i]);
}

static double bf16_ulp(double v)
{
	int e;
	v = fabs(v);
	if (v < 0x1p-126)
		return 0x1p-133;
	(void)frexp(v, &e);
	return ldexp(1.0, e - 8);
}

/* GPU bf16 results against the host's.  Both round an fp32 value to bf16
 * once; the fp32 values differ only by rounding (block-tree vs sequential
 * double sums of one row, CUDA's expf vs glibc's: each a few fp32 ulps, at
 * most ~16384 * 2^-24 = 2^-10 relative for the longest row summed
 * naively).  A few fp32 ulps can move a value across a bf16 rounding
 * boundary, so one bf16 ulp of the larger result, plus `abs_tol` for
 * values that cancel (LayerNorm's x - mean; its backward's dy - a - xh*b,
 * where the row's largest term sets the error). */
static int close_bf16(const struct f8b_tensor *g, const struct f8b_tensor *h, double abs_tol,
                      const char *what)
{
	int64_t n = h->rows * h->cols, bad = 0, first = -1;
	for (int64_t i = 0; i < n; i++) {
		double a = bfv(g, i), b = bfv(h, i);
		if (!(fabs(a - b) <= bf16_ulp(fmax(fabs(a), fabs(b))) + abs_tol) && bad++ == 0)
			first = i;
	}
	if (bad)
		tap_diag("%s: %lld of %lld beyond tolerance, first at %lld: gpu %.9g host %.9g",
		         what, (long long)bad, (long long)n, (long long)first, bfv(g, first),
		         bfv(h, first));
	return (int)bad;
}

static int close_f32(const float *g, const float *h, int64_t n, double rel)
{
	int bad = 0;
	for (int64_t i = 0; i < n; i++)
		if (!(fabs((double)g[i] - h[i]) <= rel * (fabs(h[i]) + 1e-3)))
			bad++;
	return bad;
}

/* ------------------------------------------------------------ LN, sigmoid */

static void test_layernorm(int64_t M, int64_t K, int off)
{
	const float eps = 1e-5f;
	struct pt x = pmk(F8B_BF16, M, K, off), y = pmk(F8B_BF16, M, K, off);
	struct pt dy = pmk(F8B_BF16, M, K, off), dx = pmk(F8B_BF16, M, K, off);
	struct pf mean = fmk(M), rstd = fmk(M);

	pfill(&x, 100 + K, 0.75f, 2.0f);
	pfill(&dy, 200 + K, 0.0f, 1.0f);
	int rh = H->layernorm_fwd(hbe, &x.h, eps, &y.h, mean.h, rstd.h);
	int rd = D->layernorm_fwd(dbe, &x.d, eps, &y.d, mean.d, rstd.d);
	tap_ok(rh == F8B_OK && rd == F8B_OK, "layernorm_fwd %lldx%lld%s runs%s%s", (long long)M,
	       (long long)K, off ? " misaligned" : "", rd ? ": " : "", rd ? f8b_last_error() : "");
	if (rh || rd)
		goto out;
	struct f8b_tensor yg = pdown(&y);
	float *mg = fdown(&mean), *rg = fdown(&rstd);
	/* mean/rstd: fp32 tree sums vs double, 2^-10 relative at worst */
	tap_ok(close_f32(mg, mean.h, M, 0x1p-10) == 0 && close_f32(rg, rstd.h, M, 0x1p-10) == 0,
	       "layernorm mean/rstd %lldx%lld close to the host's", (long long)M, (long long)K);
	/* |x - mean| * rstd error ~ rstd * |mean error|: 2^-12 absolute */
	tap_ok(close_bf16(&yg, &y.h, 0x1p-12, "layernorm y") == 0,
	       "layernorm y %lldx%lld within 1 bf16 ulp + 2^-12 of the host", (long long)M,
	       (long long)K);
	/* backward from the host's statistics, so only its own sums differ */
	if (D->upload(dbe, mean.d, mean.h, (size_t)M * 4) || D->upload(dbe, rstd.d, rstd.h, M * 4))
		die("upload stats");
	rh = H->layernorm_bwd(hbe, &dy.h, &x.h, mean.h, rstd.h, &dx.h);
	rd = D->layernorm_bwd(dbe, &dy.d, &x.d, mean.d, rstd.d, &dx.d);
	if (tap_ok(rh == F8B_OK && rd == F8B_OK, "layernorm_bwd %lldx%lld runs", (long long)M,
	           (long long)K)) {
		struct f8b_tensor dg = pdown(&dx);
		double gmax = 0;
		for (int64_t i = 0; i < M * K; i++)
			gmax = fmax(gmax, fabs(bfv(&dx.h, i)));
		tap_ok(close_bf16(&dg, &dx.h, 0x1p-12 * gmax, "layernorm dx") == 0,
		       "layernorm dx within 1 bf16 ulp + 2^-12 max|dx| of the host");
		f8b_tensor_free(H, hbe, &dg);
	}
	f8b_tensor_free(H, hbe, &yg);
	free(mg);
	free(rg);
out:
	pfree(&x), pfree(&y), pfree(&dy), pfree(&dx);
	ffree(&mean), ffree(&rstd);
}

static void test_sigmoid(int64_t R, int64_t C, int off)
{
	struct pt z = pmk(F8B_BF16, R, C, off), y = pmk(F8B_BF16, R, C, off);
	struct pt dy = pmk(F8B_BF16, R, C, off), dz = pmk(F8B_BF16, R, C, off);

	pfill(&z, 300, 0.0f, 4.0f);
	pfill(&dy, 301, 0.0f, 1.0f);
	int rc = H->sigmoid_fwd(hbe, &z.h, &y.h) | D->sigmoid_fwd(dbe, &z.d, &y.d);
	struct f8b_tensor yg = pdown(&y);
	tap_ok(rc == F8B_OK && close_bf16(&yg, &y.h, 0.0, "sigmoid y") == 0,
	       "sigmoid_fwd %lldx%lld within 1 bf16 ulp of the host", (long long)R, (long long)C);
	/* backward from the host's y on both sides: bit-exact */
	rc = H->sigmoid_bwd(hbe, &y.h, &dy.h, &dz.h) |
	     D->upload(dbe, y.d.data, y.h.data, pbytes(&y)) |
	     D->sigmoid_bwd(dbe, &y.d, &dy.d, &dz.d);
	struct f8b_tensor dg = pdown(&dz);
	tap_ok(rc == F8B_OK && same(dg.data, dz.h.data, (size_t)(R * C), 2, "sigmoid dz"),
	       "sigmoid_bwd %lldx%lld bit-exact", (long long)R, (long long)C);
	f8b_tensor_free(H, hbe, &yg);
	f8b_tensor_free(H, hbe, &dg);
	pfree(&z), pfree(&y), pfree(&dy), pfree(&dz);
}

/* ------------------------------------------------------------ casts */

/* specials: a NaN, a -inf and a -0 among the values (bf16 only). */
static void test_amax_t(enum f8b_dtype xd, int64_t R, int64_t C, bool specials)
{
	struct pt x = pmk(xd, R, C, 0);
	pfill(&x, 400 + R, 0.0f, 3.0f);
	if (specials) {
		uint16_t *h = x.h.data;
		h[(R / 2) * C + C / 3] = 0x7FC1;     /* NaN */
		h[(R / 3) * C + C / 2] = 0xFF80;     /* -inf */
		h[(R - 1) * C + C - 1] = 0x8000;     /* -0 */
		h[(R / 4) * C + C - 2] = 0x7F80 - 1; /* the largest finite */
		if (D->upload(dbe, x.d.data, x.h.data, pbytes(&x)) != F8B_OK)
			die("upload");
	}
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		struct pf a = fmk(f8b_scale_count(g, C, R));
		int rc = H->amax_t(hbe, &x.h, g, a.h) | D->amax_t(dbe, &x.d, g, a.d);
		float *ag = fdown(&a);
		tap_ok(rc == F8B_OK && same(ag, a.h, (size_t)a.n, 4, "amax_t"),
		       "amax_t %s %lldx%lld %s%s bit-exact", f8b_dtype_name(xd), (long long)R,
		       (long long)C, f8b_granularity_name(g),
		       specials ? " with NaN, -inf, -0" : "");
		free(ag);
		ffree(&a);
	}
	pfree(&x);
}

static void test_cast_transpose(enum f8b_dtype xd, enum f8b_dtype od, int64_t R, int64_t C, int off)
{
	struct pt x = pmk(xd, R, C, off), q = pmk(od, R, C, off), qt = pmk(od, C, R, off);
	struct f8b_scale_opts o = {0};

	pfill(&x, 500 + C, 0.0f, 3.0f);
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		bool fp8 = f8b_dtype_is_fp8(od);
		if (!fp8 && g > 0)
			break;
		struct pf a = fmk(f8b_scale_count(g, R, C)), at = fmk(f8b_scale_count(g, C, R));
		struct pf s = fmk(a.n), st = fmk(at.n);
		if (fp8 && (H->amax(hbe, &x.h, g, a.h) || H->amax_t(hbe, &x.h, g, at.h) ||
		            H->scales(hbe, a.h, a.n, od, &o, s.h, NULL) ||
		            H->scales(hbe, at.h, at.n, od, &o, st.h, NULL) ||
		            D->upload(dbe, s.d, s.h, (size_t)s.n * 4) ||
		            D->upload(dbe, st.d, st.h, (size_t)st.n * 4)))
			die("scales");
		int rc = H->cast_transpose(hbe, &x.h, g, fp8 ? s.h : NULL, fp8 ? st.h : NULL, &q.h,
		                           &qt.h) |
		         D->cast_transpose(dbe, &x.d, g, fp8 ? s.d : NULL, fp8 ? st.d : NULL, &q.d,
		                           &qt.d);
		struct f8b_tensor qg = pdown(&q), qtg = pdown(&qt);
		size_t es = f8b_dtype_size(od);
		tap_ok(rc == F8B_OK && same(qg.data, q.h.data, (size_t)(R * C), es, "out") &&
		           same(qtg.data, qt.h.data, (size_t)(R * C), es, "out_t"),
		       "cast_transpose %s -> %s %lldx%lld %s%s bit-exact", f8b_dtype_name(xd),
		       f8b_dtype_name(od), (long long)R, (long long)C, f8b_granularity_name(g),
		       off ? " misaligned" : "");
		f8b_tensor_free(H, hbe, &qg);
		f8b_tensor_free(H, hbe, &qtg);
		ffree(&a), ffree(&at), ffree(&s), ffree(&st);
	}
	pfree(&x), pfree(&q), pfree(&qt);
}

/* layernorm_amax_t / layernorm_cast_t from the host's statistics of x:
 * bit-exact with the host (whose twin is amax_t / cast_transpose of the
 * stored y, test_lls_host). */
static void test_layernorm_t(int64_t R, int64_t C, int off)
{
	struct pt x = pmk(F8B_BF16, R, C, off), y = pmk(F8B_BF16, R, C, off);
	struct pf mean = fmk(R), rstd = fmk(R);
	struct f8b_scale_opts o = {0};
	pfill(&x, 500 + R, 0.25f, 2.0f);
	if (H->layernorm_fwd(hbe, &x.h, 1e-5f, &y.h, mean.h, rstd.h) ||
	    D->upload(dbe, mean.d, mean.h, (size_t)R * 4) ||
	    D->upload(dbe, rstd.d, rstd.h, (size_t)R * 4))
		die("layernorm statistics");
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		enum f8b_dtype od = g % 2 ? F8B_E5M2 : F8B_E4M3;
		struct pt qt = pmk(od, C, R, off);
		struct pf a = fmk(f8b_scale_count(g, C, R)), s = fmk(a.n);
		int rc = H->layernorm_amax_t(hbe, &x.h, mean.h, rstd.h, g, a.h) |
		         D->layernorm_amax_t(dbe, &x.d, mean.d, rstd.d, g, a.d);
		float *ag = fdown(&a);
		tap_ok(rc == F8B_OK && same(ag, a.h, (size_t)a.n, 4, "layernorm_amax_t"),
		       "layernorm_amax_t %lldx%lld %s%s bit-exact", (long long)R, (long long)C,
		       f8b_granularity_name(g), off ? " misaligned" : "");
		free(ag);
		if (H->scales(hbe, a.h, a.n, od, &o, s.h, NULL) ||
		    D->upload(dbe, s.d, s.h, (size_t)s.n * 4))
			die("scales");
		rc = H->layernorm_cast_t(hbe, &x.h, mean.h, rstd.h, g, s.h, &qt.h) |
		     D->layernorm_cast_t(dbe, &x.d, mean.d, rstd.d, g, s.d, &qt.d);
		struct f8b_tensor qg = pdown(&qt);
		tap_ok(rc == F8B_OK && same(qg.data, qt.h.data, (size_t)(R * C), 1, "out_t"),
		       "layernorm_cast_t -> %s %lldx%lld %s%s bit-exact", f8b_dtype_name(od),
		       (long long)R, (long long)C, f8b_granularity_name(g),
		       off ? " misaligned" : "");
		f8b_tensor_free(H, hbe, &qg);
		pfree(&qt);
		ffree(&a), ffree(&s);
	}
	pfree(&x), pfree(&y);
	ffree(&mean), ffree(&rstd);
}

/* ------------------------------------------------------------ fused */

enum which { W_LN, W_SIG, W_PLAIN };
static const char *const wname[] = {"layernorm_fwd_cast", "sigmoid_bwd_cast", "cast_fused"};

struct fspec {
	enum f8b_granularity g;
	enum f8b_dtype dt;
	bool delayed, want_t;
};

static int run_fused(bool dev, enum which w, struct pt *a, struct pt *b, struct f8b_tensor *v,
                     float *mean, float *rstd, struct f8b_cast_spec *cs)
{
	const struct f8b_backend_ops *ops = dev ? D : H;
	struct f8b_backend *be = dev ? dbe : hbe;
	struct f8b_tensor *x = dev ? &a->d : &a->h, *x2 = dev ? &b->d : &b->h;

	if (w == W_LN)
		return ops->layernorm_fwd_cast(be, x, 1e-5f, v, mean, rstd, cs);
	if (w == W_SIG)
		return ops->sigmoid_bwd_cast(be, x, x2, v, cs);
	return ops->cast_fused(be, x, cs);
}

static void test_fused(enum which w, const struct fspec *f, int64_t R, int64_t C)
{
	struct pt a = pmk(F8B_BF16, R, C, 0), b = pmk(F8B_BF16, R, C, 0);
	struct pt v = pmk(F8B_BF16, R, C, 0);
	struct pt q = pmk(f->dt, R, C, 0), qt = pmk(f->dt, C, R, 0), q2 = pmk(f->dt, R, C, 0);
	int64_t ns = f8b_scale_count(f->g, R, C);
	struct pf am = fmk(ns), si = fmk(ns), gs = fmk(1), mean = fmk(R), rstd = fmk(R);
	struct f8b_cast_spec cd = {.gran = f->g, .dtype = f->dt};
	char what[160];

	snprintf(what, sizeof what, "%s %s %s%s%s %lldx%lld", wname[w], f8b_granularity_name(f->g),
	         f8b_dtype_name(f->dt), f->delayed ? " delayed" : "", f->want_t ? " +T" : "",
	         (long long)R, (long long)C);
	cd.opts.pow2 = f->g == F8B_GRAN_AXISWISE;
	gs.h[0] = 2.5f;
	if (D->upload(dbe, gs.d, gs.h, 4))
		die("upload scale");
	pfill(&a, 600 + C, w == W_SIG ? 0.5f : 1.0f, w == W_SIG ? 0.2f : 2.0f);
	pfill(&b, 601 + C, 0.0f, 1.0f);
	bool nan_in = w == W_SIG && f->g == F8B_GRAN_AXISWISE && R == 9;
	if (nan_in) { /* a NaN dy: its dz is NaN (0x7FFF), as is its row's amax */
		((uint16_t *)b.h.data)[3 * C + 5] = 0x7FC1;
		if (D->upload(dbe, b.d.data, b.h.data, pbytes(&b)) != F8B_OK)
			die("upload");
		size_t n = strlen(what);
		snprintf(what + n, sizeof what - n, " with a NaN dy");
	}
	cd.scale = f->delayed ? gs.d : NULL;
	cd.q = &q.d;
	cd.q_t = f->want_t ? &qt.d : NULL;
	cd.amax = am.d;
	cd.scale_inv = si.d;
	int rc = run_fused(true, w, &a, &b, w == W_PLAIN ? NULL : &v.d, mean.d, rstd.d, &cd);
	if (!tap_ok(rc == F8B_OK, "%s runs%s%s", what, rc ? ": " : "", rc ? f8b_last_error() : ""))
		goto out;
	/* the host's cast of the GPU's own intermediate */
	struct f8b_tensor vg = w == W_PLAIN ? a.h : pdown(&v);
	struct f8b_cast_spec ch = cd;
	ch.scale = f->delayed ? gs.h : NULL;
	ch.q = &q.h;
	ch.q_t = f->want_t ? &qt.h : NULL;
	ch.amax = am.h;
	ch.scale_inv = si.h;
	if (H->cast_fused(hbe, &vg, &ch) != F8B_OK)
		die("host cast_fused");
	struct f8b_tensor qg = pdown(&q), qtg = pdown(&qt);
	float *amg = fdown(&am), *sig = fdown(&si);
	tap_ok(same(qg.data, q.h.data, (size_t)(R * C), 1, "q") &&
	           (!f->want_t || same(qtg.data, qt.h.data, (size_t)(R * C), 1, "q_t")) &&
	           same(amg, am.h, (size_t)ns, 4, "amax") &&
	           same(sig, si.h, (size_t)ns, 4, "scale_inv"),
	       "%s: fp8, amax, scale_inv bit-exact vs the host cast of the GPU's values", what);
	/* the intermediate itself: sigmoid_bwd is bit-exact, LayerNorm close */
	if (w != W_PLAIN) {
		struct f8b_tensor vh = v.h;
		rc = w == W_LN ? H->layernorm_fwd(hbe, &a.h, 1e-5f, &vh, mean.h, rstd.h)
		               : H->sigmoid_bwd(hbe, &a.h, &b.h, &vh);
		if (w == W_SIG)
			tap_ok(rc == F8B_OK && same(vg.data, vh.data, (size_t)(R * C), 2, "dz"),
			       "%s: dz bit-exact", what);
		else
			tap_ok(rc == F8B_OK && close_bf16(&vg, &vh, 0x1p-12, "y") == 0,
			       "%s: y within 1 bf16 ulp + 2^-12 of the host", what);
	}
	/* the same launch without the intermediate: the same fp8 bytes */
	if (w != W_PLAIN) {
		cd.q = &q2.d;
		rc = run_fused(true, w, &a, &b, NULL, mean.d, rstd.d, &cd);
		struct f8b_tensor q2g = pdown(&q2);
		tap_ok(rc == F8B_OK && same(q2g.data, qg.data, (size_t)(R * C), 1, "q (no y)"),
		       "%s: same q without writing the intermediate", what);
		f8b_tensor_free(H, hbe, &q2g);
		f8b_tensor_free(H, hbe, &vg);
	}
	f8b_tensor_free(H, hbe, &qg);
	f8b_tensor_free(H, hbe, &qtg);
	free(amg);
	free(sig);
out:
	pfree(&a), pfree(&b), pfree(&v), pfree(&q), pfree(&qt), pfree(&q2);
	ffree(&am), ffree(&si), ffree(&gs), ffree(&mean), ffree(&rstd);
}

/* An axiswise cast that also writes the tensorwise amax (amax_all), then
 * the tensorwise cast of x^T alone from that amax (amax_given): the same
 * bytes as the host's two casts, the second with its own amax pass. */
static void test_amax_all(enum which w, int64_t R, int64_t C)
{
	struct pt a = pmk(F8B_BF16, R, C, 0), b = pmk(F8B_BF16, R, C, 0);
	struct pt q = pmk(F8B_E4M3, R, C, 0), qt = pmk(F8B_E4M3, C, R, 0);
	struct pf am = fmk(R), si = fmk(R), all = fmk(1), si1 = fmk(1), mean = fmk(R),
	          rstd = fmk(R);
	char what[96];

	snprintf(what, sizeof what, "%s axiswise %lldx%lld", wname[w], (long long)R, (long long)C);
	pfill(&a, 700 + C, w == W_SIG ? 0.5f : 0.0f, w == W_SIG ? 0.2f : 2.0f);
	pfill(&b, 701 + C, 0.0f, 1.0f);
	struct f8b_cast_spec cd = {.gran = F8B_GRAN_AXISWISE,
	                           .dtype = F8B_E4M3,
	                           .q = &q.d,
	                           .amax = am.d,
	                           .scale_inv = si.d,
	                           .amax_all = all.d};
	struct pt v = pmk(F8B_BF16, R, C, 0);
	int rc = run_fused(true, w, &a, &b, w == W_PLAIN ? NULL : &v.d, mean.d, rstd.d, &cd);
	struct f8b_tensor vg = w == W_PLAIN ? a.h : pdown(&v);
	/* the host: tensorwise amax of the same values, then the T cast */
	struct f8b_cast_spec ch = {.gran = F8B_GRAN_TENSORWISE,
	                           .dtype = F8B_E4M3,
	                           .q_t = &qt.h,
	                           .amax = all.h,
	                           .scale_inv = si1.h};
	if (H->cast_fused(hbe, &vg, &ch) != F8B_OK)
		die("host cast_fused");
	float *ag = fdown(&all);
	tap_ok(rc == F8B_OK && same(ag, all.h, 1, 4, "amax_all"),
	       "%s: amax_all is the tensorwise amax, bit for bit", what);
	struct f8b_cast_spec ct = {.gran = F8B_GRAN_TENSORWISE,
	                           .dtype = F8B_E4M3,
	                           .q_t = &qt.d,
	                           .amax = all.d,
	                           .scale_inv = si1.d,
	                           .amax_given = true};
	struct pt vd = pmk(F8B_BF16, R, C, 0);
	memcpy(vd.h.data, vg.data, pbytes(&vd));
	if (D->upload(dbe, vd.d.data, vd.h.data, pbytes(&vd)) != F8B_OK)
		die("upload");
	rc = D->cast_fused(dbe, &vd.d, &ct);
	struct f8b_tensor qtg = pdown(&qt);
	float *ag2 = fdown(&all), *sg = fdown(&si1);
	tap_ok(rc == F8B_OK && same(qtg.data, qt.h.data, (size_t)(R * C), 1, "q_t") &&
	           same(ag2, all.h, 1, 4, "amax (only read)") && same(sg, si1.h, 1, 4, "scale_inv"),
	       "%s: tensorwise q^T from the given amax, bit-exact, amax left as it was", what);
	free(ag), free(ag2), free(sg);
	f8b_tensor_free(H, hbe, &qtg);
	if (w != W_PLAIN)
		f8b_tensor_free(H, hbe, &vg);
	pfree(&a), pfree(&b), pfree(&q), pfree(&qt), pfree(&v), pfree(&vd);
	ffree(&am), ffree(&si), ffree(&all), ffree(&si1), ffree(&mean), ffree(&rstd);
}

static void test_refusals(void)
{
	const int64_t K = F8B_LLS_ROW_MAX_COLS + 8;
	struct pt x = pmk(F8B_BF16, 1, K, 0), y = pmk(F8B_BF16, 1, K, 0);
	struct pf m = fmk(1), r = fmk(1);
	tap_ok(D->layernorm_fwd(dbe, &x.d, 1e-5f, &y.d, m.d, r.d) == F8B_EUNSUPPORTED,
	       "layernorm_fwd refuses rows over %d columns: %s", F8B_LLS_ROW_MAX_COLS,
	       f8b_last_error());
	struct pt q = pmk(F8B_E4M3, 1, K, 0);
	struct f8b_cast_spec cs = {.gran = F8B_GRAN_AXISWISE, .dtype = F8B_E4M3, .q = &q.d};
	cs.amax = m.d;
	cs.scale_inv = r.d;
	tap_ok(D->cast_fused(dbe, &x.d, &cs) == F8B_EUNSUPPORTED,
	       "axiswise cast_fused refuses rows over %d columns", F8B_LLS_ROW_MAX_COLS);
	cs.gran = F8B_GRAN_TENSORWISE; /* the tile kernel takes any width */
	tap_ok(D->cast_fused(dbe, &x.d, &cs) == F8B_OK, "tensorwise cast_fused takes them");
	pfree(&x), pfree(&y), pfree(&q);
	ffree(&m), ffree(&r);
}

int main(void)
{
	char why[256], msg[320];
	struct f8b_device_info info;

	if (f8b_cuda_device_count(why, sizeof why) <= 0) {
		snprintf(msg, sizeof msg, "no CUDA GPU: %s", why);
		return tap_skip_all(msg);
	}
	int rc = D->open(0, &dbe, &info);
	if (rc == F8B_EUNSUPPORTED) {
		snprintf(msg, sizeof msg, "no usable CUDA GPU: %s", f8b_last_error());
		return tap_skip_all(msg);
	}
	if (!tap_ok(rc == F8B_OK, "open device 0") || H->open(0, &hbe, NULL) != F8B_OK)
		return tap_done();
	tap_diag("device 0: %s, sm_%d%d", info.name, info.cc_major, info.cc_minor);

	/* every register depth of the row kernels, ragged and misaligned rows */
	static const int64_t ln_shapes[][2] = {{5, 200},   {64, 1024}, {33, 2056},
	                                       {17, 4104}, {7, 8192},  {3, 16384}};
	for (size_t i = 0; i < sizeof ln_shapes / sizeof ln_shapes[0]; i++)
		test_layernorm(ln_shapes[i][0], ln_shapes[i][1], 0);
	test_layernorm(9, 203, 1);
	test_sigmoid(37, 1000, 0);
	test_sigmoid(5, 77, 1);
	test_amax_t(F8B_BF16, 200, 136, false);
	test_amax_t(F8B_F32, 300, 520, false);
	test_amax_t(F8B_BF16, 1024, 1024, false);
	test_amax_t(F8B_BF16, 300, 100, false); /* rows of 100: scalar loads */
	test_amax_t(F8B_BF16, 1000, 1048, true);
	/* more 128 x 256 tiles than resident blocks: blocks take several */
	test_amax_t(F8B_BF16, 4104, 2056, false);
	test_amax_t(F8B_F32, 1100, 1040, false);
	test_layernorm_t(200, 136, 0);
	test_layernorm_t(300, 100, 0); /* rows of 100: scalar loads */
	test_layernorm_t(1030, 1048, 0);
	test_layernorm_t(130, 72, 1);
	test_layernorm_t(4104, 1048, 0); /* several tiles a block */
	test_cast_transpose(F8B_BF16, F8B_E4M3, 200, 136, 0);
	test_cast_transpose(F8B_BF16, F8B_E5M2, 256, 512, 0);
	test_cast_transpose(F8B_F32, F8B_E4M3, 130, 72, 0);
	test_cast_transpose(F8B_BF16, F8B_E4M3, 67, 131, 1);
	test_cast_transpose(F8B_BF16, F8B_BF16, 200, 136, 0);
	test_cast_transpose(F8B_BF16, F8B_BF16, 67, 131, 1);
	/* more 128 x 64 tiles (33 x 33) than resident blocks: each block
	 * prefetches its next tile behind the current one's transpose */
	test_cast_transpose(F8B_BF16, F8B_E4M3, 4104, 2056, 0);

	static const struct fspec specs[] = {
	    {F8B_GRAN_TENSORWISE, F8B_E4M3, false, true},
	    {F8B_GRAN_TENSORWISE, F8B_E5M2, true, true},
	    {F8B_GRAN_TENSORWISE, F8B_E4M3, false, false},
	    {F8B_GRAN_AXISWISE, F8B_E4M3, false, false},
	    {F8B_GRAN_BLOCK1X128, F8B_E4M3, false, false},
	    {F8B_GRAN_BLOCK1X128, F8B_E5M2, false, false},
	};
	/* 1030 x 4104: 585 tiles of the tensorwise tile pass, more than its
	 * resident blocks on an H100 (4 per SM for LayerNorm and sigmoid);
	 * 2100 x 1000 and 1500 x 2056: more rows than the row kernel's
	 * resident blocks, each block prefetching its next row */
	static const int64_t fshapes[][2] = {{9, 264},     {9, 263},     {130, 4104}, {2, 16384},
	                                     {1030, 4104}, {2100, 1000}, {1500, 2056}};
	for (int w = W_LN; w <= W_PLAIN; w++)
		for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
			for (size_t i = 0; i < sizeof fshapes / sizeof fshapes[0]; i++)
				test_fused(w, &specs[s], fshapes[i][0], fshapes[i][1]);
	for (int w = W_LN; w <= W_PLAIN; w++) {
		test_amax_all(w, 9, 264);
		test_amax_all(w, 1500, 2056); /* more rows than resident blocks */
	}
	test_refusals();

	D->close(dbe);
	H->close(hbe);
	return tap_done();
}
