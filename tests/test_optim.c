/* test_optim.c - the optim step on the host backend (doc/optim.md): the
 * element math against an fp64 AdamW, the update bound, the scale formula
 * against scaling.c's, chunking and uneven sizes (tensors smaller than a
 * chunk), non-finite gradients counted and skipped, an empty parameter
 * list refused, the fp8 states' block scales, predicted scaling's promise
 * (no saturated value), stochastic rounding's stream, dynamic-sync's one
 * pass against dynamic's two (every buffer, bit for bit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/fp8.h"
#include "core/optim.h"
#include "core/scaling.h"
#include "tap.h"

static const struct f8b_backend_ops *H = &f8b_backend_host;
static struct f8b_backend *hb;

/* A model on the host: tensors of the given sizes (rows x cols), chunks of
 * chunk elements (a multiple of 128). */
struct model {
	int64_t nt, arena, nslots;
	struct f8b_optim_tensor t[8];
	struct f8b_optim_chunk ch[256];
	struct f8b_optim_hyper hyper[64];
	struct f8b_optim_args a;
	void *mem[16];
};

static void *zalloc(struct model *m, size_t bytes)
{
	for (int i = 0; i < 16; i++)
		if (!m->mem[i])
			return m->mem[i] = calloc(1, bytes ? bytes : 1);
	return NULL;
}

static void model_free(struct model *m)
{
	for (int i = 0; i < 16; i++)
		free(m->mem[i]);
}

static void model_make(struct model *m, int nt, const int64_t (*shape)[2], int64_t chunk,
                       enum f8b_optim_variant v, enum f8b_optim_scaling sc, enum f8b_granularity g,
                       double lr)
{
	memset(m, 0, sizeof *m);
	m->nt = nt;
	int64_t nch = 0;
	for (int k = 0; k < nt; k++) {
		int64_t n = shape[k][0] * shape[k][1];
		m->t[k] = (struct f8b_optim_tensor){m->arena, n, shape[k][1], m->nslots, k};
		m->nslots += g == F8B_GRAN_AXISWISE ? shape[k][0] : 1;
		m->arena += (n + 127) / 128 * 128;
		for (int64_t st = 0; st < n; st += chunk)
			m->ch[nch++] =
			    (struct f8b_optim_chunk){k, st, n - st < chunk ? n - st : chunk};
	}
	struct f8b_optim_hparams hp = {
	    .lr = lr, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .wd = 0.1, .warmup = 0};
	f8b_optim_hyper_fill(&hp, m->hyper, 64);
	size_t ar = (size_t)m->arena, ns = (size_t)m->nslots;
	struct f8b_optim_args *a = &m->a;
	*a = (struct f8b_optim_args){.variant = v,
	                             .scaling = sc,
	                             .gran = g,
	                             .seed = 5,
	                             .history = 4,
	                             .ntensors = nt,
	                             .nchunks = nch,
	                             .nslots = m->nslots,
	                             .nhyper = 64,
	                             .tensors = m->t,
	                             .chunks = m->ch,
	                             .hyper = m->hyper};
	a->grad = zalloc(m, ar * 2);
	a->master = zalloc(m, ar * f8b_optim_master_size(v));
	a->m = zalloc(m, ar * f8b_optim_state_size(v));
	a->v = zalloc(m, ar * f8b_optim_state_size(v));
	a->m_sinv = zalloc(m, ar / 128 * 4);
	a->v_sinv = zalloc(m, ar / 128 * 4);
	a->w8 = zalloc(m, ar);
	a->scale = zalloc(m, ns * 4);
	a->scale_used = zalloc(m, ns * 4);
	a->amax_acc = zalloc(m, ns * 4);
	a->amax_last = zalloc(m, ns * 4);
	a->hist = zalloc(m, ns * 4 * 4);
	a->ctr = zalloc(m, F8B_OPTIM_CTR_COUNT * 8);
	a->ctr[F8B_OPTIM_CTR_STEP] = 1;
	enum f8b_dtype mdt = v == F8B_OPTIM_FP8_MASTER16 ? F8B_BF16 : F8B_F32;
	for (int k = 0; k < nt; k++) {
		struct f8b_tensor w = {(char *)a->master +
		                           m->t[k].off * (int64_t)f8b_dtype_size(mdt),
		                       mdt, 1, m->t[k].n};
		struct f8b_fill_spec f = {.seed = 100 + (uint64_t)k, .std = 0.02f};
		H->fill(hb, &w, &f);
	}
	H->optim_pass(hb, a, F8B_OPTIM_AMAX);
}

