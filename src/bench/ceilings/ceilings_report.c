/* ceilings_report.c - the ceilings benchmark's report module: bandwidth
 * (read, write, copy) against working set with the L2 size and the HBM
 * plateau marked, collectives' bus bandwidth against message size, and
 * tables of the GEMM peaks and the launch cost.  Templates:
 * roofline/bandwidth.gp and roofline/collectives.gp (doc/report.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/roofline.h"
#include "report/report.h"
#include "results/schema.h"

#define NBW   3 /* read, write, copy */
#define NCOLL 2 /* allgather, allreduce */

static const char *const bw_kinds[NBW] = {"read", "write", "copy"};
static const char *const coll_kinds[NCOLL] = {"allgather", "allreduce"};

struct ceil_report {
	const struct f8b_report_ctx *ctx;
	/* ok rows, of every file, by kind */
	const struct f8b_ceilings_row **bw[NBW], **coll[NCOLL], **other;
	size_t nbw[NBW], ncoll[NCOLL], nother;
	double l2_bytes;    /* from the provenance; NaN unknown */
	double hbm_plateau; /* bytes/s, the model's reading of the copy rows */
	char hbm_from[160]; /* where hbm_plateau was read */
	bool drew_bw, drew_coll;
};

static bool is(const char *col, size_t n, const char *want)
{
	return strncmp(col, want, n) == 0 && strlen(want) < n;
}
#define COL_IS(r, col, want) is((r)->col, sizeof(r)->col, (want))

static int cmp_bytes(const void *a, const void *b)
{
	const struct f8b_ceilings_row *x = *(const struct f8b_ceilings_row *const *)a;
	const struct f8b_ceilings_row *y = *(const struct f8b_ceilings_row *const *)b;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* A collective's variant: its buffers, CTA policy and placement, in the
 * order the sweep runs them.  Rows written before those columns were
 * plain, NCCL's default policy and out of place. */
static const char *const buf_order[] = {"plain", "registered", "symmetric"};
static const char *const cta_order[] = {"default", "efficiency", "zero"};

static int rank_of(const char *v, size_t n, const char *const *order, int norder)
{
	for (int i = 0; i < norder; i++)
		if (is(v, n, order[i]))
			return i;
	return v[0] ? norder : 0; /* "" (older files): the first */
}

static int variant_of(const struct f8b_ceilings_row *r)
{
	int b = rank_of(r->nccl_buffers, sizeof r->nccl_buffers, buf_order, 3);
	int p = rank_of(r->cta_policy, sizeof r->cta_policy, cta_order, 3);
	return (b * 4 + p) * 2 + !r->in_place;
}

static void variant_name(const struct f8b_ceilings_row *r, char *buf, size_t n)
{
	snprintf(buf, n, "%.16s, %.16s CTAs, %s", r->nccl_buffers[0] ? r->nccl_buffers : "plain",
	         r->cta_policy[0] ? r->cta_policy : "default",
	         r->in_place ? "in place" : "out of place");
}

/* By variant, then size: each variant is one line of the plot. */
static int cmp_variant_bytes(const void *a, const void *b)
{
	const struct f8b_ceilings_row *x = *(const struct f8b_ceilings_row *const *)a;
	const struct f8b_ceilings_row *y = *(const struct f8b_ceilings_row *const *)b;
	int vx = variant_of(x), vy = variant_of(y);
	if (vx != vy)
		return (vx > vy) - (vx < vy);
	return cmp_bytes(a, b);
}

static int collect(struct ceil_report *C)
{
	const struct f8b_report_ctx *ctx = C->ctx;
	size_t total = 0;
	for (int f = 0; f < ctx->nfiles; f++)
		total += ctx->files[f].nrows;
	for (int k = 0; k < NBW; k++)
		C->bw[k] = calloc(total + 1, sizeof *C->bw[k]);
	for (int k = 0; k < NCOLL; k++)
		C->coll[k] = calloc(total + 1, sizeof *C->coll[k]);
	C->other = calloc(total + 1, sizeof *C->other);
	for (int k = 0; k < NBW; k++)
		if (!C->bw[k])
			return F8B_ERR(F8B_ENOMEM, "ceilings report: %zu rows", total);
	if (!C->coll[0] || !C->coll[1] || !C->other)
		return F8B_ERR(F8B_ENOMEM, "ceilings report: %zu rows", total);
	for (int f = 0; f < ctx->nfiles; f++) {
		const struct f8b_ceilings_row *rows = ctx->files[f].rows;
		for (size_t i = 0; i < ctx->files[f].nrows; i++) {
			const struct f8b_ceilings_row *r = &rows[i];
			bool placed = false;
			if (!COL_IS(r, status, F8B_ROW_OK))
				continue;
			for (int k = 0; k < NBW && !placed; k++)
				if ((placed = COL_IS(r, kind, bw_kinds[k])))
					C->bw[k][C->nbw[k]++] = r;
			for (int k = 0; k < NCOLL && !placed; k++)
				if ((placed = COL_IS(r, kind, coll_kinds[k])))
					C->coll[k][C->ncoll[k]++] = r;
			if (!placed)
				C->other[C->nother++] = r;
		}
	}
	for (int k = 0; k < NBW; k++)
		qsort(C->bw[k], C->nbw[k], sizeof *C->bw[k], cmp_bytes);
	for (int k = 0; k < NCOLL; k++)
		qsort(C->coll[k], C->ncoll[k], sizeof *C->coll[k], cmp_variant_bytes);
	return F8B_OK;
}

/* The L2 size (provenance l2_bytes) and the HBM plateau as the roofline
 * model reads it from the first file with copy rows. */
static void plateaus(struct ceil_report *C)
{
	C->l2_bytes = C->hbm_plateau = NAN;
	for (int f = 0; f < C->ctx->nfiles && isnan(C->l2_bytes); f++) {
		const char *l2 = f8b_prov_get(&C->ctx->files[f].prov, "l2_bytes");
		if (l2 && atof(l2) > 0)
			C->l2_bytes = atof(l2);
	}
	for (int f = 0; f < C->ctx->nfiles && isnan(C->hbm_plateau); f++) {
		struct f8b_ceilings c;
		if (!C->ctx->files[f].nrows ||
		    f8b_ceilings_read(C->ctx->files[f].path, NULL, &c) != F8B_OK)
			continue;
		if (f8b_rpt_finite_pos(c.hbm_bytes_per_s)) {
			C->hbm_plateau = c.hbm_bytes_per_s;
			snprintf(C->hbm_from, sizeof C->hbm_from, "%s", C->ctx->files[f].path);
		}
	}
	f8b_clear_error();
}

/* One gnuplot index block per kind: bytes, GB/s, datasheet GB/s. */
static int write_blocks(const char *dir, const char *name, const char *what,
                        const struct f8b_ceilings_row **const *rows, const size_t *n,
                        const char *const *kinds, int nk)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(dir, &o, name));
	f8b_rpt_dat_header(o.f, what, "bytes GB/s datasheet_GB/s");
	for (int k = 0; k < nk; k++) {
		fprintf(o.f, "# %s\n", kinds[k]);
		for (size_t i = 0; i < n[k]; i++) {
			fprintf(o.f, "%lld %.6g ", (long long)rows[k][i]->bytes,
			        rows[k][i]->value / 1e9);
			f8b_rpt_gp_num(o.f, rows[k][i]->datasheet_value / 1e9);
			fputc('\n', o.f);
		}
		/* An empty block still needs its separator, so indexes stay put. */
		fprintf(o.f, "%s\n\n", n[k] ? "" : "NaN NaN NaN");
	}
	return f8b_rpt_close(&o, F8B_OK);
}

