/* ag_check.c - the allgather benchmark's checks before timing
 * (doc/allgather.md "Checks"):
 *   - every gathered weight, on every rank, bit-identical to the whole
 *     weight made and cast on the host by the host backend's codec: the
 *     bf16 bytes; fp8-allgather's global amax (equal to the max over the
 *     whole weight, so the all-reduce took every shard's), its scale and
 *     its fp8 bytes, and the byte transpose of them; the per-row scales
 *     and bytes of the axiswise mode; fp8-compute's cast on the rank;
 *   - the reduce-scatter exact on integers (sums that bf16 holds);
 *   - the step's output, grad_x and layer 0's dW shard against the bf16
 *     mode's of the same case (SQNR), finite, and above a floor.
 * Weights and the reduce-scatter do not depend on the tokens: they are
 * checked once per weight (and mode) and remembered.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_int.h"
#include "core/fp8.h"

/* SQNR below this (dB) is a wrong row: fp8's rounding costs ~25-30 dB per
 * cast, so this only catches a broken step, not a noisy one. */
#define AG_SQNR_FLOOR 8.0

static const struct f8b_scale_opts so = {0};

static int host_tensor(struct f8b_tensor *t, enum f8b_dtype dt, int64_t r, int64_t c)
{
	t->dtype = dt;
	t->rows = r;
	t->cols = c;
	t->data = malloc((size_t)(r * c) * f8b_dtype_size(dt) + 16);
	return t->data ? F8B_OK
	               : F8B_ERR(F8B_ENOMEM, "check: %lldx%lld host tensor", (long long)r,
	                         (long long)c);
}

static int mismatch(const char *what, int l, const void *a, const void *b, size_t bytes,
                    size_t esize)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;
	while (i < bytes && x[i] == y[i])
		i++;
	if (i == bytes)
		return 0;
	i /= esize;
	return F8B_ERR(F8B_EINVAL, "layer %d: %s differs at element %zu", l, what, i);
}

/* The host's reference of layer l's whole weight and what each mode makes
 * of it, against what the device gathered. */
