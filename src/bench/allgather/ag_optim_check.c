/* ag_optim_check.c - the optimizer's step on the shards, checked before
 * timing (--optimizer; doc/allgather.md "Checks"):
 *   - one whole step runs with a probe that copies the grads each update
 *     read (AG_OPT_SAMPLE blocks of every layer's shard, on the queue,
 *     right before the update); the host backend's optim op (the golden
 *     reference of f8bench optim) runs the same passes on the same blocks
 *     from the state before the step: master, m, v, the fp8 states' block
 *     scales and the fp8 shard equal bit for bit, and every step counter
 *     moved by one;
 *   - for each layer: the shard's amax is its master's (the whole shard,
 *     on the host), the all-reduced amax the max over the ranks, the scale
 *     and scale_inv the host's of it, and every byte of the fp8 shard the
 *     host's cast of the master with that scale;
 *   - for each layer, the next forward's gather alone: the gathered bytes
 *     are every rank's new fp8 shard, in rank order.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_int.h"
#include "core/fp8.h"

static const struct f8b_scale_opts so = {0};

/* A check's first failure, cut to the row's message if longer: a
 * truncation meant, which gcc's -Wformat-truncation flags on snprintf. */
static void ag_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ag_why(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(why, n, fmt, ap);
	va_end(ap);
	(void)w;
}

/* The sampled blocks of the state, 128-strided (block i of the sample at
 * element 128 i), as the host reference's args lay them out. */
struct snap {
	unsigned char *master, *m, *v;
	float *msinv, *vsinv;
	uint64_t ctr[(AG_MAX_LAYERS + 1) * F8B_OPTIM_CTR_COUNT];
};

static size_t nblocks(const struct ag_state *s)
{
	return (size_t)s->L * AG_OPT_SAMPLE;
}

static int snap_new(const struct ag_state *s, struct snap *p)
{
	enum f8b_optim_variant v = (enum f8b_optim_variant)s->oa.variant;
	size_t nb = nblocks(s), e = nb * F8B_OPTIM_BLOCK;
	p->master = calloc(e, f8b_optim_master_size(v));
	p->m = calloc(e, f8b_optim_state_size(v));
	p->v = calloc(e, f8b_optim_state_size(v));
	p->msinv = calloc(nb, 4);
	p->vsinv = calloc(nb, 4);
	if (!p->master || !p->m || !p->v || !p->msinv || !p->vsinv)
		return F8B_ERR(F8B_ENOMEM, "optimizer check (%zu blocks)", nb);
	return F8B_OK;
}

static void snap_free(struct snap *p)
{
	free(p->master);
	free(p->m);
	free(p->v);
	free(p->msinv);
	free(p->vsinv);
}

/* Block i of the sample: layer, first element in the state buffers, count. */
static int64_t block_at(const struct ag_state *s, size_t i, int *l, int *cnt)
{
	*l = (int)(i / AG_OPT_SAMPLE);
	return s->ooff[*l] + f8b_ag_optim_sample(s, *l, (int)(i % AG_OPT_SAMPLE), cnt);
}

static int snap_take(struct ag_state *s, struct snap *p)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	const struct f8b_optim_args *a = &s->oa;
	enum f8b_optim_variant v = (enum f8b_optim_variant)a->variant;
	size_t ms = f8b_optim_master_size(v), ss = f8b_optim_state_size(v);
	for (size_t i = 0; i < nblocks(s); i++) {
		int l, cnt;
		int64_t at = block_at(s, i, &l, &cnt);
		size_t o = i * F8B_OPTIM_BLOCK;
		F8B_TRY(ops->download(be, p->master + o * ms, (char *)a->master + (size_t)at * ms,
		                      (size_t)cnt * ms));
		F8B_TRY(ops->download(be, p->m + o * ss, (char *)a->m + (size_t)at * ss,
		                      (size_t)cnt * ss));
		F8B_TRY(ops->download(be, p->v + o * ss, (char *)a->v + (size_t)at * ss,
		                      (size_t)cnt * ss));
		if (a->m_sinv) {
			F8B_TRY(
			    ops->download(be, p->msinv + i, a->m_sinv + at / F8B_OPTIM_BLOCK, 4));
			F8B_TRY(
			    ops->download(be, p->vsinv + i, a->v_sinv + at / F8B_OPTIM_BLOCK, 4));
		}
	}
	return ops->download(be, p->ctr, a->ctr,
	                     (size_t)(s->L + 1) * F8B_OPTIM_CTR_COUNT * sizeof p->ctr[0]);
}

/* The host reference's step on the sample, from `pre`, with the grads
 * the probe caught and the global scales the device's cast used. */
