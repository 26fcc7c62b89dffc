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
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness/bench.h"
#include "core/cases.h"
#include "core/fp8.h"
#include "bench/gemm_check.h"
#include "bench/gemm_report.h"
#include "model/peaks.h"
#include "backend/reference.h"
#include "model/roofline.h"
#include "results/schema.h"

#define CHECK_ROWS      64
#define AUTOTUNE_MARGIN 0.02 /* see autotune() */
#define CHECK_COLS      256

enum scaling_kind { SC_NONE, SC_TENSORWISE, SC_AXISWISE, SC_BLOCKWISE, SC_COUNT };
static const char *const scaling_names[SC_COUNT] = {"none", "tensorwise", "axiswise", "blockwise"};

struct dtype_pair {
	enum f8b_dtype a, b;
};

struct gemm_case {
	size_t shape;
	enum scaling_kind sc;
	bool fast_accum;
	struct dtype_pair dt;
};

/* bf16 baseline times measured by this process, one per shape. */
struct baseline {
	int64_t m, k, n;
	double median_s;
};

struct gemm_cfg {
	const char *shapes_spec, *scaling_spec, *fa_spec, *dtypes_spec;
	enum f8b_dtype out_dtype;
	float outlier_frac, outlier_scale;
	int autotune;
	struct f8b_shapes shapes;
	struct gemm_case *cases;
	size_t ncases;
	struct baseline *base;
	size_t nbase;
	struct f8b_peaks peaks;
	struct f8b_ceilings ceilings; /* measured (--ceilings) or datasheet */
	const char *ceilings_path;
	bool peaks_done;
};

enum {
	OPT_SHAPES = 2000,
	OPT_SCALING,
	OPT_FAST_ACCUM,
	OPT_DTYPES,
	OPT_OUT_DTYPE,
	OPT_OUTLIERS,
	OPT_AUTOTUNE,
	OPT_CEILINGS,
};

static const struct f8b_option gemm_options[] = {
    {"shapes", OPT_SHAPES, 0, "SPEC",
     "shapes: set names (quick, pow2, square, llama2-70b, llama3-8b),\n"
     "shape files, or MxKxN, comma separated (default quick)"},
    {"scaling", OPT_SCALING, 0, "LIST",
     "tensorwise,axiswise,blockwise (default all three); blockwise is\n"
     "A 1x128 and B 128x128"},
    {"fast-accum", OPT_FAST_ACCUM, 0, "LIST", "on,off (default on,off)"},
    {"dtypes", OPT_DTYPES, 0, "LIST",
     "A:B fp8 pairs from e4m3:e4m3, e4m3:e5m2, e5m2:e4m3\n(default e4m3:e4m3)"},
    {"out-dtype", OPT_OUT_DTYPE, 0, "T", "bf16 or f32 (default bf16)"},
    {"outliers", OPT_OUTLIERS, 0, "FRAC[:SCALE]",
     "multiply a fraction of inputs by SCALE (default 100) to\nstress scaling (default none)"},
    {"ceilings", OPT_CEILINGS, 0, "FILE",
     "roofline ceilings measured by f8bench ceilings (default: the\ndatasheet of this GPU, "
     "roofline/datasheet.tsv)"},
    {"autotune", OPT_AUTOTUNE, 0, "N",
     "time the heuristic's first N algorithms and keep the fastest\nwhen it beats the first by "
     "over 2% (default 1: no tuning)"},
    {0},
};

static int cfg_new(void **cfg)
{
	struct gemm_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "gemm config");
	c->shapes_spec = "quick";
	c->scaling_spec = "tensorwise,axiswise,blockwise";
	c->fa_spec = "on,off";
	c->dtypes_spec = "e4m3:e4m3";
	c->out_dtype = F8B_BF16;
	c->outlier_scale = 100.0f;
	c->autotune = 1;
	*cfg = c;
	return F8B_OK;
}

static void cfg_free(void *cfg)
{
	struct gemm_cfg *c = cfg;
	f8b_shapes_free(&c->shapes);
	free(c->cases);
	free(c->base);
	free(c);
}

