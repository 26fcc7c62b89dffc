/* test_gemm_cuda.c - the cuda backend's cuBLASLt GEMM against the double
 * reference, for every scaling granularity, dtype pair and accumulation
 * mode, plus the plan/event/clock/error paths of the backend.
 *
 * Each case runs the whole pipeline on the GPU through the ops table
 * (fill -> amax -> scales -> cast -> plan -> gemm), downloads the fp8
 * operands and scale_inv tensors the GEMM consumed, dequantizes them on the
 * host (reference.h, using f8b_scale_index) and compares D with the double
 * reference: rel_error <= f8b_gemm_tolerance().  A scale layout that differs
 * between f8b_scale_index and what cuBLASLt reads gives rel_error O(1) and
 * fails here, naming the case; the "wrong layout" checks prove that such a
 * mismatch is indeed visible.  Configurations cuBLASLt refuses on this GPU
 * are TAP skips ("ok N # SKIP unsupported: <why>").
 *
 * e4m3 output (doc/gemm.md "fp8 output"): every granularity and dtype pair
 * (fast_accum off; e4m3 x e4m3 also on) through gemm_out8.h: every element
 * of D within one e4m3 step of the reference quantised the same way, amax_d
 * the reference's amax and set rather than maxed with what it held (it is
 * poisoned with 1e30 first), and at 4 x d_scale elements saturating to
 * +-448, never NaN, with the same amax_d.
 *
 * Without a GPU the whole file is skipped: "1..0 # SKIP no CUDA GPU: why".
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "backend/backend.h"
#include "core/fp8.h"
#include "backend/reference.h"
#include "core/scaling.h"
#include "gemm_out8.h"

#define WORKSPACE_LIMIT ((size_t)32 << 20) /* what backend_cuda.c allocates */
#define SAMPLE_ROWS     64                 /* rows of D checked for the wrong layouts */

static const struct f8b_backend_ops *ops = &f8b_backend_cuda;
static struct f8b_backend *be;

/* Shapes as M K N (the inputs/ convention): non-square, multiples of 16
 * that are not multiples of 128 (ragged last blocks), and a square one. */
static const struct shape {
	int64_t m, k, n;
} shapes[] = {
    {256, 512, 384},
    {272, 1040, 528},
    {1024, 1024, 1024},
};

static const struct gran_pair {
	enum f8b_granularity a, b;
} grans[] = {
    {F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE},
    {F8B_GRAN_AXISWISE, F8B_GRAN_AXISWISE},
    {F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK128X128},
};

static const struct dtype_pair {
	enum f8b_dtype a, b;
} dtypes[] = {
    {F8B_E4M3, F8B_E4M3},
    {F8B_E4M3, F8B_E5M2},
    {F8B_E5M2, F8B_E4M3},
};

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

/* A high-precision operand on the device and its quantized form. */
struct operand {
	int64_t rows, cols;
	enum f8b_dtype dt;
	enum f8b_granularity g;
	struct f8b_tensor hp;            /* bf16, filled once per shape */
	struct f8b_tensor q;             /* fp8 */
	int64_t count;                   /* f8b_scale_count */
	float *amax, *scale, *scale_inv; /* device */
	float *sinv_host;                /* scale_inv as downloaded */
	float *deq;                      /* dequantized q on the host, rows x cols */
};

/* Mean 0, std 1 with rare x50 outliers: per-block scales then differ by
 * up to ~50x between blocks, so a wrong scale layout cannot hide. */
static int fill_hp(struct operand *o, int64_t rows, int64_t cols, uint64_t seed)
{
	struct f8b_fill_spec spec = {
	    .seed = seed,
	    .mean = 0.0f,
	    .std = 1.0f,
	    .outlier_frac = 2e-5f,
	    .outlier_scale = 50.0f,
	};

	memset(o, 0, sizeof *o);
	o->rows = rows;
	o->cols = cols;
	F8B_TRY(f8b_tensor_alloc(ops, be, &o->hp, F8B_BF16, rows, cols));
	return ops->fill(be, &o->hp, &spec);
}

static void release_q(struct operand *o)
{
	f8b_tensor_free(ops, be, &o->q);
	ops->free(be, o->amax);
	ops->free(be, o->scale);
	ops->free(be, o->scale_inv);
	free(o->sinv_host);
	free(o->deq);
	o->amax = o->scale = o->scale_inv = o->sinv_host = o->deq = NULL;
}

/* fill has run; amax -> scales -> cast on the GPU, then download and
 * dequantize what the GEMM will read. */