/* collectives.dat: one index block per (kind, variant), bytes, busbw
 * GB/s, datasheet GB/s; ceilings-vars.gp names each block (c_coll_n,
 * c_coll_title[i], c_coll_kind[i]: 0 all-gather, 1 all-reduce). */
static int write_coll(const struct ceil_report *C, FILE *vars)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(C->ctx->dir, &o, "collectives.dat"));
	f8b_rpt_dat_header(o.f, "bus bandwidth per message size, a block per op and variant",
	                   "bytes GB/s datasheet_GB/s");
	int nb = 0;
	char titles[64][96];
	int kinds[64];
	for (int k = 0; k < NCOLL; k++)
		for (size_t i = 0; i < C->ncoll[k]; i++) {
			const struct f8b_ceilings_row *r = C->coll[k][i];
			bool first = i == 0 || variant_of(C->coll[k][i - 1]) != variant_of(r);
			if (first && nb > 0)
				fprintf(o.f, "\n\n");
			if (first) {
				char v[80];
				variant_name(r, v, sizeof v);
				fprintf(o.f, "# %s: %s\n", coll_kinds[k], v);
				if (nb < 64) {
					snprintf(titles[nb], sizeof titles[nb], "%s: %s",
					         k ? "all-reduce" : "all-gather", v);
					kinds[nb] = k;
				}
				nb++;
			}
			fprintf(o.f, "%lld %.6g ", (long long)r->bytes, r->value / 1e9);
			f8b_rpt_gp_num(o.f, r->datasheet_value / 1e9);
			fputc('\n', o.f);
		}
	if (nb == 0)
		fprintf(o.f, "NaN NaN NaN\n");
	if (nb > 64)
		nb = 64; /* the plot's legend stops there; the table has every row */
	fprintf(vars, "c_coll_n = %d\narray c_coll_title[%d]\narray c_coll_kind[%d]\n", nb,
	        nb ? nb : 1, nb ? nb : 1);
	for (int i = 0; i < nb; i++) {
		fprintf(vars, "c_coll_title[%d] = ", i + 1);
		f8b_rpt_gp_str(vars, titles[i]);
		fprintf(vars, "\nc_coll_kind[%d] = %d\n", i + 1, kinds[i]);
	}
	return f8b_rpt_close(&o, F8B_OK);
}

