/* gemm_report.c - the gemm benchmark's report module: one series per
 * (granularity, fast_accum, fp8 dtype pair) plus the bf16 baseline, the
 * shapes, and one point per ok row placed on the report's roof; the data
 * files and plots come from gemm_report_roof.c and gemm_report_md.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm/gemm_report.h"

/* ---------------------------------------------------------------- classification */

static int gran_rank(const char *g)
{
	static const char *const order[] = {"bf16",      "tensorwise",      "axiswise",
	                                    "blockwise", "blockwise-1x128", NULL};
	int i = 0;
	for (; order[i]; i++)
		if (!strcmp(g, order[i]))
			return i;
	return i; /* a name f8bench does not know: after every known one */
}

bool f8b_grpt_row_is_fp8(const struct f8b_gemm_row *r)
{
	enum f8b_dtype a, b;
	return (f8b_dtype_parse(r->a_dtype, &a) == F8B_OK && f8b_dtype_is_fp8(a)) ||
	       (f8b_dtype_parse(r->b_dtype, &b) == F8B_OK && f8b_dtype_is_fp8(b));
}

/* The series of a row: its dtypes, and its implementation when that is
 * not cuBLASLt's (--impl f8b rows plot as series of their own), and
 * "+D^T" for a GEMM that also wrote D^T (--out-t on: a series of its own,
 * never averaged with D alone). */
static void row_pair(const struct f8b_gemm_row *r, bool with_out, char *buf, size_t n)
{
	char impl[F8B_STR + 12] = "";
	if (r->impl[0] && strncmp(r->impl, "cublaslt", sizeof r->impl))
		snprintf(impl, sizeof impl, " [%.*s]", (int)sizeof r->impl, r->impl);
	if (r->out_t)
		snprintf(impl + strlen(impl), sizeof impl - strlen(impl), " +D^T");
	if (with_out)
		snprintf(buf, n, "%s x %s -> %s%s", r->a_dtype, r->b_dtype, r->out_dtype, impl);
	else
		snprintf(buf, n, "%s x %s%s", r->a_dtype, r->b_dtype, impl);
}

static int find_series(struct rpt *R, const char *gran, int fast, const char *pair)
{
	for (int i = 0; i < R->nseries; i++)
		if (!strcmp(R->series[i].gran, gran) && R->series[i].fast == fast &&
		    !strcmp(R->series[i].pair, pair))
			return i;
	return -1;
}

static void row_key(const struct rpt *R, const struct f8b_gemm_row *r, char *gran, int *fast,
                    char *pair)
{
	if (f8b_grpt_row_is_fp8(r)) {
		snprintf(gran, F8B_STR, "%s", r->scaling[0] ? r->scaling : "unknown");
		*fast = r->fast_accum ? 1 : 0;
		row_pair(r, R->show_out, pair, 64);
	} else {
		snprintf(gran, F8B_STR, "bf16");
		*fast = -1;
		pair[0] = '\0';
	}
}

static int pair_index(const struct rpt *R, const char *pair)
{
	for (int i = 0; i < R->npairs; i++)
		if (!strcmp(R->pairs[i], pair))
			return i;
	return -1;
}

static int cmp_series(const void *a, const void *b)
{
	const struct rpt_series *x = a, *y = b;
	if ((x->pair_idx < 0) != (y->pair_idx < 0))
		return x->pair_idx < 0 ? -1 : 1;
	if (x->pair_idx != y->pair_idx)
		return x->pair_idx - y->pair_idx;
	if (gran_rank(x->gran) != gran_rank(y->gran))
		return gran_rank(x->gran) - gran_rank(y->gran);
	int c = strcmp(x->gran, y->gran);
	if (c)
		return c;
	return y->fast - x->fast; /* fast_accum on first */
}

static int cmp_shape(const void *a, const void *b)
{
	const struct rpt_shape *x = a, *y = b;
	return f8b_rpt_cmp_shape(x->m, x->k, x->n, y->m, y->k, y->n);
}