static int check_layer(struct ag_state *s, int l, char *why, size_t nwhy, int *checks)
{
	const struct f8b_backend_ops *ops = s->run->ops, *H = &f8b_backend_host;
	struct f8b_backend *be = s->run->be, *hb = s->c->hb;
	int64_t n = s->n[l], k = s->k[l];
	size_t nk = (size_t)(n * k);
	struct f8b_tensor W = {0}, q = {0}, qt = {0}, got = {0};
	float amax = 0, scale = 0, sinv = 0, dev[2];
	float *rsinv = NULL, *ramax = NULL, *dsinv = NULL;
	int rc = host_tensor(&W, F8B_BF16, n, k);
	if (rc == F8B_OK)
		rc = host_tensor(&q, F8B_E4M3, n, k);
	if (rc == F8B_OK)
		rc = host_tensor(&qt, F8B_E4M3, k, n);
	if (rc == F8B_OK)
		rc = host_tensor(&got, F8B_BF16, n, k);
	if (rc == F8B_OK && !((rsinv = calloc((size_t)n, 4)) && (ramax = calloc((size_t)n, 4)) &&
	                      (dsinv = calloc((size_t)n, 4))))
		rc = F8B_ERR(F8B_ENOMEM, "check");
	struct f8b_fill_spec f = f8b_ag_weight_fill(s, l, false);
	if (rc == F8B_OK)
		rc = H->fill(hb, &W, &f);
	/* The forward's gather, on the backend's own queue. */
	if (rc == F8B_OK && s->mode == AG_FP8_AG)
		rc = f8b_ag_prologue(s);
	if (rc == F8B_OK)
		rc = f8b_ag_gather(s, l, 0);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	bool fp8_gather = s->mode == AG_FP8_AG || s->mode == AG_FP8_AG_AXIS;
	if (rc == F8B_OK)
		rc = ops->download(be, got.data, s->slot[0].data, fp8_gather ? nk : 2 * nk);
	int bad = 0;
	if (rc != F8B_OK)
		goto out;
	if (!fp8_gather) {
		bad = mismatch("the gathered bf16 weight", l, got.data, W.data, 2 * nk, 2);
		*checks += !bad;
	}
	if (!bad && s->mode == AG_FP8_COMPUTE) {
		/* The cast every rank makes of the gathered weight. */
		struct f8b_tensor wb = {s->slot[0].data, F8B_BF16, n, k};
		struct f8b_tensor wq = {s->wq.data, F8B_E4M3, n, k};
		struct f8b_cast_spec d = {.gran = F8B_GRAN_TENSORWISE,
		                          .dtype = F8B_E4M3,
		                          .opts = so,
		                          .q = &wq,
		                          .amax = s->w_amax,
		                          .scale_inv = s->w_sinv};
		struct f8b_cast_spec h = d;
		h.q = &q;
		h.amax = &amax;
		h.scale_inv = &sinv;
		rc = ops->cast_fused(be, &wb, &d);
		if (rc == F8B_OK)
			rc = ops->sync(be);
		if (rc == F8B_OK)
			rc = ops->download(be, got.data, wq.data, nk);
		if (rc == F8B_OK)
			rc = ops->download(be, dev, s->w_sinv, sizeof(float));
		if (rc == F8B_OK)
			rc = H->cast_fused(hb, &W, &h);
		if (rc != F8B_OK)
			goto out;
		bad = mismatch("the rank's fp8 cast of the gathered weight", l, got.data, q.data,
		               nk, 1);
		if (!bad && memcmp(dev, &sinv, 4))
			bad =
			    F8B_ERR(F8B_EINVAL, "layer %d: scale_inv %g, host %g", l, dev[0], sinv);
		*checks += !bad;
	}
	if (!bad && s->mode == AG_FP8_AG) {
		rc = H->amax(hb, &W, F8B_GRAN_TENSORWISE, &amax);
		if (rc == F8B_OK)
			rc = H->scales(hb, &amax, 1, F8B_E4M3, &so, &scale, &sinv);
		if (rc == F8B_OK)
			rc = H->cast(hb, &W, F8B_GRAN_TENSORWISE, &scale, &q);
		if (rc == F8B_OK)
			rc = ops->download(be, dev, s->amax_all + l, sizeof(float));
		if (rc == F8B_OK)
			rc = ops->download(be, dev + 1, s->sinv_all + 4 * l, sizeof(float));
		if (rc != F8B_OK)
			goto out;
		if (memcmp(&dev[0], &amax, 4))
			bad =
			    F8B_ERR(F8B_EINVAL,
			            "layer %d: the all-reduced amax %.9g is not the whole weight's "
			            "%.9g",
			            l, dev[0], amax);
		else if (memcmp(&dev[1], &sinv, 4))
			bad = F8B_ERR(F8B_EINVAL, "layer %d: scale_inv %.9g, host %.9g", l, dev[1],
			              sinv);
		else
			bad = mismatch("the gathered fp8 weight", l, got.data, q.data, nk, 1);
		*checks += bad ? 0 : 3;
		if (!bad && l == 0) {
			/* grad_input's K-major copy of the gathered bytes */
			struct f8b_tensor wq = {s->slot[0].data, F8B_E4M3, n, k};
			struct f8b_tensor wt = {s->wq_t.data, F8B_E4M3, k, n};
			rc = ops->transpose_fp8(be, &wq, &wt);
			if (rc == F8B_OK)
				rc = ops->sync(be);
			if (rc == F8B_OK)
				rc = ops->download(be, got.data, wt.data, nk);
			if (rc == F8B_OK)
				rc = H->transpose_fp8(hb, &q, &qt);
			if (rc != F8B_OK)
				goto out;
			bad = mismatch("the transposed fp8 weight", l, got.data, qt.data, nk, 1);
			*checks += !bad;
		}
	}
	if (!bad && s->mode == AG_FP8_AG_AXIS) {
		struct f8b_cast_spec h = {.gran = F8B_GRAN_AXISWISE,
		                          .dtype = F8B_E4M3,
		                          .opts = so,
		                          .q = &q,
		                          .amax = ramax,
		                          .scale_inv = rsinv};
		rc = H->cast_fused(hb, &W, &h);
		if (rc == F8B_OK)
			rc = ops->download(be, dsinv, s->slot_sinv[0], (size_t)n * 4);
		if (rc != F8B_OK)
			goto out;
		bad = mismatch("the gathered per-row scale_inv", l, dsinv, rsinv, (size_t)n * 4, 4);
		if (!bad)
			bad = mismatch("the gathered axiswise fp8 weight", l, got.data, q.data, nk,
			               1);
		*checks += bad ? 0 : 2;
		/* the backward's gather is bf16; a collective, so every rank
		 * runs it whatever its own comparisons found */
		rc = f8b_ag_gather(s, 2 * s->L - 1 - l, 0);
		if (rc == F8B_OK)
			rc = ops->sync(be);
		if (rc == F8B_OK)
			rc = ops->download(be, got.data, s->slot[0].data, 2 * nk);
		if (rc != F8B_OK)
			goto out;
		if (!bad) {
			bad = mismatch("the backward's gathered bf16 weight", l, got.data, W.data,
			               2 * nk, 2);
			*checks += !bad;
		}
	}
	if (bad)
		snprintf(why, nwhy, "%s", f8b_last_error());
out:
	free(W.data);
	free(q.data);
	free(qt.data);
	free(got.data);
	free(rsinv);
	free(ramax);
	free(dsinv);
	return rc;
}

