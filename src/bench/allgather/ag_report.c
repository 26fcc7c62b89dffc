/* ag_report.c - the allgather benchmark's report module: fp8 speedup over
 * bf16 and exposed communication against tokens per rank, all-gather bus
 * bandwidth against message size beside NCCL's own (a ceilings file), and
 * the projection past one node (src/model/project.c) with its check
 * against every measured rank count.  Templates: roofline/ag_speedup.gp,
 * ag_busbw.gp, ag_projection.gp; the Markdown is ag_report_md.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_report.h"

const int f8b_arpt_ranks[ARPT_NR] = {8, 16, 32, 64, 128, 256, 512, 1024};

static const char *or_dflt(const char *s, const char *d)
{
	return *s ? s : d;
}

/* The collectives' variant, one number to sort by: buffers, policy,
 * placement ("" in older files: plain, default; in_place 0). */
static int variant_key(const struct f8b_allgather_row *r)
{
	int b = f8b_coll_name_index(f8b_coll_buffers_names, F8B_COLL_BUF_N,
	                            or_dflt(r->nccl_buffers, "plain"));
	int p = f8b_coll_name_index(f8b_coll_cta_names, F8B_COLL_CTA_N,
	                            or_dflt(r->cta_policy, "default"));
	int rb =
	    f8b_coll_name_index(f8b_coll_buffers_names, F8B_COLL_BUF_N,
	                        or_dflt(r->rs_nccl_buffers, or_dflt(r->nccl_buffers, "plain")));
	/* and the optimizer on the shards ("" in older files: none, after) */
	int o = 0;
	for (int i = 0; i < F8B_OPTIM_VARIANT_COUNT; i++)
		if (!strncmp(r->optimizer, f8b_optim_variant_name((enum f8b_optim_variant)i),
		             sizeof r->optimizer))
			o = i + 1;
	int u = !strcmp(r->update, "overlap");
	int key = (((o * 2 + u) * 8 + b + 1) * 8 + (p + 1)) * 2 + (r->in_place != 0);
	key = (key * 4 + (rb + 1)) * (AG_MAX_RS_CTAS + 1) + r->rs_max_ctas;
	key = (key * 2 + !strcmp(r->comm_priority, "high")) * (AG_MAX_SM_MARGIN + 1) +
	      r->gemm_sm_margin;
	return key * 2 + !strcmp(r->rs_stream, "own");
}

void f8b_arpt_variant(const struct f8b_allgather_row *r, char *buf, size_t n)
{
	char extra[160];
	f8b_ag_comm_extra(r, extra, sizeof extra);
	bool opt = *r->optimizer && strcmp(r->optimizer, "none");
	snprintf(buf, n, "%s, %s CTAs, %s%s%s%s%s%s", or_dflt(r->nccl_buffers, "plain"),
	         or_dflt(r->cta_policy, "default"), r->in_place ? "in place" : "out of place",
	         extra, opt ? ", adamw " : "", opt ? r->optimizer : "", opt ? " " : "",
	         opt ? r->update : "");
}

/* A ceilings row of the gathers' variant of r: buffers, policy, placement. */
static bool same_variant(const struct f8b_ceilings_row *c, const struct f8b_allgather_row *r)
{
	return !strcmp(or_dflt(c->nccl_buffers, "plain"), or_dflt(r->nccl_buffers, "plain")) &&
	       !strcmp(or_dflt(c->cta_policy, "default"), or_dflt(r->cta_policy, "default")) &&
	       (c->in_place != 0) == (r->in_place != 0);
}

/* The ceilings file's all-gathers of one variant, by size: the variant of
 * the first multi-rank row (what the plot's rows ran), else the file's
 * first.  A file sweeps every buffer mode, policy and placement, and one
 * line through all of them would zig-zag between variants.  Writes the
 * block (after a blank pair when `after`), and its title to vars. */
