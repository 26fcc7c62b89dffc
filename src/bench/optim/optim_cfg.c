/* optim_cfg.c - the optim sweep's configuration: options, the parameter
 * set (--params counts or the weights of --shapes), the case list, how a
 * row is keyed, named and summarised, and what a case allocates. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/optim/optim_int.h"

enum {
	OPT_VARIANT = 3000,
	OPT_SCALING,
	OPT_GRAN,
	OPT_STEPS,
	OPT_PARAMS,
	OPT_SHAPES,
	OPT_CHUNK_BYTES,
	OPT_GRAPH,
	OPT_STOCHASTIC,
	OPT_LR,
	OPT_WD,
	OPT_BETA1,
	OPT_BETA2,
	OPT_EPS,
	OPT_WARMUP,
	OPT_HISTORY,
	OPT_NONFINITE,
	OPT_CEILINGS,
};

const struct f8b_option f8b_optim_options[] = {
    {"variant", OPT_VARIANT, 0, "LIST",
     "state variants, comma separated: fp32, bf16, fp8 (m e4m3,\nsqrt(v) e5m2, scales per 128), "
     "fp8-master16 (and a bf16\nmaster) (default all four)"},
    {"scaling", OPT_SCALING, 0, "LIST",
     "the next forward's fp8 weight scale: dynamic (second pass),\ndynamic-sync (the same "
     "scale in one cooperative launch with\na grid barrier), delayed (amax history), "
     "predicted\n(previous amax + the update's bound, one pass) (default\nall four)"},
    {"granularity", OPT_GRAN, 0, "LIST",
     "of the fp8 weight's scale: tensorwise, axiswise (one per\nrow) (default tensorwise)"},
    {"steps", OPT_STEPS, 0, "LIST",
     "steps of the trajectory before the SQNRs, comma separated\n(default 100)"},
    {"params", OPT_PARAMS, 0, "LIST",
     "the parameter tensors: counts N or ROWSxCOLS, comma\nseparated (default " OPTIM_HOST_PARAMS
     " on the host;\nwith a GPU --shapes " OPTIM_GPU_SHAPES ")"},
    {"shapes", OPT_SHAPES, 0, "SPEC",
     "parameter tensors from shape sets (llama3-8b, llama2-70b,\nfiles, MxKxN): each distinct "
     "weight [N,K] once"},
    {"chunk-bytes", OPT_CHUNK_BYTES, 0, "N",
     "bytes one chunk (one CTA) of the multi-tensor launch moves,\nK/M suffixes (default 1M)"},
    {"graph", OPT_GRAPH, 0, "on|off|on,off", "run each step as one graph (default on)"},
    {"stochastic", OPT_STOCHASTIC, 0, "on|off",
     "fp8-master16: round the bf16 master stochastically\n(default off)"},
    {"lr", OPT_LR, 0, "X", "peak learning rate (default 1e-3)"},
    {"weight-decay", OPT_WD, 0, "X", "decoupled weight decay (default 0.1)"},
    {"beta1", OPT_BETA1, 0, "X", "AdamW beta1 (default 0.9)"},
    {"beta2", OPT_BETA2, 0, "X", "AdamW beta2 (default 0.999)"},
    {"eps", OPT_EPS, 0, "X", "AdamW epsilon (default 1e-8)"},
    {"warmup", OPT_WARMUP, 0, "N", "linear learning-rate warm-up steps (default 10)"},
    {"history", OPT_HISTORY, 0, "N", "delayed scaling's amax history, 1..1024 (default 16)"},
    {"nonfinite", OPT_NONFINITE, 0, "N",
     "make N gradient elements per step NaN or +-inf (counted,\nskipped; default 0)"},
    {"ceilings", OPT_CEILINGS, 0, "FILE",
     "roofline ceilings measured by f8bench ceilings (default: the\ndatasheet of this GPU)"},
    {0},
};

int f8b_optim_cfg_new(void **cfg)
{
	struct optim_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "optim config");
	c->variant_spec = "fp32,bf16,fp8,fp8-master16";
	c->scaling_spec = "dynamic,dynamic-sync,delayed,predicted";
	c->gran_spec = "tensorwise";
	c->steps_spec = "100";
	c->graph_spec = "on";
	c->hp = (struct f8b_optim_hparams){
	    .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .wd = 0.1, .warmup = 10};
	c->history = OPTIM_HISTORY;
	c->chunk_bytes = OPTIM_CHUNK_BYTES;
	*cfg = c;
	return F8B_OK;
}

void f8b_optim_cfg_free(void *cfg)
{
	struct optim_cfg *c = cfg;
	if (c->href)
		f8b_backend_host.close(c->href);
	free(c->t);
	free(c->cases);
	free(c->base);
	free(c);
}

static int parse_double(const char *opt, const char *arg, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi))
		return F8B_ERR(F8B_EINVAL, "--%s '%s': expected a number in [%g, %g]", opt, arg, lo,
		               hi);
	*out = v;
	return F8B_OK;
}

static int parse_int(const char *opt, const char *arg, long long lo, long long hi, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi)
		return F8B_ERR(F8B_EINVAL, "--%s '%s': expected an integer in [%lld, %lld]", opt,
		               arg, lo, hi);
	*out = v;
	return F8B_OK;
}

/* "4096", "64K", "1M" -> bytes (binary multiples). */
static int parse_bytes(const char *arg, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	int64_t mul = 1;
	if (end != arg && (*end == 'K' || *end == 'k'))
		mul = 1024, end++;
	else if (end != arg && (*end == 'M' || *end == 'm'))
		mul = 1024 * 1024, end++;
	if (errno || end == arg || *end || v < 1 || v > ((int64_t)1 << 30) / mul)
		return F8B_ERR(F8B_EINVAL,
		               "--chunk-bytes '%s': expected a byte count in [1, 1G], K/M suffixes "
		               "(e.g. 65536, 1M)",
		               arg);
	*out = v * mul;
	return F8B_OK;
}

