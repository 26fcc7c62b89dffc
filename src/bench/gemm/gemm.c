/* gemm.c - the fp8 GEMM benchmark: D = A @ B^T for each shape x
 * scaling granularity x fast_accum x dtype pair, beside the bf16 GEMM of
 * the same shape measured in the same process.
 *
 * A case: fill A [M,K] and B [N,K] in bf16 from the seed, quantise each
 * with scales computed from its own amax (on the backend), plan the GEMM
 * (outside timing), launch once and check, then time the GEMM alone.
 * Check (before timing): D against a double-precision GEMM of the very
 * dequantized fp8 operands (relative error within f8b_gemm_tolerance), and
 * the SQNR of D against a double GEMM of the bf16 inputs - the accuracy
 * that fp8 costs.  Big shapes are checked on a sampled block of D
 * (CHECK_ROWS x CHECK_COLS, always including the last row and column, so
 * ragged blocks are covered); counts are in the row's message when sampled.
 * With --out-dtype e4m3 the GEMM also takes D's scale and writes D's amax:
 * d_scale is chosen before the first launch from the reference's amax
 * (choose_d_scale), and the check compares the e4m3 D with the reference
 * quantised the same way and the amax with the reference's (gemm_check.h).
 *
 * The options and the case list are in gemm_cfg.c; this file holds the
 * per-case work (setup, plans, --autotune, check, finish) and the descriptor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/bench.h"
#include "bench/gemm/gemm_int.h"
#include "bench/gemm/gemm_check.h"
#include "bench/gemm/gemm_report.h"
#include "backend/reference.h"
#include "results/schema.h"

#define CHECK_ROWS      64
#define AUTOTUNE_MARGIN 0.02 /* see autotune() */
#define CHECK_COLS      256

/* ------------------------------------------------------------ one case */

struct gemm_state {
	struct f8b_run *run;
	struct gemm_cfg *cfg;
	struct gemm_case gc;
	int64_t m, k, n;
	struct f8b_tensor a_hp, b_hp, a_q, b_q, d;
	struct f8b_tensor d_t; /* --out-t on: D^T [N,M] */
	float *amax_a, *amax_b, *scale_a, *scale_b, *sinv_a, *sinv_b;
	float *d_scale, *amax_d; /* e4m3 output: D's scale (given) and amax (written) */
	int64_t nsa, nsb;
	struct f8b_gemm_desc desc;
	struct f8b_gemm_plan *plan;
	struct f8b_algo_info info;
	struct f8b_gemm_args args;
	struct f8b_gemm_plan *plan0; /* the heuristic's plan when --autotune chose another */
	int candidates_timed;
};

static int launch(void *vs)
{
	struct gemm_state *s = vs;
	return s->run->ops->gemm(s->run->be, s->plan, &s->args);
}

static void teardown(void *vs)
{
	struct gemm_state *s = vs;
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	if (s->plan)
		ops->gemm_plan_free(be, s->plan);
	if (s->plan0)
		ops->gemm_plan_free(be, s->plan0);
	f8b_tensor_free(ops, be, &s->a_hp);
	f8b_tensor_free(ops, be, &s->b_hp);
	f8b_tensor_free(ops, be, &s->a_q);
	f8b_tensor_free(ops, be, &s->b_q);
	f8b_tensor_free(ops, be, &s->d);
	f8b_tensor_free(ops, be, &s->d_t);
	float *bufs[] = {s->amax_a, s->amax_b, s->scale_a, s->scale_b,
	                 s->sinv_a, s->sinv_b, s->d_scale, s->amax_d};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (bufs[i])
			ops->free(be, bufs[i]);
	free(s);
}

static int alloc_floats(struct gemm_state *s, int64_t n, float **p)
{
	return s->run->ops->alloc(s->run->be, sizeof(float) * (size_t)n, (void **)p);
}

/* Quantise x (bf16) into q with scales of granularity g computed from its
 * own amax: amax -> scale -> cast, all on the backend. */
static int quantise(struct gemm_state *s, const struct f8b_tensor *x, enum f8b_granularity g,
                    struct f8b_tensor *q, float *amax, float *scale, float *sinv, int64_t nscale)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct f8b_scale_opts so = {0};
	F8B_TRY(ops->amax(be, x, g, amax));
	F8B_TRY(ops->scales(be, amax, nscale, q->dtype, &so, scale, sinv));
	return ops->cast(be, x, g, scale, q);
}