static int quantize(struct operand *o, enum f8b_dtype dt, enum f8b_granularity g)
{
	struct f8b_scale_opts so = {.margin = 0.0f, .pow2 = false};
	size_t n = (size_t)(o->rows * o->cols);
	uint8_t *qh;
	int rc;

	o->dt = dt;
	o->g = g;
	o->count = f8b_scale_count(g, o->rows, o->cols);
	F8B_TRY(f8b_tensor_alloc(ops, be, &o->q, dt, o->rows, o->cols));
	F8B_TRY(ops->alloc(be, (size_t)o->count * sizeof(float), (void **)&o->amax));
	F8B_TRY(ops->alloc(be, (size_t)o->count * sizeof(float), (void **)&o->scale));
	F8B_TRY(ops->alloc(be, (size_t)o->count * sizeof(float), (void **)&o->scale_inv));
	F8B_TRY(ops->amax(be, &o->hp, g, o->amax));
	F8B_TRY(ops->scales(be, o->amax, o->count, dt, &so, o->scale, o->scale_inv));
	F8B_TRY(ops->cast(be, &o->hp, g, o->scale, &o->q));

	qh = tap_xcalloc(n, 1);
	o->sinv_host = tap_xcalloc((size_t)o->count, sizeof(float));
	o->deq = tap_xcalloc(n, sizeof(float));
	rc = ops->download(be, qh, o->q.data, n);
	if (rc == F8B_OK)
		rc =
		    ops->download(be, o->sinv_host, o->scale_inv, (size_t)o->count * sizeof(float));
	if (rc == F8B_OK)
		rc = f8b_ref_dequantize(qh, dt, o->rows, o->cols, g, o->sinv_host, o->deq);
	free(qh);
	return rc;
}

/* Every logical scale_inv is finite and positive; also returns the
 * max/min ratio over the block grid (how visible a layout error is). */