static int cfg_option(void *cfg, int key, const char *arg)
{
	struct gemm_cfg *c = cfg;
	char *end;
	switch (key) {
	case OPT_SHAPES: c->shapes_spec = arg; return F8B_OK;
	case OPT_SCALING: c->scaling_spec = arg; return F8B_OK;
	case OPT_FAST_ACCUM: c->fa_spec = arg; return F8B_OK;
	case OPT_DTYPES: c->dtypes_spec = arg; return F8B_OK;
	case OPT_OUT_DTYPE:
		if (f8b_dtype_parse(arg, &c->out_dtype) != F8B_OK ||
		    (c->out_dtype != F8B_BF16 && c->out_dtype != F8B_F32))
			return F8B_ERR(F8B_EINVAL, "--out-dtype '%s': accepted: bf16, f32", arg);
		return F8B_OK;
	case OPT_OUTLIERS:
		errno = 0;
		c->outlier_frac = strtof(arg, &end);
		if (*end == ':')
			c->outlier_scale = strtof(end + 1, &end);
		if (errno || *end || !(c->outlier_frac >= 0 && c->outlier_frac <= 1) ||
		    !(c->outlier_scale > 0 && isfinite(c->outlier_scale)))
			return F8B_ERR(F8B_EINVAL,
			               "--outliers '%s': expected FRAC[:SCALE] with 0 <= FRAC <= 1 "
			               "and SCALE > 0 (e.g. 0.001:100)",
			               arg);
		return F8B_OK;
	case OPT_CEILINGS: c->ceilings_path = arg; return F8B_OK;
	case OPT_AUTOTUNE: {
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 1 || v > 64)
			return F8B_ERR(F8B_EINVAL, "--autotune '%s': expected 1..64 candidates",
			               arg);
		c->autotune = (int)v;
		return F8B_OK;
	}
	}
	return F8B_ERR(F8B_EINTERNAL, "gemm option %d", key);
}

static int parse_scaling(const char *s, void *out)
{
	for (int i = SC_TENSORWISE; i < SC_COUNT; i++) {
		if (!strcasecmp(s, scaling_names[i])) {
			*(enum scaling_kind *)out = (enum scaling_kind)i;
			return F8B_OK;
		}
	}
	return F8B_ERR(F8B_EINVAL,
	               "unknown granularity '%s' (accepted: tensorwise, axiswise, blockwise)", s);
}

static int parse_onoff(const char *s, void *out)
{
	if (!strcasecmp(s, "on") || !strcmp(s, "1") || !strcasecmp(s, "true")) {
		*(bool *)out = true;
		return F8B_OK;
	}
	if (!strcasecmp(s, "off") || !strcmp(s, "0") || !strcasecmp(s, "false")) {
		*(bool *)out = false;
		return F8B_OK;
	}
	return F8B_ERR(F8B_EINVAL, "fast_accum value '%s' (accepted: on, off)", s);
}

static int parse_pair(const char *s, void *out)
{
	struct dtype_pair *p = out;
	char a[32], b[32];
	const char *colon = strchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof a || strlen(colon + 1) >= sizeof b)
		goto bad;
	snprintf(a, sizeof a, "%.*s", (int)(colon - s), s);
	snprintf(b, sizeof b, "%s", colon + 1);
	if (f8b_dtype_parse(a, &p->a) != F8B_OK || f8b_dtype_parse(b, &p->b) != F8B_OK ||
	    !f8b_dtype_is_fp8(p->a) || !f8b_dtype_is_fp8(p->b))
		goto bad;
	if (p->a == F8B_E5M2 && p->b == F8B_E5M2)
		return F8B_ERR(F8B_EINVAL,
		               "dtype pair '%s': e5m2 x e5m2 is not an fp8 GEMM cuBLASLt runs "
		               "(accepted: e4m3:e4m3, e4m3:e5m2, e5m2:e4m3)",
		               s);
	return F8B_OK;
bad:
	return F8B_ERR(F8B_EINVAL,
	               "unknown dtype pair '%s' (accepted: e4m3:e4m3, e4m3:e5m2, e5m2:e4m3)", s);
}

