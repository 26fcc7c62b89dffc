/* lls.c - the LayerNorm -> Linear -> Sigmoid training step, forward and
 * backward, in every recipe, beside the bf16 step of the same shape in the
 * same process (doc/lls.md).
 *
 * A case: plan the step's kernels for the recipe (lls_step.c), allocate
 * and fill, plan the three GEMMs, run the step eagerly once (and the
 * history's steps for delayed scaling), capture it as a graph (--graph
 * on), then the harness launches it once, the check (lls_check.c) runs it
 * again keeping every intermediate and compares, and the step is timed.
 * finish() then times each kernel alone for the lls_kernels table, traces
 * the step for each kernel's time inside it, and places the step against
 * the roofline: the GEMMs at the GEMM peak of
 * their dtype, every other kernel at the memory bandwidth.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lls/lls_int.h"
#include "report/report.h"

static int launch(void *vs)
{
	struct lls_state *s = vs;
	if (s->graph)
		return s->run->ops->graph_launch(s->run->be, s->graph);
	return f8b_lls_run_step(s);
}

/* --interleave: the --gemm-impl cases of one shape and recipe. */
static bool same_group(const void *vcfg, size_t i, size_t j)
{
	const struct lls_cfg *c = vcfg;
	const struct lls_case *a = &c->cases[i], *b = &c->cases[j];
	return a->shape == b->shape && a->recipe == b->recipe && a->impl != b->impl;
}

static void teardown(void *vs)
{
	struct lls_state *s = vs;
	if (!s)
		return;
	f8b_lls_free(s);
	free(s);
}

/* The roofline the step is placed against, once per process. */
static int load_roofline(struct f8b_run *run, struct lls_cfg *c)
{
	f8b_peaks_lookup(&run->dev, &c->peaks);
	struct f8b_ceilings sheet;
	f8b_ceilings_datasheet(&c->peaks, &sheet);
	c->ceilings = sheet;
	if (c->ceilings_path)
		F8B_TRY(f8b_ceilings_read(c->ceilings_path, &sheet, &c->ceilings));
	if (run->rank == 0)
		fprintf(stderr, "f8bench lls: roofline ceilings: %s (%s)\n", c->ceilings.source,
		        c->ceilings.detail);
	c->roof_done = true;
	return F8B_OK;
}

static struct lls_baseline *find_baseline(struct lls_cfg *c, int64_t m, int64_t k, int64_t n)
{
	for (size_t i = 0; i < c->nbase; i++)
		if (c->base[i].m == m && c->base[i].k == k && c->base[i].n == n)
			return &c->base[i];
	return NULL;
}

/* Everything of a step up to the graph; `recipe` may be the bf16 one, and
 * `impl` runs its fp8 GEMMs (its bf16 ones run on cuBLASLt). */
static int make_step(struct f8b_run *run, struct lls_cfg *c, const struct f8b_shape *sh,
                     const struct f8b_recipe *recipe, enum f8b_gemm_impl impl,
                     struct lls_state **out)
{
	struct lls_state *s = calloc(1, sizeof *s);
	if (!s)
		return F8B_ERR(F8B_ENOMEM, "lls state");
	*out = s;
	s->run = run;
	s->cfg = c;
	s->recipe = recipe;
	s->impl = impl;
	s->m = sh->m;
	s->k = sh->k;
	s->n = sh->n;
	s->staleness = NAN;
	for (int o = 0; o < NOPND; o++)
		s->op[o].alias = -1;
	F8B_TRY(f8b_lls_plan(s));
	F8B_TRY(f8b_lls_alloc(s));
	F8B_TRY(f8b_lls_lanes_open(s));
	/* One eager step (libraries initialise lazily, never during capture),
	 * then the rest of the history so delayed scales are warm. */
	int warm = 1 + (s->history > 1 ? s->history - 1 : 0);
	for (int i = 0; i < warm; i++)
		F8B_TRY(f8b_lls_run_step(s));
	F8B_TRY(run->ops->sync(run->be));
	if (c->graph)
		F8B_TRY(run->ops->graph_capture(run->be, f8b_lls_run_step, s, &s->graph));
	return F8B_OK;
}

/* The bf16 step of this shape, measured in this process: taken from its
 * own case when that ran here, else set up, checked and timed now. */
