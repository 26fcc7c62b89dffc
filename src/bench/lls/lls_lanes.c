/* lls_lanes.c - the lls step on two lanes (lls_int.h): which kernels go
 * to the second stream, what each waits for, and running the step.
 *
 * Lane 0 is the chain the step's result waits on: LayerNorm forward, the
 * output GEMM, the sigmoid, the sigmoid backward, grad_input and the
 * LayerNorm backward.  Lane 1 takes what that chain needs from elsewhere
 * or not at all: W's casts (they need nothing of x), the casts made only
 * for grad_weight (x_ln^T and dz^T where they are not written by the
 * kernel that makes x_ln or dz) and grad_weight itself.  The bf16 step
 * gets the same treatment (grad_weight beside grad_input and the
 * LayerNorm backward), so the two are compared on equal terms.
 *
 * Dependencies come from what each stage reads and writes: a stage waits
 * for the last stage of the other lane that writes anything it reads or
 * touches anything it writes.  A vector clock per lane drops waits that
 * an earlier wait already covers.  The host backend runs every op when it
 * is called, so there the lanes are the program order and change nothing.
 */
#include <string.h>

#include "bench/lls/lls_int.h"

#define OPN(o) (1u << (NBUF + (o)))

/* The resource of operand o: an alias shares its operand's scales. */
static unsigned opnd(const struct lls_state *s, int o)
{
	if (o < 0)
		return 0;
	return OPN(s->op[o].alias >= 0 ? s->op[o].alias : o);
}

/* Operand bits of a mask, each mapped to the operand it aliases. */
static unsigned fold(const struct lls_state *s, unsigned m)
{
	unsigned out = m & ((1u << NBUF) - 1);
	for (int o = 0; o < NOPND; o++)
		if (m & OPN(o))
			out |= opnd(s, o);
	return out;
}

/* A cast stage reads and writes its operands' scales, amaxes, histories
 * and fp8 tensors: counted both ways (the dependency model is coarse on
 * purpose: it can only add waits). */
static unsigned own_operands(const struct lls_state *s, const struct lls_stage *st)
{
	return st->kind == K_GEMM ? 0 : opnd(s, st->q) | opnd(s, st->qt) | opnd(s, st->amax_to);
}

unsigned f8b_lls_reads(const struct lls_state *s, int i)
{
	return fold(s, f8b_lls_touches(s, i, false)) | own_operands(s, &s->st[i]);
}

unsigned f8b_lls_writes(const struct lls_state *s, int i)
{
	return fold(s, f8b_lls_touches(s, i, true)) | own_operands(s, &s->st[i]);
}

static int lane_of(const struct lls_state *s, int i)
{
	const struct lls_stage *st = &s->st[i];
	switch (st->kind) {
	case K_GEMM: return st->gemm == 2;
	case K_HISTORY: /* after the cast of its operand, on that cast's lane */
		for (int j = i - 1; j >= 0; j--)
			if (s->st[j].kind != K_HISTORY && (f8b_lls_writes(s, j) & opnd(s, st->q)))
				return s->st[j].lane;
		return 0;
	case K_AMAX:
	case K_AMAX_T:
	case K_SCALES:
	case K_CAST:
	case K_CAST_T:
	case K_CAST_FUSED: {
		int o = st->q >= 0 ? st->q : st->qt;
		if (o >= 0 && s->op[o].src == B_W)
			return 1;
		return st->q < 0 && (st->qt == O_XLNT || st->qt == O_DZT);
	}
	default: return 0;
	}
}

/* auto: the second lane pays while the casts it overlaps are a good part
 * of the step; at 16384^3 on an H100 (results/h100/lls-lanes-*.h5) its
 * kernels cost the GEMMs they run beside more than they save, 2-5% of the
 * step for tensorwise, axiswise and lw-axiswise-gw-hp, while at 8192^3 two
 * lanes were as fast or faster for all but lw-axiswise-gw-hp.  2^41 is
 * halfway between the two (in log2 M*K*N). */
#define LLS_ONE_LANE_FROM 0x1p41

int f8b_lls_lanes_for(const struct lls_cfg *cfg, int64_t m, int64_t k, int64_t n)
{
	if (cfg && (cfg->lanes == 1 || cfg->lanes == 2))
		return cfg->lanes;
	return (double)m * (double)k * (double)n < LLS_ONE_LANE_FROM ? 2 : 1;
}

