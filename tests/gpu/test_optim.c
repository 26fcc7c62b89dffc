/* test_optim.c - kernels/optim.cu against the host reference
 * (host_optim.c), bit for bit: every variant, scaling and granularity of
 * the fp8 weight, stochastic rounding, non-finite gradients, uneven
 * tensors and tensors smaller than a chunk, whole and short warp spans
 * (kernels/optim.cu), rows shorter and longer than a block, many CTAs
 * per pass (the last CTA's fold), each pass of the split sequence, the
 * step replayed as a CUDA graph, and dynamic-sync's one cooperative
 * launch (every scaling loop has it; sync_configs the grids).  Every buffer is compared after every
 * step.  Skips (exit 77) without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/fp8.h"
#include "core/optim.h"
#include "../tap.h"

static const struct f8b_backend_ops *C = &f8b_backend_cuda, *H = &f8b_backend_host;
static struct f8b_backend *cb, *hb;

static bool ok_rc(int rc, const char *what)
{
	if (rc != F8B_OK)
		tap_ok(0, "%s: %s", what, f8b_last_error());
	return rc == F8B_OK;
}

enum {
	B_GRAD,
	B_MASTER,
	B_M,
	B_V,
	B_MS,
	B_VS,
	B_W8,
	B_SCALE,
	B_USED,
	B_ACC,
	B_LAST,
	B_HIST,
	B_CTR,
	B_T,
	B_CH,
	B_HY,
	NB
};
static const char *const buf_names[NB] = {"grad", "master",  "m",      "v",    "m_sinv", "v_sinv",
                                          "w8",   "scale",   "used",   "acc",  "amax",   "hist",
                                          "ctr",  "tensors", "chunks", "hyper"};

#define MAXT 8
struct model {
	const struct f8b_backend_ops *ops;
	struct f8b_backend *be;
	int64_t nt, arena, nslots, nchunks;
	struct f8b_optim_tensor t[MAXT];
	struct f8b_optim_chunk *ch;
	struct f8b_optim_hyper hyper[32];
	void *b[NB];
	size_t bytes[NB];
	struct f8b_optim_args a;
};

static int model_make(struct model *m, const struct f8b_backend_ops *ops, struct f8b_backend *be,
                      int nt, const int64_t (*shape)[2], int64_t chunk, int v, int sc, int g,
                      bool sr)
{
	memset(m, 0, sizeof *m);
	m->ops = ops;
	m->be = be;
	m->nt = nt;
	int64_t nch = 0;
	for (int k = 0; k < nt; k++) {
		int64_t n = shape[k][0] * shape[k][1];
		m->t[k] = (struct f8b_optim_tensor){m->arena, n, shape[k][1], m->nslots, k};
		m->nslots += g == F8B_GRAN_AXISWISE ? shape[k][0] : 1;
		m->arena += (n + 127) / 128 * 128;
		nch += (n + chunk - 1) / chunk;
	}
	m->ch = calloc((size_t)nch, sizeof *m->ch);
	for (int k = 0; k < nt; k++)
		for (int64_t st = 0; st < m->t[k].n; st += chunk)
			m->ch[m->nchunks++] = (struct f8b_optim_chunk){
			    k, st, m->t[k].n - st < chunk ? m->t[k].n - st : chunk};
	struct f8b_optim_hparams hp = {
	    .lr = 3e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .wd = 0.1, .warmup = 2};
	f8b_optim_hyper_fill(&hp, m->hyper, 32);
	size_t ar = (size_t)m->arena, ns = (size_t)m->nslots;
	size_t sz[NB] = {ar * 2,
	                 ar * f8b_optim_master_size(v),
	                 ar * f8b_optim_state_size(v),
	                 ar * f8b_optim_state_size(v),
	                 ar / 128 * 4,
	                 ar / 128 * 4,
	                 ar,
	                 ns * 4,
	                 ns * 4,
	                 ns * 4,
	                 ns * 4,
	                 ns * 4 * 4,
	                 F8B_OPTIM_CTR_COUNT * 8,
	                 sizeof m->t,
	                 (size_t)nch * sizeof *m->ch,
	                 sizeof m->hyper};
	for (int i = 0; i < NB; i++) {
		m->bytes[i] = sz[i];
		F8B_TRY(ops->alloc(be, sz[i], &m->b[i]));
		F8B_TRY(ops->memset(be, m->b[i], 0, sz[i]));
	}
	F8B_TRY(ops->upload(be, m->b[B_T], m->t, sizeof m->t));
	F8B_TRY(ops->upload(be, m->b[B_CH], m->ch, (size_t)nch * sizeof *m->ch));
	F8B_TRY(ops->upload(be, m->b[B_HY], m->hyper, sizeof m->hyper));
	uint64_t ctr[F8B_OPTIM_CTR_COUNT] = {[F8B_OPTIM_CTR_STEP] = 1};
	F8B_TRY(ops->upload(be, m->b[B_CTR], ctr, sizeof ctr));
	m->a = (struct f8b_optim_args){.variant = v,
	                               .scaling = sc,
	                               .gran = g,
	                               .stochastic = sr,
	                               .seed = 77,
	                               .history = 4,
	                               .ntensors = nt,
	                               .nchunks = nch,
	                               .nslots = m->nslots,
	                               .nhyper = 32,
	                               .tensors = m->b[B_T],
	                               .chunks = m->b[B_CH],
	                               .hyper = m->b[B_HY],
	                               .grad = m->b[B_GRAD],
	                               .master = m->b[B_MASTER],
	                               .m = m->b[B_M],
	                               .v = m->b[B_V],
	                               .m_sinv = m->b[B_MS],
	                               .v_sinv = m->b[B_VS],
	                               .w8 = m->b[B_W8],
	                               .scale = m->b[B_SCALE],
	                               .scale_used = m->b[B_USED],
	                               .amax_acc = m->b[B_ACC],
	                               .amax_last = m->b[B_LAST],
	                               .hist = m->b[B_HIST],
	                               .ctr = m->b[B_CTR]};
	enum f8b_dtype mdt = v == F8B_OPTIM_FP8_MASTER16 ? F8B_BF16 : F8B_F32;
	for (int k = 0; k < nt; k++) {
		struct f8b_tensor w = {(char *)m->b[B_MASTER] +
		                           m->t[k].off * (int64_t)f8b_dtype_size(mdt),
		                       mdt, 1, m->t[k].n};
		struct f8b_fill_spec f = {.seed = 300 + (uint64_t)k,
		                          .std = 0.02f,
		                          .outlier_frac = 1e-3f,
		                          .outlier_scale = 8};
		F8B_TRY(ops->fill(be, &w, &f));
	}
	F8B_TRY(ops->optim_pass(be, &m->a, F8B_OPTIM_AMAX));
	return ops->sync(be);
}

static void model_free(struct model *m)
{
	for (int i = 0; i < NB; i++)
		if (m->b[i])
			m->ops->free(m->be, m->b[i]);
	free(m->ch);
}

/* Step t's gradients, with three non-finite values. */
static int grads(struct model *m, int64_t t)
{
	for (int k = 0; k < m->nt; k++) {
		struct f8b_tensor g = {(uint16_t *)m->b[B_GRAD] + m->t[k].off, F8B_BF16, 1,
		                       m->t[k].n};
		struct f8b_fill_spec f = {.seed = 1000 * (uint64_t)t + (uint64_t)k,
		                          .mean = 1e-3f * (k % 2 ? 1 : -1),
		                          .std = 2e-3f,
		                          .outlier_frac = 1e-3f,
		                          .outlier_scale = 30};
		F8B_TRY(m->ops->fill(m->be, &g, &f));
	}
	static const uint16_t bad[3] = {0x7FC0, 0x7F80, 0xFF80};
	for (int j = 0; j < 3; j++) {
		int k = (int)((t + j) % m->nt);
		int64_t e = (int64_t)((uint64_t)(t * 7919 + j * 104729) % (uint64_t)m->t[k].n);
		F8B_TRY(
		    m->ops->upload(m->be, (uint16_t *)m->b[B_GRAD] + m->t[k].off + e, &bad[j], 2));
	}
	return F8B_OK;
}