static int write_vars(const struct ceil_report *C)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(C->ctx->dir, &o, "ceilings-vars.gp"));
	fprintf(o.f, "# f8bench report: what roofline/bandwidth.gp and collectives.gp plot.\n");
	fprintf(o.f, "c_gpu = ");
	f8b_rpt_gp_str(o.f, C->ctx->gpu);
	fprintf(o.f, "\nc_date = ");
	f8b_rpt_gp_str(o.f, C->ctx->date);
	fprintf(o.f, "\nc_l2_bytes = ");
	f8b_rpt_gp_num(o.f, C->l2_bytes);
	fprintf(o.f, "\nc_hbm_gbs = ");
	f8b_rpt_gp_num(o.f, C->hbm_plateau / 1e9);
	fprintf(o.f, "\n");
	return f8b_rpt_close(&o, write_coll(C, o.f));
}

static int write_csv(const struct ceil_report *C)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(C->ctx->dir, &o, "ceilings.csv"));
	fprintf(o.f, "kind,dtype,bytes,m,k,n,ranks,value,unit,datasheet_value,time_median_s,"
	             "nccl_buffers,cta_policy,in_place\n");
	const struct f8b_ceilings_row **const groups[] = {C->bw[0],   C->bw[1],   C->bw[2],
	                                                  C->coll[0], C->coll[1], C->other};
	const size_t counts[] = {C->nbw[0],   C->nbw[1],   C->nbw[2],
	                         C->ncoll[0], C->ncoll[1], C->nother};
	for (size_t g = 0; g < sizeof counts / sizeof *counts; g++)
		for (size_t i = 0; i < counts[g]; i++) {
			const struct f8b_ceilings_row *r = groups[g][i];
			fprintf(o.f, "%.16s,%.16s,%lld,%lld,%lld,%lld,%d,", r->kind, r->dtype,
			        (long long)r->bytes, (long long)r->m, (long long)r->k,
			        (long long)r->n, (int)r->ranks);
			f8b_rpt_csv_num(o.f, r->value);
			fprintf(o.f, ",%.16s,", r->unit);
			f8b_rpt_csv_num(o.f, r->datasheet_value);
			fputc(',', o.f);
			f8b_rpt_csv_num(o.f, r->time_median_s);
			fprintf(o.f, ",%.16s,%.16s,%d\n", r->nccl_buffers, r->cta_policy,
			        (int)r->in_place);
		}
	return f8b_rpt_close(&o, F8B_OK);
}

static void ceil_release(void *state)
{
	struct ceil_report *C = state;
	if (!C)
		return;
	for (int k = 0; k < NBW; k++)
		free(C->bw[k]);
	for (int k = 0; k < NCOLL; k++)
		free(C->coll[k]);
	free(C->other);
	free(C);
}

static int ceil_prepare(const struct f8b_report_ctx *ctx, void **state, const char **plots,
                        size_t *plotted)
{
	struct ceil_report *C = calloc(1, sizeof *C);
	int np = 0;
	*state = C;
	*plotted = 0;
	if (!C)
		return F8B_ERR(F8B_ENOMEM, "ceilings report");
	C->ctx = ctx;
	F8B_TRY(collect(C));
	plateaus(C);
	F8B_TRY(write_vars(C));
	F8B_TRY(write_csv(C));
	F8B_TRY(
	    write_blocks(ctx->dir, "bandwidth.dat", "bandwidth per working set (read, write, copy)",
	                 (const struct f8b_ceilings_row **const *)C->bw, C->nbw, bw_kinds, NBW));
	size_t nbw = C->nbw[0] + C->nbw[1] + C->nbw[2], ncoll = C->ncoll[0] + C->ncoll[1];
	if ((C->drew_bw = nbw > 0))
		plots[np++] = "bandwidth";
	if ((C->drew_coll = ncoll > 0))
		plots[np++] = "collectives";
	plots[np] = NULL;
	*plotted = nbw + ncoll;
	return F8B_OK;
}