static int reference(struct ag_state *s, const struct snap *pre, const uint16_t *grad,
                     const float *scale, struct snap *ref, unsigned char *w8)
{
	size_t nb = nblocks(s), sl = 4 * (size_t)s->L, e = nb * F8B_OPTIM_BLOCK;
	enum f8b_optim_variant v = (enum f8b_optim_variant)s->oa.variant;
	size_t ms = f8b_optim_master_size(v), ss = f8b_optim_state_size(v);
	struct f8b_optim_tensor *t = calloc(nb, sizeof *t);
	struct f8b_optim_chunk *ch = calloc(nb, sizeof *ch);
	float *f = calloc(4 * sl, 4);
	int rc = t && ch && f ? F8B_OK : F8B_ERR(F8B_ENOMEM, "optimizer check");
	/* every layer's counter is at the same step: layer 0's, or after's */
	int g = s->c->overlap ? 1 : 0;
	uint64_t ctr[F8B_OPTIM_CTR_COUNT];
	memcpy(ctr, pre->ctr + g * F8B_OPTIM_CTR_COUNT, sizeof ctr);
	ctr[F8B_OPTIM_CTR_TICKET] = 0;
	for (size_t i = 0; rc == F8B_OK && i < nb; i++) {
		int l, cnt;
		int64_t e0 = block_at(s, i, &l, &cnt) - s->ooff[l];
		t[i] = (struct f8b_optim_tensor){.off = (int64_t)(i * F8B_OPTIM_BLOCK) - e0,
		                                 .n = s->rows[l] * s->k[l],
		                                 .cols = s->k[l],
		                                 .slot = 4 * l,
		                                 .id = l};
		ch[i] = (struct f8b_optim_chunk){(int64_t)i, e0, cnt};
	}
	if (rc == F8B_OK) {
		memcpy(ref->master, pre->master, e * ms);
		memcpy(ref->m, pre->m, e * ss);
		memcpy(ref->v, pre->v, e * ss);
		memcpy(ref->msinv, pre->msinv, nb * 4);
		memcpy(ref->vsinv, pre->vsinv, nb * 4);
		struct f8b_optim_args a = s->oa;
		a.ntensors = a.nchunks = (int64_t)nb;
		a.tensors = t;
		a.chunks = ch;
		a.hyper = s->ohyper;
		a.grad = grad;
		a.master = ref->master;
		a.m = ref->m;
		a.v = ref->v;
		a.m_sinv = a.m_sinv ? ref->msinv : NULL;
		a.v_sinv = a.v_sinv ? ref->vsinv : NULL;
		a.w8 = w8;
		a.scale = f;
		a.scale_used = f + sl;
		a.amax_acc = f + 2 * sl;
		a.amax_last = f + 3 * sl;
		a.ctr = ctr;
		struct f8b_backend *hb = s->c->hb;
		rc = f8b_backend_host.optim_pass(hb, &a, F8B_OPTIM_FUSED);
		memcpy(a.scale, scale, sl * 4);
		if (rc == F8B_OK)
			rc = f8b_backend_host.optim_pass(hb, &a, F8B_OPTIM_CAST);
	}
	free(t);
	free(ch);
	free(f);
	return rc;
}

/* Elements of the sample whose bytes differ. */
static int64_t differ(const struct ag_state *s, const void *x, const void *y, size_t es)
{
	int64_t bad = 0;
	for (size_t i = 0; i < nblocks(s); i++) {
		int l, cnt;
		block_at(s, i, &l, &cnt);
		for (int j = 0; j < cnt; j++) {
			size_t o = (i * F8B_OPTIM_BLOCK + (size_t)j) * es;
			bad += memcmp((const char *)x + o, (const char *)y + o, es) != 0;
		}
	}
	return bad;
}