static int nccl_series(const struct arpt *A, FILE *dat, FILE *vars, bool after)
{
	const struct f8b_ceilings_row *want = &A->nccl[0];
	for (size_t i = 0; i < A->n; i++)
		if (A->rows[i]->ranks > 1) {
			for (size_t j = 0; j < A->nnccl; j++)
				if (same_variant(&A->nccl[j], A->rows[i])) {
					want = &A->nccl[j];
					break;
				}
			break;
		}
	const char *wb = or_dflt(want->nccl_buffers, "plain"),
	           *wp = or_dflt(want->cta_policy, "default");
	int64_t last = -1;
	int k = 0;
	for (;;) { /* the next larger size of the variant (a file holds each once) */
		const struct f8b_ceilings_row *next = NULL;
		for (size_t j = 0; j < A->nnccl; j++) {
			const struct f8b_ceilings_row *c = &A->nccl[j];
			if (strcmp(or_dflt(c->nccl_buffers, "plain"), wb) ||
			    strcmp(or_dflt(c->cta_policy, "default"), wp) ||
			    (c->in_place != 0) != (want->in_place != 0) || c->bytes <= last)
				continue;
			if (!next || c->bytes < next->bytes)
				next = c;
		}
		if (!next)
			break;
		if (!k++ && after)
			fprintf(dat, "\n\n");
		fprintf(dat, "%lld %.6g NaN\n", (long long)next->bytes, next->value / 1e9);
		last = next->bytes;
	}
	fprintf(vars, "nccl_title = \"NCCL all-gather alone, %s, %s CTAs, %s (ceilings file)\"\n",
	        wb, wp, want->in_place ? "in place" : "out of place");
	return k;
}

/* Rows of one setting (weight, layers, prefetch, rs dtype, ranks, and how
 * the collectives ran). */
static bool same_case_but_ranks(const struct f8b_allgather_row *a,
                                const struct f8b_allgather_row *b)
{
	return a->d_out == b->d_out && a->d_in == b->d_in && a->layers == b->layers &&
	       a->prefetch == b->prefetch && !strcmp(a->rs_dtype, b->rs_dtype) &&
	       variant_key(a) == variant_key(b);
}

bool f8b_arpt_same_setting(const struct f8b_allgather_row *a, const struct f8b_allgather_row *b)
{
	return same_case_but_ranks(a, b) && a->ranks == b->ranks;
}