static int step_ops(void *vm)
{
	struct model *m = vm;
	F8B_TRY(m->ops->optim_pass(m->be, &m->a, F8B_OPTIM_FUSED));
	if (m->a.scaling == F8B_OPTIM_DYNAMIC)
		F8B_TRY(m->ops->optim_pass(m->be, &m->a, F8B_OPTIM_CAST));
	return F8B_OK;
}

static int split_ops(void *vm)
{
	struct model *m = vm;
	F8B_TRY(m->ops->optim_pass(m->be, &m->a, F8B_OPTIM_UPDATE));
	F8B_TRY(m->ops->optim_pass(m->be, &m->a, F8B_OPTIM_AMAX));
	return m->ops->optim_pass(m->be, &m->a, F8B_OPTIM_CAST);
}

/* Every buffer of the device model against the host's; names the first
 * that differs. */
static bool same(const struct model *d, const struct model *h, char *why, size_t n)
{
	bool ok = true;
	for (int i = 0; i < NB && ok; i++) {
		unsigned char *x = malloc(d->bytes[i] ? d->bytes[i] : 1);
		if (C->download(cb, x, d->b[i], d->bytes[i]) != F8B_OK) {
			snprintf(why, n, "download: %s", f8b_last_error());
			ok = false;
		} else if (memcmp(x, h->b[i], d->bytes[i])) {
			size_t at = 0;
			while (at < d->bytes[i] && x[at] == ((unsigned char *)h->b[i])[at])
				at++;
			snprintf(why, n, "%s differs first at byte %zu of %zu", buf_names[i], at,
			         d->bytes[i]);
			ok = false;
		}
		free(x);
	}
	return ok;
}