static void grads(struct model *m, int64_t t, float mean)
{
	for (int k = 0; k < m->nt; k++) {
		struct f8b_tensor g = {(uint16_t *)m->a.grad + m->t[k].off, F8B_BF16, 1, m->t[k].n};
		struct f8b_fill_spec f = {.seed = 1000 * (uint64_t)t + (uint64_t)k,
		                          .mean = mean,
		                          .std = 1e-3f,
		                          .outlier_frac = 0.01f,
		                          .outlier_scale = 30};
		H->fill(hb, &g, &f);
	}
}

static float master_at(const struct model *m, int64_t i)
{
	if (m->a.variant == F8B_OPTIM_FP8_MASTER16)
		return f8b_bf16_to_f32(((const uint16_t *)m->a.master)[i]);
	return ((const float *)m->a.master)[i];
}

static int step(struct model *m, int64_t t, float mean)
{
	grads(m, t, mean);
	int rc = H->optim_pass(hb, &m->a, F8B_OPTIM_FUSED);
	if (rc == F8B_OK && m->a.scaling == F8B_OPTIM_DYNAMIC)
		rc = H->optim_pass(hb, &m->a, F8B_OPTIM_CAST);
	return rc;
}

static const int64_t uneven[][2] = {{1, 1}, {1, 127}, {3, 43}, {5, 200}, {17, 129}, {64, 64}};
#define NUNEVEN 6

/* fp32 states against an fp64 AdamW of the same bf16 gradients. */
static void test_fp64_reference(void)
{
	struct model m;
	model_make(&m, NUNEVEN, uneven, 256, F8B_OPTIM_FP32, F8B_OPTIM_PREDICTED,
	           F8B_GRAN_TENSORWISE, 1e-3);
	size_t ar = (size_t)m.arena;
	double *w = calloc(ar, 8), *mm = calloc(ar, 8), *vv = calloc(ar, 8);
	for (size_t i = 0; i < ar; i++)
		w[i] = master_at(&m, (int64_t)i);
	int rc = F8B_OK;
	for (int t = 1; t <= 30 && rc == F8B_OK; t++) {
		rc = step(&m, t, 2e-4f);
		double bc1 = 1 - pow(0.9, t), bc2 = 1 - pow(0.999, t);
		for (size_t i = 0; i < ar; i++) {
			double g = f8b_bf16_to_f32(((const uint16_t *)m.a.grad)[i]);
			mm[i] = 0.9 * mm[i] + 0.1 * g;
			vv[i] = 0.999 * vv[i] + 0.001 * g * g;
			w[i] -= 1e-3 * ((mm[i] / bc1) / (sqrt(vv[i] / bc2) + 1e-8) + 0.1 * w[i]);
		}
	}
	double r2 = 0, e2 = 0;
	for (size_t i = 0; i < ar; i++) {
		double d = master_at(&m, (int64_t)i) - w[i];
		r2 += w[i] * w[i];
		e2 += d * d;
	}
	double sq = f8b_optim_sqnr_db(r2, e2);
	tap_ok(rc == F8B_OK && sq > 100, "fp32 AdamW agrees with fp64 after 30 steps: %.1f dB", sq);
	tap_ok(m.a.ctr[F8B_OPTIM_CTR_STEP] == 31, "the step counter reached 31");
	tap_ok(m.a.ctr[F8B_OPTIM_CTR_CLIPPED] == 0, "fp32 states: no update clipped (%llu)",
	       (unsigned long long)m.a.ctr[F8B_OPTIM_CTR_CLIPPED]);
	tap_ok(m.a.ctr[F8B_OPTIM_CTR_SAT] == 0, "predicted: nothing saturated");
	free(w);
	free(mm);
	free(vv);
	model_free(&m);
}

