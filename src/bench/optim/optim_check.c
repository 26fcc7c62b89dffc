/* optim_check.c - what a case's row says about accuracy (doc/optim.md):
 * after the trajectory the SQNRs of the master and of the fp8 weight
 * against the fp64 AdamW of the sample, the counters (non-finite
 * gradients, saturated values, clipped updates) and the share of the e4m3
 * range the scales use; then the next step, checked bit for bit on the
 * sampled blocks against the host reference run from the same state.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/optim/optim_int.h"
#include "core/fp8.h"

/* The sampled blocks' bytes of one state buffer, packed (cnt each). */
static int gather(struct optim_state *s, enum optim_buf b, size_t esize, unsigned char *out)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	size_t at = 0;
	for (int64_t i = 0; i < s->nsmp; i++) {
		const struct optim_sample *p = &s->smp[i];
		int64_t e = s->tensors[p->k].off + p->e0;
		F8B_TRY(ops->download(s->run->be, out + at, (char *)s->buf[b] + e * (int64_t)esize,
		                      (size_t)p->cnt * esize));
		at += (size_t)p->cnt * esize;
	}
	return F8B_OK;
}

/* One float per sampled block of a per-block buffer (m_sinv, v_sinv). */
static int gather_blocks(struct optim_state *s, enum optim_buf b, float *out)
{
	for (int64_t i = 0; i < s->nsmp; i++) {
		const struct optim_sample *p = &s->smp[i];
		int64_t blk = (s->tensors[p->k].off + p->e0) / F8B_OPTIM_BLOCK;
		F8B_TRY(s->run->ops->download(s->run->be, &out[i], (float *)s->buf[b] + blk, 4));
	}
	return F8B_OK;
}

static int64_t slot_of(const struct optim_state *s, int64_t k, int64_t e)
{
	const struct f8b_optim_tensor *T = &s->tensors[k];
	return s->cs.gran == F8B_GRAN_AXISWISE ? T->slot + e / T->cols : T->slot;
}

/* Packed sizes of the sampled state: master, m, v, then the two block
 * scales of each block (fp8 states). */
struct layout {
	size_t ms, ss, n, master, m, v, sinv, total;
};

static struct layout layout_of(const struct optim_state *s)
{
	struct layout l = {.ms = f8b_optim_master_size(s->cs.variant),
	                   .ss = f8b_optim_state_size(s->cs.variant),
	                   .n = (size_t)s->nsmp_elems};
	l.master = 0;
	l.m = l.master + l.n * l.ms;
	l.v = l.m + l.n * l.ss;
	l.sinv = l.v + l.n * l.ss;
	l.total = l.sinv + 2 * (size_t)s->nsmp * sizeof(float);
	return l;
}

static int snapshot(struct optim_state *s, unsigned char *buf)
{
	struct layout l = layout_of(s);
	F8B_TRY(gather(s, OB_MASTER, l.ms, buf + l.master));
	F8B_TRY(gather(s, OB_M, l.ss, buf + l.m));
	F8B_TRY(gather(s, OB_V, l.ss, buf + l.v));
	float *si = (float *)(buf + l.sinv);
	if (f8b_optim_fp8_states(s->cs.variant)) {
		F8B_TRY(gather_blocks(s, OB_MSINV, si));
		F8B_TRY(gather_blocks(s, OB_VSINV, si + s->nsmp));
	}
	return F8B_OK;
}

