/* ag_step.c - the allgather benchmark's step (ag_int.h):
 * what each mode gathers and how, the forward and backward of each layer,
 * the ordering between the compute and the communication queues, and the
 * standalone collectives finish() times.
 *
 * Ordering (events, as FSDP2's streams): the communication queue starts
 * when the step starts (ev_start); gather u goes to slot u % (P+1) once
 * the use P+1 before it is done with that slot (ev_used); the compute
 * queue waits for its gather (ev_gath); a reduce-scatter waits for its
 * dW (ev_gw), and the dW GEMM two layers on waits for the reduce-scatter
 * that read its buffer (ev_rs); the step ends when both queues have
 * (ev_comm_end).  On each queue, work runs in the order it was queued.
 * With --optimizer (ag_optim.c) the shards' update, the all-reduce of
 * their amaxes, the scales and the cast are queued on the communication
 * queue behind the last reduce-scatter (after).  With --update overlap
 * each layer's update pass goes on a queue of its own (ups) behind its
 * reduce-scatter (ev_rs), so that no gather waits for it; the grad
 * shards take turns in two buffers, and a reduce-scatter waits for the
 * update that read its buffer two layers before (ev_upd).  The amaxes'
 * all-reduce, the scales and the cast wait for the last update, on the
 * communication queue: the cast needs every rank's amax of the layer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_int.h"

static const struct f8b_scale_opts so = {0};

int f8b_ag_use_layer(const struct ag_state *s, int u, bool *fwd)
{
	*fwd = u < s->L;
	return u < s->L ? u : 2 * s->L - 1 - u;
}

/* Bytes every rank holds after the gather of use u (nccl-tests' size). */
double f8b_ag_gather_bytes(const struct ag_state *s, int u)
{
	bool fwd;
	int l = f8b_ag_use_layer(s, u, &fwd);
	return f8b_ag_gather_bytes_of(s->mode, s->n[l], s->k[l], fwd);
}

double f8b_ag_rs_bytes(const struct ag_state *s, int l)
{
	return (double)s->n[l] * (double)s->k[l] * (double)f8b_dtype_size(s->gw_dtype);
}

/* ---- the step ------------------------------------------------------------ */

int f8b_ag_coll(struct ag_state *s, enum f8b_coll_op op, enum f8b_coll_type t,
                enum f8b_coll_red red, const void *send, void *recv, size_t count)
{
	if (s->no_coll)
		return F8B_OK;
	/* With --rs-stream own, each communicator is driven from one queue:
	 * the optimizer's all-reduce (the only one in a step with --optimizer)
	 * runs beside the reduce-scatters, on theirs. */
	bool rs = op == F8B_COLL_REDUCE_SCATTER || (op == F8B_COLL_ALLREDUCE && s->opt && s->rss);
	struct f8b_coll *c = rs ? f8b_ag_rs_coll(s->c) : s->c->coll;
	return f8b_coll_call(c, op, t, red, send, recv, count);
}

static int mark(struct ag_state *s, struct f8b_event *e)
{
	return s->instr ? s->run->ops->event_record(s->run->be, e) : F8B_OK;
}

int f8b_ag_prologue(struct ag_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	for (int l = 0; l < s->L; l++)
		F8B_TRY(ops->amax(be, &s->w[l], F8B_GRAN_TENSORWISE, s->amax_loc + l));
	F8B_TRY(f8b_ag_coll(s, F8B_COLL_ALLREDUCE, F8B_COLL_F32, F8B_COLL_MAX, s->amax_loc,
	                    s->amax_all, (size_t)s->L));
	for (int l = 0; l < s->L; l++)
		F8B_TRY(ops->scales(be, s->amax_all + l, 1, F8B_E4M3, &so, s->scale_all + 4 * l,
		                    s->sinv_all + 4 * l));
	return F8B_OK;
}

