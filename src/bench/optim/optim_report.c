/* optim_report.c - the optim benchmark's report module (doc/report.md,
 * doc/optim.md): the step time and the bytes per parameter of each
 * variant under each scaling (optim_time.gp), the fp8 weight's SQNR
 * against the trajectory's length per variant and scaling
 * (optim_sqnr.gp), the saturation of each scaling, and a table of every
 * row.  Data: optim.csv, optim_time.dat, optim_sqnr.dat, optim-vars.gp. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/optim.h"
#include "report/report.h"
#include "results/schema.h"

#define NV F8B_OPTIM_VARIANT_COUNT
#define NS F8B_OPTIM_SCALING_COUNT

struct optim_report {
	const struct f8b_report_ctx *ctx;
	const struct f8b_optim_row **ok; /* every ok row, every file */
	size_t nok, nall;
	/* the time plot's group: the largest parameter set, its most steps,
	 * tensorwise, graph on where there is one */
	int64_t params;
	int steps, graph;
	const struct f8b_optim_row *cell[NV][NS];
	int nsqnr; /* blocks of optim_sqnr.dat */
	bool drew_time, drew_sqnr;
};

static int vidx(const char *s)
{
	for (int v = 0; v < NV; v++)
		if (!strcmp(s, f8b_optim_variant_name((enum f8b_optim_variant)v)))
			return v;
	return -1;
}

static int sidx(const char *s)
{
	for (int i = 0; i < NS; i++)
		if (!strcmp(s, f8b_optim_scaling_name((enum f8b_optim_scaling)i)))
			return i;
	return -1;
}

/* Plain C strings of fixed-length columns. */
#define STR(r, col) ((int)strnlen((r)->col, sizeof(r)->col)), (r)->col

static int cmp_rows(const void *a, const void *b)
{
	const struct f8b_optim_row *x = *(const struct f8b_optim_row *const *)a;
	const struct f8b_optim_row *y = *(const struct f8b_optim_row *const *)b;
	int c = strcmp(x->granularity, y->granularity);
	if (!c)
		c = vidx(x->variant) - vidx(y->variant);
	if (!c)
		c = sidx(x->scaling) - sidx(y->scaling);
	if (!c)
		c = (x->stochastic > y->stochastic) - (x->stochastic < y->stochastic);
	if (!c)
		c = (y->graph > x->graph) - (y->graph < x->graph);
	if (!c)
		c = (x->steps > y->steps) - (x->steps < y->steps);
	return c;
}

static int collect(struct optim_report *R)
{
	const struct f8b_report_ctx *ctx = R->ctx;
	size_t total = 0;
	for (int f = 0; f < ctx->nfiles; f++)
		total += ctx->files[f].nrows;
	R->nall = total;
	if (!(R->ok = calloc(total + 1, sizeof *R->ok)))
		return F8B_ERR(F8B_ENOMEM, "optim report: %zu rows", total);
	for (int f = 0; f < ctx->nfiles; f++) {
		const struct f8b_optim_row *rows = ctx->files[f].rows;
		for (size_t i = 0; i < ctx->files[f].nrows; i++)
			if (!strcmp(rows[i].status, F8B_ROW_OK) && vidx(rows[i].variant) >= 0 &&
			    sidx(rows[i].scaling) >= 0)
				R->ok[R->nok++] = &rows[i];
	}
	qsort(R->ok, R->nok, sizeof *R->ok, cmp_rows);
	/* the time plot's group */
	R->params = -1;
	for (size_t i = 0; i < R->nok; i++)
		if (R->ok[i]->params > R->params)
			R->params = R->ok[i]->params;
	R->steps = 0;
	R->graph = 0;
	for (size_t i = 0; i < R->nok; i++) {
		const struct f8b_optim_row *r = R->ok[i];
		if (r->params != R->params || strcmp(r->granularity, "tensorwise") || r->stochastic)
			continue;
		if (r->steps > R->steps)
			R->steps = r->steps;
		if (r->graph)
			R->graph = 1;
	}
	for (size_t i = 0; i < R->nok; i++) {
		const struct f8b_optim_row *r = R->ok[i];
		if (r->params == R->params && !strcmp(r->granularity, "tensorwise") &&
		    !r->stochastic && r->steps == R->steps && r->graph == R->graph)
			R->cell[vidx(r->variant)][sidx(r->scaling)] = r;
	}
	return F8B_OK;
}

