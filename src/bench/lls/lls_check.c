/* lls_check.c - the lls step's checks, run on every case before it is
 * timed (doc/lls.md "Checks"):
 *   1. every cast of the step bit for bit against the host backend (the
 *      golden codec) given the same input: the fused casts from the bf16
 *      value the kernel quantised (the step is run once more with those
 *      values kept), the separate amax/scales/cast chains likewise, the
 *      delayed-scaling history step from the same history;
 *   2. y, grad_x and grad_W against a double-precision host computation
 *      of the step from the same bf16 x, W and dy: every element up to
 *      LLS_FULL_MACS multiply-adds per GEMM, else LLS_SAMPLE rows of y and
 *      grad_x and LLS_SAMPLE rows of grad_W (each row exact, in full).
 * A row is wrong when a cast differs or an SQNR is below its floor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lls/lls_int.h"
#include "backend/lls_ops.h"
#include "core/fp8.h"

#define LLS_FULL_MACS (1LL << 30)
#define LLS_SAMPLE    16
/* SQNR floors (dB): far below what each recipe reaches on these inputs
 * (doc/lls.md lists the values measured), far above what a wrong kernel
 * gives (a wrong layout or scale is near 0 dB). */
#define FLOOR_BF16 25.0
#define FLOOR_FP8  10.0

struct host {
	const struct f8b_backend_ops *ops;
	struct f8b_backend *be;
	struct f8b_device_info info;
};

static int fetch(struct lls_state *s, const void *src, size_t bytes, void **out)
{
	*out = malloc(bytes ? bytes : 1);
	if (!*out)
		return F8B_ERR(F8B_ENOMEM, "lls check: %zu bytes of host memory", bytes);
	return s->run->ops->download(s->run->be, *out, src, bytes);
}

static size_t tbytes(const struct f8b_tensor *t)
{
	return (size_t)(t->rows * t->cols) * f8b_dtype_size(t->dtype);
}

/* The first byte where two buffers differ, or -1. */
static int64_t first_diff(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return (int64_t)i;
	return -1;
}

struct cmp {
	const char *what;
	const void *dev; /* device memory */
	const void *ref; /* host result */
	size_t bytes;
};

/* Compares each device buffer with the host's; the first difference goes
 * to msg. */
static int compare(struct lls_state *s, const struct cmp *c, int n, char *msg, size_t msz,
                   bool *same)
{
	for (int i = 0; i < n; i++) {
		void *d;
		if (!c[i].dev)
			continue;
		F8B_TRY(fetch(s, c[i].dev, c[i].bytes, &d));
		int64_t at = first_diff(d, c[i].ref, c[i].bytes);
		free(d);
		if (at >= 0) {
			if (*same)
				snprintf(msg, msz, "%s differs from the host at byte %lld",
				         c[i].what, (long long)at);
			*same = false;
		}
	}
	return F8B_OK;
}

/* Host copies of one operand's outputs. */
struct hop {
	struct f8b_tensor q;
	float *amax, *scale, *sinv;
};

static int hop_new(const struct lls_operand *o, struct hop *h)
{
	memset(h, 0, sizeof *h);
	h->q = o->q;
	h->q.data = calloc((size_t)(o->rows * o->cols), 1);
	h->amax = calloc((size_t)o->ns, sizeof(float));
	h->scale = calloc((size_t)o->ns, sizeof(float));
	h->sinv = calloc((size_t)o->ns, sizeof(float));
	if (!h->q.data || !h->amax || !h->scale || !h->sinv)
		return F8B_ERR(F8B_ENOMEM, "lls check: host copies");
	return F8B_OK;
}

static void hop_free(struct hop *h)
{
	free(h->q.data);
	free(h->amax);
	free(h->scale);
	free(h->sinv);
}