static int cmp_rows(const void *x, const void *y)
{
	const struct f8b_allgather_row *a = *(const struct f8b_allgather_row *const *)x,
	                               *b = *(const struct f8b_allgather_row *const *)y;
	int64_t ka[] = {a->d_out * a->d_in,
	                a->d_out,
	                a->layers,
	                a->prefetch,
	                variant_key(a),
	                a->ranks,
	                f8b_ag_mode_of(a->mode) * F8B_GEMM_IMPL_COUNT + f8b_ag_row_impl(a),
	                a->tokens_per_rank};
	int64_t kb[] = {b->d_out * b->d_in,
	                b->d_out,
	                b->layers,
	                b->prefetch,
	                variant_key(b),
	                b->ranks,
	                f8b_ag_mode_of(b->mode) * F8B_GEMM_IMPL_COUNT + f8b_ag_row_impl(b),
	                b->tokens_per_rank};
	for (int i = 0; i < 8; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return strcmp(a->rs_dtype, b->rs_dtype);
}

/* Where the ok bf16 row of r's case is in A->rows, or A->n. */
size_t f8b_arpt_bf16_of(const struct arpt *A, const struct f8b_allgather_row *r)
{
	size_t i = 0;
	for (; i < A->n; i++) {
		const struct f8b_allgather_row *b = A->rows[i];
		if (!strcmp(b->mode, "bf16") && f8b_arpt_same_setting(b, r) &&
		    b->tokens_per_rank == r->tokens_per_rank && !strcmp(b->status, "ok"))
			break;
	}
	return i;
}

/* ---- the projection's inputs ------------------------------------------------ */

/* The node's all-gather: a ceilings file's NCCL rows, else these rows'
 * own standalone gathers (2+ ranks), else an assumption (said so). */
static void intra_link(struct arpt *A)
{
	A->intra = (struct f8b_proj_link){370e9, 10e-6};
	snprintf(A->intra_src, sizeof A->intra_src, "assumed (no measured all-gather of 2+ ranks)");
	void *rows = NULL;
	size_t n = 0;
	if (A->ctx.ceilings_path &&
	    f8b_results_read(A->ctx.ceilings_path, &f8b_ceilings_schema, &rows, &n) == F8B_OK) {
		const struct f8b_ceilings_row *c = rows, *big = NULL, *small = NULL;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(c[i].kind, "allgather") || strcmp(c[i].status, "ok") ||
			    c[i].ranks < 2 || !f8b_rpt_finite_pos(c[i].value))
				continue;
			if (!big || c[i].bytes > big->bytes)
				big = &c[i];
			if (!small || c[i].bytes < small->bytes)
				small = &c[i];
		}
		if (big) {
			A->intra.busbw = big->value;
			A->intra.alpha_s = small->time_median_s / (small->ranks - 1);
			snprintf(
			    A->intra_src, sizeof A->intra_src,
			    "%s: NCCL all-gather on %d ranks, busbw at %lld B, alpha from %lld B",
			    A->ctx.ceilings_path, (int)big->ranks, (long long)big->bytes,
			    (long long)small->bytes);
			A->nccl = calloc(n, sizeof *A->nccl);
			for (size_t i = 0; A->nccl && i < n; i++)
				if (!strcmp(c[i].kind, "allgather") && !strcmp(c[i].status, "ok") &&
				    c[i].ranks == big->ranks)
					A->nccl[A->nnccl++] = c[i];
			/* The default variant of the file stands for the node
			 * unless a row's own variant was measured (intra_of). */
		}
	}
	free(rows);
	if (A->nnccl)
		return;
	double best = 0;
	for (size_t i = 0; i < A->n; i++)
		if (A->rows[i]->ranks > 1 && !strcmp(A->rows[i]->status, "ok") &&
		    A->rows[i]->ag_busbw_gbps > best)
			best = A->rows[i]->ag_busbw_gbps;
	if (best > 0) {
		A->intra = (struct f8b_proj_link){best * 1e9, 10e-6};
		snprintf(A->intra_src, sizeof A->intra_src,
		         "these rows' standalone all-gathers (best busbw), alpha assumed 10 us");
	}
}

void f8b_arpt_step_of(const struct f8b_allgather_row *r, struct f8b_proj_step *st)
{
	memset(st, 0, sizeof *st);
	int L = r->layers < F8B_PROJ_MAX_LAYERS ? r->layers : F8B_PROJ_MAX_LAYERS;
	double nk = (double)r->d_out * (double)r->d_in, c = r->compute_time_s / (3.0 * L);
	int mode = f8b_ag_mode_of(r->mode);
	st->layers = L;
	st->prefetch = r->prefetch;
	for (int l = 0; l < L; l++) {
		st->fwd_s[l] = st->gi_s[l] = st->gw_s[l] = c;
		st->rs_bytes[l] = nk * (strcmp(r->rs_dtype, "f32") ? 2 : 4);
	}
	for (int u = 0; u < 2 * L; u++) {
		bool fwd = u < L;
		int l = fwd ? u : 2 * L - 1 - u;
		st->ag_bytes[u] = f8b_ag_gather_bytes_of(mode, l % 2 ? r->d_in : r->d_out,
		                                         l % 2 ? r->d_out : r->d_in, fwd);
	}
	st->amax_allreduce = mode == AG_FP8_AG;
	double s = 100.0 / r->gemm_kept_pct;
	st->slowdown = isfinite(s) && s > 1 ? s : 1;
	/* The collectives as measured alone in this row, scaled by bytes (the
	 * row times the largest gather's data and dW), for the check at the
	 * row's own rank count. */
	double agb = r->ag_bytes, rsb = r->rs_bytes;
	for (int u = 0; u < 2 * L; u++)
		st->ag_s[u] = f8b_rpt_finite_pos(agb) ? r->ag_time_s * st->ag_bytes[u] / agb : 0;
	for (int l = 0; l < L; l++)
		st->rs_s[l] = f8b_rpt_finite_pos(rsb) ? r->rs_time_s * st->rs_bytes[l] / rsb : 0;
	st->ar_s = isfinite(r->amax_allreduce_s) ? r->amax_allreduce_s : 0;
}