/* The bound: 1 at t = 1, reached by the worst gradient sequence, never
 * exceeded by random ones. */
static void test_bound(void)
{
	tap_ok(fabs(f8b_optim_update_bound(0.9, 0.999, 1) - 1.0) < 1e-15, "U_1 = 1");
	double b1 = 0.9, b2 = 0.999;
	int T = 50;
	/* g_i proportional to w_i / u_i attains it */
	double m = 0, v = 0;
	for (int i = 1; i <= T; i++) {
		double g = pow(b1 * b1 / b2, 0) * pow(b1 / b2, (double)(T - i));
		m = b1 * m + (1 - b1) * g;
		v = b2 * v + (1 - b2) * g * g;
	}
	double r = (m / (1 - pow(b1, T))) / sqrt(v / (1 - pow(b2, T)));
	double U = f8b_optim_update_bound(b1, b2, T);
	tap_ok(fabs(r - U) < 1e-9 * U, "U_%d = %.6f is reached (%.6f)", T, U, r);
	double worst = 0;
	uint64_t z = 7;
	for (int trial = 0; trial < 2000; trial++) {
		m = v = 0;
		for (int i = 1; i <= T; i++) {
			z = f8b_optim_mix(z + 1);
			double g = ((double)(z >> 11) * 0x1p-53 - 0.3) * ((z & 15) == 0 ? 30 : 1);
			m = b1 * m + (1 - b1) * g;
			v = b2 * v + (1 - b2) * g * g;
		}
		double q = fabs(m / (1 - pow(b1, T))) / sqrt(v / (1 - pow(b2, T)));
		worst = fmax(worst, q);
	}
	tap_ok(worst <= U, "2000 random sequences stay under U_%d (worst %.4f)", T, worst);
	tap_ok(f8b_optim_update_bound(b1, b2, 100000) < 8, "U_inf = %.4f",
	       f8b_optim_update_bound(b1, b2, 100000));
}

static void test_scale_formula(void)
{
	int bad = 0;
	const float probes[] = {0.0f, 1e-13f, 1e-12f, 3e-7f, 0.02f, 1.0f, 448.0f, 1e30f, INFINITY};
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
		struct f8b_scale_opts o = {0};
		float a = f8b_amax_to_scale(probes[i], F8B_E4M3, &o);
		float b = f8b_optim_scale(probes[i], 448.0f);
		float c = f8b_amax_to_scale(probes[i], F8B_E5M2, &o);
		float d = f8b_optim_scale(probes[i], 57344.0f);
		bad += memcmp(&a, &b, 4) != 0 || memcmp(&c, &d, 4) != 0;
	}
	float n = f8b_optim_scale(NAN, 448.0f);
	uint32_t nb;
	memcpy(&nb, &n, 4);
	tap_ok(!bad && nb == 0x7FFFFFFFu,
	       "f8b_optim_scale is f8b_amax_to_scale without margin, bit for bit");
}

static int states_equal(const struct model *x, const struct model *y)
{
	size_t ar = (size_t)x->arena;
	size_t ms = f8b_optim_master_size(x->a.variant), ss = f8b_optim_state_size(x->a.variant);
	return !memcmp(x->a.master, y->a.master, ar * ms) && !memcmp(x->a.m, y->a.m, ar * ss) &&
	       !memcmp(x->a.v, y->a.v, ar * ss) && !memcmp(x->a.w8, y->a.w8, ar) &&
	       !memcmp(x->a.amax_last, y->a.amax_last, (size_t)x->nslots * 4) &&
	       !memcmp(x->a.m_sinv, y->a.m_sinv, ar / 128 * 4);
}

/* Chunking is invisible: 128-element chunks and one chunk per tensor give
 * the same bits, for every variant and scaling, tensors of 1 element up. */
