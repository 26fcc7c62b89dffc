/* lls_step.c - the lls step: which kernels a recipe needs, in which
 * order, fused where the scale allows; the buffers; running them.
 *
 * For each source tensor T of the step (x_ln, W, dz) the recipe asks for
 * up to two fp8 operands: T itself (direct, for the GEMM that reads T
 * K-major) and T^T (for the GEMM that reads it the other way round).
 *   - The direct operand is cast in the kernel that makes T (LayerNorm
 *     forward, sigmoid backward; W's own cast_fused) when its granularity
 *     runs along T's rows (tensorwise, axiswise, 1x128); a 128x128 one
 *     takes amax + scales + cast.
 *   - T^T joins that same kernel when it is tensorwise with the same
 *     dtype and scaling (one amax, one scale, q and q^T written together),
 *     or when it is the only operand of T and tensorwise; otherwise a
 *     tensorwise T^T is a cast_fused writing q^T only, and any other
 *     granularity takes amax_t + scales + cast_transpose.
 *   - T in bf16 is written only when a kernel reads it: a bf16 GEMM (which
 *     reads it as stored, transposed or not) or a separate cast.
 *   - Delayed scaling casts with the scale of its history and adds the
 *     history step (history_scale) after the cast.
 * doc/lls.md lists the kernels of every short recipe.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lls/lls_int.h"
#include "model/cost_lls.h"

static const char *const kind_names[] = {
    [K_LN_FWD] = "layernorm_fwd",
    [K_LN_FWD_CAST] = "layernorm_fwd_cast",
    [K_SIG_FWD] = "sigmoid_fwd",
    [K_SIG_BWD] = "sigmoid_bwd",
    [K_SIG_BWD_CAST] = "sigmoid_bwd_cast",
    [K_CAST_FUSED] = "cast_fused",
    [K_AMAX] = "amax",
    [K_AMAX_T] = "amax_t",
    [K_SCALES] = "scales",
    [K_CAST] = "cast",
    [K_CAST_T] = "cast_transpose",
    [K_HISTORY] = "history_scale",
    [K_GEMM] = "gemm",
    [K_LN_BWD] = "layernorm_bwd",
};

const char *f8b_lls_kind_name(enum lls_kind k)
{
	return kind_names[k];
}

static const char *const buf_names[NBUF] = {"x",  "W",     "dy", "x_ln", "z",    "y",
                                            "dz", "dx_ln", "dx", "dW",   "mean", "rstd"};
static const char *const gemm_names[3] = {"output", "grad_input", "grad_weight"};

static bool enabled(const struct f8b_cast_config *c)
{
	return c->type != F8B_SCALING_DISABLED && f8b_dtype_is_fp8(c->dtype);
}

unsigned f8b_lls_fp8_gemms(const struct f8b_recipe *r)
{
	/* each GEMM's two arguments (recipe.h's cast fields) */
	const struct f8b_cast_config *a[3] = {&r->input, &r->grad_output,
	                                      &r->grad_output_for_grad_weight};
	const struct f8b_cast_config *b[3] = {&r->weight, &r->weight_for_grad_input,
	                                      &r->input_for_grad_weight};
	unsigned bits = 0;
	for (int j = 0; j < 3; j++)
		if (enabled(a[j]) && enabled(b[j]))
			bits |= 1u << j;
	return bits;
}

const char *f8b_lls_gemm_name(int j)
{
	return j >= 0 && j < 3 ? gemm_names[j] : "?";
}

/* Granularities a fused cast (backend.h) takes along T's rows. */
static bool row_gran(enum f8b_granularity g)
{
	return g == F8B_GRAN_TENSORWISE || g == F8B_GRAN_AXISWISE || g == F8B_GRAN_BLOCK1X128;
}

static bool same_tensorwise(const struct f8b_cast_config *a, const struct f8b_cast_config *b)
{
	return a->gran == F8B_GRAN_TENSORWISE && b->gran == F8B_GRAN_TENSORWISE &&
	       a->dtype == b->dtype && a->type == b->type;
}