static struct baseline *find_baseline(struct gemm_cfg *c, int64_t m, int64_t k, int64_t n)
{
	for (size_t i = 0; i < c->nbase; i++)
		if (c->base[i].m == m && c->base[i].k == k && c->base[i].n == n)
			return &c->base[i];
	return NULL;
}

/* Plans candidate `cand` and checks it once; *ok false when wrong. */
static int plan_candidate(struct gemm_state *s, int cand, struct f8b_gemm_row *row, bool *ok);
static int check(void *vs, void *vrow, bool *ok);
static int launch(void *vs);

/* --autotune -v: one line per candidate, its time and TFLOP/s (the row
 * keeps only the fastest and the heuristic's), e.g. to see a tile of
 * f8b's table that is not chosen; info NULL: refused or wrong. */
static void report_candidate(const struct gemm_state *s, int c, const struct f8b_algo_info *info,
                             double median_s)
{
	char head[160];
	snprintf(head, sizeof head,
	         "f8bench gemm: autotune %lldx%lldx%lld %s x %s fast_accum %s impl %s",
	         (long long)s->m, (long long)s->k, (long long)s->n,
	         f8b_granularity_name(s->desc.a_gran), f8b_granularity_name(s->desc.b_gran),
	         s->desc.fast_accum ? "on" : "off", f8b_gemm_impl_name(s->desc.impl));
	if (!info) {
		fprintf(stderr, "%s candidate %d: not timed (refused or wrong)\n", head, c);
		return;
	}
	double flops = 2.0 * (double)s->m * (double)s->n * (double)s->k;
	fprintf(stderr,
	        "%s candidate %d: %.1f TFLOP/s, %.4f ms (mean of two medians; tile %d, custom %d) "
	        "[%s]\n",
	        head, c, median_s > 0 ? flops / median_s / 1e12 : 0.0, median_s * 1e3, info->tile,
	        info->custom, info->desc);
}

/* --autotune: plan and check candidates 0..n-1, time every one that is
 * right, keep the fastest.  Candidates are timed in a forward and then a
 * backward pass and ranked by the mean of their two medians, so a slow
 * drift of the GPU's clocks over the loop (the H100 sits at its power cap
 * under fp8 GEMMs) favours no position in the list; another candidate
 * replaces the heuristic's only when it is more than AUTOTUNE_MARGIN faster.  The heuristic's plan
 * is kept so finish() can time it again right beside the row's own
 * measurement. */
static int autotune(struct gemm_state *s, int n, struct f8b_gemm_row *row)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct f8b_gemm_plan *plans[64] = {0};
	struct f8b_algo_info infos[64];
	double t[64] = {0};
	int rc = F8B_OK;
	bool ok;

	plans[0] = s->plan;
	infos[0] = s->info;
	s->plan = NULL;
	for (int c = 1; c < n && rc == F8B_OK; c++) {
		rc = plan_candidate(s, c, row, &ok);
		if (rc == F8B_EUNSUPPORTED || (rc == F8B_OK && !ok)) {
			rc = F8B_OK; /* a candidate that fails is never chosen */
			if (s->plan)
				ops->gemm_plan_free(be, s->plan);
		} else if (rc == F8B_OK) {
			plans[c] = s->plan;
			infos[c] = s->info;
		} else if (s->plan) {
			ops->gemm_plan_free(be, s->plan);
		}
		s->plan = NULL;
	}
	for (int pass = 0; pass < 2 && rc == F8B_OK; pass++) {
		for (int j = 0; j < n && rc == F8B_OK; j++) {
			int c = pass == 0 ? j : n - 1 - j;
			struct f8b_measure_result m;
			if (!plans[c])
				continue;
			s->plan = plans[c];
			rc = f8b_measure(ops, be, launch, s, &s->run->mopts, &m, NULL);
			t[c] += 0.5 * m.median_s;
		}
	}
	if (s->run->verbose && rc == F8B_OK)
		for (int c = 0; c < n; c++)
			report_candidate(s, c, plans[c] ? &infos[c] : NULL, t[c]);
	/* Leave the heuristic's choice only for a gain beyond what repeated
	 * medians of one algorithm differ by on a power-capped H100 (about
	 * 2%, results/h100): a smaller "gain" is as likely drift as speed. */
	int best = 0;
	for (int c = 1; c < n; c++)
		if (plans[c] && t[c] < t[best] && t[c] < (1.0 - AUTOTUNE_MARGIN) * t[0])
			best = c;
	for (int c = 1; c < n; c++)
		if (plans[c] && c != best)
			ops->gemm_plan_free(be, plans[c]);
	s->plan = plans[best];
	s->info = infos[best];
	s->plan0 = best ? plans[0] : NULL;
	s->candidates_timed = n;
	if (rc != F8B_OK)
		return rc;
	/* The chosen plan's correctness figures are the row's: D holds the
	 * last timed candidate's output, so the chosen plan runs once more. */
	F8B_TRY(launch(s));
	F8B_TRY(ops->sync(be));
	return check(s, row, &ok);
}