static int measure_baseline(struct f8b_run *run, struct lls_cfg *c, const struct f8b_shape *sh)
{
	static struct f8b_recipe bf16;
	if (f8b_recipe_parse("bf16", &bf16) != F8B_OK)
		return F8B_ERR(F8B_EINTERNAL, "lls: the bf16 recipe: %s", f8b_last_error());
	struct lls_state *b = NULL;
	struct f8b_lls_row row = {0};
	bool ok = false;
	struct f8b_measure_result m;
	int rc = make_step(run, c, sh, &bf16, F8B_GEMM_IMPL_CUBLASLT, &b);
	if (rc == F8B_OK)
		rc = launch(b);
	if (rc == F8B_OK)
		rc = run->ops->sync(run->be);
	if (rc == F8B_OK)
		rc = f8b_lls_check(b, &row, &ok);
	if (rc == F8B_OK && ok)
		rc = f8b_measure(run->ops, run->be, launch, b, &run->mopts, &m, NULL);
	teardown(b);
	F8B_TRY(rc);
	if (!ok)
		return F8B_ERR(F8B_EDEVICE, "the bf16 step of %lldx%lldx%lld was wrong: %s",
		               (long long)sh->m, (long long)sh->k, (long long)sh->n, row.message);
	c->base[c->nbase++] = (struct lls_baseline){sh->m, sh->k, sh->n, m.median_s};
	return F8B_OK;
}

static int setup(struct f8b_run *run, size_t i, void *vrow, void **state)
{
	struct lls_cfg *c = run->cfg;
	struct f8b_lls_row *row = vrow;
	const struct lls_case *lc = &c->cases[i];
	const struct f8b_shape *sh = &c->shapes.v[lc->shape];
	const struct f8b_recipe *r = &c->recipes[lc->recipe];
	*state = NULL;
	f8b_setstr(row->backend, sizeof row->backend, run->ops->name);
	f8b_setstr(row->gpu, sizeof row->gpu, run->dev.name);
	row->seed = (int64_t)run->seed;
	row->rank = run->rank;
	row->device = run->dev.device;
	if (!c->roof_done)
		F8B_TRY(load_roofline(run, c));
	if (sh->k > F8B_LLS_ROW_MAX_COLS && !strcmp(run->ops->name, "cuda"))
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "K=%lld: the LayerNorm row kernels take rows of at most %d columns",
		               (long long)sh->k, F8B_LLS_ROW_MAX_COLS);
	bool is_bf16 = !strcmp(r->name, "bf16");
	/* The baseline first, so the two never hold device memory together. */
	if (!is_bf16 && !find_baseline(c, sh->m, sh->k, sh->n))
		F8B_TRY(measure_baseline(run, c, sh));
	struct lls_state *s = NULL;
	int rc = make_step(run, c, sh, r, lc->impl, &s);
	*state = s;
	if (s) {
		row->history_len = s->history;
		row->launches = s->nst;
		row->device_mem_bytes = s->allocated;
		f8b_lls_memory(s, &row->peak_mem_bytes, &row->saved_bytes);
	}
	return rc;
}

/* An ok row of impl f8b whose step has a bf16 GEMM says which ran on
 * cuBLASLt ("grad_weight in bf16 on cuBLASLt"); "" otherwise. */
static void bf16_gemms_note(const struct lls_state *s, char *buf, size_t n)
{
	unsigned fp8 = f8b_lls_fp8_gemms(s->recipe);
	size_t k = 0;
	buf[0] = '\0';
	if (s->impl == F8B_GEMM_IMPL_CUBLASLT || fp8 == 7)
		return;
	for (int j = 0; j < 3 && k < n; j++)
		if (!(fp8 >> j & 1))
			k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "",
			                      f8b_lls_gemm_name(j));
	if (k < n)
		snprintf(buf + k, n - k, " in bf16 on cuBLASLt");
}

static int check(void *vs, void *vrow, bool *ok)
{
	return f8b_lls_check(vs, vrow, ok);
}

/* finish's launch for one kernel alone. */
static int launch_single(void *vs)
{
	struct lls_state *s = vs;
	return f8b_lls_run_stage(s, s->single);
}

/* Where the step's time goes inside the step (each stage's in_step_s,
 * the lls_kernels rows' in_step_median_s): the step run eagerly with an
 * event just before and after every kernel on its lane, each sample taken
 * the way the step's own are (flush, hold, the step, release; not flushed
 * when the step's samples were batches of `batch`, which are not), as
 * many samples as the step had (TRACE_MIN to TRACE_MAX), after one not
 * kept.
 * A kernel's time there includes whatever the other lane's kernels take
 * from it; the traced step's own median (*step) is set beside the step's
 * (the graph's, with --graph on), so the events' cost shows. */
#define TRACE_MIN 10
#define TRACE_MAX 200

/* One traced sample, beside the step's samples of `batch` steps: the step
 * between the harness's own e0 (ev[0]) and e1 (ev[1]), stage i between
 * ev[2 + 2i] and ev[3 + 2i] (lls_int.h). */
