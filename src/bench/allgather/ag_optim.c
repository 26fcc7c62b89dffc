/* ag_optim.c - AdamW on the allgather benchmark's shards (--optimizer,
 * --update; doc/allgather.md "The optimizer"): f8bench optim's op
 * (backend.h optim_pass, core/optim.h, the same passes and bits as
 * `f8bench optim`) over this rank's shard of every layer's weight.
 *
 * Each rank keeps, for its rows of every W_l, the master weight, m and v
 * of the variant, and the fp8 (e4m3) shard that fp8-allgather gathers.
 * The shard's scale is the whole weight's, as the mode needs: the update
 * pass takes the exact amax of the rank's new master (dynamic scaling),
 * one all-reduce (max) makes it the weight's, backend.h's scales op turns
 * it into the scale and scale_inv, and the op's cast pass writes the fp8
 * shard with it -- torchao's precompute_float8_dynamic_scale_for_fsdp,
 * after the optimizer, with the cast in the optimizer's own passes.
 *
 * Layout: layer l's shard is element ooff[l] of every state buffer (a
 * multiple of F8B_OPTIM_BLOCK, so no block of the fp8 states' scales is
 * shared); its amax, scale and scale_inv are slot 4l (the 16-byte
 * boundaries cuBLASLt wants of scale pointers).  `after` runs one
 * multi-tensor pass over all the shards (s->oa, one step counter);
 * `overlap` one update pass per layer (s->oa_l[l]: the same buffers from
 * layer l's element and slot, a step counter of its own) on a queue of
 * its own, then, after the backward, one all-reduce of every layer's
 * amax and one cast pass over all the shards (s->oa), as after's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_int.h"

enum {
	OB_MASTER,
	OB_M,
	OB_V,
	OB_MSINV,
	OB_VSINV,
	OB_W8,
	OB_ACC,
	OB_USED,
	OB_CTR,
	OB_TENSORS,
	OB_CHUNKS,
	OB_HYPER,
	OB_PROBE,
	OB_N
};
_Static_assert(OB_N <= 16, "ag_state.obuf");

/* Entries of the hyper table: steps past the last keep its scalars. */
#define AG_OPT_HYPER 64
/* Elements per chunk (one CTA): about 1 MiB of the pass's traffic. */
#define AG_OPT_CHUNK_BYTES (1 << 20)

/* The hyperparameters (doc/allgather.md "The optimizer"): small steps, so
 * the weights stay near the seeded ones the bf16 baseline uses. */
static const struct f8b_optim_hparams hp = {
    .lr = 1e-4, .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .wd = 0.1};
static const struct f8b_scale_opts so = {0};

static int64_t round_block(int64_t n)
{
	return (n + F8B_OPTIM_BLOCK - 1) / F8B_OPTIM_BLOCK * F8B_OPTIM_BLOCK;
}

static int64_t shard_elems(const struct ag_state *s, int l)
{
	return s->rows[l] * s->k[l];
}

int64_t f8b_ag_optim_sample(const struct ag_state *s, int l, int i, int *cnt)
{
	int64_t n = shard_elems(s, l), nb = (n + F8B_OPTIM_BLOCK - 1) / F8B_OPTIM_BLOCK;
	int64_t b = i == 0 ? 0 : i == 1 ? nb / 2 : nb - 1;
	int64_t e0 = b * F8B_OPTIM_BLOCK;
	*cnt = (int)(n - e0 < F8B_OPTIM_BLOCK ? n - e0 : F8B_OPTIM_BLOCK);
	return e0;
}

double f8b_ag_optim_bytes(const struct ag_state *s)
{
	double e = 0;
	for (int l = 0; l < s->L; l++)
		e += (double)shard_elems(s, l);
	return e *
	       f8b_optim_step_bytes((enum f8b_optim_variant)s->c->optim, F8B_OPTIM_DYNAMIC, false);
}

static int buf(struct ag_state *s, int b, size_t bytes)
{
	F8B_TRY(f8b_ag_bytes(s, bytes, &s->obuf[b]));
	return s->run->ops->memset(s->run->be, s->obuf[b], 0, bytes);
}

/* Chunks of ce elements over a tensor of n, for table entry `id`. */
static int64_t add_chunks(struct f8b_optim_chunk *ch, int64_t j, int id, int64_t n, int64_t ce)
{
	for (int64_t st = 0; st < n; st += ce)
		ch[j++] = (struct f8b_optim_chunk){id, st, n - st < ce ? n - st : ce};
	return j;
}

/* The tensor and chunk tables: entries [0, L) and chunks [0, nall) are
 * after's (tensor l at ooff[l], slot 4l); then each layer's alone (offset
 * 0, slot 0), for overlap.  *cat and *cn: where layer l's own chunks
 * start, and how many. */