/* One cast stage: the host computes what it should have written. */
static int check_cast(struct lls_state *s, struct host *h, const struct lls_stage *st,
                      void *const *hp, char *msg, size_t msz, bool *same)
{
	int oi = st->q >= 0 ? st->q : st->qt;
	struct lls_operand *o = &s->op[oi];
	struct f8b_tensor x = s->buf[st->src];
	x.data = hp[st->src];
	struct hop a = {0}, b = {0};
	int rc = hop_new(o, &a);
	if (rc == F8B_OK && st->q >= 0 && st->qt >= 0)
		rc = hop_new(&s->op[st->qt], &b);
	char what[96];
	snprintf(what, sizeof what, "%s of %s", f8b_lls_kind_name(st->kind), st->tensor);
	if (rc == F8B_OK) {
		switch (st->kind) {
		case K_LN_FWD_CAST:
		case K_SIG_BWD_CAST:
		case K_CAST_FUSED: {
			float given = o->dscale_host;
			struct f8b_cast_spec cs = {
			    .gran = o->cfg.gran,
			    .dtype = o->cfg.dtype,
			    .opts = s->so,
			    .scale = o->cfg.type == F8B_SCALING_DELAYED ? &given : NULL,
			    .q = st->q >= 0 ? &a.q : NULL,
			    .q_t = st->qt >= 0 ? (st->q >= 0 ? &b.q : &a.q) : NULL,
			    .amax = a.amax,
			    .scale_inv = a.sinv};
			rc = h->ops->cast_fused(h->be, &x, &cs);
			break;
		}
		case K_CAST:
			rc = h->ops->amax(h->be, &x, o->cfg.gran, a.amax);
			if (rc == F8B_OK)
				rc = h->ops->scales(h->be, a.amax, o->ns, o->cfg.dtype, &s->so,
				                    a.scale, a.sinv);
			if (rc == F8B_OK)
				rc = h->ops->cast(h->be, &x, o->cfg.gran, a.scale, &a.q);
			break;
		case K_CAST_T:
			rc = h->ops->amax_t(h->be, &x, o->cfg.gran, a.amax);
			if (rc == F8B_OK)
				rc = h->ops->scales(h->be, a.amax, o->ns, o->cfg.dtype, &s->so,
				                    a.scale, a.sinv);
			if (rc == F8B_OK)
				rc = h->ops->cast_transpose(h->be, &x, o->cfg.gran, NULL, a.scale,
				                            NULL, &a.q);
			break;
		default: rc = F8B_ERR(F8B_EINTERNAL, "lls check: stage %d is no cast", st->kind);
		}
	}
	if (rc == F8B_OK) {
		size_t ns = sizeof(float) * (size_t)o->ns;
		char w[4][128];
		snprintf(w[0], sizeof w[0], "%s: fp8 %s", what, st->q >= 0 ? "q" : "q^T");
		snprintf(w[1], sizeof w[1], "%s: fp8 q^T", what);
		snprintf(w[2], sizeof w[2], "%s: amax", what);
		snprintf(w[3], sizeof w[3], "%s: scale_inv", what);
		struct cmp c[4] = {
		    {w[0], o->q.data, a.q.data, tbytes(&o->q)},
		    {w[1], st->q >= 0 && st->qt >= 0 ? s->op[st->qt].q.data : NULL, b.q.data,
		     st->qt >= 0 ? tbytes(&s->op[st->qt].q) : 0},
		    {w[2], o->amax, a.amax, ns},
		    {w[3], o->sinv, a.sinv, ns},
		};
		rc = compare(s, c, 4, msg, msz, same);
	}
	hop_free(&a);
	hop_free(&b);
	return rc;
}

/* The history step from the history the checked step started with. */
static int check_history(struct lls_state *s, struct host *h, const struct lls_stage *st,
                         float *hist0, char *msg, size_t msz, bool *same)
{
	struct lls_operand *o = &s->op[st->q];
	float amax, scale;
	F8B_TRY(s->run->ops->download(s->run->be, &amax, o->amax, sizeof amax));
	F8B_TRY(
	    h->ops->history_scale(h->be, hist0, s->history, &amax, o->cfg.dtype, &s->so, &scale));
	struct cmp c[2] = {
	    {"history_scale: history", o->hist, hist0, sizeof(float) * (size_t)s->history},
	    {"history_scale: scale", o->dscale, &scale, sizeof scale},
	};
	/* How stale the scale was: the one cast with against this step's own. */
	double cur = f8b_amax_to_scale(amax, o->cfg.dtype, &s->so);
	double ratio = o->dscale_host / cur;
	if (isnan(s->staleness) || ratio > s->staleness)
		s->staleness = ratio;
	return compare(s, c, 2, msg, msz, same);
}