int f8b_optim_accuracy(struct optim_state *s, struct f8b_optim_row *row)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	size_t ne = (size_t)s->nsmp_elems, ns = (size_t)s->a.nslots;
	size_t ms = f8b_optim_master_size(s->cs.variant);
	unsigned char *w = malloc(ne * ms), *q = malloc(ne);
	float *used = malloc(ns * 4), *last = malloc(ns * 4);
	uint64_t ctr[F8B_OPTIM_CTR_COUNT];
	int rc = w && q && used && last ? F8B_OK : F8B_ERR(F8B_ENOMEM, "optim accuracy");
	if (rc == F8B_OK)
		rc = gather(s, OB_MASTER, ms, w);
	if (rc == F8B_OK)
		rc = gather(s, OB_W8, 1, q);
	if (rc == F8B_OK)
		rc = ops->download(be, used, s->buf[OB_USED], ns * 4);
	if (rc == F8B_OK)
		rc = ops->download(be, last, s->buf[OB_LAST], ns * 4);
	if (rc == F8B_OK)
		rc = ops->download(be, ctr, s->buf[OB_CTR], sizeof ctr);
	if (rc == F8B_OK) {
		/* SQNR = 10 log10(sum ref^2 / sum (x - ref)^2) over the sample */
		double ref2 = 0, e2w = 0, e2q = 0;
		int64_t x = 0;
		for (int64_t i = 0; i < s->nsmp; i++) {
			const struct optim_sample *p = &s->smp[i];
			for (int j = 0; j < p->cnt; j++, x++) {
				float wv;
				if (ms == 2) {
					uint16_t b;
					memcpy(&b, w + 2 * x, 2);
					wv = f8b_bf16_to_f32(b);
				} else {
					memcpy(&wv, w + 4 * x, 4);
				}
				double r = s->rw[x];
				double dq = (double)f8b_e4m3_to_f32(q[x]) /
				            (double)used[slot_of(s, p->k, p->e0 + j)];
				ref2 += r * r;
				e2w += ((double)wv - r) * ((double)wv - r);
				e2q += (dq - r) * (dq - r);
			}
		}
		row->sqnr_w_db = f8b_optim_sqnr_db(ref2, e2w);
		row->sqnr_w8_db = f8b_optim_sqnr_db(ref2, e2q);
		row->sampled = (int64_t)ne;
		/* the share of e4m3's range the last cast's largest value took */
		double sum = 0, mn = INFINITY;
		for (size_t i = 0; i < ns; i++) {
			double r = (double)last[i] * (double)used[i] / 448.0;
			sum += r;
			mn = fmin(mn, r);
		}
		row->range_used = sum / (double)ns;
		row->range_used_min = mn;
		row->nonfinite_grads = (int64_t)ctr[F8B_OPTIM_CTR_NONFINITE];
		row->saturated = (int64_t)ctr[F8B_OPTIM_CTR_SAT];
		row->saturated_steps = (int32_t)ctr[F8B_OPTIM_CTR_SAT_STEPS];
		row->clipped = (int64_t)ctr[F8B_OPTIM_CTR_CLIPPED];
	}
	free(w);
	free(q);
	free(used);
	free(last);
	F8B_TRY(rc);
	/* The state the checked step starts from. */
	struct layout l = layout_of(s);
	s->pre_bytes = l.total;
	if (!(s->pre = malloc(l.total)) || !(s->pre_scale = malloc(ns * 4)))
		return F8B_ERR(F8B_ENOMEM, "optim check state");
	F8B_TRY(snapshot(s, s->pre));
	F8B_TRY(ops->download(be, s->pre_scale, s->buf[OB_SCALE], ns * 4));
	return ops->download(be, s->pre_ctr, s->buf[OB_CTR], sizeof s->pre_ctr);
}

/* The host reference's pass over the sample alone: each sampled block its
 * own tensor, placed so that its element e0 lands at 128 i. */
struct mini {
	struct f8b_optim_args a;
	struct f8b_optim_tensor *t;
	struct f8b_optim_chunk *ch;
	void *mem;
};