static double ms(const struct f8b_optim_row *r)
{
	return r ? 1e3 * r->time_median_s : NAN;
}

/* One line per variant: its index, name, bytes per parameter of the single
 * pass, then the step time (ms) under each scaling (enum order: dynamic,
 * dynamic-sync, delayed, predicted) and the split sequence's (the
 * predicted row's). */
static int write_time(struct optim_report *R)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(R->ctx->dir, &o, "optim_time.dat"));
	f8b_rpt_dat_header(o.f, "optim step time per variant and scaling",
	                   "i variant bytes_per_param dynamic_ms dynamic_sync_ms delayed_ms "
	                   "predicted_ms split_ms");
	int n = 0;
	for (int v = 0; v < NV; v++) {
		const struct f8b_optim_row *any = NULL;
		for (int s = 0; s < NS && !any; s++)
			any = R->cell[v][s];
		if (!any)
			continue;
		const struct f8b_optim_row *p = R->cell[v][F8B_OPTIM_PREDICTED];
		fprintf(o.f, "%d \"%s\" ", n++, f8b_optim_variant_name((enum f8b_optim_variant)v));
		f8b_rpt_gp_num(o.f, f8b_optim_step_bytes((enum f8b_optim_variant)v,
		                                         F8B_OPTIM_PREDICTED, false));
		for (int s = 0; s < NS; s++) {
			fputc(' ', o.f);
			f8b_rpt_gp_num(o.f, ms(R->cell[v][s]));
		}
		fputc(' ', o.f);
		f8b_rpt_gp_num(o.f, p ? 1e3 * p->time_split_s : NAN);
		fputc('\n', o.f);
	}
	R->drew_time = n > 0;
	return f8b_rpt_close(&o, F8B_OK);
}

/* One block per variant x scaling x granularity (tensorwise, graph any):
 * a header line for the title, then steps, fp8 weight SQNR, master SQNR. */
static int write_sqnr(struct optim_report *R)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(R->ctx->dir, &o, "optim_sqnr.dat"));
	f8b_rpt_dat_header(o.f, "SQNR against steps per variant and scaling",
	                   "steps sqnr_w8_db sqnr_w_db (one block per series)");
	const struct f8b_optim_row *prev = NULL;
	for (size_t i = 0; i < R->nok; i++) {
		const struct f8b_optim_row *r = R->ok[i];
		if (r->params != R->params || (R->graph && !r->graph))
			continue;
		bool same = prev && !strcmp(prev->variant, r->variant) &&
		            !strcmp(prev->scaling, r->scaling) &&
		            !strcmp(prev->granularity, r->granularity) &&
		            prev->stochastic == r->stochastic;
		if (same && prev->steps == r->steps)
			continue;
		if (!same) {
			if (prev)
				fprintf(o.f, "\n\n");
			fprintf(o.f, "\"%.*s %.*s%s%s\" \"w8\" \"w\"\n", STR(r, variant),
			        STR(r, scaling),
			        strcmp(r->granularity, "tensorwise") ? " axiswise" : "",
			        r->stochastic ? " sr" : "");
			R->nsqnr++;
		}
		fprintf(o.f, "%d ", (int)r->steps);
		f8b_rpt_gp_num(o.f, r->sqnr_w8_db);
		fputc(' ', o.f);
		f8b_rpt_gp_num(o.f, r->sqnr_w_db);
		fputc('\n', o.f);
		prev = r;
	}
	R->drew_sqnr = R->nsqnr > 0;
	return f8b_rpt_close(&o, F8B_OK);
}

static int write_vars(const struct optim_report *R)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(R->ctx->dir, &o, "optim-vars.gp"));
	fprintf(o.f, "# f8bench report: what roofline/optim_time.gp and optim_sqnr.gp plot.\n");
	fprintf(o.f, "o_gpu = ");
	f8b_rpt_gp_str(o.f, R->ctx->gpu);
	fprintf(o.f, "\no_date = ");
	f8b_rpt_gp_str(o.f, R->ctx->date);
	fprintf(o.f, "\no_params = %lld\no_steps = %d\no_graph = %d\no_nsqnr = %d\n",
	        (long long)R->params, R->steps, R->graph, R->nsqnr);
	return f8b_rpt_close(&o, F8B_OK);
}

