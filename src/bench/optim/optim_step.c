/* optim_step.c - one case's buffers and tables, the seeded gradient
 * stream, the step as timed, and the trajectory beside its fp64
 * reference (doc/optim.md).
 *
 * Layout: every tensor starts at a multiple of F8B_OPTIM_BLOCK elements in
 * each state buffer (the padding is never read or written).  Chunks cut
 * each tensor into pieces of about --chunk-bytes of the step's traffic,
 * a multiple of the block; one CTA takes one chunk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/optim/optim_int.h"
#include "core/fp8.h"

uint64_t f8b_optim_seed(uint64_t seed, uint64_t what, int64_t t, int64_t k)
{
	return f8b_optim_mix(f8b_optim_mix(seed * 0x9E3779B97F4A7C15ull + what) + (uint64_t)t) ^
	       f8b_optim_mix((uint64_t)k + 0x632BE59BD9B4E019ull);
}

/* A number in [0, 1) fixed per tensor and stream. */
static double unit_of(uint64_t seed, uint64_t what, int64_t k)
{
	return (double)(f8b_optim_seed(seed, what, 0, k) >> 11) * 0x1p-53;
}

/* Step t's gradient of tensor k: a per-layer scale log-uniform in
 * [1e-4, 1e-2], a persistent mean of 0.2 of it with a per-tensor sign (a
 * drift that makes the weights' amax move), and heavy tails: 0.1% of the
 * values 30 times larger. */
struct f8b_fill_spec f8b_optim_grad_spec(uint64_t seed, int64_t t, int64_t k)
{
	double scale = pow(10.0, -4.0 + 2.0 * unit_of(seed, 1, k));
	double sign = unit_of(seed, 2, k) < 0.5 ? -1.0 : 1.0;
	return (struct f8b_fill_spec){.seed = f8b_optim_seed(seed, 3, t, k),
	                              .mean = (float)(0.2 * sign * scale),
	                              .std = (float)scale,
	                              .outlier_frac = 1e-3f,
	                              .outlier_scale = 30.0f};
}

/* Tensor k's initial weight: std 0.02 times a per-tensor factor in
 * [0.5, 2), a few outliers (0.01% at 8x). */
struct f8b_fill_spec f8b_optim_weight_spec(uint64_t seed, int64_t k)
{
	double std = 0.02 * pow(2.0, 2.0 * unit_of(seed, 4, k) - 1.0);
	return (struct f8b_fill_spec){.seed = f8b_optim_seed(seed, 5, 0, k),
	                              .std = (float)std,
	                              .outlier_frac = 1e-4f,
	                              .outlier_scale = 8.0f};
}

void f8b_optim_bad_grad(const struct optim_state *s, int64_t t, int64_t j, int64_t *k, int64_t *e,
                        uint16_t *bits)
{
	static const uint16_t bad[3] = {0x7FC0, 0x7F80, 0xFF80}; /* NaN, +inf, -inf */
	uint64_t h = f8b_optim_seed(s->run->seed, 6, t, j);
	*k = j % s->cfg->nt;
	*e = (int64_t)(h % (uint64_t)s->tensors[*k].n);
	*bits = bad[j % 3];
}

/* ------------------------------------------------------------ layout */