static int on_off(const char *opt, const char *arg, bool *out)
{
	if (!strcasecmp(arg, "on") || !strcmp(arg, "1"))
		*out = true;
	else if (!strcasecmp(arg, "off") || !strcmp(arg, "0"))
		*out = false;
	else
		return F8B_ERR(F8B_EINVAL, "--%s '%s' (accepted: on, off)", opt, arg);
	return F8B_OK;
}

int f8b_optim_cfg_option(void *cfg, int key, const char *arg)
{
	struct optim_cfg *c = cfg;
	int64_t v;
	switch (key) {
	case OPT_VARIANT: c->variant_spec = arg; return F8B_OK;
	case OPT_SCALING: c->scaling_spec = arg; return F8B_OK;
	case OPT_GRAN: c->gran_spec = arg; return F8B_OK;
	case OPT_STEPS: c->steps_spec = arg; return F8B_OK;
	case OPT_PARAMS: c->params_spec = arg; return F8B_OK;
	case OPT_SHAPES: c->shapes_spec = arg; return F8B_OK;
	case OPT_GRAPH: c->graph_spec = arg; return F8B_OK;
	case OPT_CEILINGS: c->ceilings_path = arg; return F8B_OK;
	case OPT_CHUNK_BYTES: return parse_bytes(arg, &c->chunk_bytes);
	case OPT_STOCHASTIC: return on_off("stochastic", arg, &c->stochastic);
	case OPT_LR: return parse_double("lr", arg, 0, 1, &c->hp.lr);
	case OPT_WD: return parse_double("weight-decay", arg, 0, 10, &c->hp.wd);
	case OPT_BETA1: return parse_double("beta1", arg, 0, 0.999999, &c->hp.beta1);
	case OPT_BETA2: return parse_double("beta2", arg, 1e-6, 0.999999999, &c->hp.beta2);
	case OPT_EPS: return parse_double("eps", arg, 0, 1, &c->hp.eps);
	case OPT_WARMUP:
		F8B_TRY(parse_int("warmup", arg, 0, 1000000, &c->hp.warmup));
		return F8B_OK;
	case OPT_HISTORY:
		F8B_TRY(parse_int("history", arg, 1, 1024, &v));
		c->history = (int)v;
		return F8B_OK;
	case OPT_NONFINITE: return parse_int("nonfinite", arg, 0, 1000000, &c->nonfinite);
	}
	return F8B_ERR(F8B_EINTERNAL, "optim option %d", key);
}

