/* ag_step.c - the allgather benchmark's buffers and its step (ag_int.h):
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
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_int.h"

static const struct f8b_scale_opts so = {0};

static bool fp8_mode(const struct ag_state *s)
{
	return s->mode != AG_BF16;
}

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

static struct f8b_tensor view(void *data, enum f8b_dtype dt, int64_t r, int64_t c)
{
	return (struct f8b_tensor){.data = data, .dtype = dt, .rows = r, .cols = c};
}

/* ---- buffers ---------------------------------------------------------- */

static int tens(struct ag_state *s, struct f8b_tensor *t, enum f8b_dtype dt, int64_t r, int64_t c)
{
	F8B_TRY(f8b_tensor_alloc(s->run->ops, s->run->be, t, dt, r, c));
	s->allocated += (int64_t)f8b_tensor_bytes(t);
	return F8B_OK;
}

static int floats(struct ag_state *s, int64_t n, float **p)
{
	F8B_TRY(s->run->ops->alloc(s->run->be, (size_t)n * sizeof(float), (void **)p));
	s->allocated += n * (int64_t)sizeof(float);
	return F8B_OK;
}

/* What a collective reads or writes comes from the communicator, in the
 * run's buffer mode (--nccl-buffers); every rank allocates the same sizes
 * in the same order (registration is collective), and f8b_ag_free gives
 * them back in reverse. */
static int cbytes_on(struct ag_state *s, bool rs, size_t bytes, void **p)
{
	if (s->ncbuf >= AG_MAX_CBUFS)
		return F8B_ERR(F8B_EINTERNAL, "allgather: more than %d collective buffers",
		               AG_MAX_CBUFS);
	struct f8b_coll *coll = rs ? f8b_ag_rs_coll(s->c) : s->c->coll;
	F8B_TRY(f8b_coll_alloc(coll, rs ? s->c->rs_buffers : s->c->buffers, bytes, p));
	s->cbuf_coll[s->ncbuf] = coll;
	s->cbuf[s->ncbuf++] = p;
	s->allocated += (int64_t)bytes;
	return F8B_OK;
}

static int cbytes(struct ag_state *s, size_t bytes, void **p)
{
	return cbytes_on(s, false, bytes, p);
}

static int ctens(struct ag_state *s, struct f8b_tensor *t, enum f8b_dtype dt, int64_t r, int64_t c)
{
	*t = view(NULL, dt, r, c);
	return cbytes(s, f8b_tensor_bytes(t), &t->data);
}

/* A reduce-scatter's input or output: from its communicator, in its mode. */
static int rstens(struct ag_state *s, struct f8b_tensor *t, enum f8b_dtype dt, int64_t r, int64_t c)
{
	*t = view(NULL, dt, r, c);
	return cbytes_on(s, true, f8b_tensor_bytes(t), &t->data);
}

static int cfloats(struct ag_state *s, int64_t n, float **p)
{
	return cbytes(s, (size_t)n * sizeof(float), (void **)p);
}

static int plan(struct ag_state *s, struct ag_gemm *g, int64_t m, int64_t n, int64_t k,
                enum f8b_dtype a, enum f8b_dtype b, enum f8b_dtype out, bool axis, bool fast,
                bool a_t, bool b_t)
{
	bool fp8 = a != F8B_BF16;
	enum f8b_granularity gr = axis ? F8B_GRAN_AXISWISE : F8B_GRAN_TENSORWISE;
	g->desc = (struct f8b_gemm_desc){.m = m,
	                                 .n = n,
	                                 .k = k,
	                                 .a_dtype = a,
	                                 .b_dtype = b,
	                                 .out_dtype = out,
	                                 .a_gran = gr,
	                                 .b_gran = gr,
	                                 .fast_accum = fp8 && fast,
	                                 .a_t = !fp8 && a_t,
	                                 .b_t = !fp8 && b_t,
	                                 .sm_margin = s->c->sm_margin};
	struct f8b_algo_info info;
	return s->run->ops->gemm_plan(s->run->be, &g->desc, 0, &g->plan, &info);
}

