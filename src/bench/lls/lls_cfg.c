/* lls_cfg.c - the lls sweep's configuration: options, the case list (per
 * shape, every recipe of --recipe, each on every GEMM implementation of
 * --gemm-impl), how a row is keyed, named and summarised, and what a case
 * allocates.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/lls/lls_int.h"
#include "core/fp8.h"

enum {
	OPT_SHAPES = 3000,
	OPT_RECIPE,
	OPT_GRAPH,
	OPT_LANES,
	OPT_HISTORY,
	OPT_CEILINGS,
	OPT_GEMM_IMPL,
};

const struct f8b_option f8b_lls_options[] = {
    {"shapes", OPT_SHAPES, 0, "SPEC",
     "shapes MxKxN (x [M,K], W [N,K]): set names (pow2, square,\nquick, llama2-70b, "
     "llama3-8b), shape files, or MxKxN, comma\nseparated (default pow2: 1024..16384 square)"},
    {"recipe", OPT_RECIPE, 0, "LIST",
     "recipes, comma separated short names (bf16, tensorwise,\ntensorwise-delayed, axiswise, "
     "lw-axiswise-gw-hp, blockwise), or\nlong forms NAME,FIELD=VALUE,... separated by ';'\n"
     "(default: all six; doc/lls.md says what each does)"},
    {"gemm-impl", OPT_GEMM_IMPL, 0, "LIST",
     "the fp8 GEMMs' implementation, comma separated: cublaslt,\nf8b (f8bench's own sm_90a "
     "kernel); each recipe runs on each,\nside by side; bf16 GEMMs (the bf16 recipe, a bf16 "
     "argument,\nlw-axiswise-gw-hp's grad_weight) stay on cuBLASLt (default\ncublaslt)"},
    {"graph", OPT_GRAPH, 0, "on|off", "run each step as one graph (CUDA graph) (default on)"},
    {"lanes", OPT_LANES, 0, "1|2|auto",
     "streams the step runs on: 2 runs W's casts, the casts made only\nfor grad_weight and "
     "grad_weight itself on a second stream beside\nthe chain the result waits on; 1 runs every "
     "kernel in order on\none; auto: 2 while M*K*N < 2^41, else 1 (default auto;\n"
     "doc/lls.md says why)"},
    {"history", OPT_HISTORY, 0, "N", "delayed scaling's amax history length, 1..1024 (default 16)"},
    {"ceilings", OPT_CEILINGS, 0, "FILE",
     "roofline ceilings measured by f8bench ceilings (default: the\ndatasheet of this GPU)"},
    {0},
};

int f8b_lls_cfg_new(void **cfg)
{
	struct lls_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "lls config");
	c->shapes_spec = "pow2";
	c->recipe_spec = "bf16,tensorwise,tensorwise-delayed,axiswise,lw-axiswise-gw-hp,blockwise";
	c->impl_spec = "cublaslt";
	c->graph = true;
	c->lanes = 0; /* auto */
	c->history = LLS_HISTORY;
	*cfg = c;
	return F8B_OK;
}

void f8b_lls_cfg_free(void *cfg)
{
	struct lls_cfg *c = cfg;
	f8b_shapes_free(&c->shapes);
	free(c->recipes);
	free(c->cases);
	free(c->base);
	free(c);
}

int f8b_lls_cfg_option(void *cfg, int key, const char *arg)
{
	struct lls_cfg *c = cfg;
	char *end;
	switch (key) {
	case OPT_SHAPES: c->shapes_spec = arg; return F8B_OK;
	case OPT_RECIPE: c->recipe_spec = arg; return F8B_OK;
	case OPT_CEILINGS: c->ceilings_path = arg; return F8B_OK;
	case OPT_GEMM_IMPL: c->impl_spec = arg; return F8B_OK;
	case OPT_GRAPH:
		if (!strcasecmp(arg, "on") || !strcmp(arg, "1"))
			c->graph = true;
		else if (!strcasecmp(arg, "off") || !strcmp(arg, "0"))
			c->graph = false;
		else
			return F8B_ERR(F8B_EINVAL, "--graph '%s' (accepted: on, off)", arg);
		return F8B_OK;
	case OPT_LANES:
		if (!strcasecmp(arg, "auto"))
			c->lanes = 0;
		else if (!strcmp(arg, "1") || !strcmp(arg, "2"))
			c->lanes = arg[0] - '0';
		else
			return F8B_ERR(F8B_EINVAL, "--lanes '%s' (accepted: 1, 2, auto)", arg);
		return F8B_OK;
	case OPT_HISTORY: {
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 1 || v > 1024)
			return F8B_ERR(F8B_EINVAL, "--history '%s': expected 1..1024 steps", arg);
		c->history = (int)v;
		return F8B_OK;
	}
	}
	return F8B_ERR(F8B_EINTERNAL, "lls option %d", key);
}

