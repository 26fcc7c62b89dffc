/* ag_buf.c - the allgather benchmark's buffers (ag_int.h): every tensor
 * and scale of a case's step, the collective buffers made through the
 * communicator (--nccl-buffers), the GEMM plans, the events that order the
 * two queues, and the seeded data the checks can remake on the host.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_int.h"

static bool fp8_mode(const struct ag_state *s)
{
	return s->mode != AG_BF16;
}

struct f8b_tensor f8b_ag_view(void *data, enum f8b_dtype dt, int64_t r, int64_t c)
{
	return (struct f8b_tensor){.data = data, .dtype = dt, .rows = r, .cols = c};
}

/* ---- buffers ---------------------------------------------------------- */

int f8b_ag_bytes(struct ag_state *s, size_t bytes, void **p)
{
	F8B_TRY(s->run->ops->alloc(s->run->be, bytes, p));
	s->allocated += (int64_t)bytes;
	return F8B_OK;
}

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

/* What a collective reads or writes comes from the communicator that runs
 * it, in its buffer mode (--nccl-buffers, or the reduce-scatter's
 * --rs-nccl-buffers); every rank allocates the same sizes in the same
 * order (registration is collective), and f8b_ag_free gives them back in
 * reverse, each to its communicator. */
int f8b_ag_cbytes_on(struct ag_state *s, bool rs, size_t bytes, void **p)
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

int f8b_ag_cbytes(struct ag_state *s, size_t bytes, void **p)
{
	return f8b_ag_cbytes_on(s, false, bytes, p);
}

static int ctens(struct ag_state *s, struct f8b_tensor *t, enum f8b_dtype dt, int64_t r, int64_t c)
{
	*t = f8b_ag_view(NULL, dt, r, c);
	return f8b_ag_cbytes(s, f8b_tensor_bytes(t), &t->data);
}

/* A reduce-scatter's input or output: from its communicator, in its mode. */
static int rstens(struct ag_state *s, struct f8b_tensor *t, enum f8b_dtype dt, int64_t r, int64_t c)
{
	*t = f8b_ag_view(NULL, dt, r, c);
	return f8b_ag_cbytes_on(s, true, f8b_tensor_bytes(t), &t->data);
}

static int cfloats(struct ag_state *s, int64_t n, float **p)
{
	return f8b_ag_cbytes(s, (size_t)n * sizeof(float), (void **)p);
}

/* Layer l's GEMM `what` (forward, grad_input, grad_weight). */
static int plan(struct ag_state *s, struct ag_gemm *g, int l, const char *what, int64_t m,
                int64_t n, int64_t k, enum f8b_dtype a, enum f8b_dtype b, enum f8b_dtype out,
                bool axis, bool fast, bool a_t, bool b_t)
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
	                                 /* f8bench's own GEMM is fp8 only */
	                                 .impl = fp8 ? s->impl : F8B_GEMM_IMPL_CUBLASLT,
	                                 .sm_margin = s->c->sm_margin};
	struct f8b_algo_info info;
	int rc = s->run->ops->gemm_plan(s->run->be, &g->desc, 0, &g->plan, &info);
	if (rc != F8B_OK) { /* which GEMM, and (impl f8b) why, in the row's message */
		char where[48];
		snprintf(where, sizeof where, "layer %d %s", l, what);
		return f8b_gemm_plan_error(rc, where);
	}
	return F8B_OK;
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
	int cp = s->c->comm_high ? F8B_STREAM_HIGH : F8B_STREAM_DEFAULT;
	F8B_TRY(ops->stream_create(be, cp, &s->cs));
	if (s->opt && s->c->overlap) { /* the updates' queue (ag_step.c) */
		for (int l = 0; l < s->L; l++)
			F8B_TRY(ops->event_create(be, &s->ev_upd[l]));
		/* behind the compute queue: an update takes the SMs the
		 * backward leaves (F8B_AG_UPDATE_PRIORITY=default: beside it,
		 * the A/B of doc/allgather-history.md) */
		const char *e = getenv("F8B_AG_UPDATE_PRIORITY");
		int up = e && !strcmp(e, "default") ? F8B_STREAM_DEFAULT : F8B_STREAM_LOW;
		F8B_TRY(ops->stream_create(be, up, &s->ups));
	}
	if (!s->c->rs_stream)
		return F8B_OK;
	F8B_TRY(ops->event_create(be, &s->ev_rs_end));
	return ops->stream_create(be, cp, &s->rss);
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
	for (int l = 0; l < s->L && !s->opt; l++) {
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
	/* With an optimizer, its master weights are the shards (ag_optim.c). */
	for (int l = 0; l < L && !s->opt; l++) {
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
		/* the optimizer's amaxes have layer l's at [4*l], as its scales */
		F8B_TRY(cfloats(s, s->opt ? 4 * L : L, &s->amax_loc));
		F8B_TRY(cfloats(s, s->opt ? 4 * L : L, &s->amax_all));
		/* one 16-byte slot per layer: cuBLASLt takes scale pointers on
		 * 16-byte boundaries only */
		F8B_TRY(floats(s, 4 * L, &s->scale_all));
		F8B_TRY(floats(s, 4 * L, &s->sinv_all));
	}
	if (s->opt)
		F8B_TRY(f8b_ag_optim_alloc(s));
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
		F8B_TRY(plan(s, &s->fwd[l], l, "forward", T, n, k, e4, e4, F8B_BF16, axis, true,
		             false, false));
		F8B_TRY(plan(s, &s->gi[l], l, "grad_input", T, k, n, e5, e4, F8B_BF16, axis, false,
		             false, true));
		F8B_TRY(plan(s, &s->gwg[l], l, "grad_weight", n, k, T, e5, e4, s->gw_dtype, axis,
		             false, true, true));
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
	if (s->rss)
		ops->stream_destroy(be, s->rss);
	if (s->ups)
		ops->stream_destroy(be, s->ups);
	for (int i = s->ncbuf; i-- > 0;) {
		f8b_coll_free(s->cbuf_coll[i], *s->cbuf[i]);
		*s->cbuf[i] = NULL;
	}
	s->ncbuf = 0;
	f8b_ag_optim_free(s);
	if (s->opt) /* views into gw_all, which was a collective's buffer */
		memset(s->gw_shard, 0, sizeof s->gw_shard);
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
	struct f8b_event *es[] = {s->ev_start, s->ev_comm_end, s->ev_rs_end};
	for (int i = 0; i < 3; i++)
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
		struct f8b_event *e5[] = {s->ev_gw[l], s->ev_rs[l], s->t_rs[l][0], s->t_rs[l][1],
		                          s->ev_upd[l]};
		for (int i = 0; i < 5; i++)
			if (e5[i])
				ops->event_destroy(be, e5[i]);
	}
	for (int j = 0; j < 3 * AG_MAX_LAYERS; j++)
		for (int e = 0; e < 2; e++)
			if (s->t_gemm[j][e])
				ops->event_destroy(be, s->t_gemm[j][e]);
	for (int i = 0; i < TM_N; i++)
		if (s->t_mark[i])
			ops->event_destroy(be, s->t_mark[i]);
}