static int mini_make(struct optim_state *s, struct mini *mi)
{
	struct layout l = layout_of(s);
	size_t nb = (size_t)s->nsmp, ar = nb * F8B_OPTIM_BLOCK, ns = (size_t)s->a.nslots;
	size_t hist = (size_t)(s->a.history > 0 ? s->a.history : 1);
	size_t bytes = ar * 2 + ar * l.ms + 2 * ar * l.ss + 2 * nb * 4 + ar + 5 * ns * 4 +
	               ns * hist * 4 + F8B_OPTIM_CTR_COUNT * 8 + 64;
	mi->t = calloc(nb, sizeof *mi->t);
	mi->ch = calloc(nb, sizeof *mi->ch);
	mi->mem = calloc(1, bytes);
	if (!mi->t || !mi->ch || !mi->mem)
		return F8B_ERR(F8B_ENOMEM, "optim check (%zu bytes)", bytes);
	/* carve, widest alignment first */
	unsigned char *p = mi->mem;
	struct f8b_optim_args *a = &mi->a;
	*a = s->a;
	a->ctr = (uint64_t *)p;
	p += F8B_OPTIM_CTR_COUNT * 8;
	a->scale = (float *)p;
	a->scale_used = a->scale + ns;
	a->amax_acc = a->scale_used + ns;
	a->amax_last = a->amax_acc + ns;
	a->hist = a->amax_last + ns;
	a->m_sinv = a->hist + ns * hist;
	a->v_sinv = a->m_sinv + nb;
	p = (unsigned char *)(a->v_sinv + nb);
	a->master = p;
	p += ar * l.ms;
	a->m = p;
	p += ar * l.ss;
	a->v = p;
	p += ar * l.ss;
	a->grad = (const uint16_t *)p;
	p += ar * 2;
	a->w8 = p;
	for (size_t i = 0; i < nb; i++) {
		const struct optim_sample *sp = &s->smp[i];
		mi->t[i] = s->tensors[sp->k];
		mi->t[i].off = (int64_t)i * F8B_OPTIM_BLOCK - sp->e0;
		mi->ch[i] = (struct f8b_optim_chunk){(int64_t)i, sp->e0, sp->cnt};
	}
	a->tensors = mi->t;
	a->chunks = mi->ch;
	a->ntensors = a->nchunks = (int64_t)nb;
	a->hyper = s->hyper;
	/* the pre-step state, unpacked into the blocks */
	const unsigned char *pre = s->pre;
	size_t at = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t cnt = (size_t)s->smp[i].cnt, base = i * F8B_OPTIM_BLOCK;
		memcpy((char *)a->master + base * l.ms, pre + l.master + at * l.ms, cnt * l.ms);
		memcpy((char *)a->m + base * l.ss, pre + l.m + at * l.ss, cnt * l.ss);
		memcpy((char *)a->v + base * l.ss, pre + l.v + at * l.ss, cnt * l.ss);
		at += cnt;
	}
	memcpy(a->m_sinv, pre + l.sinv, 2 * nb * 4);
	memcpy(a->scale, s->pre_scale, ns * 4);
	memcpy(a->ctr, s->pre_ctr, sizeof s->pre_ctr);
	a->ctr[F8B_OPTIM_CTR_TICKET] = 0;
	return F8B_OK;
}

static void mini_free(struct mini *mi)
{
	free(mi->t);
	free(mi->ch);
	free(mi->mem);
}

/* Unpacks packed per-element bytes (cnt per sample) into 128-strided blocks. */
static void unpack(const struct optim_state *s, const unsigned char *src, size_t esize,
                   unsigned char *dst)
{
	size_t at = 0;
	for (int64_t i = 0; i < s->nsmp; i++) {
		size_t cnt = (size_t)s->smp[i].cnt;
		memcpy(dst + (size_t)i * F8B_OPTIM_BLOCK * esize, src + at * esize, cnt * esize);
		at += cnt;
	}
}

/* Elements of the sample whose bytes differ (esize bytes each, blocks
 * 128-strided in both). */
static int64_t differ(const struct optim_state *s, const unsigned char *x, const unsigned char *y,
                      size_t esize)
{
	int64_t bad = 0;
	for (int64_t i = 0; i < s->nsmp; i++)
		for (int j = 0; j < s->smp[i].cnt; j++) {
			size_t o = ((size_t)i * F8B_OPTIM_BLOCK + (size_t)j) * esize;
			bad += memcmp(x + o, y + o, esize) != 0;
		}
	return bad;
}