void f8b_lls_lanes(struct lls_state *s)
{
	/* one lane: everything on lane 0, no waits; lanes_open then makes no
	 * second stream and run_step runs the stages in order */
	bool one = f8b_lls_lanes_for(s->cfg, s->m, s->k, s->n) == 1;
	/* vc[l][m]: the last stage of lane m known finished before lane l's
	 * next stage starts; after[i]: the same, as of stage i's end. */
	int vc[2][2] = {{-1, -1}, {-1, -1}}, after[LLS_MAX_STAGES][2];
	for (int i = 0; i < s->nst; i++) {
		struct lls_stage *st = &s->st[i];
		st->lane = one ? 0 : lane_of(s, i);
		st->wait = -1;
		st->signal = false;
	}
	for (int i = 0; i < s->nst; i++) {
		struct lls_stage *st = &s->st[i];
		int l = st->lane, m = 1 - l, need = -1;
		unsigned r = f8b_lls_reads(s, i), w = f8b_lls_writes(s, i);
		for (int j = 0; j < i; j++)
			if (s->st[j].lane == m &&
			    ((f8b_lls_writes(s, j) & (r | w)) || (f8b_lls_reads(s, j) & w)))
				need = j;
		if (need > vc[l][m]) {
			st->wait = need;
			s->st[need].signal = true;
			for (int k = 0; k < 2; k++)
				if (after[need][k] > vc[l][k])
					vc[l][k] = after[need][k];
		}
		vc[l][l] = i;
		after[i][0] = vc[l][0];
		after[i][1] = vc[l][1];
	}
}

int f8b_lls_lanes_open(struct lls_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	bool any = false;
	for (int i = 0; i < s->nst; i++)
		any |= s->st[i].lane == 1;
	if (!any)
		return F8B_OK;
	F8B_TRY(ops->stream_create(be, F8B_STREAM_DEFAULT, &s->side));
	F8B_TRY(ops->event_create(be, &s->ev_fork));
	F8B_TRY(ops->event_create(be, &s->ev_join));
	for (int i = 0; i < s->nst; i++)
		if (s->st[i].signal)
			F8B_TRY(ops->event_create(be, &s->ev[i]));
	return F8B_OK;
}

void f8b_lls_lanes_close(struct lls_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	for (int i = 0; i < LLS_MAX_STAGES; i++) {
		if (s->ev[i])
			ops->event_destroy(be, s->ev[i]);
		s->ev[i] = NULL;
	}
	if (s->ev_fork)
		ops->event_destroy(be, s->ev_fork);
	if (s->ev_join)
		ops->event_destroy(be, s->ev_join);
	s->ev_fork = s->ev_join = NULL;
	if (s->side)
		ops->stream_destroy(be, s->side);
	s->side = NULL;
}

/* A mark of finish's trace (lls_state.trace), on the current stream. */
static int mark(struct lls_state *s, int k)
{
	return s->trace ? s->run->ops->event_record(s->run->be, s->trace[k]) : F8B_OK;
}

/* Stage i, between its two marks when the step is traced. */
static int run_marked(struct lls_state *s, int i)
{
	F8B_TRY(mark(s, 2 + 2 * i));
	F8B_TRY(f8b_lls_run_stage(s, i));
	return mark(s, 3 + 2 * i);
}

static int run_lanes(struct lls_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	F8B_TRY(ops->event_record(be, s->ev_fork));
	F8B_TRY(ops->stream_use(be, s->side));
	F8B_TRY(ops->stream_wait(be, s->ev_fork));
	for (int i = 0; i < s->nst; i++) {
		const struct lls_stage *st = &s->st[i];
		F8B_TRY(ops->stream_use(be, st->lane ? s->side : NULL));
		if (st->wait >= 0)
			F8B_TRY(ops->stream_wait(be, s->ev[st->wait]));
		F8B_TRY(run_marked(s, i));
		if (st->signal)
			F8B_TRY(ops->event_record(be, s->ev[i]));
	}
	/* The second lane always ends joined, even with nothing to wait for
	 * (a capture must end on the stream it began on, with every forked
	 * stream joined back). */
	F8B_TRY(ops->stream_use(be, s->side));
	F8B_TRY(ops->event_record(be, s->ev_join));
	F8B_TRY(ops->stream_use(be, NULL));
	return ops->stream_wait(be, s->ev_join);
}

int f8b_lls_run_step(void *state)
{
	struct lls_state *s = state;
	if (!s->side) {
		for (int i = 0; i < s->nst; i++)
			F8B_TRY(run_marked(s, i));
		return F8B_OK;
	}
	int rc = run_lanes(s);
	if (rc != F8B_OK) /* back on the backend's stream whatever failed */
		(void)s->run->ops->stream_use(s->run->be, NULL);
	return rc;
}