/* The node's all-gather for a row's variant (buffers, policy, placement):
 * the ceilings file's rows of that variant when it has them (busbw at the
 * largest size, alpha from the smallest), else the file's best guess
 * (A->intra). */
static struct f8b_proj_link intra_of(const struct arpt *A, const struct f8b_allgather_row *r)
{
	const struct f8b_ceilings_row *big = NULL, *small = NULL;
	for (size_t i = 0; i < A->nnccl; i++) {
		const struct f8b_ceilings_row *c = &A->nccl[i];
		if (!same_variant(c, r))
			continue;
		if (!big || c->bytes > big->bytes)
			big = c;
		if (!small || c->bytes < small->bytes)
			small = c;
	}
	if (!big)
		return A->intra;
	return (struct f8b_proj_link){big->value, small->time_median_s / (small->ranks - 1)};
}

/* The same case measured on the fewest ranks below r's, or NULL. */
static const struct f8b_allgather_row *fewer_ranks(const struct arpt *A,
                                                   const struct f8b_allgather_row *r)
{
	const struct f8b_allgather_row *best = NULL;
	for (size_t i = 0; i < A->n; i++) {
		const struct f8b_allgather_row *q = A->rows[i];
		if (q->ranks >= r->ranks || strcmp(q->mode, r->mode) ||
		    f8b_ag_row_impl(q) != f8b_ag_row_impl(r) ||
		    q->tokens_per_rank != r->tokens_per_rank || strcmp(q->status, "ok") ||
		    !f8b_rpt_finite_pos(q->compute_time_s))
			continue;
		/* a variant says nothing on one rank: any run of the case will do */
		if (q->ranks > 1
		        ? !same_case_but_ranks(q, r)
		        : !(q->d_out == r->d_out && q->d_in == r->d_in && q->layers == r->layers &&
		            q->prefetch == r->prefetch && !strcmp(q->rs_dtype, r->rs_dtype)))
			continue;
		if (!best || q->ranks < best->ranks)
			best = q;
	}
	return best;
}

static int project(struct arpt *A)
{
	A->net = (struct f8b_proj_net){.intra = A->intra,
	                               .inter = {A->ctx.net_bw, A->ctx.net_lat_s},
	                               .gpus_per_node = A->ctx.gpus_per_node};
	A->proj = calloc(A->n + 1, sizeof *A->proj);
	if (!A->proj)
		return F8B_ERR(F8B_ENOMEM, "projection");
	for (size_t i = 0; i < A->n; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		struct arpt_proj *p = &A->proj[i];
		if (strcmp(r->status, "ok") || !f8b_rpt_finite_pos(r->compute_time_s))
			continue;
		struct f8b_proj_net net = A->net, lo;
		net.intra = intra_of(A, r);
		lo = net;
		lo.lower = true;
		struct f8b_proj_step st;
		struct f8b_proj_result o;
		f8b_arpt_step_of(r, &st);
		st.measured = true;
		p->ok = f8b_proj_run(&st, &net, r->ranks, &o) == 0;
		p->at_measured = o.step_s;
		st.measured = false;
		for (int k = 0; p->ok && k < ARPT_NR; k++) {
			p->ok = f8b_proj_run(&st, &net, f8b_arpt_ranks[k], &o) == 0;
			p->step[k] = o.step_s;
			p->exposed_pct[k] = 100.0 * o.exposed_s / o.step_s;
			if (p->ok && f8b_proj_run(&st, &lo, f8b_arpt_ranks[k], &o) == 0)
				p->step_lo[k] = o.step_s;
		}
		/* Across rank counts: this row's step from the case on fewer
		 * ranks (its compute and overlap slowdown) and the node's
		 * collectives of this row's variant, modelled, not measured. */
		const struct f8b_allgather_row *q = fewer_ranks(A, r);
		if (p->ok && q) {
			struct f8b_proj_step sq;
			f8b_arpt_step_of(q, &sq);
			sq.measured = false;
			if (f8b_proj_run(&sq, &net, r->ranks, &o) == 0) {
				p->from_ranks = q->ranks;
				p->cross = o.step_s;
			}
		}
	}
	return F8B_OK;
}