/* {40, 100}: whole 4-block spans (the fp8 states' fast path) in rows
 * shorter than a block; {17, 129}, {5, 200}: spans across row ends */
static const int64_t shapes[][2] = {{1, 1},   {3, 43},   {17, 129}, {512, 515},
                                    {5, 200}, {64, 257}, {40, 100}};
#define NSH 7

/* ctas: dynamic-sync's CTA cap (a->sync_ctas; 0: as many as fit) */
static void run_config(int v, int sc, int g, bool sr, int64_t chunk, int mode, int ctas)
{
	static const char *const modes[] = {"eager", "graph", "split"};
	struct model d, h;
	char why[160] = "";
	bool ok = ok_rc(model_make(&d, C, cb, NSH, shapes, chunk, v, sc, g, sr), "cuda model") &&
	          ok_rc(model_make(&h, H, hb, NSH, shapes, chunk, v, sc, g, sr), "host model");
	d.a.sync_ctas = h.a.sync_ctas = ctas;
	struct f8b_graph *graph = NULL;
	if (ok && mode == 1)
		ok = ok_rc(C->graph_capture(cb, step_ops, &d, &graph), "capture");
	int t = 1;
	for (; ok && t <= 6; t++) {
		ok = ok_rc(grads(&d, t), "grads") && ok_rc(grads(&h, t), "grads");
		if (ok && mode == 1)
			ok = ok_rc(C->graph_launch(cb, graph), "graph launch");
		else if (ok)
			ok = ok_rc((mode == 2 ? split_ops : step_ops)(&d), "cuda step");
		ok = ok && ok_rc((mode == 2 ? split_ops : step_ops)(&h), "host step") &&
		     ok_rc(C->sync(cb), "sync") && same(&d, &h, why, sizeof why);
	}
	char cap[32] = "";
	if (ctas)
		snprintf(cap, sizeof cap, " at most %d CTAs", ctas);
	tap_ok(ok, "%s %s %s%s chunk %lld%s %s: 6 steps bit for bit%s%s", f8b_optim_variant_name(v),
	       f8b_optim_scaling_name(sc), f8b_granularity_name(g), sr ? " sr" : "",
	       (long long)chunk, cap, modes[mode], why[0] ? ": " : "", why);
	if (graph)
		C->graph_free(cb, graph);
	model_free(&d);
	model_free(&h);
}

