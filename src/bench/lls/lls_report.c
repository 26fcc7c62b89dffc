/* lls_report.c - the lls benchmark's report module: the fp8 step's speedup
 * over bf16 against size per recipe beside the roofline's prediction, the
 * step's % of roofline, and for one shape where the step's time goes,
 * kernel by kernel, bf16 beside each recipe.  Templates:
 * roofline/lls_speedup.gp, lls_roofline.gp, lls_breakdown.gp, fed by
 * lls_report_dat.c; the Markdown is lls_report_md.c's (doc/report.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "bench/lls/lls_report.h"
#include "core/recipe.h"

const char *const f8b_lrpt_cat_names[NCAT] = {
    [CAT_GEMM] = "GEMM",
    [CAT_NORM] = "layernorm / sigmoid",
    [CAT_FUSED] = "layernorm / sigmoid + cast (fused)",
    [CAT_CAST] = "casts, amax, scales",
    [CAT_OTHER] = "other",
};

/* By the kernel column's op names (lls_step.c's kind names). */
enum lrpt_cat f8b_lrpt_category(const char *kernel)
{
	static const char *const norm[] = {"layernorm_fwd", "layernorm_bwd", "sigmoid_fwd",
	                                   "sigmoid_bwd", NULL};
	static const char *const fused[] = {"layernorm_fwd_cast", "sigmoid_bwd_cast", NULL};
	static const char *const cast[] = {"cast_fused",    "amax", "amax_t",
	                                   "scales",        "cast", "cast_transpose",
	                                   "history_scale", NULL};
	if (!strcmp(kernel, "gemm"))
		return CAT_GEMM;
	for (int i = 0; norm[i]; i++)
		if (!strcmp(kernel, norm[i]))
			return CAT_NORM;
	for (int i = 0; fused[i]; i++)
		if (!strcmp(kernel, fused[i]))
			return CAT_FUSED;
	for (int i = 0; cast[i]; i++)
		if (!strcmp(kernel, cast[i]))
			return CAT_CAST;
	return CAT_OTHER;
}

const char *f8b_lrpt_impl(const struct f8b_lls_row *r, char *buf)
{
	return f8b_gemm_impl_col(r->gemm_impl, sizeof r->gemm_impl, buf, F8B_STR + 1);
}

static bool is_bf16(const struct f8b_lls_row *r)
{
	return !strcmp(r->recipe, "bf16");
}

/* The short names in their documented order, custom recipes after. */
static int recipe_rank(const char *name)
{
	const char *const *names = f8b_recipe_names();
	int i = 0;
	for (; names[i]; i++)
		if (!strcmp(name, names[i]))
			return i;
	return i;
}

/* ---------------------------------------------------------------- kernels */

/* Each file's lls_kernels table, when it has one.  A file whose table
 * cannot be read (another schema) is named, its rows shown without. */
static int read_kernels(struct lrpt *L)
{
	const struct f8b_report_ctx *ctx = &L->ctx;
	L->krows = calloc((size_t)ctx->nfiles, sizeof *L->krows);
	L->nk = calloc((size_t)ctx->nfiles, sizeof *L->nk);
	if (!L->krows || !L->nk)
		return F8B_ERR(F8B_ENOMEM, "no memory for the lls report");
	for (int f = 0; f < ctx->nfiles; f++) {
		const struct f8b_report_file *F = &ctx->files[f];
		void *rows = NULL;
		if (!F->nrows || !f8b_results_list_has(F->tables, f8b_lls_kernel_schema.name))
			continue;
		if (f8b_results_read(F->path, &f8b_lls_kernel_schema, &rows, &L->nk[f]) != F8B_OK) {
			char what[300];
			snprintf(what, sizeof what, "%s (%s)", F->path, f8b_last_error());
			f8b_rpt_list_add(L->kernel_note, sizeof L->kernel_note, what);
			f8b_clear_error();
			free(rows);
			L->nk[f] = 0;
			continue;
		}
		L->krows[f] = rows;
		L->nkern_total += L->nk[f];
	}
	return F8B_OK;
}

static bool kern_of(const struct f8b_lls_kernel_row *k, const struct f8b_lls_row *r)
{
	return k->m == r->m && k->k == r->k && k->n == r->n && k->run_id == r->run_id &&
	       !strncmp(k->recipe, r->recipe, sizeof k->recipe) &&
	       f8b_gemm_impl_same(k->gemm_impl, r->gemm_impl, sizeof k->gemm_impl);
}

