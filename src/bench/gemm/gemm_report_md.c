/* gemm_report_md.c - the gemm report's speedup and SQNR data, the best
 * fp8 result per shape, and its sections of report.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm/gemm_report.h"

static int collect(const struct rpt *R, int s, int sh, int what, double *v)
{
	int n = 0;
	for (size_t i = 0; i < R->npts; i++) {
		const struct rpt_point *p = &R->pts[i];
		if (p->series != s || (sh >= 0 && p->shape != sh))
			continue;
		double x = what == 0 ? p->speedup : what == 1 ? p->r->sqnr_db : p->r->tflops;
		if (!isnan(x))
			v[n++] = x;
	}
	return n;
}

enum { V_SPEEDUP, V_SQNR, V_TFLOPS };

int f8b_grpt_write_speedup_sqnr(const struct rpt *R)
{
	double *scratch = R->scratch;
	struct f8b_rpt_out o;
	struct f8b_rpt_stats st;
	int rc;

	/* Speedup: median over the rows of a (series, shape) - repeated
	 * runs, or one shape under two labels - with their range. */
	F8B_TRY(f8b_rpt_open(R->dir, &o, "speedup.dat"));
	f8b_rpt_dat_header(o.f, "fp8 speedup over bf16 per shape (median of the rows, min, max)",
	                   "shape_index speedup_median speedup_min speedup_max rows shape");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		for (int sh = 0; sh < R->nshapes; sh++) {
			f8b_rpt_stats_of(scratch, collect(R, s, sh, V_SPEEDUP, scratch), &st);
			if (st.n)
				fprintf(o.f, "%d %.6g %.6g %.6g %d %s\n", sh + 1, st.med, st.min,
				        st.max, st.n, R->shapes[sh].name);
		}
	}
	rc = f8b_rpt_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(f8b_rpt_open(R->dir, &o, "speedup.csv"));
	fprintf(o.f, "m,k,n,labels,granularity,fast_accum,dtypes,speedup_median,"
	             "speedup_min,speedup_max,rows\n");
	for (int sh = 0; sh < R->nshapes; sh++)
		for (int s = 0; s < R->nseries; s++) {
			const struct rpt_series *S = &R->series[s];
			f8b_rpt_stats_of(scratch, collect(R, s, sh, V_SPEEDUP, scratch), &st);
			if (!st.n || S->fast < 0)
				continue;
			fprintf(o.f, "%lld,%lld,%lld,", (long long)R->shapes[sh].m,
			        (long long)R->shapes[sh].k, (long long)R->shapes[sh].n);
			f8b_rpt_csv_list(o.f, R->shapes[sh].labels);
			fprintf(o.f, ",%s,%s,%s,%.6g,%.6g,%.6g,%d\n", S->gran,
			        f8b_grpt_fast_name(S->fast), S->pair, st.med, st.min, st.max, st.n);
		}
	rc = f8b_rpt_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	/* SQNR: every row as a point (spread a little along x by shape so
	 * equal values stay visible), plus median and range per series. */
	F8B_TRY(f8b_rpt_open(R->dir, &o, "sqnr.dat"));
	f8b_rpt_dat_header(o.f, "SQNR of every ok row", "x sqnr_db shape");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		double x0 = f8b_grpt_sqnr_x(R, s);
		for (size_t i = 0; i < R->npts; i++) {
			const struct rpt_point *p = &R->pts[i];
			if (p->series != s || isnan(p->r->sqnr_db))
				continue;
			double jitter = R->nshapes > 1 ? 0.12 / (R->npairs > 1 ? R->npairs : 1) *
			                                     (2.0 * p->shape / (R->nshapes - 1) - 1)
			                               : 0;
			fprintf(o.f, "%.4f %.6g %s\n", x0 + jitter, p->r->sqnr_db,
			        R->shapes[p->shape].name);
		}
	}
	rc = f8b_rpt_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(f8b_rpt_open(R->dir, &o, "sqnr-summary.dat"));
	f8b_rpt_dat_header(o.f, "SQNR per series", "x sqnr_median_db sqnr_min_db sqnr_max_db rows");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		f8b_rpt_stats_of(scratch, collect(R, s, -1, V_SQNR, scratch), &st);
		if (st.n)
			fprintf(o.f, "%.4f %.6g %.6g %.6g %d\n", f8b_grpt_sqnr_x(R, s), st.med,
			        st.min, st.max, st.n);
		else /* keeps block numbering: a series without SQNR */
			fprintf(o.f, "NaN NaN NaN NaN 0\n");
	}
	rc = f8b_rpt_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(f8b_rpt_open(R->dir, &o, "sqnr.csv"));
	fprintf(o.f, "granularity,fast_accum,dtypes,rows,sqnr_min_db,sqnr_median_db,"
	             "sqnr_max_db\n");
	for (int s = 0; s < R->nseries; s++) {
		const struct rpt_series *S = &R->series[s];
		f8b_rpt_stats_of(scratch, collect(R, s, -1, V_SQNR, scratch), &st);
		fprintf(o.f, "%s,%s,%s,%d,", S->gran, f8b_grpt_fast_name(S->fast),
		        S->fast < 0 ? "bf16 x bf16" : S->pair, st.n);
		f8b_rpt_csv_num(o.f, st.min);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, st.med);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, st.max);
		fputc('\n', o.f);
	}
	return f8b_rpt_close(&o, F8B_OK);
}