static bool scales_sane(const struct operand *o, double *ratio)
{
	int64_t sr, sc;
	float lo = INFINITY, hi = 0.0f;

	f8b_scale_shape(o->g, o->rows, o->cols, &sr, &sc);
	for (int64_t br = 0; br < sr; br++) {
		for (int64_t bc = 0; bc < sc; bc++) {
			float v = o->sinv_host[f8b_scale_index(o->g, o->rows, o->cols, br, bc)];
			if (!isfinite(v) || v <= 0.0f)
				return false;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	*ratio = hi / lo;
	return true;
}

static void label_of(char *buf, size_t n, const struct shape *s, const struct f8b_gemm_desc *d)
{
	snprintf(buf, n, "M=%lld K=%lld N=%lld %s(%s) x %s(%s) -> %s fast_accum=%s",
	         (long long)s->m, (long long)s->k, (long long)s->n, f8b_dtype_name(d->a_dtype),
	         f8b_granularity_name(d->a_gran), f8b_dtype_name(d->b_dtype),
	         f8b_granularity_name(d->b_gran), f8b_dtype_name(d->out_dtype),
	         d->fast_accum ? "on" : "off");
}

/* Runs one planned GEMM and returns D as fp32 on the host (caller frees),
 * NULL when it could not run (already reported). */
static float *run_gemm(struct f8b_gemm_plan *plan, const struct f8b_gemm_desc *d, const void *a,
                       const void *b, const float *sa, const float *sb, const char *label)
{
	struct f8b_tensor dt;
	struct f8b_gemm_args args;
	size_t n = (size_t)(d->m * d->n);
	void *raw;
	float *out;
	int rc;

	rc = f8b_tensor_alloc(ops, be, &dt, d->out_dtype, d->m, d->n);
	if (!tap_ok(rc == F8B_OK, "%s: allocate D%s%s", label, rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		return NULL;
	/* All-ones bytes are NaN in bf16 and f32: an output the GEMM never
	 * wrote cannot pass for a result. */
	rc = ops->memset(be, dt.data, 0xFF, f8b_tensor_bytes(&dt));
	args = (struct f8b_gemm_args){
	    .a = a, .b = b, .a_scale_inv = sa, .b_scale_inv = sb, .d = dt.data};
	if (rc == F8B_OK)
		rc = ops->gemm(be, plan, &args);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (!tap_ok(rc == F8B_OK, "%s: gemm + sync%s%s", label, rc ? ": " : "",
	            rc ? f8b_last_error() : "")) {
		f8b_tensor_free(ops, be, &dt);
		return NULL;
	}
	raw = tap_xcalloc(n, f8b_dtype_size(d->out_dtype));
	out = tap_xcalloc(n, sizeof(float));
	rc = ops->download(be, raw, dt.data, f8b_tensor_bytes(&dt));
	f8b_tensor_free(ops, be, &dt);
	if (!tap_ok(rc == F8B_OK, "%s: download D%s%s", label, rc ? ": " : "",
	            rc ? f8b_last_error() : "")) {
		free(raw);
		free(out);
		return NULL;
	}
	f8b_to_f32(raw, d->out_dtype, out, n);
	free(raw);
	return out;
}

static bool check_close(const char *label, const float *dout, const double *ref, size_t n,
                        int64_t k, enum f8b_dtype out_dtype, bool fast, const char *algo)
{
	double err = f8b_rel_error(dout, ref, n);
	double tol = f8b_gemm_tolerance(k, out_dtype, fast);

	tap_diag("%s: rel_error=%.3e tol=%.3e SQNR=%.1f dB [%s]", label, err, tol,
	         f8b_sqnr_db(dout, ref, n), algo);
	return tap_ok(err <= tol, "%s: rel_error %.3e <= tolerance %.3e", label, err, tol);
}

/* Diagnosis of a failed block case (not an assertion): reruns the GEMM with
 * B's 128x128 scales copied into the layout cuBLASLt's BLK128x128_32F reads
 * (doc/gemm-layout.md: row-major [ceil(N/128)][ld], ld = ceil(K/128)
 * rounded up to 4), so the log says whether f8b_scale_index is what is
 * wrong, and what it must be. */
static void explain_block_layout(struct f8b_gemm_plan *plan, const struct f8b_gemm_desc *d,
                                 const struct operand *a, const struct operand *b,
                                 const double *ref, const char *label)
{
	int64_t sr, sc, ld;
	float *h, *dev = NULL, *dout;
	int rc;

	f8b_scale_shape(b->g, b->rows, b->cols, &sr, &sc);
	ld = (sc + 3) / 4 * 4;
	h = tap_xcalloc((size_t)(sr * ld), sizeof(float));
	for (int64_t br = 0; br < sr; br++)
		for (int64_t bc = 0; bc < sc; bc++)
			h[br * ld + bc] =
			    b->sinv_host[f8b_scale_index(b->g, b->rows, b->cols, br, bc)];
	rc = ops->alloc(be, (size_t)(sr * ld) * sizeof(float), (void **)&dev);
	if (rc == F8B_OK)
		rc = ops->upload(be, dev, h, (size_t)(sr * ld) * sizeof(float));
	free(h);
	if (rc != F8B_OK) {
		tap_diag("%s: diagnosis skipped: %s", label, f8b_last_error());
		ops->free(be, dev);
		return;
	}
	dout = run_gemm(plan, d, a->q.data, b->q.data, a->scale_inv, dev, label);
	ops->free(be, dev);
	if (!dout)
		return;
	double err = f8b_rel_error(dout, ref, (size_t)(d->m * d->n));
	if (err <= f8b_gemm_tolerance(d->k, d->out_dtype, d->fast_accum))
		tap_diag("%s: DIAGNOSIS: with B's block scales re-laid out row-major "
		         "[%lld][%lld] (block (br,bc) at br*%lld + bc) the same GEMM passes "
		         "(rel_error %.3e): f8b_scale_index(block128x128) must be br * "
		         "roundup(ceil(K/128), 4) + bc, f8b_scale_count srows * that stride",
		         label, (long long)sr, (long long)ld, (long long)ld, err);
	else
		tap_diag("%s: DIAGNOSIS: the row-major [%lld][%lld] block-scale layout fails "
		         "too (rel_error %.3e): the fault is not (only) the B scale layout",
		         label, (long long)sr, (long long)ld, err);
	free(dout);
}

/* Plans, runs and checks one fp8 configuration; returns D (fp32, host) for
 * the wrong-layout checks, or NULL (skipped or failed). */
static float *fp8_case(const struct shape *s, const struct f8b_gemm_desc *d, struct operand *a,
                       struct operand *b, const double *ref)
{
	char label[200];
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_algo_info info;
	float *dout;
	int rc;

	label_of(label, sizeof label, s, d);
	rc = ops->gemm_plan(be, d, 0, &plan, &info);
	if (rc == F8B_EUNSUPPORTED) {
		tap_skip("unsupported: %s", f8b_last_error()); /* names the configuration */
		return NULL;
	}
	if (!tap_ok(rc == F8B_OK, "%s: plan%s%s", label, rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		return NULL;
	tap_ok(info.candidates >= 1 && info.candidates <= 16 && info.heuristic_rank == 0 &&
	           info.algo_id >= 0 && info.splitk >= 1 && info.workspace <= WORKSPACE_LIMIT &&
	           info.desc[0] != '\0',
	       "%s: algo info: %d candidate(s), rank %d, %s, workspace %zu B", label,
	       info.candidates, info.heuristic_rank, info.desc, info.workspace);
	dout = run_gemm(plan, d, a->q.data, b->q.data, a->scale_inv, b->scale_inv, label);
	if (dout && !check_close(label, dout, ref, (size_t)(d->m * d->n), d->k, d->out_dtype,
	                         d->fast_accum, info.desc)) {
		if (b->g == F8B_GRAN_BLOCK128X128)
			explain_block_layout(plan, d, a, b, ref, label);
		/* Keep D for the wrong-layout checks only when the right layout
		 * passed: otherwise "wrong fails" would prove nothing. */
		free(dout);
		dout = NULL;
	}
	ops->gemm_plan_free(be, plan);
	return dout;
}

/* The assertions on an e4m3-output run (gemm_out8.h). */
static void out8_assert(const char *label, const struct out8_result *r)
{
	const struct f8b_gemm_verdict *v = &r->v, *w = &r->vsat;
	if (!tap_ok(r->rc == F8B_OK, "%s: %s%s%s", label, r->step, r->rc ? ": " : "",
	            r->rc ? f8b_last_error() : ""))
		return;
	tap_diag("%s: d_scale %g: rel_error=%.3e tol=%.3e SQNR=%.1f dB, amax_d %.7g (reference "
	         "%.7g), max |D| %d steps from e4m3(amax_d * d_scale) [%s]",
	         label, r->d_scale, v->rel_error, v->tolerance, v->sqnr_db, v->amax_d, v->amax_ref,
	         v->max_steps, r->info.desc);
	tap_ok(v->ok && v->off == 0 && v->amax_ok,
	       "%s: D within one e4m3 step of the quantised reference (%lld of %lldx%lld off), "
	       "rel_error %.3e <= %.3e, amax_d %.7g vs %.7g",
	       label, (long long)v->off, (long long)v->rows, (long long)v->cols, v->rel_error,
	       v->tolerance, v->amax_d, v->amax_ref);
	tap_ok(r->amax_d < OUT8_POISON, "%s: amax_d set to %.7g, not the max with the %g it held",
	       label, r->amax_d, OUT8_POISON);
	tap_ok(w->off == 0 && w->amax_ok && r->nan_codes == 0 && r->sat_codes > 0 &&
	           fabsf(r->amax_sat - r->amax_d) <= 1e-6f * r->amax_d,
	       "%s: at 4 x d_scale %lld elements saturate to +-448, %lld NaN (none allowed), "
	       "%lld off, amax_d %.7g (%.7g at d_scale)",
	       label, (long long)r->sat_codes, (long long)r->nan_codes, (long long)w->off,
	       r->amax_sat, r->amax_d);
}

/* e4m3 output on cuBLASLt, D checked whole. */
static void e4m3_case(const struct shape *s, const struct f8b_gemm_desc *d, struct operand *a,
                      struct operand *b)
{
	char label[200];
	struct out8_result r;

	label_of(label, sizeof label, s, d);
	out8_run(ops, be, d, 0, &a->q, &b->q, a->scale_inv, b->scale_inv, &a->hp, &b->hp, s->m, &r);
	if (r.unsupported) {
		tap_skip("unsupported: %s", f8b_last_error());
		return;
	}
	out8_assert(label, &r);
}

/* The same scale values, read in the other orientation of the block grid
 * (row-major <-> column-major): what a transposed scale layout would feed
 * the GEMM.  D from the GPU must NOT match a reference built this way. */
static void check_wrong_layout(const char *what, const struct shape *s, struct operand *op,
                               bool op_is_b, const struct operand *other, const float *dout,
                               enum f8b_dtype out_dtype)
{
	int64_t sr, sc, rows[SAMPLE_ROWS];
	int64_t nrows = s->m < SAMPLE_ROWS ? s->m : SAMPLE_ROWS;
	size_t nd = (size_t)(op->rows * op->cols);
	float *wrong = tap_xcalloc((size_t)op->count, sizeof(float));
	float *deq = tap_xcalloc(nd, sizeof(float));
	double *ref = tap_xcalloc((size_t)(nrows * s->n), sizeof(double));
	float *dsub = tap_xcalloc((size_t)(nrows * s->n), sizeof(float));
	double ratio = 0.0, tol = f8b_gemm_tolerance(s->k, out_dtype, false);
	uint8_t *qh = tap_xcalloc(nd, 1);
	int rc;

	f8b_scale_shape(op->g, op->rows, op->cols, &sr, &sc);
	for (int64_t br = 0; br < sr; br++) {
		for (int64_t bc = 0; bc < sc; bc++) {
			int64_t right = f8b_scale_index(op->g, op->rows, op->cols, br, bc);
			int64_t colmaj = bc * sr + br, rowmaj = br * sc + bc;
			wrong[right] = op->sinv_host[right == colmaj ? rowmaj : colmaj];
		}
	}
	bool sane = scales_sane(op, &ratio);
	tap_ok(sane && ratio > 2.0,
	       "%s: %s block scales vary across blocks (max/min %.1f > 2), so a layout error "
	       "is visible",
	       what, f8b_granularity_name(op->g), ratio);

	rc = ops->download(be, qh, op->q.data, nd);
	if (rc == F8B_OK)
		rc = f8b_ref_dequantize(qh, op->dt, op->rows, op->cols, op->g, wrong, deq);
	for (int64_t i = 0; i < nrows; i++)
		rows[i] = i * s->m / nrows;
	if (rc == F8B_OK)
		rc = op_is_b
		         ? f8b_ref_gemm_rows(other->deq, deq, s->m, s->n, s->k, rows, nrows, ref)
		         : f8b_ref_gemm_rows(deq, other->deq, s->m, s->n, s->k, rows, nrows, ref);
	if (tap_ok(rc == F8B_OK, "%s: reference with transposed %s scales%s%s", what,
	           op_is_b ? "B" : "A", rc ? ": " : "", rc ? f8b_last_error() : "")) {
		for (int64_t i = 0; i < nrows; i++)
			memcpy(dsub + i * s->n, dout + rows[i] * s->n,
			       (size_t)s->n * sizeof(float));
		double err = f8b_rel_error(dsub, ref, (size_t)(nrows * s->n));
		tap_ok(err > tol,
		       "%s: D checked against transposed %s (%s) scales FAILS: rel_error %.3e > "
		       "tolerance %.3e",
		       what, op_is_b ? "B" : "A", f8b_granularity_name(op->g), err, tol);
	}
	free(qh);
	free(dsub);
	free(ref);
	free(deq);
	free(wrong);
}

/* The GEMM of shape s, dtype pair dt and granularities g. */
static struct f8b_gemm_desc case_desc(const struct shape *s, const struct dtype_pair *dt,
                                      const struct gran_pair *g, enum f8b_dtype out, bool fast)
{
	return (struct f8b_gemm_desc){.m = s->m,
	                              .n = s->n,
	                              .k = s->k,
	                              .a_dtype = dt->a,
	                              .b_dtype = dt->b,
	                              .out_dtype = out,
	                              .a_gran = g->a,
	                              .b_gran = g->b,
	                              .fast_accum = fast};
}

/* All fp8 configurations of one shape. */
static void run_shape(const struct shape *s, uint64_t seed)
{
	struct operand a = {0}, b = {0};
	size_t nd = (size_t)(s->m * s->n);
	double *ref = tap_xcalloc(nd, sizeof(double));
	int rc;

	rc = fill_hp(&a, s->m, s->k, seed);
	if (rc == F8B_OK)
		rc = fill_hp(&b, s->n, s->k, seed + 1);
	if (!tap_ok(rc == F8B_OK, "M=%lld K=%lld N=%lld: fill A and B%s%s", (long long)s->m,
	            (long long)s->k, (long long)s->n, rc ? ": " : "", rc ? f8b_last_error() : ""))
		goto out;

	for (size_t gi = 0; gi < COUNT(grans); gi++) {
		for (size_t di = 0; di < COUNT(dtypes); di++) {
			char what[160];
			double ra = 0, rb = 0;

			snprintf(what, sizeof what, "M=%lld K=%lld N=%lld %s(%s) x %s(%s)",
			         (long long)s->m, (long long)s->k, (long long)s->n,
			         f8b_dtype_name(dtypes[di].a), f8b_granularity_name(grans[gi].a),
			         f8b_dtype_name(dtypes[di].b), f8b_granularity_name(grans[gi].b));
			rc = quantize(&a, dtypes[di].a, grans[gi].a);
			if (rc == F8B_OK)
				rc = quantize(&b, dtypes[di].b, grans[gi].b);
			if (!tap_ok(rc == F8B_OK, "%s: amax, scales, cast, download%s%s", what,
			            rc ? ": " : "", rc ? f8b_last_error() : "")) {
				release_q(&a);
				release_q(&b);
				continue;
			}
			tap_ok(scales_sane(&a, &ra) && scales_sane(&b, &rb),
			       "%s: every scale_inv is finite and > 0", what);
			/* One reference serves every accumulation mode and output. */
			rc = f8b_ref_gemm(a.deq, b.deq, s->m, s->n, s->k, ref);
			if (!tap_ok(rc == F8B_OK, "%s: reference%s%s", what, rc ? ": " : "",
			            rc ? f8b_last_error() : "")) {
				release_q(&a);
				release_q(&b);
				continue;
			}
			for (int fast = 0; fast <= 1; fast++) {
				struct f8b_gemm_desc d =
				    case_desc(s, &dtypes[di], &grans[gi], F8B_BF16, fast != 0);
				float *dout = fp8_case(s, &d, &a, &b, ref);
				bool blockwise = grans[gi].b == F8B_GRAN_BLOCK128X128;
				if (dout && blockwise && di == 0 && !fast) {
					check_wrong_layout(what, s, &b, true, &a, dout, F8B_BF16);
					check_wrong_layout(what, s, &a, false, &b, dout, F8B_BF16);
				}
				free(dout);
			}
			/* fp32 output: one dtype pair per granularity. */
			if (di == 0) {
				struct f8b_gemm_desc d =
				    case_desc(s, &dtypes[di], &grans[gi], F8B_F32, false);
				free(fp8_case(s, &d, &a, &b, ref));
			}
			/* e4m3 output: every pair with fast_accum off, e4m3 x
			 * e4m3 with it on too. */
			for (int fast = 0; fast <= (di == 0); fast++) {
				struct f8b_gemm_desc d =
				    case_desc(s, &dtypes[di], &grans[gi], F8B_E4M3, fast != 0);
				e4m3_case(s, &d, &a, &b);
			}
			release_q(&a);
			release_q(&b);
		}
	}

	/* The bf16 baseline: same path, bf16 operands, no scales. */
	{
		struct f8b_gemm_desc d = {
		    .m = s->m,
		    .n = s->n,
		    .k = s->k,
		    .a_dtype = F8B_BF16,
		    .b_dtype = F8B_BF16,
		    .out_dtype = F8B_BF16,
		};
		char label[200];
		struct f8b_gemm_plan *plan = NULL;
		struct f8b_algo_info info;
		size_t na = (size_t)(s->m * s->k), nb = (size_t)(s->n * s->k);
		uint16_t *ah = tap_xcalloc(na, 2), *bh = tap_xcalloc(nb, 2);
		float *af = tap_xcalloc(na, sizeof(float)), *bf = tap_xcalloc(nb, sizeof(float));

		snprintf(label, sizeof label, "M=%lld K=%lld N=%lld bf16 x bf16 -> bf16",
		         (long long)s->m, (long long)s->k, (long long)s->n);
		rc = ops->download(be, ah, a.hp.data, na * 2);
		if (rc == F8B_OK)
			rc = ops->download(be, bh, b.hp.data, nb * 2);
		if (rc == F8B_OK)
			rc = f8b_ref_dequantize(ah, F8B_BF16, s->m, s->k, F8B_GRAN_TENSORWISE, NULL,
			                        af);
		if (rc == F8B_OK)
			rc = f8b_ref_dequantize(bh, F8B_BF16, s->n, s->k, F8B_GRAN_TENSORWISE, NULL,
			                        bf);
		if (rc == F8B_OK)
			rc = f8b_ref_gemm(af, bf, s->m, s->n, s->k, ref);
		if (rc == F8B_OK)
			rc = ops->gemm_plan(be, &d, 0, &plan, &info);
		if (tap_ok(rc == F8B_OK, "%s: reference and plan%s%s", label, rc ? ": " : "",
		           rc ? f8b_last_error() : "")) {
			float *dout = run_gemm(plan, &d, a.hp.data, b.hp.data, NULL, NULL, label);
			if (dout)
				check_close(label, dout, ref, nd, s->k, F8B_BF16, false, info.desc);
			free(dout);
			ops->gemm_plan_free(be, plan);
		}
		free(ah);
		free(bh);
		free(af);
		free(bf);
	}
out:
	f8b_tensor_free(ops, be, &a.hp);
	f8b_tensor_free(ops, be, &b.hp);
	free(ref);
}

/* --autotune's path: every candidate the heuristic offers plans and
 * computes the right answer; one past the last is refused by name. */
static void test_candidates(void)
{
	const struct shape *s = &shapes[2];
	struct f8b_gemm_desc d = {
	    .m = s->m,
	    .n = s->n,
	    .k = s->k,
	    .a_dtype = F8B_E4M3,
	    .b_dtype = F8B_E4M3,
	    .out_dtype = F8B_BF16,
	    .a_gran = F8B_GRAN_TENSORWISE,
	    .b_gran = F8B_GRAN_TENSORWISE,
	};
	struct operand a = {0}, b = {0};
	struct f8b_algo_info info;
	struct f8b_gemm_plan *plan = NULL;
	double *ref = tap_xcalloc((size_t)(s->m * s->n), sizeof(double));
	int rc, ncand;

	rc = fill_hp(&a, s->m, s->k, 501);
	if (rc == F8B_OK)
		rc = fill_hp(&b, s->n, s->k, 502);
	if (rc == F8B_OK)
		rc = quantize(&a, F8B_E4M3, F8B_GRAN_TENSORWISE);
	if (rc == F8B_OK)
		rc = quantize(&b, F8B_E4M3, F8B_GRAN_TENSORWISE);
	if (rc == F8B_OK)
		rc = f8b_ref_gemm(a.deq, b.deq, s->m, s->n, s->k, ref);
	if (rc == F8B_OK)
		rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	if (!tap_ok(rc == F8B_OK, "candidates: setup and plan 0%s%s", rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		goto out;
	ops->gemm_plan_free(be, plan);
	ncand = info.candidates;
	tap_diag("candidates: the heuristic offers %d algorithms for tensorwise e4m3 1024^3",
	         ncand);
	for (int c = 0; c < ncand; c++) {
		char label[96];
		snprintf(label, sizeof label, "candidate %d of %d", c, ncand);
		rc = ops->gemm_plan(be, &d, c, &plan, &info);
		if (rc == F8B_EUNSUPPORTED) {
			tap_skip("unsupported: %s: %s", label, f8b_last_error());
			continue;
		}
		if (!tap_ok(rc == F8B_OK && info.heuristic_rank == c && info.candidates == ncand,
		            "%s: plan (rank %d)%s%s", label, info.heuristic_rank, rc ? ": " : "",
		            rc ? f8b_last_error() : ""))
			continue;
		float *dout =
		    run_gemm(plan, &d, a.q.data, b.q.data, a.scale_inv, b.scale_inv, label);
		if (dout)
			check_close(label, dout, ref, (size_t)(s->m * s->n), s->k, F8B_BF16, false,
			            info.desc);
		free(dout);
		ops->gemm_plan_free(be, plan);
	}
	rc = ops->gemm_plan(be, &d, ncand, &plan, &info);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "candidate") != NULL &&
	           info.candidates == ncand,
	       "candidate %d (one past the last) is refused by name: %s", ncand, f8b_last_error());
out:
	release_q(&a);
	release_q(&b);
	f8b_tensor_free(ops, be, &a.hp);
	f8b_tensor_free(ops, be, &b.hp);
	free(ref);
}

/* Scale pointers are bound per call: a second B scale tensor holding 2x
 * the values doubles D, and switching back restores it. */
static void test_rebinding(void)
{
	const struct shape *s = &shapes[0];
	struct f8b_gemm_desc d = {
	    .m = s->m,
	    .n = s->n,
	    .k = s->k,
	    .a_dtype = F8B_E4M3,
	    .b_dtype = F8B_E4M3,
	    .out_dtype = F8B_F32,
	    .a_gran = F8B_GRAN_AXISWISE,
	    .b_gran = F8B_GRAN_AXISWISE,
	};
	struct operand a = {0}, b = {0};
	struct f8b_algo_info info;
	struct f8b_gemm_plan *plan = NULL;
	size_t nd = (size_t)(s->m * s->n);
	double *ref = tap_xcalloc(nd, sizeof(double)), *ref2 = tap_xcalloc(nd, sizeof(double));
	float *twice = NULL, *sinv2 = NULL;
	int rc;

	rc = fill_hp(&a, s->m, s->k, 601);
	if (rc == F8B_OK)
		rc = fill_hp(&b, s->n, s->k, 602);
	if (rc == F8B_OK)
		rc = quantize(&a, F8B_E4M3, F8B_GRAN_AXISWISE);
	if (rc == F8B_OK)
		rc = quantize(&b, F8B_E4M3, F8B_GRAN_AXISWISE);
	if (rc == F8B_OK)
		rc = f8b_ref_gemm(a.deq, b.deq, s->m, s->n, s->k, ref);
	if (rc == F8B_OK) {
		twice = tap_xcalloc((size_t)b.count, sizeof(float));
		for (int64_t i = 0; i < b.count; i++)
			twice[i] = 2.0f * b.sinv_host[i]; /* exact: a power of two */
		rc = ops->alloc(be, (size_t)b.count * sizeof(float), (void **)&sinv2);
	}
	if (rc == F8B_OK)
		rc = ops->upload(be, sinv2, twice, (size_t)b.count * sizeof(float));
	if (rc == F8B_OK)
		rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	if (rc == F8B_EUNSUPPORTED) {
		tap_skip("unsupported: scale-pointer rebinding (axiswise): %s", f8b_last_error());
		goto out;
	}
	if (!tap_ok(rc == F8B_OK, "rebinding: setup and plan%s%s", rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		goto out;
	for (size_t i = 0; i < nd; i++)
		ref2[i] = 2.0 * ref[i];
	static const char *const labels[] = {"rebinding: original B scales",
	                                     "rebinding: B scales x2 (second tensor) doubles D",
	                                     "rebinding: back to the original B scales"};
	for (int step = 0; step < 3; step++) {
		const float *sb = step == 1 ? sinv2 : b.scale_inv;
		float *dout = run_gemm(plan, &d, a.q.data, b.q.data, a.scale_inv, sb, labels[step]);
		if (dout)
			check_close(labels[step], dout, step == 1 ? ref2 : ref, nd, s->k, F8B_F32,
			            false, info.desc);
		free(dout);
	}
	ops->gemm_plan_free(be, plan);
out:
	ops->free(be, sinv2);
	free(twice);
	release_q(&a);
	release_q(&b);
	f8b_tensor_free(ops, be, &a.hp);
	f8b_tensor_free(ops, be, &b.hp);
	free(ref);
	free(ref2);
}

/* Inputs the backend must refuse, each with a message naming the input. */
static void test_refusals(void)
{
	const struct f8b_gemm_desc base = {
	    .m = 256,
	    .n = 256,
	    .k = 256,
	    .a_dtype = F8B_E4M3,
	    .b_dtype = F8B_E4M3,
	    .out_dtype = F8B_BF16,
	    .a_gran = F8B_GRAN_TENSORWISE,
	    .b_gran = F8B_GRAN_TENSORWISE,
	};
	struct f8b_gemm_desc d;
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_algo_info info;
	int rc;

	d = base;
	d.a_dtype = d.b_dtype = F8B_E5M2;
	rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "e5m2") && !plan,
	       "e5m2 x e5m2 is refused as unsupported: %s", f8b_last_error());

	d = base;
	d.k = 250;
	rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "K=250") && !plan,
	       "K=250 (not a multiple of 16) is refused as invalid: %s", f8b_last_error());

	d = base;
	d.b_gran = F8B_GRAN_BLOCK1X128;
	rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "block1x128") && !plan,
	       "B (weight) block1x128 beside a tensorwise A is refused: %s", f8b_last_error());

	d = base;
	rc = ops->gemm_plan(be, &d, -1, &plan, &info);
	tap_ok(rc == F8B_EINVAL && !plan, "candidate -1 is refused: %s", f8b_last_error());

	d = base;
	d.out_dtype = F8B_E5M2;
	rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "e5m2") && !plan,
	       "e5m2 output is refused: %s", f8b_last_error());

	d = base;
	d.a_dtype = d.b_dtype = F8B_BF16;
	d.out_dtype = F8B_E4M3;
	rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "needs fp8 operands") && !plan,
	       "bf16 x bf16 -> e4m3 is refused: %s", f8b_last_error());

	/* e4m3 output without d_scale or amax_d: refused at the call, before
	 * anything is enqueued (the pointers are never read). */
	d = base;
	d.out_dtype = F8B_E4M3;
	rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	if (rc == F8B_OK) {
		float *buf = NULL;
		rc = ops->alloc(be, 4096, (void **)&buf);
		struct f8b_gemm_args args = {.a = buf,
		                             .b = buf,
		                             .a_scale_inv = buf,
		                             .b_scale_inv = buf,
		                             .d = buf,
		                             .amax_d = buf};
		if (rc == F8B_OK)
			rc = ops->gemm(be, plan, &args);
		tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "d_scale"),
		       "e4m3 output without d_scale is refused: %s", f8b_last_error());
		ops->free(be, buf);
		ops->gemm_plan_free(be, plan);
		plan = NULL;
	} else {
		tap_skip("unsupported: e4m3 output: %s", f8b_last_error());
	}

	/* 1 PiB: more than any GPU has; the message names the size. */
	void *p = NULL;
	rc = ops->alloc(be, (size_t)1 << 50, &p);
	tap_ok(rc == F8B_ENOMEM && !p && strstr(f8b_last_error(), "bytes"),
	       "a 1 PiB allocation fails as out of memory, naming the bytes: %s", f8b_last_error());
	ops->free(be, p);
}