static void test_chunking(void)
{
	for (int v = 0; v < F8B_OPTIM_VARIANT_COUNT; v++)
		for (int sc = 0; sc < F8B_OPTIM_SCALING_COUNT; sc++)
			for (int g = 0; g < 2; g++) {
				enum f8b_granularity gr =
				    g ? F8B_GRAN_AXISWISE : F8B_GRAN_TENSORWISE;
				struct model a, b;
				model_make(&a, NUNEVEN, uneven, 128, v, sc, gr, 1e-3);
				model_make(&b, NUNEVEN, uneven, 1 << 20, v, sc, gr, 1e-3);
				int rc = F8B_OK;
				for (int t = 1; t <= 5 && rc == F8B_OK; t++) {
					rc = step(&a, t, 0);
					if (rc == F8B_OK)
						rc = step(&b, t, 0);
				}
				tap_ok(
				    rc == F8B_OK && states_equal(&a, &b),
				    "%s %s %s: chunks of 128 and whole tensors agree bit for bit",
				    f8b_optim_variant_name(v), f8b_optim_scaling_name(sc),
				    f8b_granularity_name(gr));
				model_free(&a);
				model_free(&b);
			}
}

/* Non-finite gradients: counted, the element left alone, nothing else hurt. */
static void test_nonfinite(void)
{
	for (int v = 0; v < F8B_OPTIM_VARIANT_COUNT; v++) {
		struct model m;
		model_make(&m, NUNEVEN, uneven, 256, v, F8B_OPTIM_DYNAMIC, F8B_GRAN_TENSORWISE,
		           1e-3);
		grads(&m, 1, 0);
		uint16_t *g = (uint16_t *)m.a.grad;
		int64_t at[3] = {m.t[1].off + 5, m.t[3].off + 999, m.t[5].off};
		uint16_t bits[3] = {0x7FC0, 0x7F80, 0xFF80};
		float before[3];
		for (int j = 0; j < 3; j++) {
			g[at[j]] = bits[j];
			before[j] = master_at(&m, at[j]);
		}
		int rc = H->optim_pass(hb, &m.a, F8B_OPTIM_FUSED);
		if (rc == F8B_OK)
			rc = H->optim_pass(hb, &m.a, F8B_OPTIM_CAST);
		int kept = 0, finite = 1;
		for (int j = 0; j < 3; j++)
			kept += master_at(&m, at[j]) == before[j];
		for (int64_t i = 0; i < m.arena; i++)
			finite &= isfinite(master_at(&m, i));
		tap_ok(rc == F8B_OK && m.a.ctr[F8B_OPTIM_CTR_NONFINITE] == 3 && kept == 3 &&
		           finite && isfinite(m.a.amax_last[0]),
		       "%s: NaN, +inf, -inf gradients counted (%llu), skipped, weights finite",
		       f8b_optim_variant_name(v),
		       (unsigned long long)m.a.ctr[F8B_OPTIM_CTR_NONFINITE]);
		model_free(&m);
	}
}

static void test_refusals(void)
{
	struct model m;
	model_make(&m, 1, uneven, 256, F8B_OPTIM_FP32, F8B_OPTIM_DYNAMIC, F8B_GRAN_TENSORWISE,
	           1e-3);
	struct f8b_optim_args a = m.a;
	a.ntensors = a.nchunks = 0;
	int rc = H->optim_pass(hb, &a, F8B_OPTIM_FUSED);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "empty parameter list"),
	       "an empty parameter list is refused: %s", f8b_last_error());
	a = m.a;
	a.gran = F8B_GRAN_BLOCK1X128;
	tap_ok(H->optim_pass(hb, &a, F8B_OPTIM_FUSED) == F8B_EINVAL,
	       "a blockwise fp8 weight is refused: %s", f8b_last_error());
	tap_ok(H->optim_pass(hb, &m.a, 9) == F8B_EINVAL, "pass 9 is refused");
	enum f8b_optim_variant v;
	rc = f8b_optim_variant_parse("fp4", &v);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "fp8-master16"),
	       "an unknown variant lists the accepted ones: %s", f8b_last_error());
	model_free(&m);
}