static int find_shape(const struct rpt *R, const struct f8b_gemm_row *r)
{
	for (int i = 0; i < R->nshapes; i++)
		if (R->shapes[i].m == r->m && R->shapes[i].k == r->k && R->shapes[i].n == r->n)
			return i;
	return -1;
}

static int cmp_pair(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Flops and minimal bytes of the row's GEMM (roofline.h), false when its
 * dtypes are not ones f8bench knows. */
bool f8b_grpt_row_cost(const struct f8b_gemm_row *r, struct f8b_cost *c)
{
	struct f8b_gemm_desc d = {.m = r->m, .n = r->n, .k = r->k, .fast_accum = r->fast_accum};
	if (f8b_dtype_parse(r->a_dtype, &d.a_dtype) != F8B_OK ||
	    f8b_dtype_parse(r->b_dtype, &d.b_dtype) != F8B_OK)
		return false;
	if (f8b_dtype_parse(r->out_dtype, &d.out_dtype) != F8B_OK)
		d.out_dtype = F8B_BF16; /* what every f8bench GEMM writes unless told */
	d.out_t = r->out_t != 0;        /* D^T's bytes too */
	/* bf16 operands have no scales: their granularity is ignored. */
	if (f8b_granularity_parse(r->a_gran, &d.a_gran) != F8B_OK)
		d.a_gran = F8B_GRAN_TENSORWISE;
	if (f8b_granularity_parse(r->b_gran, &d.b_gran) != F8B_OK)
		d.b_gran = F8B_GRAN_TENSORWISE;
	f8b_cost_gemm(&d, c);
	return true;
}

double f8b_grpt_roof_at(const struct f8b_ceilings *c, bool fp8, double ai)
{
	double peak = (fp8 ? c->fp8_flops_per_s : c->bf16_flops_per_s) / 1e12;
	double bw = c->hbm_bytes_per_s / 1e12;
	if (f8b_rpt_finite_pos(peak) && f8b_rpt_finite_pos(bw))
		return fmin(peak, ai * bw);
	return f8b_rpt_finite_pos(peak) ? peak : f8b_rpt_finite_pos(bw) ? ai * bw : NAN;
}

/* SQNR slots: one per (granularity, fast_accum), in series order without
 * the dtype pair. */
static int cmp_slot(const void *a, const void *b)
{
	const struct rpt_series *x = a, *y = b;
	if (gran_rank(x->gran) != gran_rank(y->gran))
		return gran_rank(x->gran) - gran_rank(y->gran);
	int c = strcmp(x->gran, y->gran);
	return c ? c : y->fast - x->fast;
}

static int assign_slots(struct rpt *R)
{
	struct rpt_series *tmp = malloc((size_t)(R->nseries ? R->nseries : 1) * sizeof *tmp);
	if (!tmp)
		return F8B_ERR(F8B_ENOMEM, "no memory for %d series", R->nseries);
	memcpy(tmp, R->series, (size_t)R->nseries * sizeof *tmp);
	qsort(tmp, (size_t)R->nseries, sizeof *tmp, cmp_slot);
	R->nslots = 0;
	for (int k = 0; k < R->nseries; k++) {
		if (k && !cmp_slot(&tmp[k - 1], &tmp[k]))
			continue;
		R->nslots++;
		for (int i = 0; i < R->nseries; i++)
			if (!cmp_slot(&R->series[i], &tmp[k]))
				R->series[i].slot = R->nslots;
	}
	free(tmp);
	return F8B_OK;
}

static int classify(struct rpt *R)
{
	size_t cap = 0;
	for (int f = 0; f < R->nfiles; f++)
		cap += R->files[f].nrows;
	R->nrows_total = cap;
	R->pts = calloc(cap ? cap : 1, sizeof *R->pts);
	R->series = calloc(cap ? cap : 1, sizeof *R->series);
	R->shapes = calloc(cap ? cap : 1, sizeof *R->shapes);
	if (!R->pts || !R->series || !R->shapes)
		return F8B_ERR(F8B_ENOMEM, "no memory for %zu gemm rows", cap);

	/* Dtype pairs first (series sort by them); the output dtype is named
	 * only when the fp8 rows do not all share one. */
	char out0[F8B_STR] = "";
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			if (strcmp(r->status, F8B_ROW_OK) || !f8b_grpt_row_is_fp8(r))
				continue;
			if (!out0[0])
				snprintf(out0, sizeof out0, "%s", r->out_dtype);
			else if (strcmp(out0, r->out_dtype))
				R->show_out = true;
		}
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			char pair[64];
			if (strcmp(r->status, F8B_ROW_OK) || !f8b_grpt_row_is_fp8(r))
				continue;
			row_pair(r, R->show_out, pair, sizeof pair);
			if (pair_index(R, pair) >= 0)
				continue;
			if (R->npairs == RPT_MAX_PAIRS)
				return F8B_ERR(F8B_EINVAL,
				               "more than %d fp8 dtype pairs in the files: report "
				               "fewer at a time",
				               RPT_MAX_PAIRS);
			snprintf(R->pairs[R->npairs++], sizeof R->pairs[0], "%s", pair);
		}
	qsort(R->pairs, (size_t)R->npairs, sizeof R->pairs[0], cmp_pair);

	/* Series and shapes of the ok rows. */
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			char gran[F8B_STR], pair[64];
			int fast;
			if (strcmp(r->status, F8B_ROW_OK))
				continue;
			row_key(R, r, gran, &fast, pair);
			if (find_series(R, gran, fast, pair) < 0) {
				struct rpt_series *s = &R->series[R->nseries++];
				snprintf(s->gran, sizeof s->gran, "%s", gran);
				s->fast = fast;
				snprintf(s->pair, sizeof s->pair, "%s", pair);
				s->pair_idx = pair_index(R, pair);
			}
			int sh = find_shape(R, r);
			if (sh < 0) {
				struct rpt_shape *s = &R->shapes[sh = R->nshapes++];
				s->m = r->m;
				s->k = r->k;
				s->n = r->n;
				snprintf(s->name, sizeof s->name, "%lldx%lldx%lld", (long long)r->m,
				         (long long)r->k, (long long)r->n);
			}
			f8b_rpt_list_add(R->shapes[sh].labels, sizeof R->shapes[sh].labels,
			                 r->label);
		}
	qsort(R->series, (size_t)R->nseries, sizeof *R->series, cmp_series);
	qsort(R->shapes, (size_t)R->nshapes, sizeof *R->shapes, cmp_shape);
	F8B_TRY(assign_slots(R));
	for (int i = 0; i < R->nseries; i++) {
		struct rpt_series *s = &R->series[i];
		if (s->fast < 0)
			snprintf(s->short_title, sizeof s->short_title, "bf16 (baseline)");
		else
			snprintf(s->short_title, sizeof s->short_title, "%s, fast_accum %s",
			         s->gran, s->fast ? "on" : "off");
		snprintf(s->title, sizeof s->title, "%s%s%s", s->short_title,
		         R->npairs > 1 && s->fast >= 0 ? ", " : "",
		         R->npairs > 1 && s->fast >= 0 ? s->pair : "");
	}

	/* Points. */
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			char gran[F8B_STR], pair[64];
			int fast;
			if (strcmp(r->status, F8B_ROW_OK))
				continue;
			struct rpt_point *p = &R->pts[R->npts++];
			row_key(R, r, gran, &fast, pair);
			p->r = r;
			p->file = f;
			p->series = find_series(R, gran, fast, pair);
			p->shape = find_shape(R, r);
			R->series[p->series].npoints++;

			struct f8b_cost c;
			bool have_cost = f8b_grpt_row_cost(r, &c);
			p->ai = r->arith_intensity;
			if (!f8b_rpt_finite_pos(p->ai))
				p->ai = have_cost ? f8b_cost_intensity(&c) : NAN;
			/* Every figure of a point from one roof, the one this report
			 * uses (R->pref), never the row's own % of roofline: the run
			 * may have used other ceilings than the report draws. */
			p->roof_tflops = f8b_grpt_roof_at(&R->pref, f8b_grpt_row_is_fp8(r), p->ai);
			p->pct_roof = NAN;
			if (have_cost) {
				double t = f8b_roofline_time(
				    &c, &R->pref, f8b_grpt_row_is_fp8(r) ? F8B_E4M3 : F8B_BF16);
				p->pct_roof = f8b_pct_of_roofline(t, r->time_median_s);
			}
			snprintf(p->roof_src, sizeof p->roof_src, "%s", R->pref.source);
			p->speedup = r->speedup_vs_bf16;
			if (!f8b_rpt_finite_pos(p->speedup) &&
			    f8b_rpt_finite_pos(r->bf16_time_median_s) &&
			    f8b_rpt_finite_pos(r->time_median_s))
				p->speedup = r->bf16_time_median_s / r->time_median_s;
			if (!f8b_rpt_finite_pos(p->speedup))
				p->speedup = NAN;
		}
	return F8B_OK;
}