static int parse_variant(const char *s, void *out)
{
	return f8b_optim_variant_parse(s, out);
}

static int parse_scaling(const char *s, void *out)
{
	return f8b_optim_scaling_parse(s, out);
}

static int parse_gran(const char *s, void *out)
{
	enum f8b_granularity g;
	if (!strcasecmp(s, "tensorwise"))
		g = F8B_GRAN_TENSORWISE;
	else if (!strcasecmp(s, "axiswise") || !strcasecmp(s, "rowwise"))
		g = F8B_GRAN_AXISWISE;
	else
		return F8B_ERR(F8B_EINVAL,
		               "unknown granularity '%s' (accepted: tensorwise, axiswise)", s);
	*(enum f8b_granularity *)out = g;
	return F8B_OK;
}

static int parse_steps(const char *s, void *out)
{
	int64_t v;
	F8B_TRY(parse_int("steps", s, 1, 100000, &v));
	*(int *)out = (int)v;
	return F8B_OK;
}

static int parse_graph(const char *s, void *out)
{
	return on_off("graph", s, out);
}

/* "N" or "RxC" (a count N is one row of N). */
static int parse_tensor(const char *s, void *out)
{
	struct optim_tspec *t = out;
	char *end;
	errno = 0;
	long long a = strtoll(s, &end, 10), b = 1;
	if (!errno && end != s && (*end == 'x' || *end == 'X')) {
		const char *p = end + 1;
		b = strtoll(p, &end, 10);
		if (end == p)
			b = 0;
		t->rows = a;
		t->cols = b;
	} else {
		t->rows = 1;
		t->cols = a;
	}
	int64_t n;
	if (errno || end == s || *end || a < 1 || b < 1 ||
	    f8b_mul_overflows(t->rows, t->cols, &n) || n > ((int64_t)1 << 40))
		return F8B_ERR(
		    F8B_EINVAL,
		    "--params item '%s' (accepted: a positive count N or ROWSxCOLS, at most "
		    "2^40 elements, e.g. 4096x4096 or 1000)",
		    s);
	return F8B_OK;
}

static bool blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != ',')
			return false;
	return true;
}

/* The parameter set: --params tensors, then each distinct weight [N,K] of
 * --shapes; the default when neither is given. */
static int build_params(struct optim_cfg *c)
{
	const char *params = c->params_spec, *shapes = c->shapes_spec;
	if (!params && !shapes) {
		if (c->gpu_defaults)
			shapes = OPTIM_GPU_SHAPES;
		else
			params = OPTIM_HOST_PARAMS;
	}
	if ((params && blank(params)) || (shapes && blank(shapes)))
		return F8B_ERR(F8B_EINVAL,
		               "%s '%s': an empty parameter list (give at least one tensor, e.g. "
		               "--params 4096x4096,1000 or --shapes llama3-8b)",
		               params && blank(params) ? "--params" : "--shapes",
		               params && blank(params) ? params : shapes);
	struct optim_tspec *pt = NULL;
	size_t np = 0;
	if (params)
		F8B_TRY(f8b_parse_list(params, "--params", sizeof *pt, parse_tensor, (void **)&pt,
		                       &np));
	struct f8b_shapes sh = {0};
	if (shapes) {
		int rc = f8b_shapes_parse(shapes, &sh);
		if (rc != F8B_OK) {
			free(pt);
			return rc;
		}
	}
	c->t = calloc(np + sh.n + 1, sizeof *c->t);
	if (!c->t) {
		free(pt);
		f8b_shapes_free(&sh);
		return F8B_ERR(F8B_ENOMEM, "optim parameter list");
	}
	for (size_t i = 0; i < np; i++)
		c->t[c->nt++] = pt[i];
	for (size_t i = 0; i < sh.n; i++) {
		struct optim_tspec w = {sh.v[i].n, sh.v[i].k};
		bool seen = false;
		for (int64_t j = (int64_t)np; j < c->nt && !seen; j++)
			seen = c->t[j].rows == w.rows && c->t[j].cols == w.cols;
		if (!seen)
			c->t[c->nt++] = w;
	}
	free(pt);
	f8b_shapes_free(&sh);
	if (c->nt == 0)
		return F8B_ERR(F8B_EINVAL, "an empty parameter list (give --params or --shapes)");
	for (int64_t i = 0; i < c->nt; i++)
		c->params += c->t[i].rows * c->t[i].cols;
	snprintf(c->label, sizeof c->label, "%s%s%s", shapes ? shapes : "",
	         shapes && params ? "+" : "", params ? "params" : "");
	return F8B_OK;
}