/* One step with the probe, against the host reference. */
static int check_step(struct ag_state *s, char *why, size_t nwhy, int *checks)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	size_t nb = nblocks(s), e = nb * F8B_OPTIM_BLOCK, sl = 4 * (size_t)s->L;
	enum f8b_optim_variant v = (enum f8b_optim_variant)s->oa.variant;
	size_t ms = f8b_optim_master_size(v), ss = f8b_optim_state_size(v);
	struct snap pre = {0}, post = {0}, ref = {0};
	uint16_t *grad = calloc(e, 2);
	unsigned char *w8 = calloc(e, 1), *w8r = calloc(e, 1);
	float *scale = calloc(sl, 4);
	int rc = grad && w8 && w8r && scale ? F8B_OK : F8B_ERR(F8B_ENOMEM, "optimizer check");
	if (rc == F8B_OK)
		rc = snap_new(s, &pre);
	if (rc == F8B_OK)
		rc = snap_new(s, &post);
	if (rc == F8B_OK)
		rc = snap_new(s, &ref);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (rc == F8B_OK)
		rc = snap_take(s, &pre);
	s->probe_on = true;
	if (rc == F8B_OK)
		rc = f8b_ag_step(s);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	s->probe_on = false;
	if (rc == F8B_OK)
		rc = snap_take(s, &post);
	if (rc == F8B_OK)
		rc = ops->download(be, grad, s->probe, e * 2);
	for (size_t i = 0; rc == F8B_OK && i < nb; i++) {
		int l, cnt;
		int64_t at = block_at(s, i, &l, &cnt);
		rc = ops->download(be, w8 + i * F8B_OPTIM_BLOCK, s->oa.w8 + at, (size_t)cnt);
	}
	if (rc == F8B_OK)
		rc = ops->download(be, scale, s->scale_all, sl * 4);
	/* layer 0's grads are the last the step wrote, and stay (either
	 * way): the probe caught the reduce-scatter's output there */
	bool rs_seen = true;
	for (int i = 0; rc == F8B_OK && i < AG_OPT_SAMPLE; i++) {
		int cnt;
		int64_t e0 = f8b_ag_optim_sample(s, 0, i, &cnt);
		uint16_t g0[F8B_OPTIM_BLOCK];
		rc = ops->download(be, g0, (uint16_t *)s->gw_shard[0].data + e0, (size_t)cnt * 2);
		rs_seen &= rc == F8B_OK &&
		           !memcmp(g0, grad + (size_t)i * F8B_OPTIM_BLOCK, (size_t)cnt * 2);
	}
	if (rc == F8B_OK)
		rc = reference(s, &pre, grad, scale, &ref, w8r);
	if (rc == F8B_OK) {
		int64_t bad = differ(s, post.master, ref.master, ms) +
		              differ(s, post.m, ref.m, ss) + differ(s, post.v, ref.v, ss) +
		              differ(s, w8, w8r, 1);
		if (s->oa.m_sinv)
			bad += memcmp(post.msinv, ref.msinv, nb * 4) != 0 ||
			       memcmp(post.vsinv, ref.vsinv, nb * 4) != 0;
		int g0 = s->c->overlap ? 1 : 0, g1 = s->c->overlap ? s->L : 0, moved = 1;
		for (int g = g0; g <= g1; g++) {
			size_t c = (size_t)g * F8B_OPTIM_CTR_COUNT + F8B_OPTIM_CTR_STEP;
			moved &= post.ctr[c] == pre.ctr[c] + 1 &&
			         pre.ctr[c] == pre.ctr[(size_t)g0 * F8B_OPTIM_CTR_COUNT];
		}
		if (!rs_seen)
			ag_why(why, nwhy,
			       "optimizer: layer 0's update read other grads than its RS's");
		else if (!moved)
			ag_why(why, nwhy,
			       "optimizer: a step counter did not move by one in one step");
		else if (bad)
			snprintf(
			    why, nwhy,
			    "optimizer: %lld sampled values of the shards' update differ from the "
			    "host reference's",
			    (long long)bad);
		else
			(*checks)++;
	}
	snap_free(&pre);
	snap_free(&post);
	snap_free(&ref);
	free(grad);
	free(w8);
	free(w8r);
	free(scale);
	return rc;
}

static float master_at(const unsigned char *w, size_t i, size_t ms)
{
	if (ms == 2) {
		uint16_t b;
		memcpy(&b, w + 2 * i, 2);
		return f8b_bf16_to_f32(b);
	}
	float x;
	memcpy(&x, w + 4 * i, 4);
	return x;
}

/* Layer l's whole shard: its amax (into *amax) against the device's, and
 * every fp8 byte against the host's cast with the device's scale. */
static int check_shard(struct ag_state *s, int l, unsigned char *w, unsigned char *q, float *amax,
                       char *why, size_t nwhy)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	size_t ms = f8b_optim_master_size((enum f8b_optim_variant)s->oa.variant);
	size_t n = (size_t)(s->rows[l] * s->k[l]), at = (size_t)s->ooff[l];
	float dev[2];
	F8B_TRY(ops->download(be, w, (char *)s->oa.master + at * ms, n * ms));
	F8B_TRY(ops->download(be, q, s->oa.w8 + at, n));
	F8B_TRY(ops->download(be, &dev[0], s->amax_loc + 4 * l, 4));
	F8B_TRY(ops->download(be, &dev[1], s->scale_all + 4 * l, 4));
	uint32_t mx = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t b;
		float x = master_at(w, i, ms);
		memcpy(&b, &x, 4);
		b &= 0x7FFFFFFFu;
		mx = b > mx ? b : mx;
	}
	memcpy(amax, &mx, 4);
	if (memcmp(amax, &dev[0], 4)) {
		ag_why(why, nwhy, "optimizer: layer %d: the shard's amax %g, host %g", l, dev[0],
		       *amax);
		return F8B_OK;
	}
	for (size_t i = 0; i < n; i++) {
		float x = master_at(w, i, ms) * dev[1];
		if (f8b_f32_to_e4m3(x) != q[i]) {
			snprintf(
			    why, nwhy,
			    "optimizer: layer %d: fp8 shard byte %zu is 0x%02x, host's cast 0x%02x",
			    l, i, q[i], f8b_f32_to_e4m3(x));
			break;
		}
	}
	return F8B_OK;
}