/* --recipe: items separated by ';'; an item with '=' is one long form,
 * any other is a comma list of short names. */
static int parse_recipes(struct lls_cfg *c)
{
	char *copy = strdup(c->recipe_spec);
	size_t max = 2;
	for (const char *p = c->recipe_spec; *p; p++)
		max += *p == ',' || *p == ';';
	c->recipes = calloc(max, sizeof *c->recipes);
	if (!copy || !c->recipes) {
		free(copy);
		return F8B_ERR(F8B_ENOMEM, "--recipe");
	}
	int rc = F8B_OK;
	char *save = NULL;
	for (char *item = strtok_r(copy, ";", &save); item && rc == F8B_OK;
	     item = strtok_r(NULL, ";", &save)) {
		if (strchr(item, '=')) {
			rc = f8b_recipe_parse(item, &c->recipes[c->nrecipes]);
			if (rc == F8B_OK)
				c->nrecipes++;
			continue;
		}
		char *s2 = NULL;
		for (char *name = strtok_r(item, ",", &s2); name && rc == F8B_OK;
		     name = strtok_r(NULL, ",", &s2)) {
			while (*name == ' ')
				name++;
			if (!*name)
				continue;
			rc = f8b_recipe_parse(name, &c->recipes[c->nrecipes]);
			if (rc == F8B_OK)
				c->nrecipes++;
		}
	}
	free(copy);
	if (rc != F8B_OK)
		return F8B_ERR(F8B_EINVAL, "--recipe: %s", f8b_last_error());
	for (size_t i = 0; i < c->nrecipes; i++) {
		if (f8b_recipe_validate(&c->recipes[i]) != F8B_OK)
			return F8B_ERR(F8B_EINVAL, "--recipe: %s", f8b_last_error());
		for (size_t j = 0; j < i; j++) {
			char a[400], b[400];
			f8b_lls_recipe_line(&c->recipes[i], a, sizeof a);
			f8b_lls_recipe_line(&c->recipes[j], b, sizeof b);
			if (!strcmp(a, b) && !strcmp(c->recipes[i].name, c->recipes[j].name))
				return F8B_ERR(F8B_EINVAL, "--recipe: '%s' is listed twice",
				               c->recipes[i].name);
		}
	}
	if (c->nrecipes == 0)
		return F8B_ERR(F8B_EINVAL, "--recipe '%s': no recipe", c->recipe_spec);
	return F8B_OK;
}

void f8b_lls_recipe_line(const struct f8b_recipe *r, char *buf, size_t n)
{
	char text[1024];
	f8b_recipe_format(r, text, sizeof text);
	/* "recipe: NAME\nfield: value\n..." -> "field=value,..." */
	const char *p = strchr(text, '\n');
	size_t len = 0;
	buf[0] = '\0';
	for (p = p ? p + 1 : text; *p && len + 1 < n; p++) {
		if (*p == ':' && p[1] == ' ') {
			buf[len++] = '=';
			p++;
		} else if (*p == '\n') {
			if (p[1])
				buf[len++] = ',';
		} else {
			buf[len++] = *p;
		}
	}
	buf[len] = '\0';
}

int f8b_lls_cfg_finalize(void *cfg, size_t *ncases)
{
	struct lls_cfg *c = cfg;
	int rc = f8b_shapes_parse(c->shapes_spec, &c->shapes);
	if (rc == F8B_OK)
		rc = parse_recipes(c);
	if (rc == F8B_OK)
		rc = f8b_gemm_impl_list_parse(c->impl_spec, "--gemm-impl", c->impls, &c->nimpls);
	if (rc == F8B_OK && c->ceilings_path) {
		struct f8b_ceilings probe;
		if (f8b_ceilings_read(c->ceilings_path, NULL, &probe) != F8B_OK)
			rc = F8B_ERR(F8B_EINVAL, "--ceilings '%s': %s", c->ceilings_path,
			             f8b_last_error());
	}
	size_t most = c->shapes.n * c->nrecipes * (size_t)c->nimpls;
	if (rc == F8B_OK && !(c->cases = calloc(most + 1, sizeof *c->cases)))
		rc = F8B_ERR(F8B_ENOMEM, "%zu cases", most);
	if (rc == F8B_OK && !(c->base = calloc(c->shapes.n + 1, sizeof *c->base)))
		rc = F8B_ERR(F8B_ENOMEM, "baselines");
	/* Per shape and recipe, each implementation in turn, so the two run
	 * side by side; a recipe without an fp8 GEMM runs once, on cuBLASLt
	 * (its row says so), since no implementation but cuBLASLt's would run. */
	for (size_t s = 0; rc == F8B_OK && s < c->shapes.n; s++)
		for (size_t r = 0; r < c->nrecipes; r++) {
			bool fp8 = f8b_lls_fp8_gemms(&c->recipes[r]) != 0;
			for (int i = 0; i < (fp8 ? c->nimpls : 1); i++)
				c->cases[c->ncases++] = (struct lls_case){
				    .shape = s,
				    .recipe = r,
				    .impl = fp8 ? c->impls[i] : F8B_GEMM_IMPL_CUBLASLT};
		}
	*ncases = c->ncases;
	return rc;
}