/* ---------------------------------------------------------------- ceilings and ranges */

/* ---------------------------------------------------------------- the module */

static void gemm_release(void *state)
{
	struct rpt *R = state;
	if (!R)
		return;
	free(R->files);
	free(R->series);
	free(R->shapes);
	free(R->pts);
	free(R->scratch);
	free(R->best);
	free(R);
}

static int gemm_prepare(const struct f8b_report_ctx *ctx, void **state, const char **plots,
                        size_t *plotted)
{
	struct rpt *R = calloc(1, sizeof *R);
	*state = R;
	*plotted = 0;
	if (!R || !(R->files = calloc((size_t)ctx->nfiles, sizeof *R->files)))
		return F8B_ERR(F8B_ENOMEM, "no memory for the gemm report");
	R->dir = ctx->dir;
	R->gpu = ctx->gpu;
	R->date = ctx->date;
	R->nfiles = ctx->nfiles;
	for (int i = 0; i < ctx->nfiles; i++) {
		const struct f8b_report_file *F = &ctx->files[i];
		R->files[i] = (struct rpt_file){
		    .path = F->path,
		    .prov = &F->prov,
		    .rows = F->rows,
		    .nrows = F->nrows,
		    .has_ceilings = f8b_results_list_has(F->tables, f8b_ceilings_schema.name)};
	}
	F8B_TRY(f8b_grpt_ceilings(R, ctx->ceilings_path));
	F8B_TRY(classify(R));
	f8b_grpt_ranges(R);
	size_t ns = R->nrows_total ? R->nrows_total : 1;
	R->scratch = malloc(ns * sizeof *R->scratch);
	R->best = calloc((size_t)(R->nshapes ? R->nshapes : 1), sizeof *R->best);
	if (!R->scratch || !R->best)
		return F8B_ERR(F8B_ENOMEM, "no memory for the gemm report");
	F8B_TRY(f8b_grpt_write_plot_vars(R));
	F8B_TRY(f8b_grpt_write_roofline_data(R));
	F8B_TRY(f8b_grpt_write_speedup_sqnr(R));
	F8B_TRY(f8b_grpt_write_best(R));
	plots[0] = "roofline";
	plots[1] = "speedup";
	plots[2] = "sqnr";
	plots[3] = NULL;
	*plotted = R->npts;
	return F8B_OK;
}

const struct f8b_report_module f8b_gemm_report = {
    .prepare = gemm_prepare,
    .markdown = f8b_grpt_markdown,
    .release = gemm_release,
    .help = "  roofline.png/.svg  achieved TFLOP/s against arithmetic intensity (log-log),\n"
            "                     under the measured and datasheet roofs of bf16 and fp8\n"
            "  speedup.png/.svg   fp8 speedup over bf16 per shape, granularity, fast_accum\n"
            "  sqnr.png/.svg      SQNR per granularity and fast_accum\n"
            "  *.csv, *.dat       the data; report.md: the tables, best fp8 per shape\n",
};