/* ---- the double-precision reference --------------------------------- */

static double sqnr_db(double sig, double err)
{
	if (err == 0)
		return INFINITY;
	return 10.0 * log10(sig / err);
}

struct refsum {
	double sig[3], err[3]; /* y, grad_x, grad_W */
};

static void ln_row(const uint16_t *x, int64_t k, double *xh, double *rstd)
{
	double mean = 0, var = 0;
	for (int64_t j = 0; j < k; j++)
		mean += f8b_bf16_to_f32(x[j]);
	mean /= (double)k;
	for (int64_t j = 0; j < k; j++) {
		double d = f8b_bf16_to_f32(x[j]) - mean;
		var += d * d;
	}
	*rstd = 1.0 / sqrt(var / (double)k + LLS_EPS);
	for (int64_t j = 0; j < k; j++)
		xh[j] = (f8b_bf16_to_f32(x[j]) - mean) * *rstd;
}

static double dot_w(const double *xh, const double *w, int64_t k)
{
	double z = 0;
	for (int64_t j = 0; j < k; j++)
		z += xh[j] * w[j];
	return z;
}

static bool picked(int64_t i, int64_t n, int64_t take)
{
	if (take >= n)
		return true;
	/* take evenly spaced indices, the last one included */
	for (int64_t t = 0; t < take; t++)
		if ((n - 1) * t / (take - 1) == i)
			return true;
	return false;
}

/* y, dx over the picked rows of x, dW over the picked rows of W. */
static int reference(struct lls_state *s, const uint16_t *x, const uint16_t *w, const uint16_t *dy,
                     const uint16_t *y, const uint16_t *dx, const uint16_t *dw, bool full,
                     struct refsum *out)
{
	const int64_t M = s->m, K = s->k, N = s->n;
	int64_t take = full ? INT64_MAX : LLS_SAMPLE;
	double *wd = malloc(sizeof(double) * (size_t)(N * K));
	double *xh = malloc(sizeof(double) * (size_t)K);
	double *dxl = malloc(sizeof(double) * (size_t)K);
	int64_t nw = 0;
	int64_t *wrows = malloc(sizeof(int64_t) * (size_t)N);
	double *dwr = NULL;
	int rc = F8B_OK;
	memset(out, 0, sizeof *out);
	if (!wd || !xh || !dxl || !wrows) {
		rc = F8B_ERR(F8B_ENOMEM, "lls reference: host memory");
		goto done;
	}
	for (int64_t i = 0; i < N * K; i++)
		wd[i] = f8b_bf16_to_f32(w[i]);
	for (int64_t n = 0; n < N; n++)
		if (picked(n, N, take))
			wrows[nw++] = n;
	dwr = calloc((size_t)(nw * K), sizeof(double));
	if (!dwr) {
		rc = F8B_ERR(F8B_ENOMEM, "lls reference: host memory");
		goto done;
	}
	for (int64_t m = 0; m < M; m++) {
		double rstd;
		ln_row(x + m * K, K, xh, &rstd);
		/* dW rows: dz[m, n] for the picked n */
		for (int64_t t = 0; t < nw; t++) {
			int64_t n = wrows[t];
			double yv = 1.0 / (1.0 + exp(-dot_w(xh, wd + n * K, K)));
			double dz = f8b_bf16_to_f32(dy[m * N + n]) * yv * (1.0 - yv);
			double *acc = dwr + t * K;
			for (int64_t j = 0; j < K; j++)
				acc[j] += dz * xh[j];
		}
		if (!picked(m, M, take))
			continue;
		for (int64_t j = 0; j < K; j++)
			dxl[j] = 0;
		for (int64_t n = 0; n < N; n++) {
			double yv = 1.0 / (1.0 + exp(-dot_w(xh, wd + n * K, K)));
			double e = f8b_bf16_to_f32(y[m * N + n]) - yv;
			out->sig[0] += yv * yv;
			out->err[0] += e * e;
			double dz = f8b_bf16_to_f32(dy[m * N + n]) * yv * (1.0 - yv);
			const double *wr = wd + n * K;
			for (int64_t j = 0; j < K; j++)
				dxl[j] += dz * wr[j];
		}
		double a = 0, b = 0;
		for (int64_t j = 0; j < K; j++) {
			a += dxl[j];
			b += dxl[j] * xh[j];
		}
		a /= (double)K;
		b /= (double)K;
		for (int64_t j = 0; j < K; j++) {
			double r = rstd * ((dxl[j] - a) - xh[j] * b);
			double e = f8b_bf16_to_f32(dx[m * K + j]) - r;
			out->sig[1] += r * r;
			out->err[1] += e * e;
		}
	}
	for (int64_t t = 0; t < nw; t++)
		for (int64_t j = 0; j < K; j++) {
			double r = dwr[t * K + j];
			double e = f8b_bf16_to_f32(dw[wrows[t] * K + j]) - r;
			out->sig[2] += r * r;
			out->err[2] += e * e;
		}
done:
	free(wd);
	free(xh);
	free(dxl);
	free(wrows);
	free(dwr);
	return rc;
}