static int events(struct ag_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int uses = 2 * s->L;
	F8B_TRY(ops->event_create(be, &s->ev_start));
	F8B_TRY(ops->event_create(be, &s->ev_comm_end));
	for (int u = 0; u < uses; u++) {
		F8B_TRY(ops->event_create(be, &s->ev_gath[u]));
		F8B_TRY(ops->event_create(be, &s->ev_used[u]));
		F8B_TRY(ops->event_create(be, &s->t_ag[u][0]));
		F8B_TRY(ops->event_create(be, &s->t_ag[u][1]));
	}
	for (int l = 0; l < s->L; l++) {
		F8B_TRY(ops->event_create(be, &s->ev_gw[l]));
		F8B_TRY(ops->event_create(be, &s->ev_rs[l]));
		F8B_TRY(ops->event_create(be, &s->t_rs[l][0]));
		F8B_TRY(ops->event_create(be, &s->t_rs[l][1]));
	}
	for (int j = 0; j < 3 * s->L; j++)
		for (int e = 0; e < 2; e++)
			F8B_TRY(ops->event_create(be, &s->t_gemm[j][e]));
	for (int i = 0; i < TM_N; i++)
		F8B_TRY(ops->event_create(be, &s->t_mark[i]));
	return ops->stream_create(be, s->c->comm_high, &s->cs);
}

struct f8b_fill_spec f8b_ag_weight_fill(const struct ag_state *s, int l, bool shard)
{
	return (struct f8b_fill_spec){
	    .seed = s->run->seed * 131 + 17 + (uint64_t)l,
	    .std = 1.0f / sqrtf((float)s->k[l]),
	    .offset = shard ? (uint64_t)s->rank * (uint64_t)s->rows[l] * (uint64_t)s->k[l] : 0};
}

/* The seeded data: layer l's shard is rows r*rows.. of the whole weight
 * W_l (the fill's offset), so the gathered weight is W_l itself and the
 * checks can make it on the host; x and dy differ per rank. */
static int fill(struct ag_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	uint64_t seed = s->run->seed;
	for (int l = 0; l < s->L; l++) {
		struct f8b_fill_spec f = f8b_ag_weight_fill(s, l, true);
		F8B_TRY(ops->fill(s->run->be, &s->w[l], &f));
	}
	struct f8b_fill_spec fx = {.seed = seed * 131 + 1000003 + (uint64_t)s->rank, .std = 1};
	struct f8b_fill_spec fd = {.seed = seed * 131 + 2000003 + (uint64_t)s->rank, .std = 1};
	F8B_TRY(ops->fill(s->run->be, &s->x[0], &fx));
	return ops->fill(s->run->be, &s->dy, &fd);
}