/* The runner writes a case's kernels (index 0, 1, ...) just before its
 * row, for ok rows only; so the k-th group of kernels belongs to the k-th
 * ok row.  Groups are matched in order by shape, recipe and run, skipping
 * a group whose row was never written (a kill between the two). */
static void pair_kernels(struct lrpt *L, int f, size_t first_pt)
{
	const struct f8b_lls_kernel_row *k = L->krows[f];
	size_t nk = L->nk[f], at = 0;
	for (size_t i = first_pt; i < L->npts && k; i++) {
		struct lrpt_point *p = &L->pts[i];
		for (size_t g = at; g < nk; g++) {
			if (k[g].index != 0 || !kern_of(&k[g], p->r))
				continue;
			size_t e = g + 1;
			while (e < nk && k[e].index == k[e - 1].index + 1 && kern_of(&k[e], p->r))
				e++;
			p->kern = &k[g];
			p->nkern = e - g;
			at = e;
			break;
		}
		if (!p->nkern)
			L->unpaired++;
	}
	if (!k)
		L->unpaired += L->npts - first_pt;
}

/* ---------------------------------------------------------------- series and shapes */

static int cmp_series(const void *a, const void *b)
{
	const struct lrpt_series *x = a, *y = b;
	int rx = recipe_rank(x->recipe), ry = recipe_rank(y->recipe);
	if (rx != ry)
		return rx - ry;
	int c = strcmp(x->recipe, y->recipe);
	if (!c)
		c = strcmp(x->recipe_long, y->recipe_long);
	if (!c) /* cuBLASLt first, then f8bench's own (always named: f8b_lrpt_impl) */
		c = strcmp(x->impl, y->impl);
	if (!c)
		c = y->graph - x->graph;    /* graph on first */
	return c ? c : y->lanes - x->lanes; /* then two lanes, one, not recorded/merged */
}

static int cmp_shape(const void *a, const void *b)
{
	const struct lrpt_shape *x = a, *y = b;
	return f8b_rpt_cmp_shape(x->m, x->k, x->n, y->m, y->k, y->n);
}

/* A row's series: its recipe, long form and graph setting, and its lanes
 * only when lanes are compared (mixed_lanes); otherwise a sweep whose
 * lanes follow the shape (--lanes auto) is one line per recipe. */
static int series_lanes(const struct lrpt *L, const struct f8b_lls_row *r)
{
	return L->mixed_lanes ? r->lanes : 0;
}

static int find_series(const struct lrpt *L, const struct f8b_lls_row *r)
{
	char im[F8B_STR + 1];
	for (int i = 0; i < L->nseries; i++)
		if (!strcmp(L->series[i].recipe, r->recipe) &&
		    !strcmp(L->series[i].recipe_long, r->recipe_long) &&
		    !strcmp(L->series[i].impl, f8b_lrpt_impl(r, im)) &&
		    L->series[i].graph == (r->graph != 0) &&
		    L->series[i].lanes == series_lanes(L, r))
			return i;
	return -1;
}

/* Are lanes compared: one shape, recipe and graph setting with rows of
 * two lane counts (0, not recorded, pairs with either)? */
static bool lanes_compared(const struct lrpt *L)
{
	for (size_t i = 0; i < L->npts; i++)
		for (size_t j = i + 1; j < L->npts; j++) {
			const struct f8b_lls_row *a = L->pts[i].r, *b = L->pts[j].r;
			if (a->lanes && b->lanes && a->lanes != b->lanes && a->m == b->m &&
			    a->k == b->k && a->n == b->n && a->graph == b->graph &&
			    !strcmp(a->recipe, b->recipe) &&
			    !strcmp(a->recipe_long, b->recipe_long) &&
			    f8b_gemm_impl_same(a->gemm_impl, b->gemm_impl, sizeof a->gemm_impl))
				return true;
		}
	return false;
}

static int find_shape(const struct lrpt *L, const struct f8b_lls_row *r)
{
	for (int i = 0; i < L->nshapes; i++)
		if (L->shapes[i].m == r->m && L->shapes[i].k == r->k && L->shapes[i].n == r->n)
			return i;
	return -1;
}

/* Titles: the recipe, " [f8b]" when its fp8 GEMMs ran on f8bench's own
 * kernel, "graph off" when both kinds of step are shown, the lanes when
 * rows of several lane counts are, and a number when two custom long
 * forms share a name. */