static int write_csv(const struct optim_report *R)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(R->ctx->dir, &o, "optim.csv"));
	fprintf(o.f, "variant,scaling,granularity,params,steps,graph,stochastic,time_median_s,"
	             "time_split_s,speedup_vs_fp32,step_bytes_per_param,gbps,pct_of_copy_bw,"
	             "sqnr_w_db,sqnr_w8_db,saturated,saturated_steps,range_used\n");
	for (size_t i = 0; i < R->nok; i++) {
		const struct f8b_optim_row *r = R->ok[i];
		fprintf(o.f, "%.*s,%.*s,%.*s,%lld,%d,%d,%d", STR(r, variant), STR(r, scaling),
		        STR(r, granularity), (long long)r->params, (int)r->steps, (int)r->graph,
		        (int)r->stochastic);
		const double v[] = {r->time_median_s,
		                    r->time_split_s,
		                    r->speedup_vs_fp32,
		                    r->step_bytes_per_param,
		                    r->gbps,
		                    r->pct_of_copy_bw,
		                    r->sqnr_w_db,
		                    r->sqnr_w8_db};
		for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
			fputc(',', o.f);
			f8b_rpt_csv_num(o.f, v[k]);
		}
		fprintf(o.f, ",%lld,%d,", (long long)r->saturated, (int)r->saturated_steps);
		f8b_rpt_csv_num(o.f, r->range_used);
		fputc('\n', o.f);
	}
	return f8b_rpt_close(&o, F8B_OK);
}

static void optim_release(void *state)
{
	struct optim_report *R = state;
	if (!R)
		return;
	free(R->ok);
	free(R);
}

static int optim_prepare(const struct f8b_report_ctx *ctx, void **state, const char **plots,
                         size_t *plotted)
{
	struct optim_report *R = calloc(1, sizeof *R);
	int np = 0;
	*state = R;
	*plotted = 0;
	if (!R)
		return F8B_ERR(F8B_ENOMEM, "optim report");
	R->ctx = ctx;
	F8B_TRY(collect(R));
	F8B_TRY(write_time(R));
	F8B_TRY(write_sqnr(R));
	F8B_TRY(write_vars(R));
	F8B_TRY(write_csv(R));
	if (R->drew_time)
		plots[np++] = "optim_time";
	if (R->drew_sqnr)
		plots[np++] = "optim_sqnr";
	plots[np] = NULL;
	*plotted = R->nok;
	return F8B_OK;
}

static void md_rows(const struct optim_report *R, FILE *f)
{
	fprintf(
	    f,
	    "| variant | scaling | granularity | graph | steps | ms | GB/s | %% of copy | x fp32 "
	    "| split / fused | bytes/param | w8 SQNR dB | w SQNR dB | saturated | bit-exact "
	    "|\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
	    "| --- | --- |\n");
	for (size_t i = 0; i < R->nok; i++) {
		const struct f8b_optim_row *r = R->ok[i];
		fprintf(f, "| %.*s%s | %.*s | %.*s | %s | %d | ", STR(r, variant),
		        r->stochastic ? " (sr)" : "", STR(r, scaling), STR(r, granularity),
		        r->graph ? "on" : "off", (int)r->steps);
		f8b_rpt_md_num(f, "%.4g", 1e3 * r->time_median_s);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.0f", r->gbps);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.0f%%", r->pct_of_copy_bw);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2f", r->speedup_vs_fp32);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2f", r->fused_speedup);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.4g", r->step_bytes_per_param);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2f", r->sqnr_w8_db);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.1f", r->sqnr_w_db);
		fprintf(f, " | %lld in %d steps | %s |\n", (long long)r->saturated,
		        (int)r->saturated_steps, r->bitexact ? "yes" : "no");
	}
	fputc('\n', f);
}

/* Dynamic scaling's two ways, per variant of the time plot's group: two
 * launches (dynamic) against one with a grid barrier (dynamic-sync), the
 * same bytes and the same scales. */