int f8b_ag_alloc(struct ag_state *s)
{
	int L = s->L, P = s->P;
	bool fp8 = fp8_mode(s), axis = s->mode == AG_FP8_AG_AXIS;
	int64_t T = s->T, mn = s->maxn, mk = s->maxk;
	bool ip = s->c->in_place, cast_shard = s->mode == AG_FP8_AG || axis;
	/* bf16 shards are a gather's input only out of place (in place, they
	 * are copied into the gathered buffer first). */
	for (int l = 0; l < L; l++) {
		if (ip || cast_shard)
			F8B_TRY(tens(s, &s->w[l], F8B_BF16, s->rows[l], s->k[l]));
		else
			F8B_TRY(ctens(s, &s->w[l], F8B_BF16, s->rows[l], s->k[l]));
		F8B_TRY(rstens(s, &s->gw_shard[l], s->gw_dtype, s->rows[l], s->k[l]));
	}
	int64_t slot_bytes = mn * mk * (s->mode == AG_FP8_AG ? 1 : 2);
	for (int i = 0; i <= P; i++) {
		F8B_TRY(ctens(s, &s->slot[i], F8B_E4M3, 1, slot_bytes));
		if (axis)
			F8B_TRY(cfloats(s, mn, &s->slot_sinv[i]));
	}
	if (cast_shard && !ip)
		F8B_TRY(ctens(s, &s->wq_shard, F8B_E4M3, s->maxrows, mk));
	if (s->mode == AG_FP8_AG) {
		F8B_TRY(cfloats(s, L, &s->amax_loc));
		F8B_TRY(cfloats(s, L, &s->amax_all));
		/* one 16-byte slot per layer: cuBLASLt takes scale pointers on
		 * 16-byte boundaries only */
		F8B_TRY(floats(s, 4 * L, &s->scale_all));
		F8B_TRY(floats(s, 4 * L, &s->sinv_all));
	}
	if (axis) {
		F8B_TRY(floats(s, s->maxrows, &s->row_amax));
		if (!ip)
			F8B_TRY(cfloats(s, s->maxrows, &s->row_sinv));
	}
	if (s->mode == AG_FP8_COMPUTE)
		F8B_TRY(tens(s, &s->wq, F8B_E4M3, mn, mk));
	s->weight_bytes = s->allocated;
	for (int l = 0; l <= L; l++)
		F8B_TRY(tens(s, &s->x[l], F8B_BF16, T, l == 0 ? s->k[0] : s->n[l - 1]));
	F8B_TRY(tens(s, &s->dy, F8B_BF16, T, s->n[L - 1]));
	for (int i = 0; i < 2; i++) {
		F8B_TRY(tens(s, &s->g[i], F8B_BF16, T, mn));
		F8B_TRY(rstens(s, &s->gw[i], s->gw_dtype, mn, mk));
	}
	if (fp8) {
		F8B_TRY(tens(s, &s->wq_t, F8B_E4M3, mk, mn));
		F8B_TRY(floats(s, mk, &s->w_amax));
		F8B_TRY(floats(s, mk, &s->w_scale));
		F8B_TRY(floats(s, mk, &s->w_sinv));
		F8B_TRY(tens(s, &s->xq, F8B_E4M3, T, mk));
		F8B_TRY(floats(s, T, &s->x_amax));
		F8B_TRY(floats(s, T, &s->x_sinv));
		F8B_TRY(floats(s, mk, &s->xt_amax));
		F8B_TRY(floats(s, mk, &s->xt_scale));
		for (int l = 0; l < L; l++) {
			F8B_TRY(tens(s, &s->xq_t[l], F8B_E4M3, s->k[l], T));
			F8B_TRY(floats(s, axis ? s->k[l] : 1, &s->xt_sinv[l]));
		}
		F8B_TRY(tens(s, &s->gq, F8B_E5M2, T, mn));
		F8B_TRY(tens(s, &s->gq_t, F8B_E5M2, mn, T));
		F8B_TRY(floats(s, T, &s->g_amax));
		F8B_TRY(floats(s, T, &s->g_sinv));
		F8B_TRY(floats(s, mn, &s->gt_amax));
		F8B_TRY(floats(s, mn, &s->gt_scale));
		F8B_TRY(floats(s, mn, &s->gt_sinv));
	}
	/* The three GEMMs of each layer (see ag_int.h). */
	enum f8b_dtype e4 = fp8 ? F8B_E4M3 : F8B_BF16, e5 = fp8 ? F8B_E5M2 : F8B_BF16;
	for (int l = 0; l < L; l++) {
		int64_t n = s->n[l], k = s->k[l];
		F8B_TRY(plan(s, &s->fwd[l], T, n, k, e4, e4, F8B_BF16, axis, true, false, false));
		F8B_TRY(plan(s, &s->gi[l], T, k, n, e5, e4, F8B_BF16, axis, false, false, true));
		F8B_TRY(plan(s, &s->gwg[l], n, k, T, e5, e4, s->gw_dtype, axis, false, true, true));
	}
	F8B_TRY(events(s));
	return fill(s);
}