static void title_series(struct lrpt *L)
{
	for (int i = 0; i < L->nseries; i++) {
		struct lrpt_series *s = &L->series[i];
		int nth = 1, same = 0;
		for (int j = 0; j < L->nseries; j++)
			if (!strcmp(L->series[j].recipe, s->recipe) &&
			    !strcmp(L->series[j].impl, s->impl) && L->series[j].graph == s->graph &&
			    L->series[j].lanes == s->lanes) {
				same++;
				nth += j < i;
			}
		char num[16] = "";
		if (same > 1)
			snprintf(num, sizeof num, " #%d", nth);
		const char *lanes = !L->mixed_lanes ? ""
		                    : s->lanes == 1 ? ", 1 lane"
		                    : s->lanes == 2 ? ", 2 lanes"
		                                    : ", lanes not recorded";
		char impl[F8B_STR + 4] = "";
		if (strcmp(s->impl, "cublaslt"))
			snprintf(impl, sizeof impl, " [%.15s]", s->impl);
		snprintf(s->title, sizeof s->title, "%.32s%s%s%s%s", s->recipe, impl, num,
		         !L->both_graphs ? ""
		         : s->graph      ? ", graph on"
		                         : ", graph off",
		         lanes);
	}
}

/* The bf16 row's roofline prediction for r's shape and graph setting: of
 * r's own file when it has one, else of any file. */
static double bf16_predicted(const struct lrpt *L, const struct lrpt_point *p)
{
	double any = NAN;
	for (size_t i = 0; i < L->npts; i++) {
		const struct lrpt_point *b = &L->pts[i];
		if (!is_bf16(b->r) || b->shape != p->shape ||
		    (b->r->graph != 0) != (p->r->graph != 0) ||
		    !f8b_rpt_finite_pos(b->r->predicted_time_s))
			continue;
		if (b->file == p->file)
			return b->r->predicted_time_s;
		if (isnan(any))
			any = b->r->predicted_time_s;
	}
	return any;
}

static int classify(struct lrpt *L)
{
	const struct f8b_report_ctx *ctx = &L->ctx;
	size_t cap = 0;
	for (int f = 0; f < ctx->nfiles; f++)
		cap += ctx->files[f].nrows;
	L->nrows_total = cap;
	cap = cap ? cap : 1;
	L->pts = calloc(cap, sizeof *L->pts);
	L->series = calloc(cap, sizeof *L->series);
	L->shapes = calloc(cap, sizeof *L->shapes);
	L->scratch = calloc(cap, sizeof *L->scratch);
	if (!L->pts || !L->series || !L->shapes || !L->scratch)
		return F8B_ERR(F8B_ENOMEM, "no memory for %zu lls rows", cap);

	bool graph_on = false, graph_off = false;
	for (int f = 0; f < ctx->nfiles; f++) {
		const struct f8b_lls_row *rows = ctx->files[f].rows;
		size_t first = L->npts;
		for (size_t j = 0; j < ctx->files[f].nrows; j++) {
			const struct f8b_lls_row *r = &rows[j];
			if (strcmp(r->status, F8B_ROW_OK))
				continue;
			L->pts[L->npts++] = (struct lrpt_point){.r = r, .file = f};
			graph_on |= r->graph != 0;
			graph_off |= r->graph == 0;
			if (find_shape(L, r) < 0) {
				struct lrpt_shape *s = &L->shapes[L->nshapes++];
				s->m = r->m;
				s->k = r->k;
				s->n = r->n;
				snprintf(s->name, sizeof s->name, "%lldx%lldx%lld", (long long)r->m,
				         (long long)r->k, (long long)r->n);
			}
		}
		pair_kernels(L, f, first);
	}
	L->mixed_lanes = lanes_compared(L);
	for (size_t i = 0; i < L->npts; i++) {
		const struct f8b_lls_row *r = L->pts[i].r;
		if (find_series(L, r) < 0) {
			struct lrpt_series *s = &L->series[L->nseries++];
			snprintf(s->recipe, sizeof s->recipe, "%.31s",
			         r->recipe[0] ? r->recipe : "unknown");
			s->recipe_long = r->recipe_long;
			char im[F8B_STR + 1];
			f8b_setstr(s->impl, sizeof s->impl, f8b_lrpt_impl(r, im));
			L->other_impl |= strcmp(s->impl, "cublaslt") != 0;
			s->graph = r->graph != 0;
			s->lanes = series_lanes(L, r);
		}
	}
	L->both_graphs = graph_on && graph_off;
	qsort(L->series, (size_t)L->nseries, sizeof *L->series, cmp_series);
	qsort(L->shapes, (size_t)L->nshapes, sizeof *L->shapes, cmp_shape);
	title_series(L);
	L->first_fp8 = 0;
	while (L->first_fp8 < L->nseries && !strcmp(L->series[L->first_fp8].recipe, "bf16"))
		L->first_fp8++;
	L->square = L->nshapes > 0;
	for (int i = 0; i < L->nshapes; i++)
		L->square &= L->shapes[i].m == L->shapes[i].k && L->shapes[i].k == L->shapes[i].n;
	for (int i = 0; i < L->nshapes; i++) {
		const struct lrpt_shape *s = &L->shapes[i];
		L->shapes[i].x =
		    L->square ? (double)s->m : (double)s->m * (double)s->k * (double)s->n;
	}

	for (size_t i = 0; i < L->npts; i++) {
		struct lrpt_point *p = &L->pts[i];
		p->series = find_series(L, p->r);
		p->shape = find_shape(L, p->r);
		L->series[p->series].npts++;
	}
	for (size_t i = 0; i < L->npts; i++) {
		struct lrpt_point *p = &L->pts[i];
		const struct f8b_lls_row *r = p->r;
		p->speedup = r->speedup_vs_bf16;
		if (!f8b_rpt_finite_pos(p->speedup) && f8b_rpt_finite_pos(r->bf16_time_median_s) &&
		    f8b_rpt_finite_pos(r->time_median_s))
			p->speedup = r->bf16_time_median_s / r->time_median_s;
		if (!f8b_rpt_finite_pos(p->speedup))
			p->speedup = NAN;
		p->pred_speedup = NAN;
		if (f8b_rpt_finite_pos(r->predicted_time_s)) {
			p->pred_speedup = bf16_predicted(L, p) / r->predicted_time_s;
			L->has_pred |= !is_bf16(r) && !isnan(p->pred_speedup);
		}
		L->has_pct |= f8b_rpt_finite_pos(r->pct_of_roofline);
	}
	return F8B_OK;
}