/* The roofline every row is placed against: measured ceilings when given,
 * the datasheet otherwise, and the run says which.  Once per process. */
static int load_roofline(struct f8b_run *run, struct gemm_cfg *c)
{
	f8b_peaks_lookup(&run->dev, &c->peaks);
	struct f8b_ceilings sheet;
	f8b_ceilings_datasheet(&c->peaks, &sheet);
	c->ceilings = sheet;
	if (c->ceilings_path)
		F8B_TRY(f8b_ceilings_read(c->ceilings_path, &sheet, &c->ceilings));
	if (run->rank == 0)
		fprintf(stderr, "f8bench gemm: roofline ceilings: %s (%s)\n", c->ceilings.source,
		        c->ceilings.detail);
	c->peaks_done = true;
	return F8B_OK;
}

/* Inputs: the same bf16 data for every case of a shape (seeded); for an
 * fp8 case, quantised on the backend with scales of granularity ga / gb. */
static int make_inputs(struct gemm_state *s, bool fp8, enum f8b_granularity ga,
                       enum f8b_granularity gb)
{
	struct f8b_run *run = s->run;
	struct gemm_cfg *c = s->cfg;
	const struct f8b_backend_ops *ops = run->ops;
	struct f8b_backend *be = run->be;
	struct f8b_fill_spec fa = {.seed = run->seed * 2 + 1,
	                           .mean = 0,
	                           .std = 1,
	                           .outlier_frac = c->outlier_frac,
	                           .outlier_scale = c->outlier_scale};
	struct f8b_fill_spec fb = fa;
	fb.seed = run->seed * 2 + 2;
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->a_hp, F8B_BF16, s->m, s->k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->b_hp, F8B_BF16, s->n, s->k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->d, s->desc.out_dtype, s->m, s->n));
	F8B_TRY(ops->fill(be, &s->a_hp, &fa));
	F8B_TRY(ops->fill(be, &s->b_hp, &fb));
	s->args.d = s->d.data;
	if (fp8) {
		s->nsa = f8b_scale_count(ga, s->m, s->k);
		s->nsb = f8b_scale_count(gb, s->n, s->k);
		F8B_TRY(f8b_tensor_alloc(ops, be, &s->a_q, s->gc.dt.a, s->m, s->k));
		F8B_TRY(f8b_tensor_alloc(ops, be, &s->b_q, s->gc.dt.b, s->n, s->k));
		F8B_TRY(alloc_floats(s, s->nsa, &s->amax_a));
		F8B_TRY(alloc_floats(s, s->nsa, &s->scale_a));
		F8B_TRY(alloc_floats(s, s->nsa, &s->sinv_a));
		F8B_TRY(alloc_floats(s, s->nsb, &s->amax_b));
		F8B_TRY(alloc_floats(s, s->nsb, &s->scale_b));
		F8B_TRY(alloc_floats(s, s->nsb, &s->sinv_b));
		F8B_TRY(
		    quantise(s, &s->a_hp, ga, &s->a_q, s->amax_a, s->scale_a, s->sinv_a, s->nsa));
		F8B_TRY(
		    quantise(s, &s->b_hp, gb, &s->b_q, s->amax_b, s->scale_b, s->sinv_b, s->nsb));
		if (s->desc.out_t)
			F8B_TRY(f8b_tensor_alloc(ops, be, &s->d_t, s->desc.out_dtype, s->n, s->m));
		s->args = (struct f8b_gemm_args){.a = s->a_q.data,
		                                 .b = s->b_q.data,
		                                 .a_scale_inv = s->sinv_a,
		                                 .b_scale_inv = s->sinv_b,
		                                 .d = s->d.data,
		                                 .d_t = s->d_t.data};
	} else {
		s->args =
		    (struct f8b_gemm_args){.a = s->a_hp.data, .b = s->b_hp.data, .d = s->d.data};
	}
	return F8B_OK;
}