static void dims(const struct lls_state *s, int b, int64_t *r, int64_t *c)
{
	switch (b) {
	case B_X:
	case B_XLN:
	case B_DXLN:
	case B_DX: *r = s->m, *c = s->k; return;
	case B_W:
	case B_DW: *r = s->n, *c = s->k; return;
	case B_MEAN:
	case B_RSTD: *r = 1, *c = s->m; return;
	default: *r = s->m, *c = s->n; return;
	}
}

static struct lls_stage *add(struct lls_state *s, enum lls_kind k, bool bwd, const char *tensor)
{
	struct lls_stage *st = &s->st[s->nst++];
	memset(st, 0, sizeof *st);
	st->kind = k;
	st->bwd = bwd;
	st->src = st->hp_out = st->q = st->qt = st->gemm = st->amax_to = -1;
	st->compute = F8B_F32;
	st->dtype = F8B_BF16;
	f8b_setstr(st->tensor, sizeof st->tensor, tensor);
	return st;
}

/* The cost of a fused cast writing op q (and/or qt) of a rows x cols source. */
static struct f8b_lls_cast_cost cast_cost(const struct lls_state *s, int q, int qt, bool hp)
{
	const struct lls_operand *o = &s->op[q >= 0 ? q : qt];
	return (struct f8b_lls_cast_cost){.gran = o->cfg.gran,
	                                  .dtype = o->cfg.dtype,
	                                  .q = q >= 0,
	                                  .q_t = qt >= 0,
	                                  .hp_out = hp,
	                                  .delayed = o->cfg.type == F8B_SCALING_DELAYED};
}

static void history_after(struct lls_state *s, int o, bool bwd)
{
	if (s->op[o].cfg.type != F8B_SCALING_DELAYED)
		return;
	struct lls_stage *h = add(s, K_HISTORY, bwd, buf_names[s->op[o].src]);
	h->q = o;
	h->dtype = s->op[o].cfg.dtype;
	snprintf(h->fuses, sizeof h->fuses, "amax history (%d) + scale", s->history);
	h->cost.bytes_read = 4.0 * (s->history + 1);
	h->cost.bytes_written = 4.0 * (s->history + 1);
}

/* The kernels that make T (src) and its operands d (direct) and t
 * (transposed); producer is the kernel that makes T itself. */