/* The fastest ok fp8 row of each shape, and the bf16 median beside it. */
static void best_per_shape(const struct rpt *R, struct best *b, double *scratch)
{
	for (int sh = 0; sh < R->nshapes; sh++) {
		b[sh].p = NULL;
		b[sh].bf16_tflops = NAN;
		for (size_t i = 0; i < R->npts; i++) {
			const struct rpt_point *p = &R->pts[i];
			if (p->shape != sh || R->series[p->series].fast < 0)
				continue;
			if (!b[sh].p || p->r->tflops > b[sh].p->r->tflops)
				b[sh].p = p;
		}
		for (int s = 0; s < R->nseries; s++)
			if (R->series[s].fast < 0) {
				struct f8b_rpt_stats st;
				f8b_rpt_stats_of(scratch, collect(R, s, sh, V_TFLOPS, scratch),
				                 &st);
				b[sh].bf16_tflops = st.med;
			}
	}
}

static int write_best_csv(const struct rpt *R, const struct best *b)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(R->dir, &o, "best.csv"));
	fprintf(o.f,
	        "m,k,n,labels,granularity,fast_accum,dtypes,tflops,bf16_tflops,speedup_vs_bf16,"
	        "pct_of_roofline,sqnr_db\n");
	for (int sh = 0; sh < R->nshapes; sh++) {
		const struct rpt_point *p = b[sh].p;
		if (!p)
			continue;
		fprintf(o.f, "%lld,%lld,%lld,", (long long)R->shapes[sh].m,
		        (long long)R->shapes[sh].k, (long long)R->shapes[sh].n);
		const struct rpt_series *S = &R->series[p->series];
		f8b_rpt_csv_list(o.f, R->shapes[sh].labels);
		fprintf(o.f, ",%s,%s,%s,", S->gran, f8b_grpt_fast_name(S->fast), S->pair);
		f8b_rpt_csv_num(o.f, p->r->tflops);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, b[sh].bf16_tflops);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, p->speedup);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, p->pct_roof);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, p->r->sqnr_db);
		fputc('\n', o.f);
	}
	return f8b_rpt_close(&o, F8B_OK);
}

/* ---------------------------------------------------------------- report.md */

/* A row's implementation ("" in files from before the column: cublaslt). */
static const char *impl_of(const struct f8b_gemm_row *r)
{
	return r->impl[0] ? r->impl : "cublaslt";
}

/* The same case (shape, recipe, dtypes, D^T or not) as `a`, run by another
 * implementation. */
static bool same_case_other_impl(const struct f8b_gemm_row *a, const struct f8b_gemm_row *b)
{
	return a->m == b->m && a->k == b->k && a->n == b->n && !strcmp(a->scaling, b->scaling) &&
	       !strcmp(a->a_gran, b->a_gran) && !strcmp(a->b_gran, b->b_gran) &&
	       a->fast_accum == b->fast_accum && !strcmp(a->a_dtype, b->a_dtype) &&
	       !strcmp(a->b_dtype, b->b_dtype) && !strcmp(a->out_dtype, b->out_dtype) &&
	       a->out_t == b->out_t && strncmp(impl_of(a), impl_of(b), sizeof a->impl) != 0;
}

/* f8bench's own kernel (--impl f8b) beside cuBLASLt: one line per f8b
 * point with the cuBLASLt point of the same case (of the same file when
 * there is one, else the first found), times compared directly (same
 * shape: the time ratio is the TFLOP/s ratio).  Nothing when no f8b row
 * is ok. */