/* dynamic-sync's cooperative launch: more chunks than resident CTAs (one
 * chunk a block: each CTA strides over many, and meets both grid barriers
 * once), grids capped at 1, 3 and 5 CTAs, one chunk per tensor (a grid of
 * 7), stochastic rounding, and the step as a graph (a captured
 * cooperative launch). */
static void sync_configs(void)
{
	const int S = F8B_OPTIM_DYNAMIC_SYNC;
	for (int v = 0; v < F8B_OPTIM_VARIANT_COUNT; v++)
		for (int g = 0; g < 2; g++) {
			const int gr = g ? F8B_GRAN_AXISWISE : F8B_GRAN_TENSORWISE;
			run_config(v, S, gr, false, 128, 0, 0);
			run_config(v, S, gr, false, 4096, 1, 0);
		}
	run_config(F8B_OPTIM_FP8, S, F8B_GRAN_AXISWISE, false, 4096, 0, 1);
	run_config(F8B_OPTIM_FP32, S, F8B_GRAN_TENSORWISE, false, 128, 0, 3);
	run_config(F8B_OPTIM_BF16, S, F8B_GRAN_AXISWISE, false, 128, 1, 3);
	run_config(F8B_OPTIM_FP8_MASTER16, S, F8B_GRAN_TENSORWISE, true, 1 << 24, 0, 0);
	run_config(F8B_OPTIM_FP8_MASTER16, S, F8B_GRAN_AXISWISE, true, 128, 1, 5);
}

int main(void)
{
	char why[256];
	if (f8b_cuda_device_count(why, sizeof why) < 1)
		return tap_skip_all(why);
	struct f8b_device_info info;
	if (C->open(0, &cb, &info) != F8B_OK || H->open(-1, &hb, &info) != F8B_OK)
		return tap_skip_all(f8b_last_error());
	for (int v = 0; v < F8B_OPTIM_VARIANT_COUNT; v++)
		for (int sc = 0; sc < F8B_OPTIM_SCALING_COUNT; sc++)
			for (int g = 0; g < 2; g++)
				run_config(v, sc, g ? F8B_GRAN_AXISWISE : F8B_GRAN_TENSORWISE,
				           false, 4096, 0, 0);
	for (int sc = 0; sc < F8B_OPTIM_SCALING_COUNT; sc++)
		run_config(F8B_OPTIM_FP8_MASTER16, sc, F8B_GRAN_TENSORWISE, true, 4096, 0, 0);
	/* one chunk per block, and one chunk per tensor */
	run_config(F8B_OPTIM_FP8, F8B_OPTIM_PREDICTED, F8B_GRAN_AXISWISE, false, 128, 0, 0);
	run_config(F8B_OPTIM_FP32, F8B_OPTIM_DELAYED, F8B_GRAN_TENSORWISE, false, 1 << 24, 0, 0);
	/* one chunk per tensor with the wider spans: many spans per warp,
	 * then the short last one block by block */
	run_config(F8B_OPTIM_BF16, F8B_OPTIM_DYNAMIC, F8B_GRAN_TENSORWISE, false, 1 << 24, 0, 0);
	run_config(F8B_OPTIM_FP8, F8B_OPTIM_PREDICTED, F8B_GRAN_AXISWISE, false, 1 << 24, 0, 0);
	run_config(F8B_OPTIM_FP8_MASTER16, F8B_OPTIM_DELAYED, F8B_GRAN_TENSORWISE, true, 1 << 24, 0,
	           0);
	/* graphs (the step counter advances on the device) and the split */
	for (int v = 0; v < F8B_OPTIM_VARIANT_COUNT; v++) {
		run_config(v, F8B_OPTIM_PREDICTED, F8B_GRAN_TENSORWISE, v == 3, 4096, 1, 0);
		run_config(v, F8B_OPTIM_DYNAMIC, F8B_GRAN_AXISWISE, false, 4096, 1, 0);
		run_config(v, F8B_OPTIM_DELAYED, F8B_GRAN_TENSORWISE, false, 4096, 2, 0);
	}
	sync_configs();
	C->close(cb);
	H->close(hb);
	return tap_done();
}