/* ---- data files ------------------------------------------------------------- */

static const char *const short_mode[AG_NMODES + 1] = {"bf16", "fp8-compute", "fp8-allgather",
                                                      "fp8-ag-axiswise", "?"};

static int write_dat(struct arpt *A)
{
	struct f8b_rpt_out o, v;
	F8B_TRY(f8b_rpt_open(A->ctx.dir, &o, "ag-speedup.dat"));
	f8b_rpt_dat_header(o.f, "fp8 speedup over bf16 and exposed communication, per series",
	                   "tokens_per_rank speedup_vs_bf16 exposed_pct");
	F8B_TRY(f8b_rpt_open(A->ctx.dir, &v, "ag-vars.gp"));
	fprintf(v.f, "# f8bench report: what roofline/ag_*.gp plot.\nl_gpu = ");
	f8b_rpt_gp_str(v.f, A->ctx.gpu);
	fprintf(v.f, "\nl_date = ");
	f8b_rpt_gp_str(v.f, A->ctx.date);
	/* sized for the most series written below */
	fprintf(v.f, "\narray b_title[%d]\narray p_mode[64]\narray p_title[64]\n",
	        AG_NMODES * F8B_GEMM_IMPL_COUNT * 21);
	/* speedup series: one per fp8 mode x GEMM implementation x setting
	 * with a bf16 row */
	char titles[64][96];
	int modes[64], ns = 0;
	for (size_t i = 0; i < A->n && ns < 64; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		if (!strcmp(r->mode, "bf16") || strcmp(r->status, "ok") ||
		    !isfinite(r->speedup_vs_bf16))
			continue;
		if (i > 0 && ns > 0 && !strcmp(A->rows[i - 1]->mode, r->mode) &&
		    f8b_ag_row_impl(A->rows[i - 1]) == f8b_ag_row_impl(r) &&
		    f8b_arpt_same_setting(A->rows[i - 1], r) &&
		    !strcmp(A->rows[i - 1]->status, "ok")) {
			fprintf(o.f, "%lld %.6g %.6g\n", (long long)r->tokens_per_rank,
			        r->speedup_vs_bf16, r->exposed_pct);
			continue;
		}
		if (ns)
			fprintf(o.f, "\n\n");
		modes[ns] = f8b_ag_mode_of(r->mode);
		snprintf(titles[ns], sizeof titles[ns], "%s%s, %dx[%lldx%lld], %d rank%s",
		         short_mode[modes[ns]], f8b_ag_impl_tag(r), (int)r->layers,
		         (long long)r->d_out, (long long)r->d_in, (int)r->ranks,
		         r->ranks > 1 ? "s" : "");
		fprintf(o.f, "%lld %.6g %.6g\n", (long long)r->tokens_per_rank, r->speedup_vs_bf16,
		        r->exposed_pct);
		ns++;
	}
	A->nspeed = ns;
	fprintf(v.f, "ns = %d\narray s_mode[%d]\narray s_title[%d]\n", ns, ns ? ns : 1,
	        ns ? ns : 1);
	if (!ns)
		fprintf(v.f, "s_mode[1] = 0; s_title[1] = \"\"\n");
	for (int i = 0; i < ns; i++) {
		fprintf(v.f, "s_mode[%d] = %d; s_title[%d] = ", i + 1, modes[i], i + 1);
		f8b_rpt_gp_str(v.f, titles[i]);
		fputc('\n', v.f);
	}
	F8B_TRY(f8b_rpt_close(&o, F8B_OK));
	/* each block by message size, so its line runs left to right */
	const struct f8b_allgather_row **by = malloc((A->n ? A->n : 1) * sizeof *by);
	if (!by)
		return F8B_ERR(F8B_ENOMEM, "allgather report: %zu rows", A->n);
	for (size_t i = 0; i < A->n; i++) {
		size_t j = i;
		for (; j > 0 && by[j - 1]->ag_bytes > A->rows[i]->ag_bytes; j--)
			by[j] = by[j - 1];
		by[j] = A->rows[i];
	}
	/* busbw: one block per mode x GEMM implementation x ranks (2+), then
	 * NCCL's */
	int orc = f8b_rpt_open(A->ctx.dir, &o, "ag-busbw.dat");
	if (orc != F8B_OK) {
		free(by);
		return orc;
	}
	f8b_rpt_dat_header(o.f, "all-gather bus bandwidth per message size (alone, in the step)",
	                   "bytes busbw_alone_gbps busbw_in_step_gbps");
	int nb = 0, rmax = 1;
	for (size_t i = 0; i < A->n; i++)
		rmax = A->rows[i]->ranks > rmax ? A->rows[i]->ranks : rmax;
	for (int mi = 0; mi < AG_NMODES * F8B_GEMM_IMPL_COUNT; mi++)
		for (int R = 2; R <= rmax && nb < AG_NMODES * F8B_GEMM_IMPL_COUNT * 21; R++) {
			int k = 0, m = mi / F8B_GEMM_IMPL_COUNT;
			for (size_t i = 0; i < A->n; i++) {
				const struct f8b_allgather_row *r = by[i];
				if (f8b_ag_mode_of(r->mode) != m ||
				    (int)f8b_ag_row_impl(r) != mi % F8B_GEMM_IMPL_COUNT ||
				    r->ranks != R || strcmp(r->status, "ok") ||
				    !f8b_rpt_finite_pos(r->ag_busbw_gbps))
					continue;
				if (!k++) {
					if (nb)
						fprintf(o.f, "\n\n");
					fprintf(v.f, "b_title[%d] = \"%s%s, %d ranks\"\n", nb + 1,
					        short_mode[m], f8b_ag_impl_tag(r), R);
					nb++;
				}
				fprintf(o.f, "%.0f %.6g %.6g\n", r->ag_bytes, r->ag_busbw_gbps,
				        r->ag_overlap_busbw_gbps);
			}
		}
	free(by);
	int nn = A->nnccl ? nccl_series(A, o.f, v.f, nb > 0) : 0;
	A->nbus = nb;
	fprintf(v.f, "nb = %d\nhas_nccl = %d\n", nb, nn > 0);
	F8B_TRY(f8b_rpt_close(&o, F8B_OK));
	/* projection: predicted speedup against R per fp8 mode x tokens, then
	 * the measured speedups (one block per fp8 mode: ranks, speedup) */
	F8B_TRY(f8b_rpt_open(A->ctx.dir, &o, "ag-projection.dat"));
	f8b_rpt_dat_header(o.f, "predicted fp8 speedup over bf16 against ranks",
	                   "ranks speedup exposed_pct");
	int np = 0;
	for (size_t i = 0; i < A->n; i++)
		A->has_key_tokens |=
		    A->rows[i]->tokens_per_rank == 2048 || A->rows[i]->tokens_per_rank == 8192;
	for (size_t i = 0; i < A->n && np < 64; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		size_t bi = f8b_arpt_bf16_of(A, r);
		if (!strcmp(r->mode, "bf16") || !A->proj[i].ok || bi == A->n || !A->proj[bi].ok ||
		    (A->has_key_tokens && r->tokens_per_rank != 2048 && r->tokens_per_rank != 8192))
			continue;
		if (np)
			fprintf(o.f, "\n\n");
		for (int k = 0; k < ARPT_NR; k++)
			fprintf(o.f, "%d %.6g %.6g\n", f8b_arpt_ranks[k],
			        A->proj[bi].step[k] / A->proj[i].step[k],
			        A->proj[i].exposed_pct[k]);
		fprintf(v.f, "p_mode[%d] = %d; p_title[%d] = \"%s%s, %lld tok/rank\"\n", np + 1,
		        f8b_ag_mode_of(r->mode), np + 1, short_mode[f8b_ag_mode_of(r->mode)],
		        f8b_ag_impl_tag(r), (long long)r->tokens_per_rank);
		np++;
	}
	A->nproj = np;
	int nm = 0;
	for (size_t i = 0; i < A->n; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		if (strcmp(r->mode, "bf16") && !strcmp(r->status, "ok") &&
		    isfinite(r->speedup_vs_bf16)) {
			fprintf(o.f, "%s%d %.6g NaN\n", nm++ ? "" : "\n\n", (int)r->ranks,
			        r->speedup_vs_bf16);
		}
	}
	fprintf(v.f, "np = %d\nhas_measured = %d\n", np, nm > 0);
	F8B_TRY(f8b_rpt_close(&o, F8B_OK));
	return f8b_rpt_close(&v, F8B_OK);
}