static void plan_source(struct lls_state *s, int src, int d, int t, enum lls_kind fused,
                        enum lls_kind plain, bool bwd, bool *hp)
{
	const struct lls_operand *od = &s->op[d], *ot = &s->op[t];
	bool nd = od->used, nt = ot->used;
	bool d_fused = nd && row_gran(od->cfg.gran);
	bool t_in = nt && ot->cfg.gran == F8B_GRAN_TENSORWISE &&
	            (!nd || (d_fused && same_tensorwise(&od->cfg, &ot->cfg)));
	/* x_ln^T along the other axis is cast from x and LayerNorm's row
	 * statistics, bit for bit the values of x_ln, which is then not stored */
	bool ln_t = src == B_XLN && nt && !t_in && ot->cfg.gran != F8B_GRAN_TENSORWISE;
	int64_t r, c;
	dims(s, src, &r, &c);
	/* bf16 T is needed by a separate cast (or a bf16 GEMM: *hp on entry) */
	if ((nd && !d_fused) || (nt && !t_in && !ln_t))
		*hp = true;
	if (t_in && nd && d_fused)
		s->op[t].alias = d;
	int dstage = -1; /* the stage casting d along T's rows */
	if (d_fused || t_in) {
		if (d_fused)
			dstage = s->nst;
		struct lls_stage *st = add(s, fused, bwd, buf_names[src]);
		st->src = src;
		st->q = d_fused ? d : -1;
		st->qt = t_in ? t : -1;
		st->hp_out = src != B_W && *hp ? src : -1;
		st->dtype = s->op[d_fused ? d : t].cfg.dtype;
		struct f8b_lls_cast_cost cc = cast_cost(s, st->q, st->qt, st->hp_out >= 0);
		const char *g = f8b_granularity_name(cc.gran);
		const char *pre = fused == K_LN_FWD_CAST    ? "layernorm+"
		                  : fused == K_SIG_BWD_CAST ? "sigmoid_bwd+"
		                                            : "";
		snprintf(st->fuses, sizeof st->fuses, "%samax+cast %s%s%s", pre, g,
		         cc.q_t ? (cc.q ? "+T" : " T only") : "", cc.delayed ? " delayed" : "");
		if (fused == K_LN_FWD_CAST)
			f8b_cost_layernorm_fwd_cast(r, c, &cc, &st->cost);
		else if (fused == K_SIG_BWD_CAST)
			f8b_cost_sigmoid_bwd_cast(r, c, &cc, &st->cost);
		else
			f8b_cost_cast_fused(r, c, &cc, &st->cost);
		history_after(s, d_fused ? d : t, bwd);
	} else if (src != B_W) {
		struct lls_stage *st = add(s, plain, bwd, buf_names[src]);
		st->hp_out = src;
		*hp = true;
		if (plain == K_LN_FWD)
			f8b_cost_layernorm_fwd(r, c, &st->cost);
		else
			f8b_cost_sigmoid_bwd(r, c, &st->cost);
		f8b_setstr(st->fuses, sizeof st->fuses,
		           plain == K_LN_FWD ? "layernorm (mean, rstd kept)" : "sigmoid backward");
	}
	if (nd && !d_fused) { /* 128x128: amax + scales + cast */
		enum f8b_granularity g = od->cfg.gran;
		struct lls_stage *a = add(s, K_AMAX, bwd, buf_names[src]);
		a->src = src, a->q = d;
		f8b_cost_amax(F8B_BF16, g, r, c, &a->cost);
		struct lls_stage *sc = add(s, K_SCALES, bwd, buf_names[src]);
		sc->q = d;
		f8b_cost_scales(g, r, c, &sc->cost);
		struct lls_stage *ca = add(s, K_CAST, bwd, buf_names[src]);
		ca->src = src, ca->q = d, ca->dtype = od->cfg.dtype;
		f8b_cost_cast(F8B_BF16, od->cfg.dtype, g, r, c, &ca->cost);
		snprintf(a->fuses, sizeof a->fuses, "%s", f8b_granularity_name(g));
		snprintf(sc->fuses, sizeof sc->fuses, "%s", f8b_granularity_name(g));
		snprintf(ca->fuses, sizeof ca->fuses, "%s", f8b_granularity_name(g));
	}
	if (nt && !t_in) {
		enum f8b_granularity g = ot->cfg.gran;
		/* W's transposed copy is made where it is used, in the backward */
		bool tb = bwd || src == B_W;
		if (g == F8B_GRAN_TENSORWISE) {
			/* Dynamic T^T beside a dynamic axiswise T: T's amax is the
			 * max of its rows' amaxes, which T's own cast writes too
			 * (amax_all), so T^T's cast is one pass. */
			bool from_rows = dstage >= 0 && od->cfg.gran == F8B_GRAN_AXISWISE &&
			                 od->cfg.type == F8B_SCALING_DYNAMIC &&
			                 ot->cfg.type == F8B_SCALING_DYNAMIC;
			struct lls_stage *st = add(s, K_CAST_FUSED, tb, buf_names[src]);
			st->src = src, st->qt = t, st->dtype = ot->cfg.dtype;
			struct f8b_lls_cast_cost cc = cast_cost(s, -1, t, false);
			if (from_rows) {
				s->st[dstage].amax_to = t;
				st->amax_given = cc.amax_given = true;
			}
			f8b_cost_cast_fused(r, c, &cc, &st->cost);
			snprintf(st->fuses, sizeof st->fuses, "%s tensorwise T only%s",
			         from_rows ? "cast (amax of the axiswise rows)" : "amax+cast",
			         cc.delayed ? " delayed" : "");
			history_after(s, t, tb);
		} else {
			const char *pre = ln_t ? "layernorm+" : "";
			struct lls_stage *a = add(s, K_AMAX_T, tb, buf_names[src]);
			a->src = src, a->qt = t, a->ln = ln_t;
			f8b_cost_amax_t(F8B_BF16, g, r, c, &a->cost);
			struct lls_stage *sc = add(s, K_SCALES, tb, buf_names[src]);
			sc->qt = t;
			f8b_cost_scales(g, c, r, &sc->cost);
			struct lls_stage *ca = add(s, K_CAST_T, tb, buf_names[src]);
			ca->src = src, ca->qt = t, ca->dtype = ot->cfg.dtype, ca->ln = ln_t;
			f8b_cost_lls_cast_transpose(F8B_BF16, ot->cfg.dtype, g, r, c, false, true,
			                            &ca->cost);
			if (ln_t) { /* x as x_ln, plus the mean and rstd of each row */
				a->cost.bytes_read += 8.0 * (double)r;
				ca->cost.bytes_read += 8.0 * (double)r;
			}
			snprintf(a->fuses, sizeof a->fuses, "%s%s of T", pre,
			         f8b_granularity_name(g));
			snprintf(sc->fuses, sizeof sc->fuses, "%s of T", f8b_granularity_name(g));
			snprintf(ca->fuses, sizeof ca->fuses, "%scast+transpose %s", pre,
			         f8b_granularity_name(g));
		}
	}
}