int f8b_ag_gather(struct ag_state *s, int u, int slot)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	bool fwd;
	int l = f8b_ag_use_layer(s, u, &fwd);
	size_t shard = (size_t)(s->rows[l] * s->k[l]);
	bool ip = s->c->in_place;
	unsigned char *gathered = s->slot[slot].data;
	/* In place (FSDP): the rank's shard goes straight into its part of the
	 * gathered buffer, cast (fp8) or copied (bf16), and is gathered from
	 * there; out of place, from a buffer of its own. */
	void *own = ip ? gathered + (size_t)s->rank * shard : s->wq_shard.data;
	struct f8b_tensor q = f8b_ag_view(own, F8B_E4M3, s->rows[l], s->k[l]);
	if (s->opt) {
		/* the optimizer's cast of the rank's shard (ag_optim.c): copied
		 * in (in place), or gathered from where it lies */
		const unsigned char *src = (const unsigned char *)s->oa.w8 + s->ooff[l];
		if (ip)
			F8B_TRY(ops->bw_copy(be, own, src, shard, 1));
		F8B_TRY(mark(s, s->t_ag[u][0]));
		F8B_TRY(f8b_ag_coll(s, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM,
		                    ip ? own : src, gathered, shard));
	} else if (s->mode == AG_FP8_AG) {
		F8B_TRY(ops->cast(be, &s->w[l], F8B_GRAN_TENSORWISE, s->scale_all + 4 * l, &q));
		F8B_TRY(mark(s, s->t_ag[u][0]));
		F8B_TRY(f8b_ag_coll(s, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM, q.data,
		                    gathered, shard));
	} else if (s->mode == AG_FP8_AG_AXIS && fwd) {
		float *sinv =
		    ip ? s->slot_sinv[slot] + (size_t)s->rank * (size_t)s->rows[l] : s->row_sinv;
		struct f8b_cast_spec cs = {.gran = F8B_GRAN_AXISWISE,
		                           .dtype = F8B_E4M3,
		                           .opts = so,
		                           .q = &q,
		                           .amax = s->row_amax,
		                           .scale_inv = sinv};
		F8B_TRY(ops->cast_fused(be, &s->w[l], &cs));
		F8B_TRY(mark(s, s->t_ag[u][0]));
		F8B_TRY(f8b_ag_coll(s, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM, q.data,
		                    gathered, shard));
		F8B_TRY(f8b_ag_coll(s, F8B_COLL_ALLGATHER, F8B_COLL_F32, F8B_COLL_SUM, sinv,
		                    s->slot_sinv[slot], (size_t)s->rows[l]));
	} else {
		const void *src = s->w[l].data;
		if (ip) {
			void *mine = gathered + (size_t)s->rank * 2 * shard;
			F8B_TRY(ops->bw_copy(be, mine, src, 2 * shard, 1));
			src = mine;
		}
		F8B_TRY(mark(s, s->t_ag[u][0]));
		F8B_TRY(f8b_ag_coll(s, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM, src, gathered,
		                    2 * shard));
	}
	return mark(s, s->t_ag[u][1]);
}

static int gemm(struct ag_state *s, struct ag_gemm *g, int j, const void *a, const float *sa,
                const void *b, const float *sb, void *d)
{
	struct f8b_gemm_args args = {.a = a, .b = b, .a_scale_inv = sa, .b_scale_inv = sb, .d = d};
	F8B_TRY(mark(s, s->t_gemm[j][0]));
	F8B_TRY(s->run->ops->gemm(s->run->be, g->plan, &args));
	return mark(s, s->t_gemm[j][1]);
}

/* x_l's fp8 copies: x (the forward's A) and x^T (dW's B, kept). */
static int cast_x(struct ag_state *s, int l)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int64_t T = s->T, k = s->k[l];
	struct f8b_tensor xq = f8b_ag_view(s->xq.data, F8B_E4M3, T, k);
	if (s->mode != AG_FP8_AG_AXIS) {
		struct f8b_cast_spec cs = {.gran = F8B_GRAN_TENSORWISE,
		                           .dtype = F8B_E4M3,
		                           .opts = so,
		                           .q = &xq,
		                           .q_t = &s->xq_t[l],
		                           .amax = s->x_amax,
		                           .scale_inv = s->xt_sinv[l]};
		return ops->cast_fused(be, &s->x[l], &cs);
	}
	struct f8b_cast_spec cs = {.gran = F8B_GRAN_AXISWISE,
	                           .dtype = F8B_E4M3,
	                           .opts = so,
	                           .q = &xq,
	                           .amax = s->x_amax,
	                           .scale_inv = s->x_sinv};
	F8B_TRY(ops->cast_fused(be, &s->x[l], &cs));
	F8B_TRY(ops->amax_t(be, &s->x[l], F8B_GRAN_AXISWISE, s->xt_amax));
	F8B_TRY(ops->scales(be, s->xt_amax, k, F8B_E4M3, &so, s->xt_scale, s->xt_sinv[l]));
	return ops->cast_transpose(be, &s->x[l], F8B_GRAN_AXISWISE, NULL, s->xt_scale, NULL,
	                           &s->xq_t[l]);
}