static int make_tables(struct optim_state *s)
{
	struct optim_cfg *c = s->cfg;
	const struct optim_case *cs = &s->cs;
	double per = f8b_optim_step_bytes(cs->variant, cs->scaling, false);
	int64_t ce = (int64_t)((double)c->chunk_bytes / per) / F8B_OPTIM_BLOCK * F8B_OPTIM_BLOCK;
	if (ce < F8B_OPTIM_BLOCK)
		ce = F8B_OPTIM_BLOCK;
	if (!(s->tensors = calloc((size_t)c->nt, sizeof *s->tensors)))
		return F8B_ERR(F8B_ENOMEM, "optim tensors");
	int64_t nch = 0, slots = 0;
	for (int64_t k = 0; k < c->nt; k++) {
		int64_t n = c->t[k].rows * c->t[k].cols;
		s->tensors[k] = (struct f8b_optim_tensor){
		    .off = s->arena, .n = n, .cols = c->t[k].cols, .slot = slots, .id = k};
		slots += cs->gran == F8B_GRAN_AXISWISE ? c->t[k].rows : 1;
		s->arena += (n + F8B_OPTIM_BLOCK - 1) / F8B_OPTIM_BLOCK * F8B_OPTIM_BLOCK;
		nch += (n + ce - 1) / ce;
	}
	if (nch > 0x7FFFFFFF)
		return F8B_ERR(F8B_EINVAL, "--chunk-bytes %lld: %lld chunks (at most 2^31 - 1)",
		               (long long)c->chunk_bytes, (long long)nch);
	if (!(s->chunks = calloc((size_t)nch, sizeof *s->chunks)))
		return F8B_ERR(F8B_ENOMEM, "%lld optim chunks", (long long)nch);
	for (int64_t k = 0; k < c->nt; k++)
		for (int64_t st = 0; st < s->tensors[k].n; st += ce) {
			int64_t left = s->tensors[k].n - st;
			s->chunks[s->a.nchunks++] = (struct f8b_optim_chunk){
			    .tensor = k, .start = st, .count = left < ce ? left : ce};
		}
	s->nblocks = s->arena / F8B_OPTIM_BLOCK;
	s->a.ntensors = c->nt;
	s->a.nslots = slots;
	/* entries 0..steps+1: the trajectory and the checked step after it */
	s->a.nhyper = cs->steps + 2;
	if (!(s->hyper = calloc((size_t)s->a.nhyper, sizeof *s->hyper)))
		return F8B_ERR(F8B_ENOMEM, "optim hyper table");
	f8b_optim_hyper_fill(&c->hp, s->hyper, s->a.nhyper);
	return F8B_OK;
}

/* The sample: every block when there are few, else OPTIM_SAMPLE_BLOCKS
 * evenly spaced over all of them. */
static int make_sample(struct optim_state *s)
{
	int64_t total = 0;
	for (int64_t k = 0; k < s->a.ntensors; k++)
		total += (s->tensors[k].n + F8B_OPTIM_BLOCK - 1) / F8B_OPTIM_BLOCK;
	int64_t want = total < OPTIM_SAMPLE_BLOCKS ? total : OPTIM_SAMPLE_BLOCKS;
	if (!(s->smp = calloc((size_t)want, sizeof *s->smp)))
		return F8B_ERR(F8B_ENOMEM, "optim sample");
	int64_t g = 0, next = 0, taken = 0;
	for (int64_t k = 0; k < s->a.ntensors && taken < want; k++) {
		int64_t nb = (s->tensors[k].n + F8B_OPTIM_BLOCK - 1) / F8B_OPTIM_BLOCK;
		for (int64_t b = 0; b < nb && taken < want; b++, g++) {
			if (g != next)
				continue;
			int64_t e0 = b * F8B_OPTIM_BLOCK, left = s->tensors[k].n - e0;
			s->smp[taken++] = (struct optim_sample){
			    k, e0, (int)(left < F8B_OPTIM_BLOCK ? left : F8B_OPTIM_BLOCK)};
			s->nsmp_elems += s->smp[taken - 1].cnt;
			next = taken * total / want;
		}
	}
	s->nsmp = taken;
	size_t ne = (size_t)s->nsmp_elems;
	s->rw = calloc(ne, sizeof *s->rw);
	s->rm = calloc(ne, sizeof *s->rm);
	s->rv = calloc(ne, sizeof *s->rv);
	if (!s->rw || !s->rm || !s->rv)
		return F8B_ERR(F8B_ENOMEM, "optim reference (%zu elements)", ne);
	return F8B_OK;
}