/* GEMM j: fp8 when both its operands are, else bf16 on the bf16 tensors. */
static void plan_gemm(struct lls_state *s, int j, int oa, int ob, bool fast_accum)
{
	struct lls_gemm *g = &s->g[j];
	bool fp8 = s->op[oa].used && s->op[ob].used;
	int64_t mm[3] = {s->m, s->m, s->n}, nn[3] = {s->n, s->k, s->k}, kk[3] = {s->k, s->n, s->m};
	g->desc = (struct f8b_gemm_desc){.m = mm[j],
	                                 .n = nn[j],
	                                 .k = kk[j],
	                                 .a_dtype = fp8 ? s->op[oa].cfg.dtype : F8B_BF16,
	                                 .b_dtype = fp8 ? s->op[ob].cfg.dtype : F8B_BF16,
	                                 .out_dtype = F8B_BF16,
	                                 .a_gran = fp8 ? s->op[oa].cfg.gran : F8B_GRAN_TENSORWISE,
	                                 .b_gran = fp8 ? s->op[ob].cfg.gran : F8B_GRAN_TENSORWISE,
	                                 .fast_accum = fp8 && fast_accum,
	                                 .a_t = !fp8 && j == 2,
	                                 .b_t = !fp8 && j >= 1,
	                                 /* f8bench's own GEMM is fp8 only */
	                                 .impl = fp8 ? s->impl : F8B_GEMM_IMPL_CUBLASLT};
	struct lls_stage *st = add(s, K_GEMM, j > 0, gemm_names[j]);
	st->gemm = j;
	st->dtype = g->desc.a_dtype;
	st->compute = g->desc.a_dtype;
	f8b_cost_gemm(&g->desc, &st->cost);
	if (fp8)
		snprintf(st->fuses, sizeof st->fuses, "%s(%s) x %s(%s)%s",
		         f8b_dtype_name(g->desc.a_dtype), f8b_granularity_name(g->desc.a_gran),
		         f8b_dtype_name(g->desc.b_dtype), f8b_granularity_name(g->desc.b_gran),
		         fast_accum ? " fast_accum" : "");
	else
		snprintf(st->fuses, sizeof st->fuses, "bf16%s%s", g->desc.a_t ? " A^T" : "",
		         g->desc.b_t ? " B^T" : "");
}