static bool gpu_visible(void)
{
#ifdef F8B_HAVE_CUDA
	return f8b_cuda_device_count(NULL, 0) > 0;
#else
	return false;
#endif
}

static int cmp_variant(const void *a, const void *b)
{
	return (int)*(const enum f8b_optim_variant *)a - (int)*(const enum f8b_optim_variant *)b;
}

int f8b_optim_cfg_finalize(void *cfg, size_t *ncases)
{
	struct optim_cfg *c = cfg;
	enum f8b_optim_variant *var = NULL;
	enum f8b_optim_scaling *sca = NULL;
	enum f8b_granularity *gra = NULL;
	int *steps = NULL;
	bool *graph = NULL;
	size_t nv = 0, ns = 0, ng = 0, nst = 0, ngr = 0;
	c->gpu_defaults = gpu_visible();
	if (c->hp.beta1 * c->hp.beta1 >= c->hp.beta2 * (1 - 1e-12) && c->hp.beta1 > 0)
		return F8B_ERR(F8B_EINVAL,
		               "--beta1 %g --beta2 %g: the update bound needs beta1^2 < beta2 "
		               "(doc/optim.md)",
		               c->hp.beta1, c->hp.beta2);
	if (c->hp.lr * c->hp.wd > 1)
		return F8B_ERR(F8B_EINVAL,
		               "--lr %g --weight-decay %g: lr x weight decay must be <= 1",
		               c->hp.lr, c->hp.wd);
	int rc = f8b_parse_list(c->variant_spec, "--variant", sizeof *var, parse_variant,
	                        (void **)&var, &nv);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->scaling_spec, "--scaling", sizeof *sca, parse_scaling,
		                    (void **)&sca, &ns);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->gran_spec, "--granularity", sizeof *gra, parse_gran,
		                    (void **)&gra, &ng);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->steps_spec, "--steps", sizeof *steps, parse_steps,
		                    (void **)&steps, &nst);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->graph_spec, "--graph", sizeof *graph, parse_graph,
		                    (void **)&graph, &ngr);
	if (rc == F8B_OK && (!nv || !ns || !ng || !nst || !ngr))
		rc = F8B_ERR(F8B_EINVAL, "optim: an empty --variant, --scaling, --granularity, "
		                         "--steps or --graph list");
	if (rc == F8B_OK)
		rc = build_params(c);
	size_t n = nv * ns * ng * nst * ngr;
	if (rc == F8B_OK && !(c->cases = calloc(n, sizeof *c->cases)))
		rc = F8B_ERR(F8B_ENOMEM, "%zu optim cases", n);
	if (rc == F8B_OK && !(c->base = calloc(n, sizeof *c->base)))
		rc = F8B_ERR(F8B_ENOMEM, "%zu optim baselines", n);
	if (rc == F8B_OK) {
		/* fp32 first in each group, so the others find its time */
		qsort(var, nv, sizeof *var, cmp_variant);
		for (size_t a = 0; a < nst; a++)
			for (size_t b = 0; b < ng; b++)
				for (size_t d = 0; d < ngr; d++)
					for (size_t e = 0; e < ns; e++)
						for (size_t f = 0; f < nv; f++)
							c->cases[c->ncases++] =
							    (struct optim_case){.variant = var[f],
							                        .scaling = sca[e],
							                        .gran = gra[b],
							                        .steps = steps[a],
							                        .graph = graph[d]};
	}
	free(var);
	free(sca);
	free(gra);
	free(steps);
	free(graph);
	*ncases = c->ncases;
	return rc;
}