/* ---------------------------------------------------------------- the breakdown */

/* The largest square shape whose rows have kernels (else the largest
 * shape with kernels); one bar per recipe there, bf16 first, the graph
 * step's row (then two lanes') where a recipe ran several ways. */
static int choose_breakdown(struct lrpt *L)
{
	L->bd_shape = -1;
	for (int sq = 1; sq >= 0 && L->bd_shape < 0; sq--)
		for (int s = L->nshapes - 1; s >= 0 && L->bd_shape < 0; s--) {
			const struct lrpt_shape *S = &L->shapes[s];
			if (sq && !(S->m == S->k && S->k == S->n))
				continue;
			for (size_t i = 0; i < L->npts; i++)
				if (L->pts[i].shape == s && L->pts[i].nkern)
					L->bd_shape = s;
		}
	L->bars = calloc((size_t)(L->nseries ? L->nseries : 1), sizeof *L->bars);
	if (!L->bars)
		return F8B_ERR(F8B_ENOMEM, "no memory for the lls breakdown");
	if (L->bd_shape < 0)
		return F8B_OK;
	for (int s = 0; s < L->nseries; s++) {
		const struct lrpt_series *S = &L->series[s];
		const struct lrpt_point *best = NULL;
		for (size_t i = 0; i < L->npts && !best; i++)
			if (L->pts[i].series == s && L->pts[i].shape == L->bd_shape &&
			    L->pts[i].nkern)
				best = &L->pts[i];
		if (!best)
			continue;
		/* the same recipe with another graph or lanes setting is one bar
		 * (on another GEMM implementation, a bar of its own) */
		bool dup = false;
		for (int b = 0; b < L->nbars; b++) {
			const struct lrpt_series *o = &L->series[L->bars[b].p->series];
			dup |= !strcmp(o->recipe, S->recipe) &&
			       !strcmp(o->recipe_long, S->recipe_long) && !strcmp(o->impl, S->impl);
		}
		if (dup)
			continue;
		struct lrpt_bar *bar = &L->bars[L->nbars++];
		bar->p = best;
		for (size_t k = 0; k < best->nkern; k++)
			if (isfinite(best->kern[k].time_median_s))
				bar->cat_s[f8b_lrpt_category(best->kern[k].kernel)] +=
				    best->kern[k].time_median_s;
	}
	return F8B_OK;
}

