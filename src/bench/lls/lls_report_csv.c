/* lls_report_csv.c - the lls report's CSV files (lls_report.h): lls.csv,
 * every row of every file, and lls-kernels.csv, the kernels of every ok row
 * with the category the breakdown colours them by. */
#include "bench/lls/lls_report.h"

#include <math.h>
#include <stdio.h>

static void csv_i(FILE *f, long long v)
{
	fprintf(f, "%lld,", v);
}
static void csv_d(FILE *f, double v)
{
	f8b_rpt_csv_num(f, v);
	fputc(',', f);
}
static void csv_s(FILE *f, const char *s)
{
	f8b_rpt_csv_str(f, s);
	fputc(',', f);
}

/* lls.csv: every row of every file (ok or not); lls-kernels.csv: the
 * kernels of every ok row, with the category the breakdown colours. */
int f8b_lrpt_write_csv(const struct lrpt *L)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(L->ctx.dir, &o, "lls.csv"));
	fprintf(o.f, "m,k,n,label,recipe,gemm_impl,graph,lanes,status,time_median_s,"
	             "bf16_time_median_s,"
	             "speedup_vs_bf16,predicted_time_s,predicted_speedup,pct_of_roofline,"
	             "kernels_time_s,gemm_time_s,sqnr_y_db,sqnr_grad_x_db,sqnr_grad_w_db,"
	             "peak_mem_bytes,saved_bytes,run_id,file,message\n");
	for (int f = 0; f < L->ctx.nfiles; f++) {
		const struct f8b_lls_row *rows = L->ctx.files[f].rows;
		for (size_t j = 0; j < L->ctx.files[f].nrows; j++) {
			const struct f8b_lls_row *r = &rows[j];
			const struct lrpt_point *p = NULL;
			for (size_t i = 0; i < L->npts && !p; i++)
				if (L->pts[i].r == r)
					p = &L->pts[i];
			csv_i(o.f, (long long)r->m);
			csv_i(o.f, (long long)r->k);
			csv_i(o.f, (long long)r->n);
			csv_s(o.f, r->label);
			csv_s(o.f, r->recipe);
			char im[F8B_STR + 1];
			csv_s(o.f, f8b_lrpt_impl(r, im));
			csv_i(o.f, r->graph);
			csv_i(o.f, r->lanes);
			csv_s(o.f, r->status);
			const double v[] = {r->time_median_s,
			                    r->bf16_time_median_s,
			                    p ? p->speedup : NAN,
			                    r->predicted_time_s,
			                    p ? p->pred_speedup : NAN,
			                    r->pct_of_roofline,
			                    r->kernels_time_s,
			                    r->gemm_time_s,
			                    r->sqnr_y_db,
			                    r->sqnr_grad_x_db,
			                    r->sqnr_grad_w_db};
			for (size_t k = 0; k < sizeof v / sizeof *v; k++)
				csv_d(o.f, v[k]);
			csv_i(o.f, (long long)r->peak_mem_bytes);
			csv_i(o.f, (long long)r->saved_bytes);
			csv_i(o.f, r->run_id);
			csv_s(o.f, L->ctx.files[f].path);
			f8b_rpt_csv_str(o.f, r->message);
			fputc('\n', o.f);
		}
	}
	F8B_TRY(f8b_rpt_close(&o, F8B_OK));

	F8B_TRY(f8b_rpt_open(L->ctx.dir, &o, "lls-kernels.csv"));
	fprintf(o.f,
	        "m,k,n,recipe,gemm_impl,graph,lanes,index,kernel,category,tensor,pass,fuses,"
	        "dtype,bytes,flops,time_median_s,share_of_kernels,in_step_median_s,gbps,pct_of_bw,"
	        "tflops,predicted_time_s,pct_of_roofline,run_id,file\n");
	for (size_t i = 0; i < L->npts; i++) {
		const struct lrpt_point *p = &L->pts[i];
		for (size_t k = 0; k < p->nkern; k++) {
			const struct f8b_lls_kernel_row *kr = &p->kern[k];
			csv_i(o.f, (long long)kr->m);
			csv_i(o.f, (long long)kr->k);
			csv_i(o.f, (long long)kr->n);
			csv_s(o.f, kr->recipe);
			csv_s(o.f, L->series[p->series].impl);
			csv_i(o.f, p->r->graph);
			csv_i(o.f, p->r->lanes);
			csv_i(o.f, kr->index);
			csv_s(o.f, kr->kernel);
			csv_s(o.f, f8b_lrpt_cat_names[f8b_lrpt_category(kr->kernel)]);
			csv_s(o.f, kr->tensor);
			csv_s(o.f, kr->pass);
			csv_s(o.f, kr->fuses);
			csv_s(o.f, kr->dtype);
			const double v[] = {kr->bytes,
			                    kr->flops,
			                    kr->time_median_s,
			                    f8b_rpt_finite_pos(p->r->kernels_time_s)
			                        ? kr->time_median_s / p->r->kernels_time_s
			                        : NAN,
			                    kr->in_step_median_s,
			                    kr->gbps,
			                    kr->pct_of_bw,
			                    kr->tflops,
			                    kr->predicted_time_s,
			                    kr->pct_of_roofline};
			for (size_t j = 0; j < sizeof v / sizeof *v; j++)
				csv_d(o.f, v[j]);
			csv_i(o.f, kr->run_id);
			f8b_rpt_csv_str(o.f, L->ctx.files[p->file].path);
			fputc('\n', o.f);
		}
	}
	return f8b_rpt_close(&o, F8B_OK);
}