static void md_dynamic(const struct optim_report *R, FILE *f)
{
	fprintf(f, "| variant | dynamic ms | launches | dynamic-sync ms | launches | two / one | "
	           "w8 SQNR dB (both) |\n| --- | --- | --- | --- | --- | --- | --- |\n");
	for (int v = 0; v < NV; v++) {
		const struct f8b_optim_row *d = R->cell[v][F8B_OPTIM_DYNAMIC];
		const struct f8b_optim_row *s = R->cell[v][F8B_OPTIM_DYNAMIC_SYNC];
		if (!d || !s)
			continue;
		fprintf(f, "| %s | ", f8b_optim_variant_name((enum f8b_optim_variant)v));
		f8b_rpt_md_num(f, "%.4g", ms(d));
		fprintf(f, " | %d | ", (int)d->launches);
		f8b_rpt_md_num(f, "%.4g", ms(s));
		fprintf(f, " | %d | ", (int)s->launches);
		f8b_rpt_md_num(f, "%.3f", d->time_median_s / s->time_median_s);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2f", d->sqnr_w8_db);
		fprintf(f, " / ");
		f8b_rpt_md_num(f, "%.2f", s->sqnr_w8_db);
		fprintf(f, " |\n");
	}
	fputc('\n', f);
}

/* Saturation per scaling: over every ok row of that scaling. */
static void md_saturation(const struct optim_report *R, FILE *f)
{
	fprintf(f,
	        "| scaling | rows | saturated values | steps that saturated | range used (mean) | "
	        "range used (min) |\n| --- | --- | --- | --- | --- | --- |\n");
	for (int s = 0; s < NS; s++) {
		long long sat = 0, steps = 0;
		double sum = 0, mn = INFINITY;
		int n = 0;
		for (size_t i = 0; i < R->nok; i++) {
			const struct f8b_optim_row *r = R->ok[i];
			if (sidx(r->scaling) != s)
				continue;
			n++;
			sat += r->saturated;
			steps += r->saturated_steps;
			sum += r->range_used;
			mn = fmin(mn, r->range_used_min);
		}
		if (!n)
			continue;
		fprintf(f, "| %s | %d | %lld | %lld | ",
		        f8b_optim_scaling_name((enum f8b_optim_scaling)s), n, sat, steps);
		f8b_rpt_md_num(f, "%.4f", sum / n);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.4f", isinf(mn) ? NAN : mn);
		fprintf(f, " |\n");
	}
	fputc('\n', f);
}

static int optim_markdown(void *state, FILE *f, bool drawn)
{
	const struct optim_report *R = state;
	fprintf(f, "## Optimizer step (optim)\n\n");
	if (!R->nok) {
		fprintf(f, "No row is ok (%zu rows).\n\n", R->nall);
		return ferror(f) ? F8B_ERR(F8B_EIO, "writing report.md failed") : F8B_OK;
	}
	fprintf(f,
	        "AdamW over %lld parameters per step, one fused multi-tensor launch (two with "
	        "dynamic scaling, one with a grid barrier with dynamic-sync); doc/optim.md "
	        "gives the formulas.\n\n",
	        (long long)R->params);
	if (R->drew_time) {
		fprintf(f, "### Step time and bytes per parameter\n\n");
		f8b_rpt_md_plot(f, "optim_time", "step time per variant and scaling", drawn);
		fprintf(f, "[optim_time.dat](optim_time.dat): %d steps, tensorwise, graph %s.\n\n",
		        R->steps, R->graph ? "on" : "off");
	}
	if (R->drew_sqnr) {
		fprintf(f, "### SQNR against steps\n\n");
		f8b_rpt_md_plot(f, "optim_sqnr", "fp8 weight SQNR against steps", drawn);
		fprintf(f, "[optim_sqnr.dat](optim_sqnr.dat): against an fp64 AdamW of the same "
		           "gradients.\n\n");
	}
	bool both = false;
	for (int v = 0; v < NV; v++)
		both |= R->cell[v][F8B_OPTIM_DYNAMIC] && R->cell[v][F8B_OPTIM_DYNAMIC_SYNC];
	if (both) {
		fprintf(f, "### Dynamic scaling: two launches or one\n\n");
		md_dynamic(R, f);
	}
	fprintf(f, "### Saturation per scaling\n\n");
	md_saturation(R, f);
	fprintf(f, "### Every row\n\ndata: [optim.csv](optim.csv).\n\n");
	md_rows(R, f);
	return ferror(f) ? F8B_ERR(F8B_EIO, "writing report.md failed (disk full?)") : F8B_OK;
}

const struct f8b_report_module f8b_optim_report = {
    .prepare = optim_prepare,
    .markdown = optim_markdown,
    .release = optim_release,
    .help = "  optim_time.png/.svg   optim step time per variant and scaling, bytes per\n"
            "                        parameter\n"
            "  optim_sqnr.png/.svg   fp8 weight SQNR against steps per variant and scaling\n"
            "  optim.csv, *.dat      the data; report.md: saturation per scaling, every row\n",
};
