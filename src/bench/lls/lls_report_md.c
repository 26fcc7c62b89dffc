/* lls_report_md.c - the lls report's sections of report.md: the table of
 * every ok row (step, bf16, speedups, roofline, SQNR, memory), where the
 * chosen shape's step spends its time, and the rows not plotted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "bench/lls/lls_report.h"

static int cmp_pts(const void *a, const void *b)
{
	const struct lrpt_point *x = *(const struct lrpt_point *const *)a;
	const struct lrpt_point *y = *(const struct lrpt_point *const *)b;
	if (x->shape != y->shape)
		return x->shape - y->shape;
	if (x->series != y->series)
		return x->series - y->series;
	return x->file - y->file;
}

static void md_ms(FILE *f, double s)
{
	f8b_rpt_md_num(f, "%.4g", f8b_rpt_finite_pos(s) ? 1e3 * s : NAN);
}

static void md_mib(FILE *f, int64_t b)
{
	f8b_rpt_md_num(f, "%.4g", b > 0 ? (double)b / (1 << 20) : NAN);
}

static void rows_table(const struct lrpt *L, FILE *f)
{
	const struct lrpt_point **order = calloc(L->npts ? L->npts : 1, sizeof *order);
	if (!order)
		return;
	for (size_t i = 0; i < L->npts; i++)
		order[i] = &L->pts[i];
	qsort(order, L->npts, sizeof *order, cmp_pts);
	fprintf(f,
	        "| shape | recipe | GEMMs | step ms | bf16 ms | speedup | predicted ms | "
	        "predicted speedup | %% of roofline | SQNR y / dx / dW dB | peak memory MiB | "
	        "saved for backward MiB |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | "
	        "--- | --- | --- |\n");
	for (size_t i = 0; i < L->npts; i++) {
		const struct lrpt_point *p = order[i];
		const struct f8b_lls_row *r = p->r;
		fprintf(f, "| %s | ", L->shapes[p->shape].name);
		f8b_rpt_md_str(f, L->series[p->series].title);
		fprintf(f, " | %s | ", L->series[p->series].impl);
		md_ms(f, r->time_median_s);
		fprintf(f, " | ");
		md_ms(f, r->bf16_time_median_s);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2fx", p->speedup);
		fprintf(f, " | ");
		md_ms(f, r->predicted_time_s);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.2fx", p->pred_speedup);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.3g %%",
		               f8b_rpt_finite_pos(r->pct_of_roofline) ? r->pct_of_roofline : NAN);
		fprintf(f, " | ");
		f8b_rpt_md_num(f, "%.1f", r->sqnr_y_db);
		fprintf(f, " / ");
		f8b_rpt_md_num(f, "%.1f", r->sqnr_grad_x_db);
		fprintf(f, " / ");
		f8b_rpt_md_num(f, "%.1f", r->sqnr_grad_w_db);
		fprintf(f, " | ");
		md_mib(f, r->peak_mem_bytes);
		fprintf(f, " | ");
		md_mib(f, r->saved_bytes);
		fprintf(f, " |\n");
	}
	fputc('\n', f);
	free(order);
}

static void breakdown(const struct lrpt *L, FILE *f, bool drawn)
{
	if (L->bd_shape < 0) {
		fprintf(f, "## lls: where the step's time goes\n\nNo ok row has its kernels in an "
		           "`lls_kernels` table: nothing to break down.\n\n");
		return;
	}
	fprintf(f, "## lls: where the step's time goes, %s\n\n", L->shapes[L->bd_shape].name);
	f8b_rpt_md_plot(f, "lls_breakdown", "lls step breakdown", drawn);
	fprintf(f,
	        "[lls-breakdown.dat](lls-breakdown.dat), [lls-kernels.csv](lls-kernels.csv)%s\n\n",
	        drawn ? "" : "*");
	fprintf(f, "The largest square shape with kernel rows (else the largest shape).  Each "
	           "kernel was timed alone (`lls_kernels`); the bar stacks them in step order, "
	           "the black tick is the whole step as timed (one graph when `graph` is on), "
	           "the dashed one the roofline's prediction.  \"traced\" is the step run "
	           "eagerly with an event before and after each kernel; \"in step\" is a "
	           "kernel's time there, on its lane.\n\n");
	fprintf(f, "| recipe | step ms | traced ms | kernels alone ms |");
	for (int c = 0; c < NCAT; c++)
		fprintf(f, " %s ms |", f8b_lrpt_cat_names[c]);
	fprintf(f, " predicted ms |\n| --- | --- | --- | --- |");
	for (int c = 0; c < NCAT; c++)
		fprintf(f, " --- |");
	fprintf(f, " --- |\n");
	for (int b = 0; b < L->nbars; b++) {
		const struct lrpt_bar *B = &L->bars[b];
		fprintf(f, "| ");
		f8b_rpt_md_str(f, L->series[B->p->series].title);
		fprintf(f, " | ");
		md_ms(f, B->p->r->time_median_s);
		fprintf(f, " | ");
		md_ms(f, B->p->r->traced_time_median_s);
		fprintf(f, " | ");
		md_ms(f, B->p->r->kernels_time_s);
		for (int c = 0; c < NCAT; c++) {
			fprintf(f, " | ");
			f8b_rpt_md_num(f, "%.4g", B->cat_s[c] > 0 ? 1e3 * B->cat_s[c] : NAN);
		}
		fprintf(f, " | ");
		md_ms(f, B->p->r->predicted_time_s);
		fprintf(f, " |\n");
	}
	fprintf(f,
	        "\nEvery kernel:\n\n| recipe | # | kernel | tensor | pass | fuses | dtype | ms "
	        "| %% of kernels | in step ms | GB/s | TFLOP/s | %% of roofline |\n| --- | --- | "
	        "--- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int b = 0; b < L->nbars; b++) {
		const struct lrpt_point *p = L->bars[b].p;
		for (size_t k = 0; k < p->nkern; k++) {
			const struct f8b_lls_kernel_row *kr = &p->kern[k];
			fprintf(f, "| ");
			f8b_rpt_md_str(f, L->series[p->series].title);
			fprintf(f, " | %d | %.31s | %.15s | %.15s | ", (int)kr->index, kr->kernel,
			        kr->tensor, kr->pass);
			f8b_rpt_md_str(f, kr->fuses);
			fprintf(f, " | %.15s | ", kr->dtype);
			md_ms(f, kr->time_median_s);
			fprintf(f, " | ");
			f8b_rpt_md_num(f, "%.1f",
			               f8b_rpt_finite_pos(p->r->kernels_time_s)
			                   ? 100 * kr->time_median_s / p->r->kernels_time_s
			                   : NAN);
			fprintf(f, " | ");
			md_ms(f, kr->in_step_median_s);
			fprintf(f, " | ");
			f8b_rpt_md_num(f, "%.3g", kr->gbps);
			fprintf(f, " | ");
			f8b_rpt_md_num(f, "%.3g", kr->tflops);
			fprintf(f, " | ");
			f8b_rpt_md_num(f, "%.3g", kr->pct_of_roofline);
			fprintf(f, " |\n");
		}
	}
	fputc('\n', f);
}

static bool same_kind(const struct f8b_lls_row *a, const struct f8b_lls_row *b)
{
	return !strcmp(a->status, b->status) && !strcmp(a->recipe, b->recipe) &&
	       !strcmp(a->recipe_long, b->recipe_long) && (a->graph != 0) == (b->graph != 0) &&
	       a->lanes == b->lanes &&
	       f8b_gemm_impl_same(a->gemm_impl, b->gemm_impl, sizeof a->gemm_impl);
}

/* Rows not plotted: one line per status x recipe x GEMM implementation x
 * graph x lanes with their shapes and the first row's message. */