static int cfg_finalize(void *cfg, size_t *ncases)
{
	struct gemm_cfg *c = cfg;
	enum scaling_kind *sc = NULL;
	bool *fa = NULL;
	struct dtype_pair *dt = NULL;
	size_t nsc = 0, nfa = 0, ndt = 0;
	int rc = f8b_shapes_parse(c->shapes_spec, &c->shapes);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->scaling_spec, "--scaling", sizeof *sc, parse_scaling,
		                    (void **)&sc, &nsc);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->fa_spec, "--fast-accum", sizeof *fa, parse_onoff,
		                    (void **)&fa, &nfa);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->dtypes_spec, "--dtypes", sizeof *dt, parse_pair,
		                    (void **)&dt, &ndt);
	/* A ceilings file is bad input if it cannot be read: say so now,
	 * before any results file exists. */
	if (rc == F8B_OK && c->ceilings_path) {
		struct f8b_ceilings probe;
		int crc = f8b_ceilings_read(c->ceilings_path, NULL, &probe);
		if (crc != F8B_OK)
			rc = F8B_ERR(F8B_EINVAL, "--ceilings '%s': %s", c->ceilings_path,
			             f8b_last_error());
	}
	/* Per shape: the bf16 baseline case, then every fp8 combination. */
	size_t per = 1 + nsc * nfa * ndt;
	if (rc == F8B_OK && !(c->cases = calloc(c->shapes.n * per, sizeof *c->cases)))
		rc = F8B_ERR(F8B_ENOMEM, "%zu cases", c->shapes.n * per);
	if (rc == F8B_OK && !(c->base = calloc(c->shapes.n, sizeof *c->base)))
		rc = F8B_ERR(F8B_ENOMEM, "baselines");
	for (size_t s = 0; rc == F8B_OK && s < c->shapes.n; s++) {
		c->cases[c->ncases++] =
		    (struct gemm_case){.shape = s, .sc = SC_NONE, .dt = {F8B_BF16, F8B_BF16}};
		size_t dims[3] = {nsc, nfa, ndt}, idx[3];
		for (size_t j = 0; j < nsc * nfa * ndt; j++) {
			f8b_cross_index(j, dims, 3, idx);
			c->cases[c->ncases++] = (struct gemm_case){.shape = s,
			                                           .sc = sc[idx[0]],
			                                           .fast_accum = fa[idx[1]],
			                                           .dt = dt[idx[2]]};
		}
	}
	free(sc);
	free(fa);
	free(dt);
	*ncases = c->ncases;
	return rc;
}

static void grans(enum scaling_kind sc, enum f8b_granularity *ga, enum f8b_granularity *gb)
{
	*ga = *gb = F8B_GRAN_TENSORWISE;
	if (sc == SC_AXISWISE)
		*ga = *gb = F8B_GRAN_AXISWISE;
	if (sc == SC_BLOCKWISE) {
		*ga = F8B_GRAN_BLOCK1X128;
		*gb = F8B_GRAN_BLOCK128X128;
	}
}

static void setstr(char *dst, size_t n, const char *s)
{
	memset(dst, 0, n);
	snprintf(dst, n, "%s", s);
}

static void case_key(const void *cfg, size_t i, void *vrow)
{
	const struct gemm_cfg *c = cfg;
	const struct gemm_case *gc = &c->cases[i];
	const struct f8b_shape *s = &c->shapes.v[gc->shape];
	struct f8b_gemm_row *row = vrow;
	enum f8b_granularity ga, gb;
	row->m = s->m;
	row->k = s->k;
	row->n = s->n;
	/* Not measured (yet): NaN, so an unsupported or wrong row never reads
	 * as a time of zero. */
	row->time_median_s = row->time_min_s = row->time_max_s = row->time_noise = NAN;
	row->tflops = row->pct_peak = row->bf16_time_median_s = row->speedup_vs_bf16 = NAN;
	row->arith_intensity = row->predicted_time_s = row->pct_of_roofline = NAN;
	row->rel_error = row->tolerance = row->sqnr_db = row->heuristic_time_median_s = NAN;
	row->algo_id = row->algo_tile = row->algo_stages = row->algo_splitk = -1;
	row->algo_swizzle = row->algo_reduction = row->algo_custom = row->algo_cluster = -1;
	row->heuristic_rank = -1;
	setstr(row->label, sizeof row->label, s->label);
	setstr(row->scaling, sizeof row->scaling, scaling_names[gc->sc]);
	grans(gc->sc, &ga, &gb);
	setstr(row->a_gran, sizeof row->a_gran,
	       gc->sc == SC_NONE ? "none" : f8b_granularity_name(ga));
	setstr(row->b_gran, sizeof row->b_gran,
	       gc->sc == SC_NONE ? "none" : f8b_granularity_name(gb));
	row->fast_accum = gc->fast_accum;
	setstr(row->a_dtype, sizeof row->a_dtype, f8b_dtype_name(gc->dt.a));
	setstr(row->b_dtype, sizeof row->b_dtype, f8b_dtype_name(gc->dt.b));
	setstr(row->out_dtype, sizeof row->out_dtype,
	       f8b_dtype_name(gc->sc == SC_NONE ? F8B_BF16 : c->out_dtype));
}