/* The reduce-scatter of layer 0's dW on small integers, whose sums bf16
 * and f32 hold exactly: element i of rank r is ((i*7 + r*3) % 9) - 4. */
static int check_rs(struct ag_state *s, char *why, size_t nwhy, int *checks)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	size_t nk = (size_t)(s->n[0] * s->k[0]), shard = (size_t)(s->rows[0] * s->k[0]);
	bool f32 = s->gw_dtype == F8B_F32;
	size_t es = f32 ? 4 : 2;
	unsigned char *h = malloc(nk * es), *got = malloc(shard * es);
	int rc = h && got ? F8B_OK : F8B_ERR(F8B_ENOMEM, "reduce-scatter check");
	for (size_t i = 0; rc == F8B_OK && i < nk; i++) {
		float v = (float)((int)((i * 7 + (size_t)s->rank * 3) % 9) - 4);
		if (f32)
			memcpy(h + 4 * i, &v, 4);
		else {
			uint16_t b = f8b_f32_to_bf16(v);
			memcpy(h + 2 * i, &b, 2);
		}
	}
	if (rc == F8B_OK)
		rc = ops->upload(be, s->gw[0].data, h, nk * es);
	if (rc == F8B_OK)
		rc = f8b_coll_call(f8b_ag_rs_coll(s->c), F8B_COLL_REDUCE_SCATTER,
		                   f32 ? F8B_COLL_F32 : F8B_COLL_BF16, F8B_COLL_SUM, s->gw[0].data,
		                   s->gw_shard[0].data, shard);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (rc == F8B_OK)
		rc = ops->download(be, got, s->gw_shard[0].data, shard * es);
	for (size_t i = 0; rc == F8B_OK && i < shard; i++) {
		size_t gi = (size_t)s->rank * shard + i;
		int want = 0;
		for (int r = 0; r < s->R; r++)
			want += (int)((gi * 7 + (size_t)r * 3) % 9) - 4;
		float v;
		if (f32) {
			memcpy(&v, got + 4 * i, 4);
		} else {
			uint16_t b;
			memcpy(&b, got + 2 * i, 2);
			v = f8b_bf16_to_f32(b);
		}
		if (v != (float)want) {
			int w = snprintf(why, nwhy,
			                 "reduce-scatter: %g at element %zu of rank %d, "
			                 "sum %d",
			                 v, i, s->rank, want);
			(void)w;
			break;
		}
	}
	if (rc == F8B_OK && !why[0])
		(*checks)++;
	free(h);
	free(got);
	return rc;
}