static int alloc_buf(struct optim_state *s, enum optim_buf b, size_t bytes)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	if (!bytes)
		return F8B_OK;
	F8B_TRY(ops->alloc(s->run->be, bytes, &s->buf[b]));
	s->bytes[b] = bytes;
	s->allocated += (int64_t)bytes;
	return ops->memset(s->run->be, s->buf[b], 0, bytes);
}

int f8b_optim_alloc(struct optim_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	const struct optim_case *cs = &s->cs;
	struct optim_cfg *c = s->cfg;
	F8B_TRY(make_tables(s));
	F8B_TRY(make_sample(s));
	size_t ar = (size_t)s->arena, sl = (size_t)s->a.nslots;
	bool fp8 = f8b_optim_fp8_states(cs->variant);
	int hist = cs->scaling == F8B_OPTIM_DELAYED ? c->history : 0;
	F8B_TRY(alloc_buf(s, OB_GRAD, ar * 2));
	F8B_TRY(alloc_buf(s, OB_MASTER, ar * f8b_optim_master_size(cs->variant)));
	F8B_TRY(alloc_buf(s, OB_M, ar * f8b_optim_state_size(cs->variant)));
	F8B_TRY(alloc_buf(s, OB_V, ar * f8b_optim_state_size(cs->variant)));
	F8B_TRY(alloc_buf(s, OB_MSINV, fp8 ? (size_t)s->nblocks * 4 : 0));
	F8B_TRY(alloc_buf(s, OB_VSINV, fp8 ? (size_t)s->nblocks * 4 : 0));
	F8B_TRY(alloc_buf(s, OB_W8, ar));
	F8B_TRY(alloc_buf(s, OB_SCALE, sl * 4));
	F8B_TRY(alloc_buf(s, OB_USED, sl * 4));
	F8B_TRY(alloc_buf(s, OB_ACC, sl * 4));
	F8B_TRY(alloc_buf(s, OB_LAST, sl * 4));
	F8B_TRY(alloc_buf(s, OB_HIST, sl * 4 * (size_t)hist));
	F8B_TRY(alloc_buf(s, OB_CTR, F8B_OPTIM_CTR_COUNT * 8));
	F8B_TRY(alloc_buf(s, OB_TENSORS, (size_t)s->a.ntensors * sizeof *s->tensors));
	F8B_TRY(alloc_buf(s, OB_CHUNKS, (size_t)s->a.nchunks * sizeof *s->chunks));
	F8B_TRY(alloc_buf(s, OB_HYPER, (size_t)s->a.nhyper * sizeof *s->hyper));
	F8B_TRY(ops->upload(be, s->buf[OB_TENSORS], s->tensors, s->bytes[OB_TENSORS]));
	F8B_TRY(ops->upload(be, s->buf[OB_CHUNKS], s->chunks, s->bytes[OB_CHUNKS]));
	F8B_TRY(ops->upload(be, s->buf[OB_HYPER], s->hyper, s->bytes[OB_HYPER]));
	uint64_t ctr[F8B_OPTIM_CTR_COUNT] = {[F8B_OPTIM_CTR_STEP] = 1};
	F8B_TRY(ops->upload(be, s->buf[OB_CTR], ctr, sizeof ctr));

	struct f8b_optim_args *a = &s->a;
	a->variant = cs->variant;
	a->scaling = cs->scaling;
	a->gran = cs->gran;
	a->stochastic = cs->variant == F8B_OPTIM_FP8_MASTER16 && c->stochastic;
	a->seed = f8b_optim_seed(s->run->seed, 7, 0, 0);
	a->history = hist;
	a->tensors = s->buf[OB_TENSORS];
	a->chunks = s->buf[OB_CHUNKS];
	a->hyper = s->buf[OB_HYPER];
	a->grad = s->buf[OB_GRAD];
	a->master = s->buf[OB_MASTER];
	a->m = s->buf[OB_M];
	a->v = s->buf[OB_V];
	a->m_sinv = s->buf[OB_MSINV];
	a->v_sinv = s->buf[OB_VSINV];
	a->w8 = s->buf[OB_W8];
	a->scale = s->buf[OB_SCALE];
	a->scale_used = s->buf[OB_USED];
	a->amax_acc = s->buf[OB_ACC];
	a->amax_last = s->buf[OB_LAST];
	a->hist = s->buf[OB_HIST];
	a->ctr = s->buf[OB_CTR];

	/* The initial weights, then their amax and the first step's scales. */
	enum f8b_dtype mdt = cs->variant == F8B_OPTIM_FP8_MASTER16 ? F8B_BF16 : F8B_F32;
	for (int64_t k = 0; k < a->ntensors; k++) {
		struct f8b_tensor w = {.data = (char *)a->master +
		                               s->tensors[k].off * (int64_t)f8b_dtype_size(mdt),
		                       .dtype = mdt,
		                       .rows = 1,
		                       .cols = s->tensors[k].n};
		struct f8b_fill_spec spec = f8b_optim_weight_spec(s->run->seed, k);
		F8B_TRY(ops->fill(be, &w, &spec));
	}
	F8B_TRY(ops->optim_pass(be, a, F8B_OPTIM_AMAX));
	return ops->sync(be);
}