/* Events, cache flush and clocks around a real launch. */
static void test_timing_ops(void)
{
	struct f8b_event *e0 = NULL, *e1 = NULL;
	struct f8b_clock_state cs = {0};
	void *buf = NULL;
	double sec = -1.0;
	int rc;

	rc = ops->event_create(be, &e0);
	if (rc == F8B_OK)
		rc = ops->event_create(be, &e1);
	if (!tap_ok(rc == F8B_OK, "events: create%s%s", rc ? ": " : "", rc ? f8b_last_error() : ""))
		goto out;
	rc = ops->event_elapsed(be, e0, e1, &sec);
	tap_ok(rc == F8B_EINVAL, "events: elapsed before any record is refused: %s",
	       f8b_last_error());
	rc = ops->alloc(be, (size_t)64 << 20, &buf);
	if (rc == F8B_OK) /* both flushes run; the default (write) last */
		rc = ops->flush_cache(be, F8B_FLUSH_READ);
	if (rc == F8B_OK)
		rc = ops->flush_cache(be, F8B_FLUSH_WRITE);
	if (rc == F8B_OK)
		rc = ops->event_record(be, e0);
	if (rc == F8B_OK)
		rc = ops->memset(be, buf, 0x5A, (size_t)64 << 20);
	if (rc == F8B_OK)
		rc = ops->event_record(be, e1);
	if (rc == F8B_OK)
		rc = ops->event_elapsed(be, e0, e1, &sec);
	/* 64 MiB at 0.5..5 TB/s: 13 us .. 130 us; allow a slow or shared GPU. */
	tap_ok(rc == F8B_OK && sec > 1e-7 && sec < 0.5,
	       "events: a 64 MiB memset takes %.1f us between events%s%s", sec * 1e6,
	       rc ? ": " : "", rc ? f8b_last_error() : "");
	rc = ops->sync(be);
	tap_ok(rc == F8B_OK, "sync%s%s", rc ? ": " : "", rc ? f8b_last_error() : "");
	rc = ops->clock_state ? ops->clock_state(be, &cs) : F8B_EUNSUPPORTED;
	tap_ok(rc == F8B_OK && (!cs.valid || (cs.sm_mhz > 0 && cs.mem_mhz > 0)),
	       "clock state: %s (SM %u MHz, mem %u MHz, reasons 0x%llx, throttled %s)",
	       cs.valid ? "from NVML" : "NVML unavailable", cs.sm_mhz, cs.mem_mhz,
	       cs.throttle_reasons, cs.throttled ? "yes" : "no");
out:
	ops->free(be, buf);
	ops->event_destroy(be, e0);
	ops->event_destroy(be, e1);
}