static bool same_case(const void *va, const void *vb)
{
	const struct f8b_gemm_row *a = va, *b = vb;
	return a->m == b->m && a->k == b->k && a->n == b->n && a->fast_accum == b->fast_accum &&
	       !strcmp(a->scaling, b->scaling) && !strcmp(a->a_dtype, b->a_dtype) &&
	       !strcmp(a->b_dtype, b->b_dtype) && !strcmp(a->out_dtype, b->out_dtype);
}

static void describe(const void *vrow, char *buf, size_t n)
{
	const struct f8b_gemm_row *r = vrow;
	if (!strcmp(r->scaling, "none"))
		snprintf(buf, n, "%lldx%lldx%lld bf16", (long long)r->m, (long long)r->k,
		         (long long)r->n);
	else
		snprintf(buf, n, "%lldx%lldx%lld %s fast_accum=%s %s:%s", (long long)r->m,
		         (long long)r->k, (long long)r->n, r->scaling, r->fast_accum ? "on" : "off",
		         r->a_dtype, r->b_dtype);
}

static void summarize(const void *vrow, char *buf, size_t n)
{
	const struct f8b_gemm_row *r = vrow;
	char roof[48] = "no roofline for this device";
	if (!isnan(r->pct_of_roofline))
		snprintf(roof, sizeof roof, "%.0f%% of roofline", r->pct_of_roofline);
	snprintf(buf, n, "%.4g ms %.4g TFLOP/s %.2fx bf16, SQNR %.1f dB, AI %.0f, %s",
	         1e3 * r->time_median_s, r->tflops, r->speedup_vs_bf16, r->sqnr_db,
	         r->arith_intensity, roof);
}

/* ------------------------------------------------------------ one case */

struct gemm_state {
	struct f8b_run *run;
	struct gemm_cfg *cfg;
	struct gemm_case gc;
	int64_t m, k, n;
	struct f8b_tensor a_hp, b_hp, a_q, b_q, d;
	float *amax_a, *amax_b, *scale_a, *scale_b, *sinv_a, *sinv_b;
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
	float *bufs[] = {s->amax_a, s->amax_b, s->scale_a, s->scale_b, s->sinv_a, s->sinv_b};
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
	/* The chosen plan's correctness figures are the row's. */
	return check(s, row, &ok);
}