void f8b_optim_free(struct optim_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	if (s->graph)
		ops->graph_free(s->run->be, s->graph);
	if (s->graph_split)
		ops->graph_free(s->run->be, s->graph_split);
	for (int b = 0; b < OB_COUNT; b++)
		if (s->buf[b])
			ops->free(s->run->be, s->buf[b]);
	free(s->tensors);
	free(s->chunks);
	free(s->hyper);
	free(s->smp);
	free(s->rw);
	free(s->rm);
	free(s->rv);
	free(s->pre);
	free(s->pre_scale);
}

/* ------------------------------------------------------------ the step */

int f8b_optim_gradients(struct optim_state *s, int64_t t)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	for (int64_t k = 0; k < s->a.ntensors; k++) {
		struct f8b_tensor g = {.data = (uint16_t *)s->buf[OB_GRAD] + s->tensors[k].off,
		                       .dtype = F8B_BF16,
		                       .rows = 1,
		                       .cols = s->tensors[k].n};
		struct f8b_fill_spec spec = f8b_optim_grad_spec(s->run->seed, t, k);
		F8B_TRY(ops->fill(be, &g, &spec));
	}
	for (int64_t j = 0; j < s->cfg->nonfinite; j++) {
		int64_t k, e;
		uint16_t bits;
		f8b_optim_bad_grad(s, t, j, &k, &e, &bits);
		F8B_TRY(
		    ops->upload(be, (uint16_t *)s->buf[OB_GRAD] + s->tensors[k].off + e, &bits, 2));
	}
	return F8B_OK;
}

int f8b_optim_step_ops(void *vs)
{
	struct optim_state *s = vs;
	const struct f8b_backend_ops *ops = s->run->ops;
	F8B_TRY(ops->optim_pass(s->run->be, &s->a, F8B_OPTIM_FUSED));
	if (s->cs.scaling == F8B_OPTIM_DYNAMIC)
		F8B_TRY(ops->optim_pass(s->run->be, &s->a, F8B_OPTIM_CAST));
	return F8B_OK;
}

static int split_ops(void *vs)
{
	struct optim_state *s = vs;
	const struct f8b_backend_ops *ops = s->run->ops;
	F8B_TRY(ops->optim_pass(s->run->be, &s->a, F8B_OPTIM_UPDATE));
	F8B_TRY(ops->optim_pass(s->run->be, &s->a, F8B_OPTIM_AMAX));
	return ops->optim_pass(s->run->be, &s->a, F8B_OPTIM_CAST);
}

int f8b_optim_run_step(void *vs)
{
	struct optim_state *s = vs;
	if (s->graph)
		return s->run->ops->graph_launch(s->run->be, s->graph);
	return f8b_optim_step_ops(s);
}