static void not_plotted(const struct lrpt *L, FILE *f)
{
	size_t total = L->nrows_total, n = total - L->npts, k = 0;
	fprintf(f, "## lls: rows not plotted\n\n");
	if (!n) {
		fprintf(f, "Every lls row has status `ok`.\n\n");
		return;
	}
	fprintf(
	    f,
	    "Only rows with status `ok` are plotted; %zu of %zu rows are not:\n\n"
	    "| status | recipe | GEMMs | graph | lanes | rows | shapes | message (first row) |\n"
	    "| --- | --- | --- | --- | --- | --- | --- | --- |\n",
	    n, total);
	const struct f8b_lls_row **all = calloc(total ? total : 1, sizeof *all);
	bool *done = calloc(total ? total : 1, sizeof *done);
	for (int fi = 0; all && fi < L->ctx.nfiles; fi++) {
		const struct f8b_lls_row *rows = L->ctx.files[fi].rows;
		for (size_t i = 0; i < L->ctx.files[fi].nrows; i++)
			all[k++] = &rows[i];
	}
	for (size_t i = 0; all && done && i < total; i++) {
		const struct f8b_lls_row *a = all[i];
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
		fprintf(f, "| %.16s | ", a->status);
		f8b_rpt_md_str(f, a->recipe);
		char im[F8B_STR + 1];
		fprintf(f, " | %s", f8b_lrpt_impl(a, im));
		char lanes[16] = "-"; /* 0: not recorded */
		if (a->lanes)
			snprintf(lanes, sizeof lanes, "%d", (int)a->lanes);
		fprintf(f, " | %s | %s | %d | ", a->graph ? "on" : "off", lanes, count);
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

int f8b_lrpt_markdown(void *state, FILE *f, bool drawn)
{
	const struct lrpt *L = state;
	fprintf(f,
	        "## lls: LayerNorm -> Linear -> Sigmoid training step\n\n%zu lls rows, %zu with "
	        "status `ok`, from %d file%s; %zu kernel rows (`lls_kernels`).\n\n",
	        L->nrows_total, L->npts, L->ctx.nfiles, L->ctx.nfiles == 1 ? "" : "s",
	        L->nkern_total);
	if (L->kernel_note[0]) {
		fprintf(f, "> **Note:** the kernels of these files could not be read: ");
		f8b_rpt_md_str(f, L->kernel_note);
		fprintf(f, "\n\n");
	}
	if (L->unpaired)
		fprintf(f,
		        "> **Note:** %zu ok rows have no kernels in `lls_kernels` (a file "
		        "without the table, or rows written without their kernels).\n\n",
		        L->unpaired);

	fprintf(f, "## lls: fp8 step speedup over bf16\n\n");
	if (L->npts) {
		f8b_rpt_md_plot(f, "lls_speedup", "lls step speedup over bf16", drawn);
		fprintf(f, "[lls-speedup.dat](lls-speedup.dat), [lls.csv](lls.csv)%s\n\n",
		        drawn ? "" : "*");
	}
	fprintf(f,
	        "speedup = bf16 step / fp8 step, both measured in the same process; "
	        "predicted speedup = the bf16 step's roofline prediction / this step's "
	        "(GEMMs at the GEMM peak, every other kernel at the memory bandwidth); "
	        "%% of roofline = 100 x predicted / measured.%s%s\n\n",
	        L->has_pred ? ""
	                    : "  No row has a roofline prediction (no ceilings for its device).",
	        !L->other_impl ? ""
	                       : "  GEMMs: the implementation of the step's fp8 GEMMs "
	                         "(`--gemm-impl`; a recipe's series is marked `[f8b]` where "
	                         "they ran on f8bench's own kernel); a bf16 GEMM runs on "
	                         "cuBLASLt in every step.");
	if (L->npts)
		rows_table(L, f);
	if (L->has_pct) {
		fprintf(f, "## lls: step %% of roofline\n\n");
		f8b_rpt_md_plot(f, "lls_roofline", "lls step % of roofline", drawn);
		fprintf(f, "[lls-speedup.dat](lls-speedup.dat)%s\n\n", drawn ? "" : "*");
	}
	breakdown(L, f, drawn);
	not_plotted(L, f);
	return ferror(f) ? F8B_ERR(F8B_EIO, "writing report.md failed (disk full?)") : F8B_OK;
}