void f8b_lls_case_key(const void *cfg, size_t i, void *vrow)
{
	const struct lls_cfg *c = cfg;
	const struct lls_case *lc = &c->cases[i];
	const struct f8b_shape *s = &c->shapes.v[lc->shape];
	const struct f8b_recipe *r = &c->recipes[lc->recipe];
	struct f8b_lls_row *row = vrow;
	row->m = s->m;
	row->k = s->k;
	row->n = s->n;
	f8b_setstr(row->label, sizeof row->label, s->label);
	f8b_setstr(row->recipe, sizeof row->recipe, r->name);
	f8b_lls_recipe_line(r, row->recipe_long, sizeof row->recipe_long);
	f8b_setstr(row->gemm_impl, sizeof row->gemm_impl, f8b_gemm_impl_name(lc->impl));
	row->graph = c->graph;
	row->lanes = f8b_lls_lanes_for(c, s->m, s->k, s->n);
	/* Not measured (yet): NaN, never a time of zero. */
	row->time_median_s = row->time_min_s = row->time_max_s = row->time_noise = NAN;
	row->bf16_time_median_s = row->speedup_vs_bf16 = row->kernels_time_s = NAN;
	row->gemm_time_s = row->predicted_time_s = row->pct_of_roofline = NAN;
	row->traced_time_median_s = NAN;
	row->step_flops = row->step_bytes = NAN;
	row->sqnr_y_db = row->sqnr_grad_x_db = row->sqnr_grad_w_db = row->sqnr_min_db = NAN;
	row->scale_staleness = NAN;
}

/* Files written before the lanes column read lanes 0 (not recorded): such
 * a row is the same case as one of either lane count, so a baseline of
 * that age still pairs with new rows in compare. */
static bool same_lanes(int32_t a, int32_t b)
{
	return a == b || a == 0 || b == 0;
}

bool f8b_lls_same_case(const void *va, const void *vb)
{
	const struct f8b_lls_row *a = va, *b = vb;
	return a->m == b->m && a->k == b->k && a->n == b->n && a->graph == b->graph &&
	       same_lanes(a->lanes, b->lanes) && !strcmp(a->recipe, b->recipe) &&
	       !strcmp(a->recipe_long, b->recipe_long) &&
	       f8b_gemm_impl_same(a->gemm_impl, b->gemm_impl, sizeof a->gemm_impl);
}

void f8b_lls_describe(const void *vrow, char *buf, size_t n)
{
	const struct f8b_lls_row *r = vrow;
	char im[F8B_STR + 1];
	snprintf(buf, n, "%lldx%lldx%lld %s gemm %s%s%s", (long long)r->m, (long long)r->k,
	         (long long)r->n, r->recipe,
	         f8b_gemm_impl_col(r->gemm_impl, sizeof r->gemm_impl, im, sizeof im),
	         r->graph ? "" : " (no graph)", r->lanes == 1 ? " (one lane)" : "");
}

void f8b_lls_summarize(const void *vrow, char *buf, size_t n)
{
	const struct f8b_lls_row *r = vrow;
	char roof[48] = "no roofline for this device";
	if (!isnan(r->pct_of_roofline))
		snprintf(roof, sizeof roof, "%.0f%% of roofline", r->pct_of_roofline);
	snprintf(buf, n, "%.4g ms %.2fx bf16, SQNR y/dx/dW %.1f/%.1f/%.1f dB, %s",
	         1e3 * r->time_median_s, r->speedup_vs_bf16, r->sqnr_y_db, r->sqnr_grad_x_db,
	         r->sqnr_grad_w_db, roof);
}

/* An upper bound of what a case allocates: every bf16 tensor of the step
 * (x, x_ln, dx_ln, dx: MK; z, y, dy, dz: MN; W, dW: NK), every fp8
 * operand (2 bytes per element of x_ln, W and dz: direct + transposed)
 * and their scales, plus the check's host-side work is not device memory;
 * the bf16 baseline of the shape, set up beside it, is counted too. */
int64_t f8b_lls_case_bytes(const void *cfg, size_t i)
{
	const struct lls_cfg *c = cfg;
	const struct f8b_shape *s = &c->shapes.v[c->cases[i].shape];
	double mk = (double)s->m * (double)s->k, mn = (double)s->m * (double)s->n;
	double nk = (double)s->n * (double)s->k;
	double bf16 = 2 * (4 * mk + 4 * mn + 2 * nk);
	double fp8 = 2 * (mk + mn + nk) * (1 + 12.0 / 128);
	double need = bf16 + fp8;
	return need < 9e18 ? (int64_t)need : INT64_MAX;
}
