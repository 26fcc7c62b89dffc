/* host_optim.c - the optim op (backend.h optim_pass) on the host: the
 * golden reference kernels/optim.cu is checked against bit for bit.  The
 * element math is core/optim.h's, shared with the kernel; this file walks
 * the chunks block by block as the kernel's warps do.
 *
 * No contraction: an FMA would change the bits on CPUs that have one
 * (backend_host.c says why each compiler gets its own switch). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#include <math.h>
#include <string.h>

#include "backend/optim_ops.h"
#include "core/fp8.h"
#include "core/optim.h"

struct counts {
	uint64_t nonfinite, sat, clipped;
};

static float load_master(const struct f8b_optim_args *a, int64_t i)
{
	if (a->variant == F8B_OPTIM_FP8_MASTER16)
		return f8b_bf16_to_f32(((const uint16_t *)a->master)[i]);
	return ((const float *)a->master)[i];
}

/* Stores w and returns the value stored, widened (what amax and the cast
 * see, so a later AMAX or CAST pass reads the same). */
static float store_master(const struct f8b_optim_args *a, uint64_t t,
                          const struct f8b_optim_tensor *T, int64_t e, float w)
{
	int64_t i = T->off + e;
	if (a->variant != F8B_OPTIM_FP8_MASTER16) {
		((float *)a->master)[i] = w;
		return w;
	}
	uint16_t b =
	    a->stochastic && f8b_om_finite(w)
	        ? f8b_optim_bf16_sr(w, f8b_optim_sr_bits(a->seed, t, (uint64_t)T->id, (uint64_t)e))
	        : f8b_f32_to_bf16(w);
	((uint16_t *)a->master)[i] = b;
	return f8b_bf16_to_f32(b);
}

static int64_t slot_of(const struct f8b_optim_args *a, const struct f8b_optim_tensor *T, int64_t e)
{
	return a->gran == F8B_GRAN_AXISWISE ? T->slot + e / T->cols : T->slot;
}

static void amax_into(const struct f8b_optim_args *a, int64_t slot, float w)
{
	uint32_t b = f8b_om_bits(w) & 0x7FFFFFFFu, cur = f8b_om_bits(a->amax_acc[slot]);
	if (b > cur)
		a->amax_acc[slot] = f8b_om_float(b);
}

static void cast_one(const struct f8b_optim_args *a, int64_t i, int64_t slot, float w,
                     struct counts *c)
{
	float x = F8B_OM_MUL(w, a->scale[slot]);
	c->sat += fabsf(x) >= F8B_OPTIM_SAT_E4M3;
	a->w8[i] = f8b_f32_to_e4m3(x);
}

/* The update of elements [e0, e0 + cnt) of T, cnt <= F8B_OPTIM_BLOCK, one
 * block of the fp8 states; new master values into w[]. */
static void update_block(const struct f8b_optim_args *a, const struct f8b_optim_hyper *h,
                         uint64_t t, const struct f8b_optim_tensor *T, int64_t e0, int cnt,
                         float *wout, struct counts *c)
{
	float mn[F8B_OPTIM_BLOCK], sn[F8B_OPTIM_BLOCK];
	int64_t blk = (T->off + e0) / F8B_OPTIM_BLOCK;
	bool fp8 = f8b_optim_fp8_states((enum f8b_optim_variant)a->variant);
	for (int j = 0; j < cnt; j++) {
		int64_t i = T->off + e0 + j;
		float g = f8b_bf16_to_f32(a->grad[i]);
		float m, v, s = 0.0f, w = load_master(a, i);
		switch (a->variant) {
		case F8B_OPTIM_FP32:
			m = ((const float *)a->m)[i];
			v = ((const float *)a->v)[i];
			break;
		case F8B_OPTIM_BF16:
			m = f8b_bf16_to_f32(((const uint16_t *)a->m)[i]);
			v = f8b_bf16_to_f32(((const uint16_t *)a->v)[i]);
			break;
		default:
			m = F8B_OM_MUL(f8b_e4m3_to_f32(((const uint8_t *)a->m)[i]), a->m_sinv[blk]);
			s = F8B_OM_MUL(f8b_e5m2_to_f32(((const uint8_t *)a->v)[i]), a->v_sinv[blk]);
			v = F8B_OM_MUL(s, s);
			break;
		}
		if (f8b_om_finite(g))
			c->clipped += (uint64_t)f8b_optim_adamw(h, g, &m, &v, &s, &w);
		else
			c->nonfinite++;
		switch (a->variant) {
		case F8B_OPTIM_FP32:
			((float *)a->m)[i] = m;
			((float *)a->v)[i] = v;
			break;
		case F8B_OPTIM_BF16:
			((uint16_t *)a->m)[i] = f8b_f32_to_bf16(m);
			((uint16_t *)a->v)[i] = f8b_f32_to_bf16(v);
			break;
		default:
			mn[j] = m;
			sn[j] = s;
			break;
		}
		wout[j] = store_master(a, t, T, e0 + j, w);
	}
	if (!fp8)
		return;
	/* The block's new scales from its new values, then the bytes. */
	uint32_t am = 0, as = 0;
	for (int j = 0; j < cnt; j++) {
		uint32_t bm = f8b_om_bits(mn[j]) & 0x7FFFFFFFu,
		         bs = f8b_om_bits(sn[j]) & 0x7FFFFFFFu;
		am = bm > am ? bm : am;
		as = bs > as ? bs : as;
	}
	float sm = f8b_optim_scale(f8b_om_float(am), 448.0f);
	float ss = f8b_optim_scale(f8b_om_float(as), 57344.0f);
	a->m_sinv[blk] = F8B_OM_DIV(1.0f, sm);
	a->v_sinv[blk] = F8B_OM_DIV(1.0f, ss);
	for (int j = 0; j < cnt; j++) {
		int64_t i = T->off + e0 + j;
		((uint8_t *)a->m)[i] = f8b_f32_to_e4m3(F8B_OM_MUL(mn[j], sm));
		((uint8_t *)a->v)[i] = f8b_f32_to_e5m2(F8B_OM_MUL(sn[j], ss));
	}
}