/* ---- SQNR against the bf16 step ------------------------------------------ */

static int fetch(struct ag_state *s, const void *src, size_t bytes, uint16_t **out)
{
	*out = malloc(bytes + 2);
	if (!*out)
		return F8B_ERR(F8B_ENOMEM, "check: %zu bytes", bytes);
	return s->run->ops->download(s->run->be, *out, src, bytes);
}

static double val(const uint16_t *p, size_t i, bool f32)
{
	if (f32) {
		float v;
		memcpy(&v, (const char *)p + 4 * i, 4);
		return v;
	}
	return f8b_bf16_to_f32(p[i]);
}

static bool all_finite(const uint16_t *x, size_t n, bool f32)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(val(x, i, f32)))
			return false;
	return true;
}

static double sqnr(const uint16_t *x, const uint16_t *ref, size_t n, bool f32, bool *finite)
{
	double sig = 0, err = 0;
	for (size_t i = 0; i < n; i++) {
		double a = val(x, i, f32), r = val(ref, i, f32);
		if (!isfinite(a))
			*finite = false;
		sig += r * r;
		err += (a - r) * (a - r);
	}
	return err == 0 ? INFINITY : 10.0 * log10(sig / err);
}

static int check_outputs(struct ag_state *s, struct f8b_allgather_row *row, char *why, size_t nwhy)
{
	struct ag_base *b = &s->c->base;
	bool f32 = s->gw_dtype == F8B_F32;
	size_t ny = (size_t)(s->T * s->n[s->L - 1]), ngx = (size_t)(s->T * s->k[0]);
	size_t ngw = (size_t)(s->rows[0] * s->k[0]);
	uint16_t *y = NULL, *gx = NULL, *gw = NULL;
	int rc = fetch(s, s->x[s->L].data, ny * 2, &y);
	if (rc == F8B_OK)
		rc = fetch(s, s->grad_x->data, ngx * 2, &gx);
	if (rc == F8B_OK)
		rc = fetch(s, s->gw_shard[0].data, ngw * (f32 ? 4 : 2), &gw);
	bool finite = true;
	if (rc == F8B_OK && s->mode == AG_BF16) {
		free(b->y);
		free(b->gx);
		free(b->gw);
		*b = (struct ag_base){.have = true,
		                      .n = s->n[0],
		                      .k = s->k[0],
		                      .tokens = s->T,
		                      .y = y,
		                      .gx = gx,
		                      .gw = gw,
		                      .ny = ny,
		                      .ngx = ngx,
		                      .ngw = ngw,
		                      .rs_f32 = f32,
		                      .median_s = NAN};
		finite = all_finite(y, ny, false) && all_finite(gx, ngx, false) &&
		         all_finite(gw, ngw, f32);
		y = gx = gw = NULL;
		if (!finite)
			snprintf(why, nwhy, "the bf16 step's outputs are not finite");
	} else if (rc == F8B_OK && b->have && b->tokens == s->T && b->n == s->n[0] &&
	           b->k == s->k[0] && b->rs_f32 == f32) {
		row->sqnr_out_db = sqnr(y, b->y, ny, false, &finite);
		row->sqnr_grad_x_db = sqnr(gx, b->gx, ngx, false, &finite);
		row->sqnr_grad_w_db = sqnr(gw, b->gw, ngw, f32, &finite);
		row->sqnr_min_db =
		    fmin(row->sqnr_out_db, fmin(row->sqnr_grad_x_db, row->sqnr_grad_w_db));
		if (!finite)
			snprintf(why, nwhy, "the step's outputs are not finite");
		else if (row->sqnr_min_db < AG_SQNR_FLOOR)
			snprintf(why, nwhy,
			         "SQNR against the bf16 step %.1f dB (output %.1f, grad_x %.1f, "
			         "dW %.1f) is below %.0f dB",
			         row->sqnr_min_db, row->sqnr_out_db, row->sqnr_grad_x_db,
			         row->sqnr_grad_w_db, AG_SQNR_FLOOR);
	}
	free(y);
	free(gx);
	free(gw);
	return rc;
}