static int setup(struct f8b_run *run, size_t i, void *vrow, void **state);

static void gemm_data(struct gemm_state *s, struct f8b_gemm_data *g);

/* An e4m3 output's d_scale, chosen as a delayed scale would be, from the
 * amax of the reference D (doc/gemm.md "fp8 output"): d_scale = 448 /
 * amax, so the largest element lands on e4m3's largest value.  For a big
 * shape the reference covers only the check's sampled block, whose amax
 * is a lower bound of D's: the scale is halved there, so that elements up
 * to twice the sample's largest do not saturate (the largest of 67M
 * normal values is about 1.4x the largest of a 64 x 256 sample).  Host
 * work before the first launch: nothing of it is timed.  amax_d starts at
 * zero (the GEMM overwrites it). */
static int choose_d_scale(struct gemm_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct f8b_gemm_data g;
	double amax = 0;
	bool sampled = false;
	F8B_TRY(alloc_floats(s, 1, &s->d_scale));
	F8B_TRY(alloc_floats(s, 1, &s->amax_d));
	gemm_data(s, &g);
	F8B_TRY(
	    f8b_gemm_ref_amax(ops, be, &g, CHECK_ROWS, CHECK_COLS, s->run->seed, &amax, &sampled));
	const float zero = 0.0f;
	float ds = 1.0f;
	if (amax > 0 && isfinite(amax))
		ds = (float)(f8b_dtype_max(F8B_E4M3) / (sampled ? 2.0 * amax : amax));
	F8B_TRY(ops->upload(be, s->d_scale, &ds, sizeof ds));
	F8B_TRY(ops->upload(be, s->amax_d, &zero, sizeof zero));
	s->args.d_scale = s->d_scale;
	s->args.amax_d = s->amax_d;
	return F8B_OK;
}

/* The bf16 baseline of this shape, once per process: it rides on its own
 * case when that ran here, else it is measured now, side by side. */
static int measure_baseline(struct gemm_state *s, const struct f8b_gemm_row *row)
{
	struct f8b_run *run = s->run;
	struct gemm_cfg *c = s->cfg;
	const struct f8b_backend_ops *ops = run->ops;
	struct f8b_backend *be = run->be;
	struct gemm_case save = s->gc;
	struct gemm_state *b = NULL;
	struct f8b_gemm_row brow = *row;
	struct gemm_case bc = {.shape = save.shape, .sc = SC_NONE, .dt = {F8B_BF16, F8B_BF16}};
	size_t bi = 0;
	while (bi < c->ncases && memcmp(&c->cases[bi], &bc, sizeof bc))
		bi++;
	int rc = bi < c->ncases ? setup(run, bi, &brow, (void **)&b) : F8B_EINTERNAL;
	bool bok = false;
	if (rc == F8B_OK)
		rc = launch(b);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (rc == F8B_OK)
		rc = check(b, &brow, &bok);
	struct f8b_measure_result m;
	if (rc == F8B_OK && bok)
		rc = f8b_measure(ops, be, launch, b, &run->mopts, &m, NULL);
	if (b)
		teardown(b);
	F8B_TRY(rc);
	if (!bok)
		return F8B_ERR(F8B_EDEVICE, "the bf16 baseline GEMM %lldx%lldx%lld was wrong",
		               (long long)s->m, (long long)s->k, (long long)s->n);
	c->base[c->nbase++] = (struct baseline){s->m, s->k, s->n, m.median_s};
	return F8B_OK;
}