static int trace_sample(struct lls_state *s, int batch, struct f8b_event **ev, double *t)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	s->trace = ev;
	int rc = f8b_measure_cold(ops, be, f8b_lls_run_step, s, &s->run->mopts, batch, ev[0], ev[1],
	                          &t[s->nst]);
	s->trace = NULL;
	for (int i = 0; i < s->nst && rc == F8B_OK; i++)
		rc = ops->event_elapsed(be, ev[2 + 2 * i], ev[3 + 2 * i], &t[i]);
	return rc;
}

static int trace_step(struct lls_state *s, int samples, int batch, double *step)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	const int ne = 2 * s->nst + 2, w = s->nst + 1;
	const int n = samples < TRACE_MIN ? TRACE_MIN : samples > TRACE_MAX ? TRACE_MAX : samples;
	struct f8b_event *ev[2 * LLS_MAX_STAGES + 2] = {0};
	double *t = malloc(sizeof *t * (size_t)(n + 1) * (size_t)w);
	double *col = malloc(sizeof *col * (size_t)n);
	int rc = t && col ? F8B_OK : F8B_ERR(F8B_ENOMEM, "lls: the trace of %d steps", n);
	for (int e = 0; e < ne && rc == F8B_OK; e++)
		rc = ops->event_create(be, &ev[e]);
	/* sample 0 is not kept: the eager step's first run after the kernels
	 * alone */
	for (int j = 0; j <= n && rc == F8B_OK; j++)
		rc = trace_sample(s, batch, ev, t + (size_t)j * w);
	for (int i = 0; i < w && rc == F8B_OK; i++) {
		for (int j = 0; j < n; j++)
			col[j] = t[(size_t)(j + 1) * w + i];
		double med = f8b_median(col, n);
		if (i < s->nst)
			s->st[i].in_step_s = med;
		else
			*step = med;
	}
	for (int e = 0; e < ne; e++)
		if (ev[e])
			ops->event_destroy(be, ev[e]);
	free(t);
	free(col);
	return rc;
}

static int finish(void *vs, const struct f8b_measure_result *m, void *vrow)
{
	struct lls_state *s = vs;
	struct f8b_lls_row *row = vrow;
	struct lls_cfg *c = s->cfg;
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
	if (!strcmp(s->recipe->name, "bf16")) {
		struct lls_baseline *b = find_baseline(c, s->m, s->k, s->n);
		if (b)
			b->median_s = m->median_s;
		else
			c->base[c->nbase++] = (struct lls_baseline){s->m, s->k, s->n, m->median_s};
	}
	struct lls_baseline *b = find_baseline(c, s->m, s->k, s->n);
	row->bf16_time_median_s = b ? b->median_s : NAN;
	row->speedup_vs_bf16 = row->bf16_time_median_s / m->median_s;
	/* Each kernel alone, then the roofline's sum. */
	double pred = 0, ksum = 0, gsum = 0, flops = 0, bytes = 0;
	for (int i = 0; i < s->nst; i++) {
		struct lls_stage *st = &s->st[i];
		struct f8b_measure_result km;
		s->single = i;
		F8B_TRY(f8b_measure(s->run->ops, s->run->be, launch_single, s, &s->run->mopts, &km,
		                    NULL));
		st->time_s = km.median_s;
		st->noise = km.noise;
		ksum += km.median_s;
		if (st->kind == K_GEMM)
			gsum += km.median_s;
		pred += f8b_roofline_time(&st->cost, &c->ceilings, st->compute);
		flops += st->cost.flops * (st->kind == K_GEMM);
		bytes += f8b_cost_bytes(&st->cost);
	}
	row->kernels_time_s = ksum;
	row->gemm_time_s = gsum;
	F8B_TRY(trace_step(s, m->samples, m->batch, &row->traced_time_median_s));
	row->step_flops = flops;
	row->step_bytes = bytes;
	/* A graph pays one launch, not one per kernel. */
	if (s->graph && isfinite(pred))
		pred -= (s->nst - 1) * c->ceilings.launch_s;
	row->predicted_time_s = pred;
	row->pct_of_roofline = f8b_pct_of_roofline(pred, m->median_s);
	f8b_setstr(row->roofline_source, sizeof row->roofline_source, c->ceilings.source);
	char note[64];
	bf16_gemms_note(s, note, sizeof note);
	if (!m->converged && !row->message[0])
		snprintf(row->message, sizeof row->message, "%s%stiming not converged: %.70s", note,
		         note[0] ? "; " : "", m->unmet);
	else if (note[0] && !row->message[0])
		f8b_setstr(row->message, sizeof row->message, note);
	return F8B_OK;
}