int f8b_lls_plan(struct lls_state *s)
{
	const struct f8b_recipe *r = s->recipe;
	const struct f8b_cast_config *cfgs[NOPND] = {&r->input,
	                                             &r->weight,
	                                             &r->grad_output,
	                                             &r->weight_for_grad_input,
	                                             &r->grad_output_for_grad_weight,
	                                             &r->input_for_grad_weight};
	const int srcs[NOPND] = {B_XLN, B_W, B_DZ, B_W, B_DZ, B_XLN};
	s->nst = 0;
	s->so = (struct f8b_scale_opts){.pow2 = r->pow2_scales};
	for (int o = 0; o < NOPND; o++) {
		struct lls_operand *op = &s->op[o];
		memset(op, 0, sizeof *op);
		op->cfg = *cfgs[o];
		op->src = srcs[o];
		op->transposed = o >= O_WT;
		op->alias = -1;
		if (op->cfg.type == F8B_SCALING_DELAYED && op->cfg.gran != F8B_GRAN_TENSORWISE)
			return F8B_ERR(F8B_EUNSUPPORTED, "delayed scaling is tensorwise only (%s)",
			               f8b_granularity_name(op->cfg.gran));
	}
	/* A GEMM is fp8 when both its arguments are cast. */
	const int pairs[3][2] = {{O_XLN, O_W}, {O_DZ, O_WT}, {O_DZT, O_XLNT}};
	const unsigned fp8_gemms = f8b_lls_fp8_gemms(r);
	bool hp_xln = false, hp_dz = false;
	for (int j = 0; j < 3; j++) {
		bool fp8 = fp8_gemms >> j & 1;
		s->op[pairs[j][0]].used = s->op[pairs[j][1]].used = fp8;
		if (!fp8) { /* the bf16 GEMM reads the bf16 tensors */
			hp_xln |= j != 1;
			hp_dz |= j != 0;
		}
	}
	for (int o = 0; o < NOPND; o++) {
		struct lls_operand *op = &s->op[o];
		int64_t r0, c0;
		dims(s, op->src, &r0, &c0);
		op->rows = op->transposed ? c0 : r0;
		op->cols = op->transposed ? r0 : c0;
		op->ns = f8b_scale_count(op->cfg.gran, op->rows, op->cols);
	}
	s->history = 0;
	for (int o = 0; o < NOPND; o++)
		if (s->op[o].used && s->op[o].cfg.type == F8B_SCALING_DELAYED)
			s->history = s->cfg->history;

	/* forward: W's casts, LayerNorm (+ casts of x_ln), output GEMM, sigmoid */
	bool hp_w = true;
	plan_source(s, B_W, O_W, O_WT, K_CAST_FUSED, K_CAST_FUSED, false, &hp_w);
	plan_source(s, B_XLN, O_XLN, O_XLNT, K_LN_FWD_CAST, K_LN_FWD, false, &hp_xln);
	plan_gemm(s, 0, O_XLN, O_W, r->output.fast_accum);
	/* f8bench's own GEMM applies the sigmoid to the scaled fp32 sum and
	 * writes y: the separate pass over z is gone, and so is z (doc/lls.md,
	 * "The fused sigmoid").  The roofline's GEMM stage is the same bytes;
	 * the sigmoid_fwd stage's read and write of z go. */
	const char *sep = getenv("F8B_LLS_SIGMOID_SEPARATE"); /* the A/B's other side */
	s->fused_sigmoid = s->g[0].desc.impl == F8B_GEMM_IMPL_F8B && !(sep && *sep == '1');
	if (s->fused_sigmoid) {
		struct lls_stage *g0 = &s->st[s->nst - 1];
		s->g[0].desc.epilogue = F8B_GEMM_EPI_SIGMOID;
		size_t len = strlen(g0->fuses);
		snprintf(g0->fuses + len, sizeof g0->fuses - len, " + sigmoid");
	} else {
		struct lls_stage *sf = add(s, K_SIG_FWD, false, "z");
		f8b_cost_sigmoid_fwd(s->m, s->n, &sf->cost);
		f8b_setstr(sf->fuses, sizeof sf->fuses, "sigmoid");
	}
	/* backward: sigmoid backward (+ casts of dz), the two GEMMs, LayerNorm */
	plan_source(s, B_DZ, O_DZ, O_DZT, K_SIG_BWD_CAST, K_SIG_BWD, true, &hp_dz);
	/* W^T's own cast (when separate) went after the backward's first
	 * kernel: plan_source(W) put it in the backward, ordered here */
	plan_gemm(s, 1, O_DZ, O_WT, r->grad_input.fast_accum);
	plan_gemm(s, 2, O_DZT, O_XLNT, r->grad_weight.fast_accum);
	struct lls_stage *lb = add(s, K_LN_BWD, true, "dx_ln");
	f8b_cost_layernorm_bwd(s->m, s->k, &lb->cost);
	f8b_setstr(lb->fuses, sizeof lb->fuses, "layernorm backward");
	/* Stable order: forward kernels first, each pass in planning order. */
	struct lls_stage tmp[LLS_MAX_STAGES];
	int n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->nst; i++)
			if (s->st[i].bwd == (pass == 1))
				tmp[n++] = s->st[i];
	memcpy(s->st, tmp, sizeof tmp[0] * (size_t)n);
	f8b_lls_lanes(s);
	return F8B_OK;
}