/* ---- the check ------------------------------------------------------- */

static bool is_cast(enum lls_kind k)
{
	return k == K_LN_FWD_CAST || k == K_SIG_BWD_CAST || k == K_CAST_FUSED || k == K_CAST ||
	       k == K_CAST_T;
}

static int check_casts(struct lls_state *s, struct host *h, char *msg, size_t msz, bool *same)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	float *hist0[NOPND] = {0};
	void *hp[NBUF] = {0};
	bool made[NBUF] = {0};
	int rc = F8B_OK;
	/* What delayed scaling starts the checked step with. */
	for (int o = 0; o < NOPND && rc == F8B_OK; o++) {
		struct lls_operand *op = &s->op[o];
		if (!op->used || op->cfg.type != F8B_SCALING_DELAYED)
			continue;
		rc = ops->download(be, &op->dscale_host, op->dscale, sizeof(float));
		if (rc == F8B_OK && op->alias < 0) {
			hist0[o] = malloc(sizeof(float) * (size_t)s->history);
			rc = hist0[o] ? ops->download(be, hist0[o], op->hist,
			                              sizeof(float) * (size_t)s->history)
			              : F8B_ERR(F8B_ENOMEM, "lls check: history");
		}
	}
	/* The bf16 values each cast quantised: kept for this one step. */
	for (int i = 0; i < s->nst && rc == F8B_OK; i++) {
		int b = s->st[i].src;
		if (is_cast(s->st[i].kind) && b >= 0 && !s->buf[b].data) {
			int64_t r = b == B_XLN ? s->m : s->m, c = b == B_XLN ? s->k : s->n;
			rc = f8b_tensor_alloc(ops, be, &s->buf[b], F8B_BF16, r, c);
			made[b] = rc == F8B_OK;
		}
	}
	s->force_hp = true;
	if (rc == F8B_OK)
		rc = f8b_lls_run_step(s);
	s->force_hp = false;
	if (rc == F8B_OK)
		rc = ops->sync(be);
	for (int b = 0; b < NBUF && rc == F8B_OK; b++) {
		bool need = false;
		for (int i = 0; i < s->nst; i++)
			need |= is_cast(s->st[i].kind) && s->st[i].src == b;
		if (need)
			rc = fetch(s, s->buf[b].data, tbytes(&s->buf[b]), &hp[b]);
	}
	for (int i = 0; i < s->nst && rc == F8B_OK; i++) {
		const struct lls_stage *st = &s->st[i];
		if (is_cast(st->kind)) {
			rc = check_cast(s, h, st, hp, msg, msz, same);
			s->casts_checked++;
		} else if (st->kind == K_HISTORY && hist0[st->q]) {
			rc = check_history(s, h, st, hist0[st->q], msg, msz, same);
		}
	}
	for (int b = 0; b < NBUF; b++) {
		free(hp[b]);
		if (made[b])
			f8b_tensor_free(ops, be, &s->buf[b]);
	}
	for (int o = 0; o < NOPND; o++)
		free(hist0[o]);
	return rc;
}