/* Predicted scaling with weights that grow: never a saturated value, and
 * the amax never above its prediction. */
static void test_predicted(void)
{
	const int64_t sh[][2] = {{8, 128}, {4, 300}};
	for (int g = 0; g < 2; g++) {
		struct model m;
		enum f8b_granularity gr = g ? F8B_GRAN_AXISWISE : F8B_GRAN_TENSORWISE;
		model_make(&m, 2, sh, 256, F8B_OPTIM_FP32, F8B_OPTIM_PREDICTED, gr, 1e-2);
		int rc = F8B_OK, over = 0;
		for (int t = 1; t <= 40 && rc == F8B_OK; t++) {
			/* what the pass will cast with, as an amax */
			float *pa = malloc((size_t)m.nslots * 4);
			for (int64_t s = 0; s < m.nslots; s++)
				pa[s] = f8b_optim_predict(&m.hyper[t], m.a.amax_last[s]);
			rc = step(&m, t, 5e-3f);
			for (int64_t s = 0; s < m.nslots; s++)
				over += m.a.amax_last[s] > pa[s];
			free(pa);
		}
		tap_ok(rc == F8B_OK && m.a.ctr[F8B_OPTIM_CTR_SAT] == 0 && over == 0,
		       "predicted %s, growing weights: 0 saturated, amax never above prediction "
		       "(%d)",
		       f8b_granularity_name(gr), over);
		model_free(&m);
		/* delayed scaling on the same trajectory saturates */
		model_make(&m, 2, sh, 256, F8B_OPTIM_FP32, F8B_OPTIM_DELAYED, gr, 1e-2);
		for (int t = 1; t <= 40 && rc == F8B_OK; t++)
			rc = step(&m, t, 5e-3f);
		tap_ok(rc == F8B_OK && m.a.ctr[F8B_OPTIM_CTR_SAT] > 0 &&
		           m.a.ctr[F8B_OPTIM_CTR_SAT_STEPS] > 0,
		       "delayed %s on it saturates and says how often: %llu values in %llu steps",
		       f8b_granularity_name(gr), (unsigned long long)m.a.ctr[F8B_OPTIM_CTR_SAT],
		       (unsigned long long)m.a.ctr[F8B_OPTIM_CTR_SAT_STEPS]);
		model_free(&m);
	}
}

/* fp8 states: each block's values within e4m3 / e5m2 precision of the
 * fp32 states of the same trajectory's first step. */
static void test_fp8_states(void)
{
	struct model a, b;
	model_make(&a, NUNEVEN, uneven, 256, F8B_OPTIM_FP32, F8B_OPTIM_DYNAMIC, F8B_GRAN_TENSORWISE,
	           1e-3);
	model_make(&b, NUNEVEN, uneven, 256, F8B_OPTIM_FP8, F8B_OPTIM_DYNAMIC, F8B_GRAN_TENSORWISE,
	           1e-3);
	step(&a, 1, 0);
	step(&b, 1, 0);
	int bad = 0;
	for (int k = 0; k < NUNEVEN; k++)
		for (int64_t e = 0; e < a.t[k].n; e++) {
			int64_t i = a.t[k].off + e, blk = i / 128;
			float m32 = ((float *)a.a.m)[i], s32 = sqrtf(((float *)a.a.v)[i]);
			float m8 = f8b_e4m3_to_f32(((uint8_t *)b.a.m)[i]) * b.a.m_sinv[blk];
			float s8 = f8b_e5m2_to_f32(((uint8_t *)b.a.v)[i]) * b.a.v_sinv[blk];
			/* half an ulp relative, or below the block's subnormal step */
			float mtol = fmaxf(fabsf(m32) / 16, 448.0f * 0x1p-9f * b.a.m_sinv[blk]);
			float stol = fmaxf(s32 / 8, 57344.0f * 0x1p-16f * b.a.v_sinv[blk]);
			bad += fabsf(m8 - m32) > mtol * 1.001f || fabsf(s8 - s32) > stol * 1.001f;
		}
	tap_ok(!bad, "fp8 states hold m and sqrt(v) within e4m3 / e5m2 rounding (%d off)", bad);
	model_free(&a);
	model_free(&b);
}