static int forward(struct ag_state *s, int l, int slot)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int64_t n = s->n[l], k = s->k[l];
	void *w = s->slot[slot].data;
	if (s->mode == AG_BF16)
		return gemm(s, &s->fwd[l], 3 * l, s->x[l].data, NULL, w, NULL, s->x[l + 1].data);
	F8B_TRY(cast_x(s, l));
	const float *sa = s->mode == AG_FP8_AG_AXIS ? s->x_sinv : s->xt_sinv[l], *sb;
	if (s->mode == AG_FP8_COMPUTE) {
		struct f8b_tensor wb = f8b_ag_view(w, F8B_BF16, n, k),
		                  wq = f8b_ag_view(s->wq.data, F8B_E4M3, n, k);
		struct f8b_cast_spec cs = {.gran = F8B_GRAN_TENSORWISE,
		                           .dtype = F8B_E4M3,
		                           .opts = so,
		                           .q = &wq,
		                           .amax = s->w_amax,
		                           .scale_inv = s->w_sinv};
		F8B_TRY(ops->cast_fused(be, &wb, &cs));
		w = wq.data;
		sb = s->w_sinv;
	} else {
		sb = s->mode == AG_FP8_AG ? s->sinv_all + 4 * l : s->slot_sinv[slot];
	}
	return gemm(s, &s->fwd[l], 3 * l, s->xq.data, sa, w, sb, s->x[l + 1].data);
}

/* g = dL/dx_{l+1} [T, n]: its fp8 copies for grad_input (A) and dW (A). */
static int cast_g(struct ag_state *s, const struct f8b_tensor *g)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct f8b_tensor gq = f8b_ag_view(s->gq.data, F8B_E5M2, g->rows, g->cols);
	struct f8b_tensor gqt = f8b_ag_view(s->gq_t.data, F8B_E5M2, g->cols, g->rows);
	bool axis = s->mode == AG_FP8_AG_AXIS;
	struct f8b_cast_spec cs = {.gran = axis ? F8B_GRAN_AXISWISE : F8B_GRAN_TENSORWISE,
	                           .dtype = F8B_E5M2,
	                           .opts = so,
	                           .q = &gq,
	                           .q_t = axis ? NULL : &gqt,
	                           .amax = s->g_amax,
	                           .scale_inv = s->g_sinv};
	F8B_TRY(ops->cast_fused(be, g, &cs));
	if (!axis)
		return F8B_OK;
	F8B_TRY(ops->amax_t(be, g, F8B_GRAN_AXISWISE, s->gt_amax));
	F8B_TRY(ops->scales(be, s->gt_amax, g->cols, F8B_E5M2, &so, s->gt_scale, s->gt_sinv));
	return ops->cast_transpose(be, g, F8B_GRAN_AXISWISE, NULL, s->gt_scale, NULL, &gqt);
}

/* W_l^T in fp8 [k, n] for grad_input, from the gathered slot. */
static int weight_t(struct ag_state *s, int l, int slot, const float **sinv)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int64_t n = s->n[l], k = s->k[l];
	struct f8b_tensor wt = f8b_ag_view(s->wq_t.data, F8B_E4M3, k, n);
	struct f8b_tensor wb = f8b_ag_view(s->slot[slot].data, F8B_BF16, n, k);
	if (s->mode == AG_FP8_AG) {
		struct f8b_tensor wq = f8b_ag_view(s->slot[slot].data, F8B_E4M3, n, k);
		*sinv = s->sinv_all + 4 * l;
		return ops->transpose_fp8(be, &wq, &wt);
	}
	*sinv = s->w_sinv;
	if (s->mode == AG_FP8_COMPUTE) {
		struct f8b_cast_spec cs = {.gran = F8B_GRAN_TENSORWISE,
		                           .dtype = F8B_E4M3,
		                           .opts = so,
		                           .q_t = &wt,
		                           .amax = s->w_amax,
		                           .scale_inv = s->w_sinv};
		return ops->cast_fused(be, &wb, &cs);
	}
	/* axiswise: one scale per column of W (a row of W^T); the backward
	 * gathered W in bf16 (doc/allgather.md says why). */
	F8B_TRY(ops->amax_t(be, &wb, F8B_GRAN_AXISWISE, s->w_amax));
	F8B_TRY(ops->scales(be, s->w_amax, k, F8B_E4M3, &so, s->w_scale, s->w_sinv));
	return ops->cast_transpose(be, &wb, F8B_GRAN_AXISWISE, NULL, s->w_scale, NULL, &wt);
}