static int tables(struct ag_state *s, int64_t *cat, int64_t *cn, int64_t *nchunks)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int L = s->L;
	double per =
	    f8b_optim_step_bytes((enum f8b_optim_variant)s->c->optim, F8B_OPTIM_DYNAMIC, false);
	/* F8B_AG_OPT_CHUNK_KIB: the chunk's traffic in KiB (the A/B of
	 * doc/allgather-history.md; a shorter CTA holds an SM for less time) */
	const char *env = getenv("F8B_AG_OPT_CHUNK_KIB");
	double cb = env && atoi(env) > 0 ? 1024.0 * atoi(env) : AG_OPT_CHUNK_BYTES;
	int64_t ce = (int64_t)(cb / per) / F8B_OPTIM_BLOCK * F8B_OPTIM_BLOCK;
	if (ce < F8B_OPTIM_BLOCK)
		ce = F8B_OPTIM_BLOCK;
	int64_t nall = 0;
	for (int l = 0; l < L; l++) {
		cn[l] = (shard_elems(s, l) + ce - 1) / ce;
		nall += cn[l];
	}
	struct f8b_optim_tensor t[2 * AG_MAX_LAYERS];
	struct f8b_optim_chunk *ch = calloc((size_t)(2 * nall), sizeof *ch);
	if (!ch)
		return F8B_ERR(F8B_ENOMEM, "optimizer chunks (%lld)", (long long)nall);
	int64_t j = 0;
	for (int l = 0; l < L; l++) {
		int64_t n = shard_elems(s, l);
		t[l] = (struct f8b_optim_tensor){
		    .off = s->ooff[l], .n = n, .cols = s->k[l], .slot = 4 * l, .id = l};
		t[L + l] = t[l];
		t[L + l].off = 0;
		t[L + l].slot = 0;
		j = add_chunks(ch, j, l, n, ce);
	}
	for (int l = 0; l < L; l++) {
		cat[l] = j;
		j = add_chunks(ch, j, 0, shard_elems(s, l), ce);
	}
	int rc = buf(s, OB_TENSORS, sizeof(t[0]) * 2 * (size_t)L);
	if (rc == F8B_OK)
		rc = ops->upload(be, s->obuf[OB_TENSORS], t, sizeof(t[0]) * 2 * (size_t)L);
	if (rc == F8B_OK)
		rc = buf(s, OB_CHUNKS, sizeof *ch * (size_t)(2 * nall));
	if (rc == F8B_OK)
		rc = ops->upload(be, s->obuf[OB_CHUNKS], ch, sizeof *ch * (size_t)(2 * nall));
	free(ch);
	*nchunks = nall;
	return rc;
}

/* Layer l's args: the same buffers, from its first element and slot. */
static void layer_args(struct ag_state *s, int l, const int64_t *cat, const int64_t *cn)
{
	const struct f8b_optim_args *a = &s->oa;
	struct f8b_optim_args *b = &s->oa_l[l];
	enum f8b_optim_variant v = (enum f8b_optim_variant)a->variant;
	int64_t o = s->ooff[l];
	*b = *a;
	b->ntensors = 1;
	b->tensors = (const struct f8b_optim_tensor *)s->obuf[OB_TENSORS] + s->L + l;
	b->nchunks = cn[l];
	b->chunks = (const struct f8b_optim_chunk *)s->obuf[OB_CHUNKS] + cat[l];
	b->nslots = 1;
	b->grad = s->gw_shard[l].data;
	b->master = (char *)a->master + o * (int64_t)f8b_optim_master_size(v);
	b->m = (char *)a->m + o * (int64_t)f8b_optim_state_size(v);
	b->v = (char *)a->v + o * (int64_t)f8b_optim_state_size(v);
	if (a->m_sinv) {
		b->m_sinv = a->m_sinv + o / F8B_OPTIM_BLOCK;
		b->v_sinv = a->v_sinv + o / F8B_OPTIM_BLOCK;
	}
	b->w8 = a->w8 + o;
	b->scale = a->scale + 4 * l;
	b->scale_used = a->scale_used + 4 * l;
	b->amax_acc = a->amax_acc + 4 * l;
	b->amax_last = a->amax_last + 4 * l;
	b->ctr = a->ctr + F8B_OPTIM_CTR_COUNT * (l + 1);
}

/* The grad shards: after keeps every layer's until the backward ends (one
 * buffer, layer l's at ooff[l]); overlap two, which the layers'
 * reduce-scatters write in turn (layer l's: l % 2): a reduce-scatter
 * waits for the update that read its buffer two layers before
 * (ag_step.c), so an update runs beside the next reduce-scatter. */