void f8b_ag_free(struct ag_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	if (s->cs)
		ops->stream_destroy(be, s->cs);
	for (int i = s->ncbuf; i-- > 0;) {
		f8b_coll_free(s->cbuf_coll[i], *s->cbuf[i]);
		*s->cbuf[i] = NULL;
	}
	s->ncbuf = 0;
	struct f8b_tensor *ts[] = {&s->wq_shard, &s->wq, &s->wq_t, &s->xq,    &s->dy,   &s->g[0],
	                           &s->g[1],     &s->gq, &s->gq_t, &s->gw[0], &s->gw[1]};
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
		f8b_tensor_free(ops, be, ts[i]);
	for (int l = 0; l < AG_MAX_LAYERS; l++) {
		f8b_tensor_free(ops, be, &s->w[l]);
		f8b_tensor_free(ops, be, &s->gw_shard[l]);
		f8b_tensor_free(ops, be, &s->xq_t[l]);
		if (s->xt_sinv[l])
			ops->free(be, s->xt_sinv[l]);
	}
	for (int l = 0; l <= AG_MAX_LAYERS; l++)
		f8b_tensor_free(ops, be, &s->x[l]);
	for (int i = 0; i <= AG_MAX_PREFETCH; i++) {
		f8b_tensor_free(ops, be, &s->slot[i]);
		if (s->slot_sinv[i])
			ops->free(be, s->slot_sinv[i]);
	}
	float *fs[] = {s->amax_loc, s->amax_all, s->scale_all, s->sinv_all, s->row_amax,
	               s->row_sinv, s->w_amax,   s->w_scale,   s->w_sinv,   s->x_amax,
	               s->x_sinv,   s->xt_amax,  s->xt_scale,  s->g_amax,   s->g_sinv,
	               s->gt_amax,  s->gt_scale, s->gt_sinv};
	for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
		if (fs[i])
			ops->free(be, fs[i]);
	struct ag_gemm *gs[] = {s->fwd, s->gi, s->gwg};
	for (int j = 0; j < 3; j++)
		for (int l = 0; l < AG_MAX_LAYERS; l++)
			if (gs[j][l].plan)
				ops->gemm_plan_free(be, gs[j][l].plan);
	struct f8b_event *es[] = {s->ev_start, s->ev_comm_end};
	for (int i = 0; i < 2; i++)
		if (es[i])
			ops->event_destroy(be, es[i]);
	for (int u = 0; u < AG_MAX_USES; u++) {
		struct f8b_event *e4[] = {s->ev_gath[u], s->ev_used[u], s->t_ag[u][0],
		                          s->t_ag[u][1]};
		for (int i = 0; i < 4; i++)
			if (e4[i])
				ops->event_destroy(be, e4[i]);
	}
	for (int l = 0; l < AG_MAX_LAYERS; l++) {
		struct f8b_event *e4[] = {s->ev_gw[l], s->ev_rs[l], s->t_rs[l][0], s->t_rs[l][1]};
		for (int i = 0; i < 4; i++)
			if (e4[i])
				ops->event_destroy(be, e4[i]);
	}
	for (int j = 0; j < 3 * AG_MAX_LAYERS; j++)
		for (int e = 0; e < 2; e++)
			if (s->t_gemm[j][e])
				ops->event_destroy(be, s->t_gemm[j][e]);
	for (int i = 0; i < TM_N; i++)
		if (s->t_mark[i])
			ops->event_destroy(be, s->t_mark[i]);
}

/* ---- the step ------------------------------------------------------------ */