/* Stochastic rounding: the same stream twice, unbiased on average. */
static void test_stochastic(void)
{
	int same = 1;
	for (uint64_t e = 0; e < 1000; e++)
		same &= f8b_optim_sr_bits(1, 2, 3, e) == f8b_optim_sr_bits(1, 2, 3, e);
	double x = 1.0 + 0x1p-10, sum = 0;
	for (uint64_t e = 0; e < 100000; e++)
		sum += f8b_bf16_to_f32(f8b_optim_bf16_sr((float)x, f8b_optim_sr_bits(9, 1, 0, e)));
	double mean = sum / 100000;
	tap_ok(same && fabs(mean - x) < 2e-5, "stochastic rounding: repeatable, mean %.7f of %.7f",
	       mean, x);
	struct model a, b;
	model_make(&a, NUNEVEN, uneven, 256, F8B_OPTIM_FP8_MASTER16, F8B_OPTIM_PREDICTED,
	           F8B_GRAN_TENSORWISE, 1e-3);
	model_make(&b, NUNEVEN, uneven, 128, F8B_OPTIM_FP8_MASTER16, F8B_OPTIM_PREDICTED,
	           F8B_GRAN_TENSORWISE, 1e-3);
	a.a.stochastic = b.a.stochastic = true;
	for (int t = 1; t <= 3; t++) {
		step(&a, t, 0);
		step(&b, t, 0);
	}
	tap_ok(states_equal(&a, &b), "stochastic rounding does not depend on the chunks");
	model_free(&a);
	model_free(&b);
}

/* dynamic-sync: the host reference of its one launch is dynamic's two
 * passes, so every buffer and counter matches dynamic's after each step,
 * for every variant and granularity, with non-finite gradients; its name,
 * bytes and launches. */