/* ---- buffers ---------------------------------------------------------- */

static bool buf_needed(const struct lls_state *s, int b)
{
	switch (b) {
	case B_XLN:
	case B_DZ:
		for (int i = 0; i < s->nst; i++) {
			const struct lls_stage *st = &s->st[i];
			if (st->hp_out == b || (st->src == b && st->kind != K_HISTORY && !st->ln))
				return true;
			if (st->kind == K_GEMM && !f8b_dtype_is_fp8(s->g[st->gemm].desc.a_dtype) &&
			    ((b == B_XLN && st->gemm != 1) || (b == B_DZ && st->gemm != 0)))
				return true;
		}
		return false;
	case B_Z: return !s->fused_sigmoid;
	default: return true;
	}
}

static int alloc_bytes(struct lls_state *s, size_t bytes, void **p)
{
	F8B_TRY(s->run->ops->alloc(s->run->be, bytes, p));
	s->allocated += (int64_t)bytes;
	return F8B_OK;
}

static int alloc_tensor(struct lls_state *s, struct f8b_tensor *t, enum f8b_dtype dt, int64_t r,
                        int64_t c)
{
	F8B_TRY(f8b_tensor_alloc(s->run->ops, s->run->be, t, dt, r, c));
	s->allocated += r * c * (int64_t)f8b_dtype_size(dt);
	return F8B_OK;
}

static int alloc_floats(struct lls_state *s, int64_t n, float **p)
{
	return alloc_bytes(s, sizeof(float) * (size_t)n, (void **)p);
}

