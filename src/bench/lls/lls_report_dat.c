/* lls_report_dat.c - the files the lls report's gnuplot templates read:
 * lls-vars.gp (series, titles, styles, the breakdown's bars),
 * lls-speedup.dat (per series and shape: median speedup, its range, the
 * predicted speedup, % of roofline) and lls-breakdown.dat (per bar, the
 * time per kernel category).  lls_report.c classifies the rows first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lls/lls_report.h"

/* The head of an lls .dat file (lls-vars.gp names its blocks). */
static void dat_header(FILE *f, const char *what, const char *cols)
{
	fprintf(f,
	        "# f8bench report: %s\n# blocks (gnuplot index) as lls-vars.gp names them\n# %s\n",
	        what, cols);
}

static int write_vars(const struct lrpt *L)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(L->ctx.dir, &o, "lls-vars.gp"));
	FILE *f = o.f;
	fprintf(f, "# f8bench report: what roofline/lls_*.gp plot.\nl_gpu = ");
	f8b_rpt_gp_str(f, L->ctx.gpu);
	fprintf(f, "\nl_date = ");
	f8b_rpt_gp_str(f, L->ctx.date);
	fprintf(f, "\nl_square = %d\nl_both_graphs = %d\nl_has_pred = %d\n", L->square,
	        L->both_graphs, L->has_pred);
	int ns = L->nseries ? L->nseries : 1;
	fprintf(f,
	        "\nns = %d\nfirst_fp8 = %d\narray s_recipe[%d]\narray s_title[%d]\n"
	        "array s_graph[%d]\narray s_lanes[%d]\narray s_impl[%d]\n",
	        L->nseries, L->first_fp8 + 1, ns, ns, ns, ns, ns);
	if (!L->nseries)
		fprintf(f, "s_recipe[1] = \"\"; s_title[1] = \"\"; s_graph[1] = 1; s_lanes[1] = 2; "
		           "s_impl[1] = 0\n");
	for (int i = 0; i < L->nseries; i++) {
		fprintf(f, "s_recipe[%d] = ", i + 1);
		f8b_rpt_gp_str(f, L->series[i].recipe);
		fprintf(f, "; s_title[%d] = ", i + 1);
		f8b_rpt_gp_str(f, L->series[i].title);
		/* s_impl: 1 where the fp8 GEMMs were not cuBLASLt's (--gemm-impl f8b) */
		fprintf(f, "; s_graph[%d] = %d; s_lanes[%d] = %d; s_impl[%d] = %d\n", i + 1,
		        L->series[i].graph, i + 1, L->series[i].lanes, i + 1,
		        strcmp(L->series[i].impl, "cublaslt") != 0);
	}
	int nb = L->nbars ? L->nbars : 1;
	fprintf(f, "\nbd_shape = ");
	f8b_rpt_gp_str(f, L->bd_shape >= 0 ? L->shapes[L->bd_shape].name : "");
	fprintf(f, "\nnbars = %d\narray bar_name[%d]\n", L->nbars, nb);
	if (!L->nbars)
		fprintf(f, "bar_name[1] = \"\"\n");
	for (int b = 0; b < L->nbars; b++) {
		fprintf(f, "bar_name[%d] = ", b + 1);
		f8b_rpt_gp_str(f, L->series[L->bars[b].p->series].title);
		fputc('\n', f);
	}
	bool bd_pred = false;
	for (int b = 0; b < L->nbars; b++)
		bd_pred |= f8b_rpt_finite_pos(L->bars[b].p->r->predicted_time_s);
	fprintf(f, "bd_has_pred = %d\n", bd_pred);
	/* cat_n: a category without kernels gets no key entry */
	fprintf(f, "\nncat = %d\narray cat_name[%d]\narray cat_n[%d]\n", NCAT, NCAT, NCAT);
	for (int c = 0; c < NCAT; c++) {
		int n = 0;
		for (int b = 0; b < L->nbars; b++)
			for (size_t k = 0; k < L->bars[b].p->nkern; k++)
				n += f8b_lrpt_category(L->bars[b].p->kern[k].kernel) ==
				     (enum lrpt_cat)c;
		fprintf(f, "cat_name[%d] = ", c + 1);
		f8b_rpt_gp_str(f, f8b_lrpt_cat_names[c]);
		fprintf(f, "; cat_n[%d] = %d\n", c + 1, n);
	}
	return f8b_rpt_close(&o, F8B_OK);
}

enum { V_SPEEDUP, V_PRED, V_PCT };

static struct f8b_rpt_stats stats(const struct lrpt *L, int s, int sh, int what)
{
	struct f8b_rpt_stats st;
	int n = 0;
	for (size_t i = 0; i < L->npts; i++) {
		const struct lrpt_point *p = &L->pts[i];
		if (p->series == s && p->shape == sh)
			L->scratch[n++] = what == V_SPEEDUP ? p->speedup
			                  : what == V_PRED  ? p->pred_speedup
			                                    : p->r->pct_of_roofline;
	}
	f8b_rpt_stats_of(L->scratch, n, &st);
	return st;
}

/* One block per series (bf16 too): per shape the median speedup, its
 * range, the predicted speedup and the % of roofline. */