static void md_impl_ratio(FILE *f, const struct rpt *R)
{
	bool any = false;
	for (size_t i = 0; i < R->npts && !any; i++)
		any = !strcmp(impl_of(R->pts[i].r), "f8b");
	if (!any)
		return;
	fprintf(f, "\n## f8b against cuBLASLt\n\n"
	           "f8bench's own sm_90a GEMM (`--impl f8b`, doc/gemm-kernels.md) and cuBLASLt on "
	           "the same case; ratio = cuBLASLt time / f8b time (above 1: f8b is faster).\n\n"
	           "| shape | labels | scaling | fast_accum | dtypes | cuBLASLt TFLOP/s | f8b "
	           "TFLOP/s | f8b / cuBLASLt | f8b tile | rel_error cuBLASLt / f8b |\n"
	           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < R->npts; i++) {
		const struct rpt_point *p = &R->pts[i], *q = NULL;
		if (strcmp(impl_of(p->r), "f8b"))
			continue;
		for (size_t j = 0; j < R->npts; j++) {
			const struct rpt_point *c = &R->pts[j];
			if (!strcmp(impl_of(c->r), "cublaslt") &&
			    same_case_other_impl(p->r, c->r) &&
			    (!q || (c->file == p->file && q->file != p->file)))
				q = c;
		}
		const struct f8b_gemm_row *a = p->r;
		double flops = 2.0 * (double)a->m * (double)a->n * (double)a->k;
		fprintf(f, "| %s | ", R->shapes[p->shape].name);
		f8b_rpt_md_str(f, a->label);
		fprintf(f, " | %s | %s | %s:%s -> %s | ", a->scaling, a->fast_accum ? "on" : "off",
		        a->a_dtype, a->b_dtype, a->out_dtype);
		f8b_rpt_md_num(f, "%.1f", q ? flops / q->r->time_median_s / 1e12 : NAN);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.1f", flops / a->time_median_s / 1e12);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.3f", q ? q->r->time_median_s / a->time_median_s : NAN);
		fprintf(f, " | %s | ",
		        a->algo_tile == 23   ? "128x256"
		        : a->algo_tile == 20 ? "128x128"
		        : a->algo_tile == 32 ? "128x192"
		                             : "-");
		f8b_rpt_md_num(f, "%.2e", q ? q->r->rel_error : NAN);
		fprintf(f, " / ");
		f8b_rpt_md_num(f, "%.2e", a->rel_error);
		fprintf(f, " |\n");
	}
}

static bool same_kind(const struct f8b_gemm_row *a, const struct f8b_gemm_row *b)
{
	return !strcmp(a->status, b->status) && !strcmp(a->scaling, b->scaling) &&
	       !strcmp(a->a_gran, b->a_gran) && !strcmp(a->b_gran, b->b_gran) &&
	       a->fast_accum == b->fast_accum && !strcmp(a->a_dtype, b->a_dtype) &&
	       !strcmp(a->b_dtype, b->b_dtype) && !strncmp(a->impl, b->impl, sizeof a->impl) &&
	       a->out_t == b->out_t;
}

/* One line per kind of row that is not ok (status, recipe, dtypes) with
 * its shapes and one of its messages: a sweep where cuBLASLt cannot run
 * blockwise with fast_accum gives one line per dtype pair, not per shape. */