static void md_bw_table(const struct ceil_report *C, FILE *f)
{
	fprintf(
	    f, "| working set | read GB/s | write GB/s | copy GB/s |\n| --- | --- | --- | --- |\n");
	/* Rows by working set: the sizes of the copy sweep (else of read). */
	int ref = C->nbw[2] ? 2 : C->nbw[0] ? 0 : 1;
	for (size_t i = 0; i < C->nbw[ref]; i++) {
		int64_t b = C->bw[ref][i]->bytes;
		fprintf(f, "| %.4g MiB |", (double)b / (1 << 20));
		for (int k = 0; k < NBW; k++) {
			double v = NAN;
			for (size_t j = 0; j < C->nbw[k]; j++)
				if (C->bw[k][j]->bytes == b)
					v = C->bw[k][j]->value / 1e9;
			fputc(' ', f);
			f8b_rpt_md_num(f, "%.1f", v);
			fprintf(f, " |");
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static int ceil_markdown(void *state, FILE *f, bool drawn)
{
	const struct ceil_report *C = state;
	fprintf(f, "## Ceilings\n\n");
	if (C->drew_bw) {
		fprintf(f, "### Bandwidth against working set\n\n");
		f8b_rpt_md_plot(f, "bandwidth", "bandwidth per working set", drawn);
		fprintf(
		    f, "data: [bandwidth.dat](bandwidth.dat), [ceilings.csv](ceilings.csv).  L2: ");
		f8b_rpt_md_num(f, "%.0f MiB", C->l2_bytes / (1 << 20));
		fprintf(f, "; HBM plateau (median copy bandwidth of the three largest working "
		           "sets, the roofline's bandwidth): ");
		f8b_rpt_md_num(f, "%.0f GB/s", C->hbm_plateau / 1e9);
		fprintf(f, ".\n\n");
		md_bw_table(C, f);
	}
	if (C->nother) {
		fprintf(f,
		        "### GEMM peaks and launch cost\n\n| what | value | datasheet | time per "
		        "launch |\n| --- | --- | --- | --- |\n");
		for (size_t i = 0; i < C->nother; i++) {
			const struct f8b_ceilings_row *r = C->other[i];
			bool gemm = COL_IS(r, kind, "gemm");
			double scale = gemm ? 1e12 : 1e-6;
			const char *unit = gemm ? "TFLOP/s" : "us";
			if (gemm)
				fprintf(f, "| gemm %.16s %lldx%lldx%lld | ", r->dtype,
				        (long long)r->m, (long long)r->k, (long long)r->n);
			else
				fprintf(f, "| %.16s | ", r->kind);
			f8b_rpt_md_num(f, "%.4g", r->value / scale);
			fprintf(f, " %s | ", unit);
			f8b_rpt_md_num(f, "%.4g", r->datasheet_value / scale);
			fprintf(f, " | ");
			f8b_rpt_md_num(f, "%.4g ms", 1e3 * r->time_median_s);
			fprintf(f, " |\n");
		}
		fputc('\n', f);
	}
	if (C->drew_coll) {
		fprintf(f, "### Collectives: bus bandwidth against message size\n\n");
		f8b_rpt_md_plot(f, "collectives", "collectives bus bandwidth", drawn);
		fprintf(f, "data: [collectives.dat](collectives.dat).  busbw by nccl-tests' "
		           "definitions (doc/roofline.md); a line per buffer mode, CTA policy "
		           "and placement.\n\n| op | buffers, CTAs, placement | ranks | bytes | "
		           "busbw GB/s | time |\n| --- | --- | --- | --- | --- | --- |\n");
		for (int k = 0; k < NCOLL; k++)
			for (size_t i = 0; i < C->ncoll[k]; i++) {
				const struct f8b_ceilings_row *r = C->coll[k][i];
				char v[80];
				variant_name(r, v, sizeof v);
				fprintf(f, "| %s | %s | %d | %lld | ", coll_kinds[k], v,
				        (int)r->ranks, (long long)r->bytes);
				f8b_rpt_md_num(f, "%.1f", r->value / 1e9);
				fprintf(f, " | ");
				f8b_rpt_md_num(f, "%.4g us", 1e6 * r->time_median_s);
				fprintf(f, " |\n");
			}
		fputc('\n', f);
	}
	return ferror(f) ? F8B_ERR(F8B_EIO, "writing report.md failed (disk full?)") : F8B_OK;
}

const struct f8b_report_module f8b_ceilings_report = {
    .prepare = ceil_prepare,
    .markdown = ceil_markdown,
    .release = ceil_release,
    .help = "  bandwidth.png/.svg    read/write/copy bandwidth against working set, L2 size\n"
            "                        and HBM plateau marked\n"
            "  collectives.png/.svg  all-gather / all-reduce bus bandwidth against size\n"
            "  ceilings.csv, *.dat   the data; report.md: GEMM peaks, launch cost\n",
};