static int setup(struct f8b_run *run, size_t i, void *vrow, void **state)
{
	struct gemm_cfg *c = run->cfg;
	struct f8b_gemm_row *row = vrow;
	const struct f8b_backend_ops *ops = run->ops;
	struct gemm_state *s = calloc(1, sizeof *s);
	if (!s)
		return F8B_ERR(F8B_ENOMEM, "gemm state");
	*state = s;
	s->run = run;
	s->cfg = c;
	s->gc = c->cases[i];
	s->m = row->m;
	s->k = row->k;
	s->n = row->n;
	if (!c->peaks_done)
		F8B_TRY(load_roofline(run, c));
	f8b_gemm_setstr(row->backend, sizeof row->backend, ops->name);
	f8b_gemm_setstr(row->gpu, sizeof row->gpu, run->dev.name);
	row->seed = (int64_t)run->seed;
	row->rank = run->rank;
	row->device = run->dev.device;

	bool fp8 = s->gc.sc != SC_NONE;
	enum f8b_granularity ga, gb;
	f8b_gemm_grans(s->gc.sc, &ga, &gb);
	s->desc = (struct f8b_gemm_desc){.m = s->m,
	                                 .n = s->n,
	                                 .k = s->k,
	                                 .a_dtype = fp8 ? s->gc.dt.a : F8B_BF16,
	                                 .b_dtype = fp8 ? s->gc.dt.b : F8B_BF16,
	                                 .out_dtype = fp8 ? c->out_dtype : F8B_BF16,
	                                 .a_gran = ga,
	                                 .b_gran = gb,
	                                 .fast_accum = s->gc.fast_accum,
	                                 .impl = s->gc.impl,
	                                 .out_t = fp8 && s->gc.out_t};

	F8B_TRY(make_inputs(s, fp8, ga, gb));
	if (s->desc.out_dtype == F8B_E4M3)
		F8B_TRY(choose_d_scale(s));

	/* Algorithm: the heuristic's first choice, or with --autotune the
	 * fastest of its first N, each checked before it is timed. */
	bool ok = false;
	F8B_TRY(plan_candidate(s, 0, row, &ok));
	if (!ok)
		return F8B_OK; /* the runner's check will record it as wrong */
	s->candidates_timed = 1;
	int n = c->autotune < s->info.candidates ? c->autotune : s->info.candidates;
	if (n > 1)
		F8B_TRY(autotune(s, n, row));
	if (fp8 && !find_baseline(c, s->m, s->k, s->n))
		F8B_TRY(measure_baseline(s, row));
	return F8B_OK;
}

static int plan_candidate(struct gemm_state *s, int cand, struct f8b_gemm_row *row, bool *ok)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	if (s->plan) {
		ops->gemm_plan_free(be, s->plan);
		s->plan = NULL;
	}
	F8B_TRY(ops->gemm_plan(be, &s->desc, cand, &s->plan, &s->info));
	F8B_TRY(launch(s));
	F8B_TRY(ops->sync(be));
	return check(s, row, ok);
}

/* The operands, scales and D of the case, as the check reads them. */
static void gemm_data(struct gemm_state *s, struct f8b_gemm_data *g)
{
	bool fp8 = s->gc.sc != SC_NONE;
	*g = (struct f8b_gemm_data){
	    .desc = &s->desc,
	    .a = fp8 ? &s->a_q : &s->a_hp,
	    .b = fp8 ? &s->b_q : &s->b_hp,
	    .a_scale_inv = s->sinv_a,
	    .b_scale_inv = s->sinv_b,
	    .a_hp = &s->a_hp,
	    .b_hp = &s->b_hp,
	    .d = &s->d,
	    .d_scale = s->d_scale,
	    .amax_d = s->amax_d,
	};
}