int f8b_lls_alloc(struct lls_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	for (int b = 0; b < NBUF; b++) {
		int64_t r, c;
		if (!buf_needed(s, b))
			continue;
		dims(s, b, &r, &c);
		F8B_TRY(alloc_tensor(s, &s->buf[b], b >= B_MEAN ? F8B_F32 : F8B_BF16, r, c));
	}
	for (int o = 0; o < NOPND; o++) {
		struct lls_operand *op = &s->op[o];
		if (!op->used)
			continue;
		F8B_TRY(alloc_tensor(s, &op->q, op->cfg.dtype, op->rows, op->cols));
		if (op->alias >= 0)
			continue; /* its scales are the aliased operand's */
		F8B_TRY(alloc_floats(s, op->ns, &op->amax));
		F8B_TRY(alloc_floats(s, op->ns, &op->scale));
		F8B_TRY(alloc_floats(s, op->ns, &op->sinv));
		if (op->cfg.type == F8B_SCALING_DELAYED) {
			F8B_TRY(alloc_floats(s, 1, &op->dscale));
			F8B_TRY(alloc_floats(s, s->history, &op->hist));
			F8B_TRY(ops->memset(be, op->hist, 0, sizeof(float) * (size_t)s->history));
		}
		if (op->cfg.type == F8B_SCALING_DYNAMIC && op->cfg.gran == F8B_GRAN_TENSORWISE)
			F8B_TRY(alloc_floats(s, F8B_CAST_PARTIALS, &op->partial));
	}
	for (int o = 0; o < NOPND; o++) {
		struct lls_operand *op = &s->op[o];
		if (op->used && op->alias >= 0) {
			const struct lls_operand *a = &s->op[op->alias];
			op->amax = a->amax, op->scale = a->scale, op->sinv = a->sinv;
			op->dscale = a->dscale, op->hist = a->hist, op->partial = a->partial;
		}
	}
	/* Seeded inputs, bit-identical on every backend (backend.h): x and dy
	 * N(0,1), W N(0, 1/K) so that z = x_ln @ W^T is N(0,1)-like and the
	 * sigmoid is not saturated. */
	uint64_t seed = s->run->seed;
	struct f8b_fill_spec fx = {.seed = seed * 3 + 1, .std = 1};
	struct f8b_fill_spec fw = {.seed = seed * 3 + 2, .std = 1.0f / sqrtf((float)s->k)};
	struct f8b_fill_spec fd = {.seed = seed * 3 + 3, .std = 1};
	F8B_TRY(ops->fill(be, &s->buf[B_X], &fx));
	F8B_TRY(ops->fill(be, &s->buf[B_W], &fw));
	F8B_TRY(ops->fill(be, &s->buf[B_DY], &fd));
	/* The GEMMs' arguments and plans (the heuristic's first choice). */
	const int srcA[3] = {B_XLN, B_DZ, B_DZ}, srcB[3] = {B_W, B_W, B_XLN};
	const int opA[3] = {O_XLN, O_DZ, O_DZT}, opB[3] = {O_W, O_WT, O_XLNT};
	const int out[3] = {s->fused_sigmoid ? B_Y : B_Z, B_DXLN, B_DW};
	for (int j = 0; j < 3; j++) {
		struct lls_gemm *g = &s->g[j];
		bool fp8 = f8b_dtype_is_fp8(g->desc.a_dtype);
		if (fp8)
			g->args = (struct f8b_gemm_args){.a = s->op[opA[j]].q.data,
			                                 .b = s->op[opB[j]].q.data,
			                                 .a_scale_inv = s->op[opA[j]].sinv,
			                                 .b_scale_inv = s->op[opB[j]].sinv,
			                                 .d = s->buf[out[j]].data};
		else
			g->args = (struct f8b_gemm_args){.a = s->buf[srcA[j]].data,
			                                 .b = s->buf[srcB[j]].data,
			                                 .d = s->buf[out[j]].data};
		int rc = ops->gemm_plan(be, &g->desc, 0, &g->plan, &g->info);
		if (rc != F8B_OK) /* which of the three */
			return f8b_gemm_plan_error(rc, gemm_names[j]);
	}
	return F8B_OK;
}

void f8b_lls_free(struct lls_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	if (s->graph)
		ops->graph_free(be, s->graph);
	s->graph = NULL;
	f8b_lls_lanes_close(s);
	for (int j = 0; j < 3; j++)
		if (s->g[j].plan)
			ops->gemm_plan_free(be, s->g[j].plan);
	for (int b = 0; b < NBUF; b++)
		f8b_tensor_free(ops, be, &s->buf[b]);
	for (int o = 0; o < NOPND; o++) {
		struct lls_operand *op = &s->op[o];
		f8b_tensor_free(ops, be, &op->q);
		if (op->alias >= 0)
			continue;
		float *p[] = {op->amax, op->scale, op->sinv, op->dscale, op->hist, op->partial};
		for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
			if (p[i])
				ops->free(be, p[i]);
	}
}

/* ---- running ---------------------------------------------------------- */