static void md_rows_not_plotted(FILE *f, const struct rpt *R)
{
	size_t n = R->nrows_total - R->npts, total = R->nrows_total;
	fprintf(f, "## Rows not plotted\n\n");
	if (!n) {
		fprintf(f, "Every row has status `ok`.\n\n");
		return;
	}
	fprintf(f,
	        "Only rows with status `ok` are plotted; %zu of %zu rows are not:\n\n"
	        "| status | scaling | fast_accum | dtypes | rows | shapes | message (first row) |\n"
	        "| --- | --- | --- | --- | --- | --- | --- |\n",
	        n, total);
	const struct f8b_gemm_row **all = calloc(total ? total : 1, sizeof *all);
	bool *done = calloc(total ? total : 1, sizeof *done);
	size_t k = 0;
	for (int fi = 0; all && fi < R->nfiles; fi++)
		for (size_t i = 0; i < R->files[fi].nrows; i++)
			all[k++] = &R->files[fi].rows[i];
	for (size_t i = 0; all && done && i < total; i++) {
		const struct f8b_gemm_row *a = all[i];
		if (!strcmp(a->status, F8B_ROW_OK) || done[i])
			continue;
		char shapes[400] = "";
		int count = 0, more = 0;
		for (size_t j = i; j < total; j++) {
			if (done[j] || !same_kind(a, all[j]))
				continue;
			done[j] = true;
			count++;
			f8b_rpt_shape_list_add(shapes, sizeof shapes, all[j]->m, all[j]->k,
			                       all[j]->n, &more);
		}
		fprintf(f, "| %s | %s | %d | %s x %s | %d | ", a->status, a->scaling, a->fast_accum,
		        a->a_dtype, a->b_dtype, count);
		f8b_rpt_md_str(f, shapes);
		if (more)
			fprintf(f, " and %d more", more);
		fprintf(f, " | ");
		f8b_rpt_md_str(f, a->message);
		fprintf(f, " |\n");
	}
	free(all);
	free(done);
	fputc('\n', f);
}