static int check(void *vs, void *vrow, bool *ok)
{
	struct gemm_state *s = vs;
	struct f8b_gemm_row *row = vrow;
	struct f8b_gemm_data g;
	gemm_data(s, &g);
	struct f8b_gemm_verdict v;
	F8B_TRY(
	    f8b_gemm_check(s->run->ops, s->run->be, &g, CHECK_ROWS, CHECK_COLS, s->run->seed, &v));
	row->rel_error = v.rel_error;
	row->tolerance = v.tolerance;
	row->sqnr_db = v.sqnr_db;
	*ok = v.ok;
	int64_t t_off = 0, t_checked = 0;
	if (s->desc.out_t) {
		F8B_TRY(f8b_gemm_check_t(s->run->ops, s->run->be, s->d.data, s->d_t.data, s->m,
		                         s->n, f8b_dtype_size(s->desc.out_dtype), false, &t_off,
		                         &t_checked));
		*ok = *ok && t_off == 0;
	}
	memset(row->message, 0, sizeof row->message);
	if (t_off > 0)
		snprintf(row->message, sizeof row->message,
		         "D^T: %lld of %lld checked elements differ from D transposed",
		         (long long)t_off, (long long)t_checked);
	else if (v.off > 0)
		snprintf(row->message, sizeof row->message,
		         "e4m3 D: %lld of %lldx%lld checked elements off the quantised reference",
		         (long long)v.off, (long long)v.rows, (long long)v.cols);
	else if (!v.amax_ok)
		snprintf(row->message, sizeof row->message,
		         "amax_d %.6g vs reference %.6g%s, %d e4m3 steps from max |D|", v.amax_d,
		         v.amax_ref, v.sampled ? " (sampled)" : "", v.max_steps);
	else if (!v.ok)
		snprintf(row->message, sizeof row->message,
		         "rel_error %.3g > tolerance %.3g (checked %lldx%lld of D)", v.rel_error,
		         v.tolerance, (long long)v.rows, (long long)v.cols);
	else if (v.sampled)
		snprintf(row->message, sizeof row->message, "checked a %lldx%lld sample of D",
		         (long long)v.rows, (long long)v.cols);
	return F8B_OK;
}

static int finish(void *vs, const struct f8b_measure_result *m, void *vrow)
{
	struct gemm_state *s = vs;
	struct f8b_gemm_row *row = vrow;
	struct gemm_cfg *c = s->cfg;
	double flops = 2.0 * (double)s->m * (double)s->n * (double)s->k;
	row->time_median_s = m->median_s;
	row->time_min_s = m->min_s;
	row->time_max_s = m->max_s;
	row->time_noise = m->noise;
	row->samples = m->samples;
	row->converged = m->converged;
	row->throttled = m->throttled;
	row->throttle_reasons = (int64_t)m->throttle_reasons;
	row->sm_mhz_min = (int32_t)m->sm_mhz_min;
	row->sm_mhz_max = (int32_t)m->sm_mhz_max;
	row->tflops = flops / m->median_s / 1e12;
	row->pct_peak = 100.0 * row->tflops / f8b_peak_tflops(&c->peaks, s->desc.a_dtype);
	struct f8b_cost cost;
	f8b_cost_gemm(&s->desc, &cost);
	row->arith_intensity = f8b_cost_intensity(&cost);
	row->predicted_time_s = f8b_roofline_time(&cost, &c->ceilings, s->desc.a_dtype);
	row->pct_of_roofline = f8b_pct_of_roofline(row->predicted_time_s, m->median_s);
	f8b_gemm_setstr(row->roofline_source, sizeof row->roofline_source, c->ceilings.source);
	if (s->gc.sc == SC_NONE) {
		struct baseline *b = find_baseline(c, s->m, s->k, s->n);
		if (!b)
			c->base[c->nbase++] = (struct baseline){s->m, s->k, s->n, m->median_s};
		else
			b->median_s = m->median_s;
	}
	struct baseline *b = find_baseline(c, s->m, s->k, s->n);
	row->bf16_time_median_s = b ? b->median_s : NAN;
	row->speedup_vs_bf16 = row->bf16_time_median_s / m->median_s;
	row->algo_id = s->info.algo_id;
	row->algo_tile = s->info.tile;
	row->algo_stages = s->info.stages;
	row->algo_splitk = s->info.splitk;
	row->algo_swizzle = s->info.swizzle;
	row->algo_reduction = s->info.reduction;
	row->algo_custom = s->info.custom;
	row->algo_cluster = s->info.cluster;
	row->heuristic_rank = s->info.heuristic_rank;
	row->candidates_timed = s->candidates_timed;
	row->heuristic_time_median_s = m->median_s;
	if (s->plan0) {
		/* --autotune chose another algorithm: time the heuristic's again,
		 * right after the row's own measurement, for a side-by-side gain. */
		struct f8b_gemm_plan *chosen = s->plan;
		struct f8b_measure_result h;
		s->plan = s->plan0;
		int rc = f8b_measure(s->run->ops, s->run->be, launch, s, &s->run->mopts, &h, NULL);
		s->plan = chosen;
		F8B_TRY(rc);
		row->heuristic_time_median_s = h.median_s;
	}
	row->workspace_bytes = (int64_t)s->info.workspace;
	if (!m->converged && s->run->verbose)
		fprintf(stderr, "f8bench gemm: %lldx%lldx%lld: not converged: %s\n",
		        (long long)s->m, (long long)s->k, (long long)s->n, m->unmet);
	if (!m->converged && !row->message[0])
		snprintf(row->message, sizeof row->message, "timing not converged: %.70s",
		         m->unmet);
	return F8B_OK;
}