static struct f8b_tensor *hp_of(struct lls_state *s, const struct lls_stage *st)
{
	int b = st->hp_out >= 0 ? st->hp_out : (s->force_hp && st->src != B_W ? st->src : -1);
	return b >= 0 && s->buf[b].data ? &s->buf[b] : NULL;
}

static struct f8b_cast_spec spec_of(struct lls_state *s, const struct lls_stage *st)
{
	struct lls_operand *main = &s->op[st->q >= 0 ? st->q : st->qt];
	return (struct f8b_cast_spec){
	    .gran = main->cfg.gran,
	    .dtype = main->cfg.dtype,
	    .opts = s->so,
	    .scale = main->cfg.type == F8B_SCALING_DELAYED ? main->dscale : NULL,
	    .q = st->q >= 0 ? &s->op[st->q].q : NULL,
	    .q_t = st->qt >= 0 ? &s->op[st->qt].q : NULL,
	    .amax = main->amax,
	    .scale_inv = main->sinv,
	    .amax_all = st->amax_to >= 0 ? s->op[st->amax_to].amax : NULL,
	    .amax_given = st->amax_given,
	    .partial = main->partial,
	};
}

int f8b_lls_run_stage(struct lls_state *s, int i)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct lls_stage *st = &s->st[i];
	struct f8b_tensor *B = s->buf;
	float *mean = B[B_MEAN].data, *rstd = B[B_RSTD].data;
	struct lls_operand *o = &s->op[st->q >= 0 ? st->q : (st->qt >= 0 ? st->qt : 0)];
	switch (st->kind) {
	case K_LN_FWD: return ops->layernorm_fwd(be, &B[B_X], LLS_EPS, &B[B_XLN], mean, rstd);
	case K_LN_FWD_CAST: {
		struct f8b_cast_spec cs = spec_of(s, st);
		return ops->layernorm_fwd_cast(be, &B[B_X], LLS_EPS, hp_of(s, st), mean, rstd, &cs);
	}
	case K_SIG_FWD: return ops->sigmoid_fwd(be, &B[B_Z], &B[B_Y]);
	case K_SIG_BWD: return ops->sigmoid_bwd(be, &B[B_Y], &B[B_DY], &B[B_DZ]);
	case K_SIG_BWD_CAST: {
		struct f8b_cast_spec cs = spec_of(s, st);
		return ops->sigmoid_bwd_cast(be, &B[B_Y], &B[B_DY], hp_of(s, st), &cs);
	}
	case K_CAST_FUSED: {
		struct f8b_cast_spec cs = spec_of(s, st);
		return ops->cast_fused(be, &B[st->src], &cs);
	}
	case K_AMAX: return ops->amax(be, &B[st->src], o->cfg.gran, o->amax);
	case K_AMAX_T:
		if (st->ln)
			return ops->layernorm_amax_t(be, &B[B_X], mean, rstd, o->cfg.gran, o->amax);
		return ops->amax_t(be, &B[st->src], o->cfg.gran, o->amax);
	case K_SCALES:
		return ops->scales(be, o->amax, o->ns, o->cfg.dtype, &s->so, o->scale, o->sinv);
	case K_CAST: return ops->cast(be, &B[st->src], o->cfg.gran, o->scale, &o->q);
	case K_CAST_T:
		if (st->ln)
			return ops->layernorm_cast_t(be, &B[B_X], mean, rstd, o->cfg.gran, o->scale,
			                             &o->q);
		return ops->cast_transpose(be, &B[st->src], o->cfg.gran, NULL, o->scale, NULL,
		                           &o->q);
	case K_HISTORY:
		return ops->history_scale(be, o->hist, s->history, o->amax, o->cfg.dtype, &s->so,
		                          o->dscale);
	case K_GEMM: return ops->gemm(be, s->g[st->gemm].plan, &s->g[st->gemm].args);
	case K_LN_BWD: return ops->layernorm_bwd(be, &B[B_DXLN], &B[B_X], mean, rstd, &B[B_DX]);
	}
	return F8B_ERR(F8B_EINTERNAL, "lls: stage kind %d", (int)st->kind);
}