int main(void)
{
	char why[256], msg[320];
	struct f8b_device_info info;
	int n, rc;

	n = f8b_cuda_device_count(why, sizeof why);
	if (n <= 0) {
		snprintf(msg, sizeof msg, "no CUDA GPU: %s", why);
		return tap_skip_all(msg);
	}
	rc = ops->open(0, &be, &info);
	if (rc == F8B_EUNSUPPORTED) {
		snprintf(msg, sizeof msg, "no usable CUDA GPU: %s", f8b_last_error());
		return tap_skip_all(msg);
	}
	if (!tap_ok(rc == F8B_OK, "open device 0%s%s", rc ? ": " : "", rc ? f8b_last_error() : ""))
		return tap_done();
	tap_diag("device 0: %s, sm_%d%d, %d SMs, %.1f GiB, L2 %.1f MiB, PCI id 0x%04x, %s",
	         info.name, info.cc_major, info.cc_minor, info.sm_count,
	         info.mem_bytes / 1073741824.0, info.l2_bytes / 1048576.0, info.pci_device_id,
	         info.uuid);
	tap_diag("CUDA runtime %s, cuBLASLt %s, driver %s", info.runtime_version,
	         info.cublaslt_version, info.driver_version[0] ? info.driver_version : "unknown");
	tap_ok(info.device == 0 && info.cc_major * 10 + info.cc_minor >= 89 && info.sm_count > 0 &&
	           info.mem_bytes > 0 && info.l2_bytes > 0 && info.name[0] &&
	           info.runtime_version[0] && info.cublaslt_version[0] &&
	           strncmp(info.uuid, "GPU-", 4) == 0,
	       "device info is filled (%s, cuBLASLt %s)", info.name, info.cublaslt_version);
#ifdef F8B_HAVE_NCCL
	tap_ok(info.nccl_version[0] != '\0', "NCCL version known: %s", info.nccl_version);
#endif

	test_refusals();
	test_timing_ops();
	for (size_t i = 0; i < COUNT(shapes); i++)
		run_shape(&shapes[i], 1000 + 10 * i);
	test_candidates();
	test_rebinding();

	ops->close(be);
	return tap_done();
}