static int backward(struct ag_state *s, int l, int slot, const struct f8b_tensor *gin,
                    struct f8b_tensor *gout)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct f8b_tensor *gw = &s->gw[l % 2];
	int j = 3 * l;
	if (s->mode == AG_BF16) {
		F8B_TRY(gemm(s, &s->gi[l], j + 1, gin->data, NULL, s->slot[slot].data, NULL,
		             gout->data));
	} else {
		const float *wsinv;
		F8B_TRY(cast_g(s, gin));
		F8B_TRY(weight_t(s, l, slot, &wsinv));
		F8B_TRY(gemm(s, &s->gi[l], j + 1, s->gq.data, s->g_sinv, s->wq_t.data, wsinv,
		             gout->data));
	}
	/* dW goes to the buffer the reduce-scatter of layer l+2 read. */
	if (l + 2 < s->L)
		F8B_TRY(ops->stream_wait(be, s->ev_rs[l + 2]));
	if (s->mode == AG_BF16)
		return gemm(s, &s->gwg[l], j + 2, gin->data, NULL, s->x[l].data, NULL, gw->data);
	const float *sa = s->mode == AG_FP8_AG_AXIS ? s->gt_sinv : s->g_sinv;
	return gemm(s, &s->gwg[l], j + 2, s->gq_t.data, sa, s->xq_t[l].data, s->xt_sinv[l],
	            gw->data);
}

/* On the communication queue: the gather of use u once use u-(P+1) left
 * its slot. */
static int issue_gather(struct ag_state *s, int u)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	if (u >= 2 * s->L)
		return F8B_OK;
	if (u >= s->P + 1)
		F8B_TRY(ops->stream_wait(be, s->ev_used[u - s->P - 1]));
	F8B_TRY(f8b_ag_gather(s, u, u % (s->P + 1)));
	return ops->event_record(be, s->ev_gath[u]);
}