static size_t detail(void *vs, const void *vrow, void *vrows)
{
	struct lls_state *s = vs;
	const struct f8b_lls_row *row = vrow;
	struct f8b_lls_kernel_row *k = vrows;
	const struct f8b_ceilings *ceil = &s->cfg->ceilings;
	for (int i = 0; i < s->nst; i++) {
		const struct lls_stage *st = &s->st[i];
		struct f8b_lls_kernel_row *r = &k[i];
		r->m = s->m;
		r->k = s->k;
		r->n = s->n;
		f8b_setstr(r->recipe, sizeof r->recipe, row->recipe);
		memcpy(r->gemm_impl, row->gemm_impl, sizeof r->gemm_impl);
		r->index = i;
		f8b_setstr(r->kernel, sizeof r->kernel, f8b_lls_kind_name(st->kind));
		f8b_setstr(r->tensor, sizeof r->tensor, st->tensor);
		f8b_setstr(r->pass, sizeof r->pass, st->bwd ? "bwd" : "fwd");
		f8b_setstr(r->fuses, sizeof r->fuses, st->fuses);
		f8b_setstr(r->dtype, sizeof r->dtype, f8b_dtype_name(st->dtype));
		r->bytes = f8b_cost_bytes(&st->cost);
		r->flops = st->cost.flops;
		r->time_median_s = st->time_s;
		r->time_noise = st->noise;
		r->in_step_median_s = st->in_step_s;
		r->gbps = r->bytes / st->time_s / 1e9;
		r->pct_of_bw = 100.0 * r->bytes / st->time_s / ceil->hbm_bytes_per_s;
		r->tflops = st->kind == K_GEMM ? r->flops / st->time_s / 1e12 : NAN;
		r->predicted_time_s = f8b_roofline_time(&st->cost, ceil, st->compute);
		r->pct_of_roofline = f8b_pct_of_roofline(r->predicted_time_s, st->time_s);
		f8b_setstr(r->status, sizeof r->status, "ok");
		/* the case's implementation is gemm_impl; a bf16 GEMM of an f8b
		 * case ran on cuBLASLt, and its row says so */
		if (st->kind == K_GEMM && s->g[st->gemm].desc.impl != s->impl)
			snprintf(r->message, sizeof r->message, "bf16 GEMM: ran on %s, not %s",
			         f8b_gemm_impl_name(s->g[st->gemm].desc.impl),
			         f8b_gemm_impl_name(s->impl));
		r->rank = row->rank;
		f8b_setstr(r->gpu, sizeof r->gpu, row->gpu);
	}
	return (size_t)s->nst;
}

static const char *const lls_key_columns[] = {
    "m", "k", "n", "label", "recipe", "recipe_long", "graph", "lanes", "gemm_impl", NULL,
};
/* The accuracy compare gates: the step's worst SQNR against the reference,
 * then each output's (y, grad_x, grad_w), so a change that moves one of
 * them is seen even where the minimum stays put. */
static const struct f8b_gate_column lls_accuracy[] = {
    {"sqnr_min_db", +1}, {"sqnr_y_db", +1}, {"sqnr_grad_x_db", +1}, {"sqnr_grad_w_db", +1}, {0},
};

const struct f8b_bench f8b_bench_lls = {
    .name = "lls",
    .summary = "LayerNorm -> Linear -> Sigmoid training step in fp8, every recipe, beside bf16\n"
               "Runs y = sigmoid(layernorm(x) @ W^T) forward and backward with our own fused\n"
               "cast kernels and cuBLASLt's GEMMs (or, --gemm-impl f8b, f8bench's own fp8\n"
               "GEMM for the fp8 ones), checks every cast bit for bit and the step against a\n"
               "double-precision reference, then times the step (as one CUDA graph), each of\n"
               "its kernels alone beside the roofline's prediction, and each kernel inside\n"
               "the step (events around it in an eager step).",
    .schema = &f8b_lls_schema,
    .options = f8b_lls_options,
    .cfg_new = f8b_lls_cfg_new,
    .cfg_option = f8b_lls_cfg_option,
    .cfg_finalize = f8b_lls_cfg_finalize,
    .cfg_free = f8b_lls_cfg_free,
    .case_key = f8b_lls_case_key,
    .same_case = f8b_lls_same_case,
    .same_group = same_group,
    .describe = f8b_lls_describe,
    .summarize = f8b_lls_summarize,
    .off_status = offsetof(struct f8b_lls_row, status),
    .off_message = offsetof(struct f8b_lls_row, message),
    .off_run_id = offsetof(struct f8b_lls_row, run_id),
    .case_bytes = f8b_lls_case_bytes,
    .setup = setup,
    .launch = launch,
    .check = check,
    .finish = finish,
    .teardown = teardown,
    .detail_schema = &f8b_lls_kernel_schema,
    .detail_max = LLS_MAX_STAGES,
    .detail = detail,
    .key_columns = lls_key_columns,
    .time_column = "time_median_s",
    .noise_column = "time_noise",
    .throttled_column = "throttled",
    .accuracy = lls_accuracy,
    .report = &f8b_lls_report,
};