static void test_dynamic_sync(void)
{
	for (int v = 0; v < F8B_OPTIM_VARIANT_COUNT; v++)
		for (int g = 0; g < 2; g++) {
			enum f8b_granularity gr = g ? F8B_GRAN_AXISWISE : F8B_GRAN_TENSORWISE;
			struct model d, s;
			model_make(&d, NUNEVEN, uneven, 256, v, F8B_OPTIM_DYNAMIC, gr, 1e-3);
			model_make(&s, NUNEVEN, uneven, 256, v, F8B_OPTIM_DYNAMIC_SYNC, gr, 1e-3);
			size_t ns = (size_t)d.nslots * 4;
			int rc = F8B_OK, same = 1, casts = 0;
			for (int t = 1; t <= 6 && rc == F8B_OK; t++) {
				grads(&d, t, 1e-4f);
				grads(&s, t, 1e-4f);
				((uint16_t *)d.a.grad)[d.t[t % NUNEVEN].off] = 0x7FC0;
				((uint16_t *)s.a.grad)[s.t[t % NUNEVEN].off] = 0x7FC0;
				rc = H->optim_pass(hb, &d.a, F8B_OPTIM_FUSED);
				if (rc == F8B_OK)
					rc = H->optim_pass(hb, &d.a, F8B_OPTIM_CAST);
				if (rc == F8B_OK)
					rc = H->optim_pass(hb, &s.a, F8B_OPTIM_FUSED);
				same &=
				    states_equal(&d, &s) && !memcmp(d.a.scale, s.a.scale, ns) &&
				    !memcmp(d.a.scale_used, s.a.scale_used, ns) &&
				    !memcmp(d.a.v_sinv, s.a.v_sinv, (size_t)d.arena / 128 * 4) &&
				    !memcmp(d.a.ctr, s.a.ctr, F8B_OPTIM_CTR_COUNT * 8);
				for (int64_t i = 0; i < s.arena; i++)
					casts += ((uint8_t *)s.a.w8)[i] != 0;
			}
			tap_ok(rc == F8B_OK && same && casts > 0 &&
			           s.a.ctr[F8B_OPTIM_CTR_STEP] == 7 &&
			           s.a.ctr[F8B_OPTIM_CTR_NONFINITE] == 6 &&
			           s.a.ctr[F8B_OPTIM_CTR_BARRIER] == 0,
			       "%s %s: dynamic-sync's one pass gives dynamic's two passes' bits, "
			       "6 steps",
			       f8b_optim_variant_name(v), f8b_granularity_name(gr));
			model_free(&d);
			model_free(&s);
		}
	enum f8b_optim_scaling sc = F8B_OPTIM_DYNAMIC;
	int rc = f8b_optim_scaling_parse("Dynamic-Sync", &sc);
	tap_ok(rc == F8B_OK && sc == F8B_OPTIM_DYNAMIC_SYNC &&
	           !strcmp(f8b_optim_scaling_name(sc), "dynamic-sync"),
	       "'dynamic-sync' parses and names itself");
	rc = f8b_optim_scaling_parse("sync", &sc);
	tap_ok(rc == F8B_EINVAL &&
	           strstr(f8b_last_error(), "accepted: dynamic, dynamic-sync, delayed, predicted"),
	       "an unknown scaling lists the accepted ones: %s", f8b_last_error());
	int same_bytes = 1;
	for (int v = 0; v < F8B_OPTIM_VARIANT_COUNT; v++)
		same_bytes &= f8b_optim_step_bytes(v, F8B_OPTIM_DYNAMIC_SYNC, false) ==
		              f8b_optim_step_bytes(v, F8B_OPTIM_DYNAMIC, false);
	tap_ok(same_bytes &&
	           f8b_optim_step_bytes(F8B_OPTIM_FP32, F8B_OPTIM_DYNAMIC_SYNC, false) == 31,
	       "dynamic-sync moves dynamic's bytes (fp32: 31 per parameter)");
	tap_ok(f8b_optim_launches(F8B_OPTIM_DYNAMIC) == 2 &&
	           f8b_optim_launches(F8B_OPTIM_DYNAMIC_SYNC) == 1 &&
	           f8b_optim_launches(F8B_OPTIM_PREDICTED) == 1 &&
	           f8b_optim_launches(F8B_OPTIM_DELAYED) == 1,
	       "launches per step: dynamic 2, dynamic-sync 1, delayed 1, predicted 1");
	struct model m;
	model_make(&m, 1, uneven, 256, F8B_OPTIM_FP32, F8B_OPTIM_DYNAMIC_SYNC, F8B_GRAN_TENSORWISE,
	           1e-3);
	m.a.sync_ctas = -1;
	rc = H->optim_pass(hb, &m.a, F8B_OPTIM_FUSED);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "sync_ctas"),
	       "a negative CTA cap is refused: %s", f8b_last_error());
	model_free(&m);
}

static void test_bytes(void)
{
	tap_ok(f8b_optim_step_bytes(F8B_OPTIM_FP32, F8B_OPTIM_PREDICTED, false) == 27.0,
	       "fp32: 27 bytes per parameter");
	double f8 = f8b_optim_step_bytes(F8B_OPTIM_FP8, F8B_OPTIM_PREDICTED, false);
	tap_ok(fabs(f8 - 15.125) < 1e-12 && f8 / 27.0 <= 0.58, "fp8: %.3f bytes, %.3fx fp32", f8,
	       f8 / 27.0);
	tap_ok(f8b_optim_state_bytes(F8B_OPTIM_FP8_MASTER16) == 4.0625,
	       "fp8-master16: 4.0625 bytes of state");
}

int main(void)
{
	struct f8b_device_info info;
	if (H->open(-1, &hb, &info) != F8B_OK)
		return tap_skip_all("no host backend");
	test_fp64_reference();
	test_bound();
	test_scale_formula();
	test_chunking();
	test_nonfinite();
	test_refusals();
	test_predicted();
	test_fp8_states();
	test_stochastic();
	test_bytes();
	test_dynamic_sync();
	H->close(hb);
	return tap_done();
}