int f8b_grpt_markdown(void *state, FILE *f, bool drawn)
{
	const struct rpt *R = state;
	const struct best *best = R->best;
	double *scratch = R->scratch;
	struct f8b_rpt_stats st;

	fprintf(f, "## GEMM\n\n%zu gemm rows, %zu with status `ok`, from %d file%s.\n\n",
	        R->nrows_total, R->npts, R->nfiles, R->nfiles == 1 ? "" : "s");
	/* ---- roofline */
	fprintf(f, "## Roofline\n\n");
	f8b_rpt_md_plot(f, "roofline", "GEMM roofline", drawn);
	fprintf(f, "[roofline.csv](roofline.csv), [roofs.csv](roofs.csv)%s\n\n", drawn ? "" : "*");
	fprintf(f, "Roofs (attainable TFLOP/s = min(peak, arithmetic intensity x bandwidth)):\n\n"
	           "| roof | source | peak TFLOP/s | bandwidth TB/s | ridge flop/byte |\n"
	           "| --- | --- | --- | --- | --- |\n");
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *r = &R->roofs[i];
		fprintf(f, "| %s | %s | ", r->dtype, r->source);
		f8b_rpt_md_num(f, "%.1f", r->peak_tflops);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.3f", r->bw_tbs);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.0f", r->peak_tflops / r->bw_tbs);
		fprintf(f, " |\n");
	}
	if (!R->nroofs)
		fprintf(f, "| - | none known for this device | - | - | - |\n");
	fprintf(f, "\nDatasheet: ");
	if (R->have_ds && R->ds.detail[0])
		f8b_rpt_md_str(f, R->ds.detail);
	else if (R->have_ds)
		fprintf(f, "%s (%s)", R->peaks.name, R->peaks.how);
	else
		fprintf(f, "no row of roofline/datasheet.tsv matches this device");
	fprintf(f, ".  Measured: ");
	if (R->have_meas) {
		f8b_rpt_md_str(f, R->meas.detail[0] ? R->meas.detail : R->meas_path);
		if (R->meas.bf16_at[0] || R->meas.fp8_at[0])
			fprintf(f, "; GEMM peaks measured at bf16 %s, fp8 %s",
			        R->meas.bf16_at[0] ? R->meas.bf16_at : "-",
			        R->meas.fp8_at[0] ? R->meas.fp8_at : "-");
	} else
		fprintf(f, "no ceilings table (run `f8bench ceilings` and pass its file, or "
		           "`--ceilings FILE`)");
	fprintf(f,
	        ".  %% of roofline = 100 x predicted / measured time; every figure of a row "
	        "comes from the %s roof it names (not from the ceilings the run itself "
	        "used).\n\n",
	        R->have_meas ? "measured" : "datasheet");

	fprintf(f, "| shape | label | series | flop/byte | TFLOP/s | roof TFLOP/s | %% of roofline "
	           "| roofline source |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int sh = 0; sh < R->nshapes; sh++)
		for (int s = 0; s < R->nseries; s++)
			for (size_t i = 0; i < R->npts; i++) {
				const struct rpt_point *p = &R->pts[i];
				if (p->shape != sh || p->series != s)
					continue;
				fprintf(f, "| %s | ", R->shapes[sh].name);
				f8b_rpt_md_str(f, p->r->label);
				fprintf(f, " | ");
				f8b_rpt_md_str(f, R->series[s].title);
				fprintf(f, " | ");
				f8b_rpt_md_num(f, "%.0f", p->ai);
				fprintf(f, " | ");
				f8b_rpt_md_num(f, "%.4g", p->r->tflops);
				fprintf(f, " | ");
				f8b_rpt_md_num(f, "%.4g", p->roof_tflops);
				fprintf(f, " | ");
				f8b_rpt_md_num(f, "%.1f", p->pct_roof);
				fprintf(f, " | %s |\n", p->roof_src[0] ? p->roof_src : "-");
			}

	/* ---- speedup */
	fprintf(f, "\n## fp8 speedup over bf16\n\n");
	f8b_rpt_md_plot(f, "speedup", "fp8 speedup over bf16", drawn);
	fprintf(f, "[speedup.csv](speedup.csv)%s\n\n", drawn ? "" : "*");
	fprintf(f, "bf16 time / fp8 time of the same shape; the median when a shape has several "
	           "rows.\n\n| shape | labels |");
	int nfp8 = 0;
	for (int s = 0; s < R->nseries; s++)
		if (R->series[s].fast >= 0) {
			fprintf(f, " ");
			f8b_rpt_md_str(f, R->series[s].title);
			fprintf(f, " |");
			nfp8++;
		}
	fprintf(f, "\n| --- | --- |");
	for (int s = 0; s < nfp8; s++)
		fprintf(f, " --- |");
	fputc('\n', f);
	for (int sh = 0; sh < R->nshapes; sh++) {
		fprintf(f, "| %s | ", R->shapes[sh].name);
		f8b_rpt_md_str(f, R->shapes[sh].labels);
		fprintf(f, " |");
		for (int s = 0; s < R->nseries; s++) {
			if (R->series[s].fast < 0)
				continue;
			f8b_rpt_stats_of(scratch, collect(R, s, sh, V_SPEEDUP, scratch), &st);
			fprintf(f, " ");
			f8b_rpt_md_num(f, "%.3f", st.med);
			fprintf(f, " |");
		}
		fputc('\n', f);
	}

	md_impl_ratio(f, R);

	/* ---- SQNR */
	fprintf(f, "\n## SQNR by granularity and fast_accum\n\n");
	f8b_rpt_md_plot(f, "sqnr", "SQNR by granularity and fast_accum", drawn);
	fprintf(f, "[sqnr.csv](sqnr.csv)%s\n\n", drawn ? "" : "*");
	fprintf(
	    f,
	    "20 log10(||ref|| / ||D - ref||) against a high-precision GEMM of the "
	    "unquantised inputs, in dB (higher is better; 6 dB per bit).\n\n"
	    "| series | rows | min dB | median dB | max dB |\n| --- | --- | --- | --- | --- |\n");
	for (int s = 0; s < R->nseries; s++) {
		f8b_rpt_stats_of(scratch, collect(R, s, -1, V_SQNR, scratch), &st);
		fprintf(f, "| ");
		f8b_rpt_md_str(f, R->series[s].title);
		fprintf(f, " | %d | ", st.n);
		f8b_rpt_md_num(f, "%.2f", st.min);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2f", st.med);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2f", st.max);
		fprintf(f, " |\n");
	}

	/* ---- best per shape */
	fprintf(f, "\n## Best fp8 result per shape\n\n[best.csv](best.csv)\n\n"
	           "| shape | labels | best | TFLOP/s | bf16 TFLOP/s | speedup | %% of roofline | "
	           "SQNR dB |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int sh = 0; sh < R->nshapes; sh++) {
		const struct rpt_point *p = best[sh].p;
		if (!p)
			continue;
		fprintf(f, "| %s | ", R->shapes[sh].name);
		f8b_rpt_md_str(f, R->shapes[sh].labels);
		fprintf(f, " | ");
		f8b_rpt_md_str(f, R->series[p->series].title);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.4g", p->r->tflops);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.4g", best[sh].bf16_tflops);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.3f", p->speedup);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.1f", p->pct_roof);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2f", p->r->sqnr_db);
		fprintf(f, " |\n");
	}
	fputc('\n', f);

	md_rows_not_plotted(f, R);

	return ferror(f) ? F8B_ERR(F8B_EIO, "writing report.md failed (disk full?)") : F8B_OK;
}

int f8b_grpt_write_best(struct rpt *R)
{
	best_per_shape(R, R->best, R->scratch);
	return write_best_csv(R, R->best);
}