static void release(void *state)
{
	struct arpt *A = state;
	if (!A)
		return;
	free(A->rows);
	free(A->proj);
	free(A->nccl);
	free(A);
}

static int prepare(const struct f8b_report_ctx *ctx, void **state, const char **plots,
                   size_t *plotted)
{
	struct arpt *A = calloc(1, sizeof *A);
	*state = A;
	*plotted = 0;
	if (!A)
		return F8B_ERR(F8B_ENOMEM, "no memory for the allgather report");
	A->ctx = *ctx;
	size_t total = 0;
	for (int f = 0; f < ctx->nfiles; f++)
		total += ctx->files[f].nrows;
	A->rows = calloc(total + 1, sizeof *A->rows);
	if (!A->rows)
		return F8B_ERR(F8B_ENOMEM, "no memory for the allgather report");
	for (int f = 0; f < ctx->nfiles; f++)
		for (size_t i = 0; i < ctx->files[f].nrows; i++)
			A->rows[A->n++] = (const struct f8b_allgather_row *)ctx->files[f].rows + i;
	qsort(A->rows, A->n, sizeof *A->rows, cmp_rows);
	intra_link(A);
	F8B_TRY(project(A));
	F8B_TRY(write_dat(A));
	F8B_TRY(f8b_arpt_write_csv(A));
	int np = 0;
	if (A->nspeed)
		plots[np++] = "ag_speedup";
	if (A->nbus || A->nnccl)
		plots[np++] = "ag_busbw";
	if (A->nproj)
		plots[np++] = "ag_projection";
	plots[np] = NULL;
	*plotted = (size_t)A->nspeed + (size_t)A->nbus + (size_t)A->nproj;
	return F8B_OK;
}

const struct f8b_report_module f8b_allgather_report = {
    .prepare = prepare,
    .markdown = f8b_arpt_markdown,
    .release = release,
    .help = "  ag_speedup.png/.svg     fp8 speedup over bf16 and exposed communication against\n"
            "                          tokens per rank, per mode and setting\n"
            "  ag_busbw.png/.svg       all-gather bus bandwidth against message size, alone and\n"
            "                          inside the step, beside NCCL's own (--ceilings)\n"
            "  ag_projection.png/.svg  the step projected to 8..1024 GPUs (--net-bw, --net-lat,\n"
            "                          --gpus-per-node): fp8 speedup against ranks\n"
            "  allgather.csv, ag-projection.csv, ag-validation.csv, ag-*.dat  the data;\n"
            "                          report.md: the tables\n",
};