static int grads(struct ag_state *s)
{
	int64_t n = s->oarena, big = 0; /* big: the largest shard */
	for (int l = 0; l < s->L; l++)
		if (round_block(shard_elems(s, l)) > big)
			big = round_block(shard_elems(s, l));
	if (s->c->overlap)
		n = s->L > 1 ? 2 * big : big;
	F8B_TRY(f8b_ag_cbytes_on(s, true, (size_t)n * 2, &s->gw_all.data)); /* the RS's output */
	s->gw_all = f8b_ag_view(s->gw_all.data, F8B_BF16, 1, n);
	for (int l = 0; l < s->L; l++) {
		uint16_t *g =
		    (uint16_t *)s->gw_all.data + (s->c->overlap ? l % 2 * big : s->ooff[l]);
		s->gw_shard[l] = f8b_ag_view(g, F8B_BF16, s->rows[l], s->k[l]);
	}
	return F8B_OK;
}

int f8b_ag_optim_alloc(struct ag_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	enum f8b_optim_variant v = (enum f8b_optim_variant)s->c->optim;
	int L = s->L;
	s->oarena = 0;
	for (int l = 0; l < L; l++) {
		s->ooff[l] = s->oarena;
		s->oarena += round_block(shard_elems(s, l));
	}
	size_t ar = (size_t)s->oarena, nb = ar / F8B_OPTIM_BLOCK, sl = 4 * (size_t)L;
	bool fp8 = f8b_optim_fp8_states(v);
	F8B_TRY(buf(s, OB_MASTER, ar * f8b_optim_master_size(v)));
	F8B_TRY(buf(s, OB_M, ar * f8b_optim_state_size(v)));
	F8B_TRY(buf(s, OB_V, ar * f8b_optim_state_size(v)));
	if (fp8) {
		F8B_TRY(buf(s, OB_MSINV, nb * 4));
		F8B_TRY(buf(s, OB_VSINV, nb * 4));
	}
	/* the fp8 shards: what the gathers read (a collective's buffer) */
	F8B_TRY(f8b_ag_cbytes(s, ar, &s->obuf[OB_W8]));
	F8B_TRY(buf(s, OB_ACC, sl * 4));
	F8B_TRY(buf(s, OB_USED, sl * 4));
	F8B_TRY(buf(s, OB_CTR, (size_t)(L + 1) * F8B_OPTIM_CTR_COUNT * 8));
	F8B_TRY(grads(s));
	int64_t cat[AG_MAX_LAYERS], cn[AG_MAX_LAYERS], nall = 0;
	F8B_TRY(tables(s, cat, cn, &nall));
	if (!(s->ohyper = calloc(AG_OPT_HYPER, sizeof *s->ohyper)))
		return F8B_ERR(F8B_ENOMEM, "optimizer hyper table");
	f8b_optim_hyper_fill(&hp, s->ohyper, AG_OPT_HYPER);
	F8B_TRY(buf(s, OB_HYPER, AG_OPT_HYPER * sizeof *s->ohyper));
	F8B_TRY(ops->upload(be, s->obuf[OB_HYPER], s->ohyper, AG_OPT_HYPER * sizeof *s->ohyper));
	uint64_t ctr[(AG_MAX_LAYERS + 1) * F8B_OPTIM_CTR_COUNT] = {0};
	for (int l = 0; l <= L; l++)
		ctr[l * F8B_OPTIM_CTR_COUNT + F8B_OPTIM_CTR_STEP] = 1;
	F8B_TRY(ops->upload(be, s->obuf[OB_CTR], ctr, (size_t)(L + 1) * F8B_OPTIM_CTR_COUNT * 8));
	/* the check's probe: not the step's memory, so not counted */
	size_t pb = (size_t)L * AG_OPT_SAMPLE * F8B_OPTIM_BLOCK * 2;
	F8B_TRY(ops->alloc(be, pb, &s->obuf[OB_PROBE]));
	s->probe = s->obuf[OB_PROBE];

	struct f8b_optim_args *a = &s->oa;
	*a = (struct f8b_optim_args){.variant = (int)v,
	                             .scaling = F8B_OPTIM_DYNAMIC,
	                             .gran = F8B_GRAN_TENSORWISE,
	                             .seed = s->run->seed * 0x9E3779B97F4A7C15ull + 0xA0,
	                             .ntensors = L,
	                             .nchunks = nall,
	                             .nslots = (int64_t)sl,
	                             .nhyper = AG_OPT_HYPER,
	                             .tensors = s->obuf[OB_TENSORS],
	                             .chunks = s->obuf[OB_CHUNKS],
	                             .hyper = s->obuf[OB_HYPER],
	                             .grad = s->gw_all.data,
	                             .master = s->obuf[OB_MASTER],
	                             .m = s->obuf[OB_M],
	                             .v = s->obuf[OB_V],
	                             .m_sinv = s->obuf[OB_MSINV],
	                             .v_sinv = s->obuf[OB_VSINV],
	                             .w8 = s->obuf[OB_W8],
	                             .scale = s->scale_all,
	                             .scale_used = s->obuf[OB_USED],
	                             .amax_acc = s->obuf[OB_ACC],
	                             .amax_last = s->amax_loc,
	                             .ctr = s->obuf[OB_CTR]};
	for (int l = 0; l < L; l++)
		layer_args(s, l, cat, cn);
	/* The master weights: the seeded W_l's rows of this rank, as fp32 (or
	 * bf16: fp8-master16) values of the same fill the bf16 shards have. */
	enum f8b_dtype mdt = v == F8B_OPTIM_FP8_MASTER16 ? F8B_BF16 : F8B_F32;
	for (int l = 0; l < L; l++) {
		struct f8b_tensor w =
		    f8b_ag_view((char *)a->master + s->ooff[l] * (int64_t)f8b_dtype_size(mdt), mdt,
		                s->rows[l], s->k[l]);
		struct f8b_fill_spec f = f8b_ag_weight_fill(s, l, true);
		F8B_TRY(ops->fill(be, &w, &f));
	}
	return F8B_OK;
}