int f8b_lls_check(struct lls_state *s, struct f8b_lls_row *row, bool *ok)
{
	struct host h = {.ops = &f8b_backend_host};
	char msg[F8B_MSG] = "";
	bool same = true;
	void *x = NULL, *w = NULL, *dy = NULL, *y = NULL, *dx = NULL, *dw = NULL;
	s->casts_checked = 0;
	s->staleness = NAN;
	int rc = h.ops->open(-1, &h.be, &h.info);
	if (rc == F8B_OK)
		rc = check_casts(s, &h, msg, sizeof msg, &same);
	/* The step's results (from the checked step) against the reference. */
	const struct f8b_tensor *B = s->buf;
	if (rc == F8B_OK)
		rc = fetch(s, B[B_X].data, tbytes(&B[B_X]), &x);
	if (rc == F8B_OK)
		rc = fetch(s, B[B_W].data, tbytes(&B[B_W]), &w);
	if (rc == F8B_OK)
		rc = fetch(s, B[B_DY].data, tbytes(&B[B_DY]), &dy);
	if (rc == F8B_OK)
		rc = fetch(s, B[B_Y].data, tbytes(&B[B_Y]), &y);
	if (rc == F8B_OK)
		rc = fetch(s, B[B_DX].data, tbytes(&B[B_DX]), &dx);
	if (rc == F8B_OK)
		rc = fetch(s, B[B_DW].data, tbytes(&B[B_DW]), &dw);
	bool full = (double)s->m * (double)s->n * (double)s->k <= (double)LLS_FULL_MACS;
	struct refsum sum;
	if (rc == F8B_OK)
		rc = reference(s, x, w, dy, y, dx, dw, full, &sum);
	free(x);
	free(w);
	free(dy);
	free(y);
	free(dx);
	free(dw);
	if (h.be)
		h.ops->close(h.be);
	F8B_TRY(rc);
	row->sqnr_y_db = sqnr_db(sum.sig[0], sum.err[0]);
	row->sqnr_grad_x_db = sqnr_db(sum.sig[1], sum.err[1]);
	row->sqnr_grad_w_db = sqnr_db(sum.sig[2], sum.err[2]);
	row->sqnr_min_db = fmin(row->sqnr_y_db, fmin(row->sqnr_grad_x_db, row->sqnr_grad_w_db));
	f8b_setstr(row->reference, sizeof row->reference, full ? "host-f64" : "host-f64-rows");
	row->casts_checked = s->casts_checked;
	row->scale_staleness = s->staleness;
	bool any_fp8 = false;
	for (int j = 0; j < 3; j++)
		any_fp8 |= f8b_dtype_is_fp8(s->g[j].desc.a_dtype);
	double floor = any_fp8 ? FLOOR_FP8 : FLOOR_BF16;
	*ok = same && !(row->sqnr_min_db < floor) && !isnan(row->sqnr_min_db);
	memset(row->message, 0, sizeof row->message);
	if (!same)
		snprintf(row->message, sizeof row->message, "%s", msg);
	else if (!*ok)
		snprintf(row->message, sizeof row->message,
		         "SQNR y/grad_x/grad_W %.1f/%.1f/%.1f dB: below the %.0f dB floor",
		         row->sqnr_y_db, row->sqnr_grad_x_db, row->sqnr_grad_w_db, floor);
	else if (!full)
		snprintf(row->message, sizeof row->message,
		         "SQNRs over %d rows of y, grad_x and grad_W", LLS_SAMPLE);
	return F8B_OK;
}