int f8b_ag_check(struct ag_state *s, struct f8b_allgather_row *row, bool *ok)
{
	struct ag_cfg *c = s->c;
	char why[F8B_MSG] = "";
	int checks = 0;
	*ok = false;
	F8B_TRY(check_outputs(s, row, why, sizeof why));
	size_t wi = 0;
	while (wi < c->nw && !(c->w[wi].n == s->n[0] && c->w[wi].k == s->k[0]))
		wi++;
	/* The checks below run collectives (gathers, the all-reduce, the
	 * reduce-scatter): every rank takes every step of them, whatever it
	 * found so far, and the ranks agree on the verdict before remembering
	 * it, so that no rank skips a collective another one runs. */
	int *wdone = &c->wchecked[wi * AG_NMODES + (size_t)s->mode], optn = 0;
	if (s->opt) {
		/* The weights have moved: the optimizer's step is checked instead
		 * (every case: its state is the case's own). */
		int bad;
		char ow[F8B_MSG] = "";
		if (!c->hb) {
			struct f8b_device_info info;
			F8B_TRY(f8b_backend_host.open(-1, &c->hb, &info));
		}
		F8B_TRY(f8b_ag_optim_check(s, ow, sizeof ow, &optn));
		bad = ow[0] != 0;
		F8B_TRY(f8b_comm_max_int(&bad));
		if (ow[0] && !why[0])
			snprintf(why, sizeof why, "%s", ow);
		else if (bad && !why[0])
			snprintf(why, sizeof why,
			         "another rank's optimizer step differs from the host's");
		if (bad)
			optn = 0;
	} else if (!*wdone) {
		if (!c->hb) {
			struct f8b_device_info info;
			F8B_TRY(f8b_backend_host.open(-1, &c->hb, &info));
		}
		int n = 0, bad;
		char lw[F8B_MSG], first[F8B_MSG] = "";
		for (int l = 0; l < s->L; l++) {
			lw[0] = '\0';
			F8B_TRY(check_layer(s, l, lw, sizeof lw, &n));
			if (lw[0] && !first[0])
				snprintf(first, sizeof first, "%s", lw);
		}
		bad = first[0] != 0;
		F8B_TRY(f8b_comm_max_int(&bad));
		*wdone = bad ? 0 : n;
		if (first[0] && !why[0])
			snprintf(why, sizeof why, "%s", first);
		else if (bad && !why[0])
			snprintf(why, sizeof why,
			         "another rank's gathered weights differ from the host's");
	}
	if (!c->rschecked[wi]) {
		int n = 0, bad;
		char rw[F8B_MSG] = "";
		F8B_TRY(check_rs(s, rw, sizeof rw, &n));
		bad = rw[0] != 0;
		F8B_TRY(f8b_comm_max_int(&bad));
		c->rschecked[wi] = bad ? 0 : n;
		if (rw[0] && !why[0])
			snprintf(why, sizeof why, "%s", rw);
	}
	checks = (s->opt ? optn : *wdone) + c->rschecked[wi];
	row->checks = checks;
	if (why[0]) {
		f8b_setstr(row->message, sizeof row->message, why);
		return F8B_OK;
	}
	*ok = true;
	return F8B_OK;
}
