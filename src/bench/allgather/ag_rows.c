/* ag_rows.c - the allgather rows as the harness and the report read them:
 * when two rows are the same case (resume, compare, merge), a row's name
 * and its one-line summary, and the words for how its collectives ran. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/allgather/ag_int.h"

static const char *rs_buffers_of(const struct f8b_allgather_row *r)
{
	return *r->rs_nccl_buffers ? r->rs_nccl_buffers
	       : *r->nccl_buffers  ? r->nccl_buffers
	                           : "plain";
}

static bool high_priority(const struct f8b_allgather_row *r)
{
	return !strcmp(r->comm_priority, "high");
}

/* "" (older files) reads as shared */
static bool own_rs_stream(const struct f8b_allgather_row *r)
{
	return !strcmp(r->rs_stream, "own");
}

bool f8b_ag_same_rs_comm(const struct f8b_allgather_row *a, const struct f8b_allgather_row *b)
{
	return high_priority(a) == high_priority(b) &&
	       !strcmp(rs_buffers_of(a), rs_buffers_of(b)) && a->rs_max_ctas == b->rs_max_ctas &&
	       a->gemm_sm_margin == b->gemm_sm_margin && own_rs_stream(a) == own_rs_stream(b);
}

void f8b_ag_comm_extra(const struct f8b_allgather_row *r, char *buf, size_t n)
{
	const char *ag = *r->nccl_buffers ? r->nccl_buffers : "plain", *rs = rs_buffers_of(r);
	size_t k = 0;
	buf[0] = 0;
	if (strcmp(ag, rs) || r->rs_max_ctas > 0)
		k += (size_t)snprintf(buf, n, ", RS on %.16s buffers", rs);
	if (r->rs_max_ctas > 0 && k < n)
		k += (size_t)snprintf(buf + k, n - k, ", <= %d CTAs", (int)r->rs_max_ctas);
	if (own_rs_stream(r) && k < n)
		k += (size_t)snprintf(buf + k, n - k, ", RS on its own stream");
	if (high_priority(r) && k < n)
		k += (size_t)snprintf(buf + k, n - k, ", high-priority comm stream");
	if (r->gemm_sm_margin > 0 && k < n)
		snprintf(buf + k, n - k, ", GEMMs leave %d SMs", (int)r->gemm_sm_margin);
}

bool f8b_ag_same_case(const void *va, const void *vb)
{
	const struct f8b_allgather_row *a = va, *b = vb;
	/* "" (files written before these columns) reads as plain, default. */
	const char *ba = *a->nccl_buffers ? a->nccl_buffers : "plain",
	           *bb = *b->nccl_buffers ? b->nccl_buffers : "plain",
	           *pa = *a->cta_policy ? a->cta_policy : "default",
	           *pb = *b->cta_policy ? b->cta_policy : "default";
	/* and as no optimizer, updates after the backward */
	const char *oa = *a->optimizer ? a->optimizer : "none",
	           *ob = *b->optimizer ? b->optimizer : "none",
	           *ua = *a->update ? a->update : "after", *ub = *b->update ? b->update : "after";
	return !strcmp(a->mode, b->mode) && a->d_out == b->d_out && a->d_in == b->d_in &&
	       a->layers == b->layers && a->tokens_per_rank == b->tokens_per_rank &&
	       a->ranks == b->ranks && a->prefetch == b->prefetch &&
	       !strcmp(a->rs_dtype, b->rs_dtype) && !strcmp(ba, bb) && !strcmp(pa, pb) &&
	       a->in_place == b->in_place && f8b_ag_same_rs_comm(a, b) && !strcmp(oa, ob) &&
	       !strcmp(ua, ub) &&
	       f8b_gemm_impl_same(a->gemm_impl, b->gemm_impl, sizeof a->gemm_impl);
}

enum f8b_gemm_impl f8b_ag_row_impl(const struct f8b_allgather_row *r)
{
	char im[F8B_STR + 1];
	enum f8b_gemm_impl v = F8B_GEMM_IMPL_CUBLASLT;
	if (f8b_gemm_impl_parse(f8b_gemm_impl_col(r->gemm_impl, sizeof r->gemm_impl, im, sizeof im),
	                        &v) != F8B_OK)
		f8b_clear_error(); /* a name this f8bench does not know: shown as cuBLASLt's */
	return v;
}

const char *f8b_ag_impl_tag(const struct f8b_allgather_row *r)
{
	return f8b_ag_row_impl(r) == F8B_GEMM_IMPL_F8B ? " [f8b]" : "";
}

void f8b_ag_describe(const void *vrow, char *buf, size_t n)
{
	const struct f8b_allgather_row *r = vrow;
	bool opt = *r->optimizer && strcmp(r->optimizer, "none");
	char im[F8B_STR + 1];
	snprintf(buf, n, "%s gemm %s %dx[%lldx%lld] %lld tok/rank on %d ranks%s%s%s%s", r->mode,
	         f8b_gemm_impl_col(r->gemm_impl, sizeof r->gemm_impl, im, sizeof im),
	         (int)r->layers, (long long)r->d_out, (long long)r->d_in,
	         (long long)r->tokens_per_rank, (int)r->ranks, opt ? ", adamw " : "",
	         opt ? r->optimizer : "", opt ? " " : "", opt ? r->update : "");
}

void f8b_ag_exposed_str(const struct f8b_allgather_row *r, char *buf, size_t n)
{
	/* exposed = step - the same step without its collectives: two
	 * medians, so a step whose communication hides completely reads a
	 * little either side of zero.  Below zero it is that noise, not a
	 * share of the step: say so, beside the step's own noise. */
	if (isfinite(r->exposed_pct) && r->exposed_pct < 0)
		snprintf(buf, n, "none (%.1f%%: noise; step noise +-%.1f%%)", r->exposed_pct,
		         100.0 * r->time_noise);
	else
		snprintf(buf, n, "%.1f%%", r->exposed_pct);
}

void f8b_ag_summarize(const void *vrow, char *buf, size_t n)
{
	const struct f8b_allgather_row *r = vrow;
	char ex[64];
	f8b_ag_exposed_str(r, ex, sizeof ex);
	snprintf(buf, n, "%.4g ms %.2fx bf16, exposed comm %s, all-gather busbw %.1f GB/s",
	         1e3 * r->time_median_s, r->speedup_vs_bf16, ex, r->ag_busbw_gbps);
}

/* An upper bound of a case's device memory per rank (ag_step.c's
 * buffers): shards (bf16, dW's), gathered slots and their casts, the
 * activations and their fp8 copies, gradients and dW. */