int f8b_optim_run_split(void *vs)
{
	struct optim_state *s = vs;
	if (!s->graph_split && s->cs.graph)
		F8B_TRY(s->run->ops->graph_capture(s->run->be, split_ops, s, &s->graph_split));
	if (s->graph_split)
		return s->run->ops->graph_launch(s->run->be, s->graph_split);
	return split_ops(s);
}

/* ------------------------------------------------------------ reference */

/* The sample's initial weights, as stored, into the reference. */
static int reference_init(struct optim_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	size_t ms = f8b_optim_master_size(s->cs.variant);
	unsigned char buf[F8B_OPTIM_BLOCK * 4];
	int64_t x = 0;
	for (int64_t i = 0; i < s->nsmp; i++) {
		const struct optim_sample *p = &s->smp[i];
		int64_t at = s->tensors[p->k].off + p->e0;
		F8B_TRY(ops->download(s->run->be, buf, (char *)s->buf[OB_MASTER] + at * (int64_t)ms,
		                      (size_t)p->cnt * ms));
		for (int j = 0; j < p->cnt; j++, x++) {
			float w;
			if (ms == 2) {
				uint16_t b;
				memcpy(&b, buf + 2 * j, 2);
				w = f8b_bf16_to_f32(b);
			} else {
				memcpy(&w, buf + 4 * j, 4);
			}
			s->rw[x] = w;
			s->rm[x] = s->rv[x] = 0.0;
		}
	}
	return F8B_OK;
}

/* Step t of exact AdamW in double on the sampled elements (no clipping:
 * the bound holds in exact arithmetic), from the same bf16 gradients. */
static int reference_step(struct optim_state *s, int64_t t)
{
	struct optim_cfg *c = s->cfg;
	const struct f8b_optim_hparams *hp = &c->hp;
	double lr = f8b_optim_lr_at(hp, t);
	double bc1 = 1.0 - pow(hp->beta1, (double)t), bc2 = 1.0 - pow(hp->beta2, (double)t);
	if (!c->href)
		F8B_TRY(f8b_backend_host.open(-1, &c->href, &(struct f8b_device_info){0}));
	uint16_t g[F8B_OPTIM_BLOCK];
	int64_t x = 0;
	for (int64_t i = 0; i < s->nsmp; i++) {
		const struct optim_sample *p = &s->smp[i];
		struct f8b_tensor gt = {.data = g, .dtype = F8B_BF16, .rows = 1, .cols = p->cnt};
		struct f8b_fill_spec spec = f8b_optim_grad_spec(s->run->seed, t, p->k);
		spec.offset = (uint64_t)p->e0;
		F8B_TRY(f8b_backend_host.fill(c->href, &gt, &spec));
		for (int64_t j = 0; j < c->nonfinite; j++) {
			int64_t k, e;
			uint16_t bits;
			f8b_optim_bad_grad(s, t, j, &k, &e, &bits);
			if (k == p->k && e >= p->e0 && e < p->e0 + p->cnt)
				g[e - p->e0] = bits;
		}
		for (int j = 0; j < p->cnt; j++, x++) {
			double gv = f8b_bf16_to_f32(g[j]);
			if (!isfinite(gv))
				continue;
			s->rm[x] = hp->beta1 * s->rm[x] + (1.0 - hp->beta1) * gv;
			s->rv[x] = hp->beta2 * s->rv[x] + (1.0 - hp->beta2) * gv * gv;
			double u = (s->rm[x] / bc1) / (sqrt(s->rv[x] / bc2) + hp->eps);
			s->rw[x] -= lr * (u + hp->wd * s->rw[x]);
		}
	}
	return F8B_OK;
}

int f8b_optim_trajectory(struct optim_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	F8B_TRY(reference_init(s));
	for (int64_t t = 1; t <= s->cs.steps; t++) {
		F8B_TRY(f8b_optim_gradients(s, t));
		F8B_TRY(f8b_optim_step_ops(s));
		F8B_TRY(reference_step(s, t));
	}
	return ops->sync(s->run->be);
}