static int write_speedup(const struct lrpt *L)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(L->ctx.dir, &o, "lls-speedup.dat"));
	dat_header(o.f, "lls step speedup over bf16 per size (median of the rows, range)",
	           "block i-1 = series i: x speedup speedup_min speedup_max predicted_speedup "
	           "pct_of_roofline rows shape (x: M for square shapes, else M*K*N)");
	for (int s = 0; s < L->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, L->series[s].title);
		int lines = 0;
		for (int sh = 0; sh < L->nshapes; sh++) {
			struct f8b_rpt_stats sp = stats(L, s, sh, V_SPEEDUP);
			struct f8b_rpt_stats pr = stats(L, s, sh, V_PRED);
			struct f8b_rpt_stats pc = stats(L, s, sh, V_PCT);
			if (!sp.n && !pr.n && !pc.n)
				continue;
			fprintf(o.f, "%.9g ", L->shapes[sh].x);
			const double v[] = {sp.med, sp.min, sp.max, pr.med, pc.med};
			for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
				f8b_rpt_gp_num(o.f, v[k]);
				fputc(' ', o.f);
			}
			fprintf(o.f, "%d %s\n", sp.n, L->shapes[sh].name);
			lines++;
		}
		if (!lines) /* keeps the block numbering */
			fprintf(o.f, "NaN NaN NaN NaN NaN NaN 0 none\n");
	}
	return f8b_rpt_close(&o, F8B_OK);
}

/* A kernel's time for stacking: 0 when it has none. */
static double kern_s(const struct f8b_lls_kernel_row *k)
{
	return isfinite(k->time_median_s) ? k->time_median_s : 0;
}

/* Breakdown blocks: one per category (each kernel a box from its start to
 * its end along the bar, kernels stacked in step order), then the step
 * markers, then the names of the boxes wide enough to carry one. */
static int write_breakdown(const struct lrpt *L)
{
	struct f8b_rpt_out o;
	double widest = 0;
	for (int b = 0; b < L->nbars; b++) {
		const struct lrpt_point *p = L->bars[b].p;
		double sum = 0;
		for (size_t k = 0; k < p->nkern; k++)
			sum += kern_s(&p->kern[k]);
		widest = fmax(widest, fmax(sum, p->r->time_median_s));
	}
	F8B_TRY(f8b_rpt_open(L->ctx.dir, &o, "lls-breakdown.dat"));
	dat_header(o.f, "lls step, where the time goes (each kernel timed alone)",
	           "blocks 1..ncat (category): bar start_ms end_ms time_ms index kernel "
	           "tensor pass; block ncat+1: bar step_ms predicted_ms kernels_sum_ms; "
	           "block ncat+2: center_ms bar label (bar 1 at the top)");
	for (int c = 0; c < NCAT; c++) {
		fprintf(o.f, "%s# category %d: %s\n", c ? "\n\n" : "", c + 1,
		        f8b_lrpt_cat_names[c]);
		int lines = 0;
		for (int b = 0; b < L->nbars; b++) {
			const struct lrpt_point *p = L->bars[b].p;
			double at = 0;
			for (size_t k = 0; k < p->nkern; k++) {
				const struct f8b_lls_kernel_row *kr = &p->kern[k];
				double t = kern_s(kr);
				if (f8b_lrpt_category(kr->kernel) == (enum lrpt_cat)c) {
					fprintf(o.f, "%d %.9g %.9g %.9g %d %.31s %.15s %.15s\n",
					        b + 1, 1e3 * at, 1e3 * (at + t), 1e3 * t,
					        (int)kr->index, kr->kernel,
					        kr->tensor[0] ? kr->tensor : "-",
					        kr->pass[0] ? kr->pass : "-");
					lines++;
				}
				at += t;
			}
		}
		if (!lines)
			fprintf(o.f, "NaN NaN NaN NaN 0 none - -\n");
	}
	fprintf(o.f, "\n\n# step markers\n");
	for (int b = 0; b < L->nbars; b++) {
		const struct f8b_lls_row *r = L->bars[b].p->r;
		fprintf(o.f, "%d ", b + 1);
		f8b_rpt_gp_num(o.f, 1e3 * r->time_median_s);
		fputc(' ', o.f);
		f8b_rpt_gp_num(
		    o.f, f8b_rpt_finite_pos(r->predicted_time_s) ? 1e3 * r->predicted_time_s : NAN);
		fputc(' ', o.f);
		f8b_rpt_gp_num(o.f, 1e3 * r->kernels_time_s);
		fputc('\n', o.f);
	}
	if (!L->nbars)
		fprintf(o.f, "NaN NaN NaN NaN\n");
	fprintf(o.f, "\n\n# box labels (boxes wider than 6 %% of the widest bar)\n");
	int labels = 0;
	for (int b = 0; b < L->nbars; b++) {
		const struct lrpt_point *p = L->bars[b].p;
		double at = 0;
		for (size_t k = 0; k < p->nkern; k++) {
			const struct f8b_lls_kernel_row *kr = &p->kern[k];
			double t = kern_s(kr);
			if (widest > 0 && t > 0.06 * widest) {
				fprintf(o.f, "%.9g %d \"%.15s\"\n", 1e3 * (at + t / 2), b + 1,
				        kr->tensor[0] ? kr->tensor : kr->kernel);
				labels++;
			}
			at += t;
		}
	}
	/* No box wide enough (a step far longer than its kernels, as host
	 * timings under load give): one empty label at a real point.  gnuplot
	 * 5.4 dies of SIGSEGV plotting `with labels` a block whose only row is
	 * NaN, which is what made the breakdown fail "now and then". */
	if (!labels)
		fprintf(o.f, "0 1 \"\"\n");
	return f8b_rpt_close(&o, F8B_OK);
}

int f8b_lrpt_write_dat(const struct lrpt *L)
{
	F8B_TRY(write_vars(L));
	F8B_TRY(write_speedup(L));
	return write_breakdown(L);
}