static int setup(struct f8b_run *run, size_t i, void *vrow, void **state)
{
	struct gemm_cfg *c = run->cfg;
	struct f8b_gemm_row *row = vrow;
	const struct f8b_backend_ops *ops = run->ops;
	struct f8b_backend *be = run->be;
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
	if (!c->peaks_done) {
		/* The roofline every row is placed against: measured ceilings
		 * when given, the datasheet otherwise, and the run says which. */
		f8b_peaks_lookup(&run->dev, &c->peaks);
		struct f8b_ceilings sheet;
		f8b_ceilings_datasheet(&c->peaks, &sheet);
		c->ceilings = sheet;
		if (c->ceilings_path)
			F8B_TRY(f8b_ceilings_read(c->ceilings_path, &sheet, &c->ceilings));
		if (run->rank == 0)
			fprintf(stderr, "f8bench gemm: roofline ceilings: %s (%s)\n",
			        c->ceilings.source, c->ceilings.detail);
		c->peaks_done = true;
	}
	setstr(row->backend, sizeof row->backend, ops->name);
	setstr(row->gpu, sizeof row->gpu, run->dev.name);
	row->seed = (int64_t)run->seed;
	row->rank = run->rank;
	row->device = run->dev.device;

	bool fp8 = s->gc.sc != SC_NONE;
	enum f8b_granularity ga, gb;
	grans(s->gc.sc, &ga, &gb);
	s->desc = (struct f8b_gemm_desc){.m = s->m,
	                                 .n = s->n,
	                                 .k = s->k,
	                                 .a_dtype = fp8 ? s->gc.dt.a : F8B_BF16,
	                                 .b_dtype = fp8 ? s->gc.dt.b : F8B_BF16,
	                                 .out_dtype = fp8 ? c->out_dtype : F8B_BF16,
	                                 .a_gran = ga,
	                                 .b_gran = gb,
	                                 .fast_accum = s->gc.fast_accum};

	/* Inputs: the same bf16 data for every case of a shape (seeded). */
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
		s->args = (struct f8b_gemm_args){.a = s->a_q.data,
		                                 .b = s->b_q.data,
		                                 .a_scale_inv = s->sinv_a,
		                                 .b_scale_inv = s->sinv_b,
		                                 .d = s->d.data};
	} else {
		s->args =
		    (struct f8b_gemm_args){.a = s->a_hp.data, .b = s->b_hp.data, .d = s->d.data};
	}

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
	/* The bf16 baseline of this shape, once per process: it rides on its
	 * own case when that ran here, else it is measured now, side by side. */
	if (fp8 && !find_baseline(c, s->m, s->k, s->n)) {
		struct gemm_case save = s->gc;
		struct gemm_state *b = NULL;
		struct f8b_gemm_row brow = *row;
		struct gemm_case bc = {
		    .shape = save.shape, .sc = SC_NONE, .dt = {F8B_BF16, F8B_BF16}};
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
			return F8B_ERR(F8B_EDEVICE,
			               "the bf16 baseline GEMM %lldx%lldx%lld was wrong",
			               (long long)s->m, (long long)s->k, (long long)s->n);
		c->base[c->nbase++] = (struct baseline){s->m, s->k, s->n, m.median_s};
	}
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

static int check(void *vs, void *vrow, bool *ok)
{
	struct gemm_state *s = vs;
	struct f8b_gemm_row *row = vrow;
	bool fp8 = s->gc.sc != SC_NONE;
	struct f8b_gemm_data g = {
	    .desc = &s->desc,
	    .a = fp8 ? &s->a_q : &s->a_hp,
	    .b = fp8 ? &s->b_q : &s->b_hp,
	    .a_scale_inv = s->sinv_a,
	    .b_scale_inv = s->sinv_b,
	    .a_hp = &s->a_hp,
	    .b_hp = &s->b_hp,
	    .d = &s->d,
	};
	struct f8b_gemm_verdict v;
	F8B_TRY(
	    f8b_gemm_check(s->run->ops, s->run->be, &g, CHECK_ROWS, CHECK_COLS, s->run->seed, &v));
	row->rel_error = v.rel_error;
	row->tolerance = v.tolerance;
	row->sqnr_db = v.sqnr_db;
	*ok = v.ok;
	memset(row->message, 0, sizeof row->message);
	if (!v.ok)
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
	setstr(row->roofline_source, sizeof row->roofline_source, c->ceilings.source);
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
	if (c->cases[i].sc != SC_NONE)
		need += (mk + nk) * (1 + 3 * 4.0 / 128);
	return need < 9e18 ? (int64_t)need : INT64_MAX;
}

/* What case_key fills and same_case / describe read. */
static const char *const gemm_key_columns[] = {
    "m",      "k",          "n",       "label",   "scaling",   "a_gran",
    "b_gran", "fast_accum", "a_dtype", "b_dtype", "out_dtype", NULL,
};
/* The accuracy compare gates: SQNR against the high-precision inputs. */
static const struct f8b_gate_column gemm_accuracy[] = {
    {"sqnr_db", +1},
    {0},
};

const struct f8b_bench f8b_bench_gemm = {
    .name = "gemm",
    .summary = "fp8 GEMM sweep: shapes x granularity x fast_accum x dtypes, beside bf16\n"
               "Runs cuBLASLt's fp8 GEMMs on a GPU (the host reference elsewhere), each case\n"
               "beside the bf16 GEMM of its shape, and checks every case before timing it.",
    .schema = &f8b_gemm_schema,
    .options = gemm_options,
    .cfg_new = cfg_new,
    .cfg_option = cfg_option,
    .cfg_finalize = cfg_finalize,
    .cfg_free = cfg_free,
    .case_key = case_key,
    .same_case = same_case,
    .describe = describe,
    .summarize = summarize,
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