static int coll(struct ag_state *s, enum f8b_coll_op op, enum f8b_coll_type t,
                enum f8b_coll_red red, const void *send, void *recv, size_t count)
{
	if (s->no_coll)
		return F8B_OK;
	return f8b_coll_call(s->c->coll, op, t, red, send, recv, count);
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
	F8B_TRY(coll(s, F8B_COLL_ALLREDUCE, F8B_COLL_F32, F8B_COLL_MAX, s->amax_loc, s->amax_all,
	             (size_t)s->L));
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
	struct f8b_tensor q = view(own, F8B_E4M3, s->rows[l], s->k[l]);
	if (s->mode == AG_FP8_AG) {
		F8B_TRY(ops->cast(be, &s->w[l], F8B_GRAN_TENSORWISE, s->scale_all + 4 * l, &q));
		F8B_TRY(mark(s, s->t_ag[u][0]));
		F8B_TRY(coll(s, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM, q.data, gathered,
		             shard));
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
		F8B_TRY(coll(s, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM, q.data, gathered,
		             shard));
		F8B_TRY(coll(s, F8B_COLL_ALLGATHER, F8B_COLL_F32, F8B_COLL_SUM, sinv,
		             s->slot_sinv[slot], (size_t)s->rows[l]));
	} else {
		const void *src = s->w[l].data;
		if (ip) {
			void *mine = gathered + (size_t)s->rank * 2 * shard;
			F8B_TRY(ops->bw_copy(be, mine, src, 2 * shard, 1));
			src = mine;
		}
		F8B_TRY(mark(s, s->t_ag[u][0]));
		F8B_TRY(coll(s, F8B_COLL_ALLGATHER, F8B_COLL_U8, F8B_COLL_SUM, src, gathered,
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
	struct f8b_tensor xq = view(s->xq.data, F8B_E4M3, T, k);
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
		struct f8b_tensor wb = view(w, F8B_BF16, n, k),
		                  wq = view(s->wq.data, F8B_E4M3, n, k);
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
	struct f8b_tensor gq = view(s->gq.data, F8B_E5M2, g->rows, g->cols);
	struct f8b_tensor gqt = view(s->gq_t.data, F8B_E5M2, g->cols, g->rows);
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
	struct f8b_tensor wt = view(s->wq_t.data, F8B_E4M3, k, n);
	struct f8b_tensor wb = view(s->slot[slot].data, F8B_BF16, n, k);
	if (s->mode == AG_FP8_AG) {
		struct f8b_tensor wq = view(s->slot[slot].data, F8B_E4M3, n, k);
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
	if (s->mode == AG_FP8_AG)
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
		struct f8b_tensor go = view(gout->data, F8B_BF16, s->T, s->k[l]);
		*gout = go;
		F8B_TRY(ops->stream_wait(be, s->ev_gath[u]));
		F8B_TRY(backward(s, l, u % (P + 1), gin, gout));
		F8B_TRY(ops->event_record(be, s->ev_gw[l]));
		F8B_TRY(ops->event_record(be, s->ev_used[u]));
		F8B_TRY(ops->stream_use(be, s->cs));
		F8B_TRY(issue_gather(s, u + P + 1));
		F8B_TRY(ops->stream_wait(be, s->ev_gw[l]));
		F8B_TRY(mark(s, s->t_rs[l][0]));
		if (!s->no_coll)
			F8B_TRY(f8b_coll_call(f8b_ag_rs_coll(s->c), F8B_COLL_REDUCE_SCATTER,
			                      s->gw_dtype == F8B_F32 ? F8B_COLL_F32 : F8B_COLL_BF16,
			                      F8B_COLL_SUM, s->gw[l % 2].data, s->gw_shard[l].data,
			                      (size_t)(s->rows[l] * s->k[l])));
		F8B_TRY(mark(s, s->t_rs[l][1]));
		F8B_TRY(ops->event_record(be, s->ev_rs[l]));
		F8B_TRY(ops->stream_use(be, NULL));
		gin = gout;
		s->grad_x = gout;
	}
	F8B_TRY(ops->stream_use(be, s->cs));
	F8B_TRY(ops->event_record(be, s->ev_comm_end));
	F8B_TRY(ops->stream_use(be, NULL));
	F8B_TRY(ops->stream_wait(be, s->ev_comm_end));
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