/* The all-reduced amax, the scale and scale_inv against the host's. */
static void check_scale(struct ag_state *s, int l, float amax, const float dev[3], char *why,
                        size_t nwhy)
{
	float sc = 0, si = 0;
	if (f8b_backend_host.scales(s->c->hb, &amax, 1, F8B_E4M3, &so, &sc, &si) != F8B_OK)
		ag_why(why, nwhy, "optimizer: layer %d: %s", l, f8b_last_error());
	else if (memcmp(&amax, &dev[0], 4))
		ag_why(why, nwhy, "optimizer: layer %d: all-reduced amax %g, max over ranks %g", l,
		       dev[0], amax);
	else if (memcmp(&sc, &dev[1], 4) || memcmp(&si, &dev[2], 4))
		ag_why(why, nwhy, "optimizer: layer %d: scale %g / scale_inv %g, host %g / %g", l,
		       dev[1], dev[2], sc, si);
}

/* The next forward's gather of layer l, alone: every rank's new shard. */
static int check_gather(struct ag_state *s, int l, unsigned char *mine, unsigned char *all,
                        unsigned char *got, char *why, size_t nwhy)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	size_t shard = (size_t)(s->rows[l] * s->k[l]), nk = shard * (size_t)s->R;
	F8B_TRY(ops->download(be, mine, s->oa.w8 + s->ooff[l], shard));
	F8B_TRY(f8b_comm_allgather(mine, all, shard));
	F8B_TRY(f8b_ag_gather(s, l, 0));
	F8B_TRY(ops->sync(be));
	F8B_TRY(ops->download(be, got, s->slot[0].data, nk));
	size_t i = 0;
	while (i < nk && got[i] == all[i])
		i++;
	if (i < nk)
		ag_why(why, nwhy,
		       "optimizer: layer %d: gathered byte %zu (rank %zu's shard) is not the "
		       "updated fp8 weight",
		       l, i, i / shard);
	return F8B_OK;
}

int f8b_ag_optim_check(struct ag_state *s, char *why, size_t nwhy, int *checks)
{
	int L = s->L;
	size_t mx = (size_t)(s->maxrows * s->maxk), nk = (size_t)(s->maxn * s->maxk);
	F8B_TRY(check_step(s, why, nwhy, checks));
	unsigned char *w = malloc(mx * 4), *q = malloc(mx), *all = malloc(nk), *got = malloc(nk);
	int rc = w && q && all && got ? F8B_OK : F8B_ERR(F8B_ENOMEM, "optimizer check");
	float amax[AG_MAX_LAYERS] = {0};
	double g[AG_MAX_LAYERS] = {0};
	char lw[F8B_MSG];
	/* every rank takes every collective below, whatever it found */
	for (int l = 0; rc == F8B_OK && l < L; l++) {
		lw[0] = 0;
		rc = check_shard(s, l, w, q, &amax[l], lw, sizeof lw);
		g[l] = amax[l];
		if (lw[0] && !why[0])
			ag_why(why, nwhy, "%s", lw);
	}
	if (rc == F8B_OK)
		rc = f8b_comm_max_double(g, L);
	for (int l = 0; rc == F8B_OK && l < L; l++) {
		float dev[3];
		lw[0] = 0;
		rc = s->run->ops->download(s->run->be, &dev[0], s->amax_all + 4 * l, 4);
		if (rc == F8B_OK)
			rc = s->run->ops->download(s->run->be, &dev[1], s->scale_all + 4 * l, 4);
		if (rc == F8B_OK)
			rc = s->run->ops->download(s->run->be, &dev[2], s->sinv_all + 4 * l, 4);
		if (rc == F8B_OK)
			check_scale(s, l, (float)g[l], dev, lw, sizeof lw);
		if (rc == F8B_OK)
			rc = check_gather(s, l, q, all, got, lw + strlen(lw),
			                  sizeof lw - strlen(lw));
		if (lw[0] && !why[0])
			ag_why(why, nwhy, "%s", lw);
		*checks += rc == F8B_OK && !lw[0] ? 2 : 0;
	}
	free(w);
	free(q);
	free(all);
	free(got);
	return rc;
}