/* What both backends check before a pass (no pointer is read). */
int f8b_check_optim(const struct f8b_optim_args *a, int pass)
{
	if (pass < 0 || pass >= F8B_OPTIM_PASS_COUNT)
		return F8B_ERR(F8B_EINVAL, "optim_pass: pass %d (accepted: 0..%d)", pass,
		               F8B_OPTIM_PASS_COUNT - 1);
	if ((unsigned)a->variant >= F8B_OPTIM_VARIANT_COUNT ||
	    (unsigned)a->scaling >= F8B_OPTIM_SCALING_COUNT)
		return F8B_ERR(F8B_EINVAL, "optim_pass: variant %d / scaling %d", a->variant,
		               a->scaling);
	if (a->gran != F8B_GRAN_TENSORWISE && a->gran != F8B_GRAN_AXISWISE)
		return F8B_ERR(F8B_EINVAL, "optim_pass: the fp8 weight's granularity must be "
		                           "tensorwise or axiswise");
	if (a->sync_ctas < 0)
		return F8B_ERR(F8B_EINVAL, "optim_pass: sync_ctas %d (0: as many as fit)",
		               a->sync_ctas);
	if (a->ntensors < 1 || a->nchunks < 1)
		return F8B_ERR(F8B_EINVAL, "optim_pass: an empty parameter list");
	if (a->nhyper < 2 ||
	    (a->scaling == F8B_OPTIM_DELAYED && (a->history < 1 || a->history > 1024)))
		return F8B_ERR(F8B_EINVAL, "optim_pass: %lld hyper entries, history %d",
		               (long long)a->nhyper, a->history);
	return F8B_OK;
}

/* One pass over every chunk, then its end (what the last CTA does on a
 * GPU); dynamic-sync's fused pass is two of these (below). */
static void host_pass(const struct f8b_optim_args *a, int pass)
{
	uint64_t t = a->ctr[F8B_OPTIM_CTR_STEP];
	const struct f8b_optim_hyper *h = &a->hyper[f8b_optim_hyper_index(t, a->nhyper)];
	bool upd = pass == F8B_OPTIM_FUSED || pass == F8B_OPTIM_UPDATE;
	bool amx = pass == F8B_OPTIM_FUSED || pass == F8B_OPTIM_AMAX;
	bool cst = pass == F8B_OPTIM_CAST ||
	           (pass == F8B_OPTIM_FUSED && !f8b_optim_is_dynamic(a->scaling));
	struct counts c = {0};
	float w[F8B_OPTIM_BLOCK];
	for (int64_t k = 0; k < a->nchunks; k++) {
		const struct f8b_optim_chunk *ch = &a->chunks[k];
		const struct f8b_optim_tensor *T = &a->tensors[ch->tensor];
		for (int64_t e0 = ch->start; e0 < ch->start + ch->count; e0 += F8B_OPTIM_BLOCK) {
			int64_t left = ch->start + ch->count - e0;
			int cnt = left < F8B_OPTIM_BLOCK ? (int)left : F8B_OPTIM_BLOCK;
			if (upd)
				update_block(a, h, t, T, e0, cnt, w, &c);
			else
				for (int j = 0; j < cnt; j++)
					w[j] = load_master(a, T->off + e0 + j);
			for (int j = 0; j < cnt; j++) {
				int64_t slot = slot_of(a, T, e0 + j);
				if (amx)
					amax_into(a, slot, w[j]);
				if (cst)
					cast_one(a, T->off + e0 + j, slot, w[j], &c);
			}
		}
	}
	/* The end of the pass: what the last CTA does on a GPU. */
	uint64_t *ctr = a->ctr;
	ctr[F8B_OPTIM_CTR_NONFINITE] += c.nonfinite;
	ctr[F8B_OPTIM_CTR_CLIPPED] += c.clipped;
	ctr[F8B_OPTIM_CTR_SAT_STEP] += c.sat;
	if (upd)
		ctr[F8B_OPTIM_CTR_STEP] = ++t;
	if (amx) {
		h = &a->hyper[f8b_optim_hyper_index(t, a->nhyper)];
		int p = f8b_optim_ring(a, t);
		for (int64_t s = 0; s < a->nslots; s++) {
			float am = a->amax_acc[s];
			a->amax_acc[s] = 0.0f;
			f8b_optim_fold(a, h, s, am, a->scale[s], p);
		}
	}
	if (ctr[F8B_OPTIM_CTR_SAT_STEP]) {
		ctr[F8B_OPTIM_CTR_SAT] += ctr[F8B_OPTIM_CTR_SAT_STEP];
		ctr[F8B_OPTIM_CTR_SAT_STEPS]++;
		ctr[F8B_OPTIM_CTR_SAT_STEP] = 0;
	}
}

int f8b_host_optim_pass(struct f8b_backend *be, const struct f8b_optim_args *a, int pass)
{
	(void)be;
	F8B_TRY(f8b_check_optim(a, pass));
	host_pass(a, pass);
	/* dynamic-sync: the cast of the same launch, after the fold (on a GPU
	 * after the grid barrier), from the master just written: dynamic's
	 * two passes, so the same bits by construction */
	if (pass == F8B_OPTIM_FUSED && a->scaling == F8B_OPTIM_DYNAMIC_SYNC)
		host_pass(a, F8B_OPTIM_CAST);
	return F8B_OK;
}