int f8b_ag_step(void *state)
{
	struct ag_state *s = state;
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int L = s->L, P = s->P;
	F8B_TRY(ops->event_record(be, s->ev_start));
	F8B_TRY(mark(s, s->t_mark[TM_START]));
	F8B_TRY(ops->stream_use(be, s->cs));
	F8B_TRY(ops->stream_wait(be, s->ev_start));
	/* With an optimizer the scales come from the last step's update (the
	 * first step makes its own, from the initial masters). */
	if (s->opt && !s->opt_ready)
		F8B_TRY(f8b_ag_optim_first(s));
	s->opt_ready = s->opt;
	if (s->mode == AG_FP8_AG && !s->opt)
		F8B_TRY(f8b_ag_prologue(s));
	for (int u = 0; u <= P; u++)
		F8B_TRY(issue_gather(s, u));
	F8B_TRY(ops->stream_use(be, NULL));
	for (int l = 0; l < L; l++) {
		F8B_TRY(ops->stream_wait(be, s->ev_gath[l]));
		F8B_TRY(forward(s, l, l % (P + 1)));
		F8B_TRY(ops->event_record(be, s->ev_used[l]));
		F8B_TRY(ops->stream_use(be, s->cs));
		F8B_TRY(issue_gather(s, l + P + 1));
		F8B_TRY(ops->stream_use(be, NULL));
	}
	F8B_TRY(mark(s, s->t_mark[TM_FWD_END]));
	const struct f8b_tensor *gin = &s->dy;
	for (int l = L - 1; l >= 0; l--) {
		int u = 2 * L - 1 - l;
		struct f8b_tensor *gout = &s->g[l % 2];
		struct f8b_tensor go = f8b_ag_view(gout->data, F8B_BF16, s->T, s->k[l]);
		*gout = go;
		F8B_TRY(ops->stream_wait(be, s->ev_gath[u]));
		F8B_TRY(backward(s, l, u % (P + 1), gin, gout));
		F8B_TRY(ops->event_record(be, s->ev_gw[l]));
		F8B_TRY(ops->event_record(be, s->ev_used[u]));
		F8B_TRY(ops->stream_use(be, s->cs));
		F8B_TRY(issue_gather(s, u + P + 1));
		if (s->rss)
			F8B_TRY(ops->stream_use(be, s->rss));
		F8B_TRY(ops->stream_wait(be, s->ev_gw[l]));
		/* overlap: the grad buffer's last reader is layer l+2's update */
		if (s->ups && l + 2 < L)
			F8B_TRY(ops->stream_wait(be, s->ev_upd[l + 2]));
		F8B_TRY(mark(s, s->t_rs[l][0]));
		F8B_TRY(f8b_ag_coll(s, F8B_COLL_REDUCE_SCATTER,
		                    s->gw_dtype == F8B_F32 ? F8B_COLL_F32 : F8B_COLL_BF16,
		                    F8B_COLL_SUM, s->gw[l % 2].data, s->gw_shard[l].data,
		                    (size_t)(s->rows[l] * s->k[l])));
		F8B_TRY(mark(s, s->t_rs[l][1]));
		F8B_TRY(ops->event_record(be, s->ev_rs[l]));
		/* overlap: the shard's update, behind its reduce-scatter, beside
		 * the next layer's backward, on the updates' queue */
		if (s->ups) {
			F8B_TRY(ops->stream_use(be, s->ups));
			F8B_TRY(ops->stream_wait(be, s->ev_rs[l]));
			F8B_TRY(f8b_ag_optim_update(s, l));
			F8B_TRY(ops->event_record(be, s->ev_upd[l]));
		}
		F8B_TRY(ops->stream_use(be, NULL));
		gin = gout;
		s->grad_x = gout;
	}
	F8B_TRY(ops->stream_use(be, s->rss ? s->rss : s->cs));
	/* after: every shard's update once the last reduce-scatter is done;
	 * overlap: the scales and the cast once the last update is */
	if (s->ups)
		F8B_TRY(ops->stream_wait(be, s->ev_upd[0]));
	if (s->opt)
		F8B_TRY(f8b_ag_optim_update(s, -1));
	if (s->rss)
		F8B_TRY(ops->event_record(be, s->ev_rs_end));
	F8B_TRY(ops->stream_use(be, s->cs));
	F8B_TRY(ops->event_record(be, s->ev_comm_end));
	F8B_TRY(ops->stream_use(be, NULL));
	F8B_TRY(ops->stream_wait(be, s->ev_comm_end));
	if (s->rss)
		F8B_TRY(ops->stream_wait(be, s->ev_rs_end));
	return mark(s, s->t_mark[TM_END]);
}

/* finish's standalone collectives, on the backend's own queue: the
 * largest gather's data, the largest dW's reduce-scatter, the amax
 * all-reduce. */
int f8b_ag_solo(void *state)
{
	struct ag_state *s = state;
	/* every layer's weight has n*k elements (odd layers swap n and k) */
	const int l = 0;
	size_t shard = (size_t)(s->rows[l] * s->k[l]);
	struct f8b_coll *c = s->c->coll;
	switch (s->solo) {
	case 0: {
		/* in place, as the step gathers: from the rank's part of the output */
		bool fp8 = s->mode == AG_FP8_AG || s->mode == AG_FP8_AG_AXIS;
		size_t bytes = fp8 ? shard : 2 * shard;
		unsigned char *out = s->slot[0].data;
		const void *in = s->c->in_place ? out + (size_t)s->rank * bytes
		                 : fp8          ? s->wq_shard.data
		                                : s->w[l].data;
		return f8b_coll_call(c, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM, in, out,
		                     bytes);
	}
	case 1:
		return f8b_coll_call(f8b_ag_rs_coll(s->c), F8B_COLL_REDUCE_SCATTER,
		                     s->gw_dtype == F8B_F32 ? F8B_COLL_F32 : F8B_COLL_BF16,
		                     F8B_COLL_SUM, s->gw[0].data, s->gw_shard[l].data, shard);
	default:
		return f8b_coll_call(c, F8B_COLL_ALLREDUCE, F8B_COLL_F32, F8B_COLL_MAX, s->amax_loc,
		                     s->amax_all, (size_t)s->L);
	}
}