/* Backend memory case i allocates in setup(): the bf16 operands (2 bytes
 * an element), D (at most 4), and for fp8 the quantised operands (1) and
 * their scales (4 per block, at most one per element of a row of 128). */
static int64_t case_bytes(const void *cfg, size_t i)
{
	const struct gemm_cfg *c = cfg;
	const struct f8b_shape *s = &c->shapes.v[c->cases[i].shape];
	double mk = (double)s->m * (double)s->k, nk = (double)s->n * (double)s->k;
	double need = 2 * (mk + nk) + 4 * (double)s->m * (double)s->n;
	if (c->cases[i].out_t) /* D^T */
		need += 4 * (double)s->m * (double)s->n;
	if (c->cases[i].sc != SC_NONE)
		need += (mk + nk) * (1 + 3 * 4.0 / 128);
	return need < 9e18 ? (int64_t)need : INT64_MAX;
}

/* --interleave: the implementations of one fp8 case (shape, scaling,
 * fast_accum, dtypes), each with and without D^T; the bf16 baseline alone. */
static bool same_group(const void *vcfg, size_t i, size_t j)
{
	const struct gemm_cfg *c = vcfg;
	const struct gemm_case *a = &c->cases[i], *b = &c->cases[j];
	return a->sc != SC_NONE && a->shape == b->shape && a->sc == b->sc &&
	       a->fast_accum == b->fast_accum && a->dt.a == b->dt.a && a->dt.b == b->dt.b;
}

/* What case_key fills and same_case / describe read. */
static const char *const gemm_key_columns[] = {
    "m",          "k",       "n",       "label",     "scaling", "a_gran", "b_gran",
    "fast_accum", "a_dtype", "b_dtype", "out_dtype", "impl",    "out_t",  NULL,
};
/* The accuracy compare gates: SQNR against the high-precision inputs (the
 * recipe), and the relative error against the dequantized reference (the
 * kernel's arithmetic) - the host accuracy gate holds both exactly. */
static const struct f8b_gate_column gemm_accuracy[] = {
    {"sqnr_db", +1},
    {"rel_error", -1},
    {0},
};

const struct f8b_bench f8b_bench_gemm = {
    .name = "gemm",
    .summary = "fp8 GEMM sweep: shapes x granularity x fast_accum x dtypes, beside bf16\n"
               "Runs cuBLASLt's fp8 GEMMs on a GPU (the host reference elsewhere), and with\n"
               "--impl f8b f8bench's own sm_90a kernel beside them, each case beside the\n"
               "bf16 GEMM of its shape, and checks every case before timing it.",
    .schema = &f8b_gemm_schema,
    .options = f8b_gemm_options,
    .cfg_new = f8b_gemm_cfg_new,
    .cfg_option = f8b_gemm_cfg_option,
    .cfg_finalize = f8b_gemm_cfg_finalize,
    .cfg_free = f8b_gemm_cfg_free,
    .case_key = f8b_gemm_case_key,
    .same_case = f8b_gemm_same_case,
    .same_group = same_group,
    .describe = f8b_gemm_describe,
    .summarize = f8b_gemm_summarize,
    .off_status = offsetof(struct f8b_gemm_row, status),
    .off_message = offsetof(struct f8b_gemm_row, message),
    .off_run_id = offsetof(struct f8b_gemm_row, run_id),
    .setup = setup,
    .launch = launch,
    .check = check,
    .finish = finish,
    .teardown = teardown,
    .case_bytes = case_bytes,
    .report = &f8b_gemm_report,
    .key_columns = gemm_key_columns,
    .time_column = "time_median_s",
    .noise_column = "time_noise",
    .throttled_column = "throttled",
    .accuracy = gemm_accuracy,
};