int f8b_optim_check(void *vs, void *vrow, bool *ok)
{
	struct optim_state *s = vs;
	struct f8b_optim_row *row = vrow;
	const struct f8b_backend_ops *ops = s->run->ops;
	struct optim_cfg *c = s->cfg;
	struct layout l = layout_of(s);
	size_t nb = (size_t)s->nsmp, ar = nb * F8B_OPTIM_BLOCK, ns = (size_t)s->a.nslots;
	*ok = false;
	if (!c->href)
		F8B_TRY(f8b_backend_host.open(-1, &c->href, &(struct f8b_device_info){0}));
	struct mini mi = {0};
	unsigned char *post = malloc(l.total), *dev = calloc(1, ar * 4);
	unsigned char *q = malloc(ar), *g = malloc(ar * 2), *q8 = calloc(1, ar);
	float *scale = malloc(ns * 4);
	uint64_t ctr[F8B_OPTIM_CTR_COUNT];
	int rc = post && dev && q && g && q8 && scale ? F8B_OK : F8B_ERR(F8B_ENOMEM, "optim check");
	if (rc == F8B_OK)
		rc = mini_make(s, &mi);
	if (rc == F8B_OK)
		rc = snapshot(s, post);
	if (rc == F8B_OK)
		rc = gather(s, OB_W8, 1, q);
	if (rc == F8B_OK)
		rc = gather(s, OB_GRAD, 2, g);
	if (rc == F8B_OK)
		rc = ops->download(s->run->be, scale, s->buf[OB_SCALE], ns * 4);
	if (rc == F8B_OK)
		rc = ops->download(s->run->be, ctr, s->buf[OB_CTR], sizeof ctr);
	/* dynamic-sync's one launch is dynamic's two passes: the reference
	 * runs those (its fold alone would see the sample's amax) */
	bool dyn = f8b_optim_is_dynamic(s->cs.scaling);
	if (dyn)
		mi.a.scaling = F8B_OPTIM_DYNAMIC;
	if (rc == F8B_OK) {
		unpack(s, g, 2, (unsigned char *)mi.a.grad);
		rc = f8b_backend_host.optim_pass(c->href, &mi.a, F8B_OPTIM_FUSED);
	}
	if (rc == F8B_OK && dyn) {
		/* the cast used the scales of the whole model's amax */
		memcpy(mi.a.scale, scale, ns * 4);
		rc = f8b_backend_host.optim_pass(c->href, &mi.a, F8B_OPTIM_CAST);
	}
	int64_t bad = 0;
	if (rc == F8B_OK) {
		unpack(s, post + l.master, l.ms, dev);
		bad += differ(s, dev, mi.a.master, l.ms);
		unpack(s, post + l.m, l.ss, dev);
		bad += differ(s, dev, mi.a.m, l.ss);
		unpack(s, post + l.v, l.ss, dev);
		bad += differ(s, dev, mi.a.v, l.ss);
		unpack(s, q, 1, q8);
		bad += differ(s, q8, mi.a.w8, 1);
		if (f8b_optim_fp8_states(s->cs.variant))
			bad += memcmp(post + l.sinv, mi.a.m_sinv, 2 * nb * 4) != 0;
		bool stepped = ctr[F8B_OPTIM_CTR_STEP] == s->pre_ctr[F8B_OPTIM_CTR_STEP] + 1;
		row->bitexact = bad == 0 && stepped;
		*ok = row->bitexact && !isnan(row->sqnr_w_db) && !isnan(row->sqnr_w8_db);
		if (!stepped)
			snprintf(row->message, sizeof row->message,
			         "the step counter went from %llu to %llu in one step",
			         (unsigned long long)s->pre_ctr[F8B_OPTIM_CTR_STEP],
			         (unsigned long long)ctr[F8B_OPTIM_CTR_STEP]);
		else if (bad)
			snprintf(row->message, sizeof row->message,
			         "%lld sampled values differ from the host reference's step",
			         (long long)bad);
		else if (isnan(row->sqnr_w_db) || isnan(row->sqnr_w8_db))
			snprintf(row->message, sizeof row->message,
			         "the weights are NaN after %d steps", (int)row->steps);
		else if (row->nonfinite_grads)
			snprintf(row->message, sizeof row->message,
			         "%lld non-finite gradient values skipped (not applied)",
			         (long long)row->nonfinite_grads);
	}
	mini_free(&mi);
	free(post);
	free(dev);
	free(q);
	free(g);
	free(q8);
	free(scale);
	return rc;
}