/* ---------------------------------------------------------------- the module */

static void lls_release(void *state)
{
	struct lrpt *L = state;
	if (!L)
		return;
	for (int f = 0; L->krows && f < L->ctx.nfiles; f++)
		free(L->krows[f]);
	free(L->krows);
	free(L->nk);
	free(L->pts);
	free(L->series);
	free(L->shapes);
	free(L->bars);
	free(L->scratch);
	free(L);
}

static int lls_prepare(const struct f8b_report_ctx *ctx, void **state, const char **plots,
                       size_t *plotted)
{
	struct lrpt *L = calloc(1, sizeof *L);
	int np = 0;
	*state = L;
	*plotted = 0;
	if (!L)
		return F8B_ERR(F8B_ENOMEM, "no memory for the lls report");
	L->ctx = *ctx;
	F8B_TRY(read_kernels(L));
	F8B_TRY(classify(L));
	F8B_TRY(choose_breakdown(L));
	F8B_TRY(f8b_lrpt_write_dat(L));
	F8B_TRY(f8b_lrpt_write_csv(L));
	if (L->npts) {
		plots[np++] = "lls_speedup";
		if (L->has_pct)
			plots[np++] = "lls_roofline";
	}
	if (L->nbars)
		plots[np++] = "lls_breakdown";
	plots[np] = NULL;
	*plotted = L->npts;
	return F8B_OK;
}

/* The lls_kernels table as cases for compare --detail: one kernel of one
 * case's step, timed alone (the eager and graph runs of a case time the
 * same kernels, so the key has no graph column). */
static bool kernel_same_case(const void *va, const void *vb)
{
	const struct f8b_lls_kernel_row *a = va, *b = vb;
	return a->m == b->m && a->k == b->k && a->n == b->n && a->index == b->index &&
	       !strcmp(a->recipe, b->recipe) && !strcmp(a->kernel, b->kernel) &&
	       !strcmp(a->tensor, b->tensor) &&
	       f8b_gemm_impl_same(a->gemm_impl, b->gemm_impl, sizeof a->gemm_impl);
}

static void kernel_describe(const void *vrow, char *buf, size_t n)
{
	const struct f8b_lls_kernel_row *r = vrow;
	/* the implementation where it is not cuBLASLt, as the report's series */
	char im[F8B_STR + 1], tag[F8B_STR + 4] = "";
	const char *impl = f8b_gemm_impl_col(r->gemm_impl, sizeof r->gemm_impl, im, sizeof im);
	if (strcmp(impl, "cublaslt"))
		snprintf(tag, sizeof tag, " [%.15s]", impl);
	snprintf(buf, n, "%lldx%lldx%lld %s%s #%d %s %s", (long long)r->m, (long long)r->k,
	         (long long)r->n, r->recipe, tag, (int)r->index, r->kernel, r->tensor);
}

static const char *const kernel_keys[] = {"m",     "k",      "n",      "recipe", "gemm_impl",
                                          "index", "kernel", "tensor", NULL};

static const struct f8b_bench lls_kernels_cases = {
    .name = "lls kernels",
    .summary = "each kernel of an lls step, timed alone (the lls_kernels table)",
    .schema = &f8b_lls_kernel_schema,
    .same_case = kernel_same_case,
    .describe = kernel_describe,
    .off_status = offsetof(struct f8b_lls_kernel_row, status),
    .off_message = offsetof(struct f8b_lls_kernel_row, message),
    .off_run_id = offsetof(struct f8b_lls_kernel_row, run_id),
    .key_columns = kernel_keys,
    .time_column = "time_median_s",
    .noise_column = "time_noise",
};

const struct f8b_report_module f8b_lls_report = {
    .prepare = lls_prepare,
    .markdown = f8b_lrpt_markdown,
    .release = lls_release,
    .help = "  lls_speedup.png/.svg    fp8 step speedup over bf16 against size per recipe\n"
            "                          (and GEMM implementation: \"[f8b]\" after its name),\n"
            "                          the roofline's predicted speedup dashed beside it\n"
            "  lls_roofline.png/.svg   the step's % of roofline against size (when known)\n"
            "  lls_breakdown.png/.svg  where the step's time goes, kernel by kernel, bf16\n"
            "                          beside each recipe, for the largest square shape\n"
            "  lls.csv, lls-kernels.csv, lls-*.dat  the data; report.md: the tables\n",
    .detail_cases = &lls_kernels_cases,
};