void f8b_optim_case_key(const void *cfg, size_t i, void *vrow)
{
	const struct optim_cfg *c = cfg;
	const struct optim_case *cs = &c->cases[i];
	struct f8b_optim_row *r = vrow;
	f8b_setstr(r->variant, sizeof r->variant, f8b_optim_variant_name(cs->variant));
	f8b_setstr(r->scaling, sizeof r->scaling, f8b_optim_scaling_name(cs->scaling));
	f8b_setstr(r->granularity, sizeof r->granularity, f8b_granularity_name(cs->gran));
	f8b_setstr(r->label, sizeof r->label, c->label);
	r->params = c->params;
	r->tensors = (int32_t)c->nt;
	r->steps = cs->steps;
	r->graph = cs->graph;
	r->stochastic = cs->variant == F8B_OPTIM_FP8_MASTER16 && c->stochastic;
	r->chunk_bytes = c->chunk_bytes;
	r->history_len = cs->scaling == F8B_OPTIM_DELAYED ? c->history : 0;
	r->lr = c->hp.lr;
	r->weight_decay = c->hp.wd;
	r->time_median_s = r->time_min_s = r->time_max_s = r->time_noise = NAN;
	r->time_split_s = r->fused_speedup = r->fp32_time_median_s = r->speedup_vs_fp32 = NAN;
	r->gbps = r->copy_bw_gbps = r->pct_of_copy_bw = NAN;
	r->sqnr_w_db = r->sqnr_w8_db = r->range_used = r->range_used_min = NAN;
	r->state_bytes_per_param = f8b_optim_state_bytes(cs->variant);
	r->step_bytes_per_param = f8b_optim_step_bytes(cs->variant, cs->scaling, false);
	r->min_bytes = r->step_bytes_per_param * (double)c->params;
}

bool f8b_optim_same_case(const void *va, const void *vb)
{
	const struct f8b_optim_row *a = va, *b = vb;
	return !strcmp(a->variant, b->variant) && !strcmp(a->scaling, b->scaling) &&
	       !strcmp(a->granularity, b->granularity) && !strcmp(a->label, b->label) &&
	       a->params == b->params && a->steps == b->steps && a->graph == b->graph &&
	       a->stochastic == b->stochastic && a->chunk_bytes == b->chunk_bytes;
}

void f8b_optim_describe(const void *vrow, char *buf, size_t n)
{
	const struct f8b_optim_row *r = vrow;
	snprintf(buf, n, "%s %s %s %.4gM params (%s) %d steps%s%s", r->variant, r->scaling,
	         r->granularity, (double)r->params / 1e6, r->label, (int)r->steps,
	         r->graph ? " graph" : "", r->stochastic ? " sr" : "");
}

void f8b_optim_summarize(const void *vrow, char *buf, size_t n)
{
	const struct f8b_optim_row *r = vrow;
	char pct[32] = "";
	if (isfinite(r->pct_of_copy_bw))
		snprintf(pct, sizeof pct, " (%.0f%% of copy)", r->pct_of_copy_bw);
	snprintf(buf, n, "%.4g ms %.4g GB/s%s %.2fx fp32, w8 SQNR %.1f dB, %lld saturated",
	         r->time_median_s * 1e3, r->gbps, pct, r->speedup_vs_fp32, r->sqnr_w8_db,
	         (long long)r->saturated);
}

/* The case's buffers (optim_step.c allocates them). */
int64_t f8b_optim_case_bytes(const void *cfg, size_t i)
{
	const struct optim_cfg *c = cfg;
	const struct optim_case *cs = &c->cases[i];
	double per = 2.0 + (double)f8b_optim_master_size(cs->variant) +
	             2.0 * (double)f8b_optim_state_size(cs->variant) + 1.0 +
	             (f8b_optim_fp8_states(cs->variant) ? 8.0 / F8B_OPTIM_BLOCK : 0.0);
	double elems = (double)c->params + (double)c->nt * F8B_OPTIM_BLOCK;
	return (int64_t)fmin(per * elems + (1 << 20), 9e18);
}