void f8b_ag_optim_free(struct ag_state *s)
{
	/* OB_W8 and the grads are collective buffers: f8b_ag_free's */
	for (int b = 0; b < OB_N; b++)
		if (s->obuf[b] && b != OB_W8)
			s->run->ops->free(s->run->be, s->obuf[b]);
	memset(s->obuf, 0, sizeof s->obuf);
	free(s->ohyper);
	s->ohyper = NULL;
}

/* The all-reduce of the shards' amaxes, the global scales and the cast,
 * for layer l's slot (l < 0: every layer's). */
static int reduce_cast(struct ag_state *s, int l)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	const struct f8b_optim_args *a = l < 0 ? &s->oa : &s->oa_l[l];
	size_t at = l < 0 ? 0 : 4 * (size_t)l, n = l < 0 ? 4 * (size_t)s->L : 1;
	F8B_TRY(f8b_ag_coll(s, F8B_COLL_ALLREDUCE, F8B_COLL_F32, F8B_COLL_MAX, s->amax_loc + at,
	                    s->amax_all + at, n));
	F8B_TRY(ops->scales(be, s->amax_all + at, (int64_t)n, F8B_E4M3, &so, s->scale_all + at,
	                    s->sinv_all + at));
	return ops->optim_pass(be, a, F8B_OPTIM_CAST);
}

/* One group's passes: `first` (the update, FUSED; or AMAX before the
 * first step), then reduce_cast. */
static int group(struct ag_state *s, int l, int first)
{
	const struct f8b_optim_args *a = l < 0 ? &s->oa : &s->oa_l[l];
	F8B_TRY(s->run->ops->optim_pass(s->run->be, a, first));
	return reduce_cast(s, l);
}

int f8b_ag_optim_first(struct ag_state *s)
{
	if (!s->c->overlap)
		return group(s, -1, F8B_OPTIM_AMAX);
	for (int l = 0; l < s->L; l++)
		F8B_TRY(group(s, l, F8B_OPTIM_AMAX));
	return F8B_OK;
}

int f8b_ag_optim_probe(struct ag_state *s, int l)
{
	if (!s->probe_on)
		return F8B_OK;
	for (int i = 0; i < AG_OPT_SAMPLE; i++) {
		int cnt;
		int64_t e0 = f8b_ag_optim_sample(s, l, i, &cnt);
		uint16_t *dst =
		    s->probe + ((size_t)l * AG_OPT_SAMPLE + (size_t)i) * F8B_OPTIM_BLOCK;
		F8B_TRY(s->run->ops->bw_copy(s->run->be, dst, (uint16_t *)s->gw_shard[l].data + e0,
		                             (size_t)cnt * 2, 1));
	}
	return F8B_OK;
}

int f8b_ag_optim_update(struct ag_state *s, int l)
{
	if (l >= 0) { /* overlap: layer l's update pass alone */
		F8B_TRY(f8b_ag_optim_probe(s, l));
		return s->run->ops->optim_pass(s->run->be, &s->oa_l[l], F8B_OPTIM_FUSED);
	}
	if (s->c->overlap) /* overlap: the passes are done; the scales and the cast */
		return reduce_cast(s, -1);
	for (int j = 0; j < s->L; j++)
		F8B_TRY(f8b_ag_optim_probe(s, j));
	return group(s, -1, F8B_OPTIM_FUSED);
}
