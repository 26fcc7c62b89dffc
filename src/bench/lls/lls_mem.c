/* lls_mem.c - the lls step's memory model (lls_int.h, doc/lls.md
 * "Memory"): a buffer is live from the stage that first writes it to the
 * last that reads it; the peak is the largest sum of live buffers, the
 * saved bytes what the forward pass leaves for the backward pass. */
#include "bench/lls/lls_int.h"

/* Which buffers stage i reads / writes, as a bit set over NBUF + operands. */
unsigned f8b_lls_touches(const struct lls_state *s, int i, bool write)
{
	const struct lls_stage *st = &s->st[i];
	unsigned m = 0;
#define BUF(b) (1u << (b))
#define OPN(o) (1u << (NBUF + (o)))
	switch (st->kind) {
	case K_LN_FWD:
	case K_LN_FWD_CAST: m = write ? BUF(B_MEAN) | BUF(B_RSTD) : BUF(B_X); break;
	case K_SIG_FWD: m = write ? BUF(B_Y) : BUF(B_Z); break;
	case K_SIG_BWD:
	case K_SIG_BWD_CAST: m = write ? 0 : BUF(B_Y) | BUF(B_DY); break;
	case K_GEMM: {
		const int out[3] = {s->fused_sigmoid ? B_Y : B_Z, B_DXLN, B_DW};
		const int opA[3] = {O_XLN, O_DZ, O_DZT}, opB[3] = {O_W, O_WT, O_XLNT};
		const int srcA[3] = {B_XLN, B_DZ, B_DZ}, srcB[3] = {B_W, B_W, B_XLN};
		bool fp8 = f8b_dtype_is_fp8(s->g[st->gemm].desc.a_dtype);
		if (write)
			m = BUF(out[st->gemm]);
		else
			m = fp8 ? OPN(opA[st->gemm]) | OPN(opB[st->gemm])
			        : BUF(srcA[st->gemm]) | BUF(srcB[st->gemm]);
		break;
	}
	case K_LN_BWD:
		m = write ? BUF(B_DX) : BUF(B_DXLN) | BUF(B_X) | BUF(B_MEAN) | BUF(B_RSTD);
		break;
	default:
		if (write)
			m = 0;
		else if (st->ln) /* x_ln formed from x and the row statistics */
			m = BUF(B_X) | BUF(B_MEAN) | BUF(B_RSTD);
		else
			m = st->src >= 0 ? BUF(st->src) : 0;
		break;
	}
	if (write) {
		if (st->hp_out >= 0)
			m |= BUF(st->hp_out);
		if (st->q >= 0 && st->kind != K_AMAX && st->kind != K_SCALES &&
		    st->kind != K_HISTORY)
			m |= OPN(st->q);
		if (st->qt >= 0 && st->kind != K_AMAX_T && st->kind != K_SCALES)
			m |= OPN(st->qt);
	}
	return m;
#undef BUF
#undef OPN
}

static int64_t bytes_of(const struct lls_state *s, int k)
{
	if (k < NBUF)
		return s->buf[k].data ? s->buf[k].rows * s->buf[k].cols *
		                            (int64_t)f8b_dtype_size(s->buf[k].dtype)
		                      : 0;
	const struct lls_operand *op = &s->op[k - NBUF];
	int64_t b = op->used ? op->rows * op->cols : 0;
	if (op->used && op->alias < 0)
		b += 12 * op->ns;
	return b;
}

void f8b_lls_memory(const struct lls_state *s, int64_t *peak, int64_t *saved)
{
	int first[NBUF + NOPND], last[NBUF + NOPND];
	int fwd_end = 0; /* first backward stage */
	while (fwd_end < s->nst && !s->st[fwd_end].bwd)
		fwd_end++;
	for (int k = 0; k < NBUF + NOPND; k++)
		first[k] = s->nst, last[k] = -1;
	for (int i = 0; i < s->nst; i++) {
		unsigned w = f8b_lls_touches(s, i, true), r = f8b_lls_touches(s, i, false);
		for (int k = 0; k < NBUF + NOPND; k++) {
			if ((w >> k & 1u) && i < first[k])
				first[k] = i;
			if ((r >> k & 1u) || (w >> k & 1u))
				last[k] = i;
		}
	}
	/* The step's inputs and results are live throughout. */
	const int always[] = {B_X, B_W, B_DY, B_DX, B_DW};
	for (size_t j = 0; j < sizeof always / sizeof always[0]; j++)
		first[always[j]] = 0, last[always[j]] = s->nst;
	*peak = *saved = 0;
	for (int i = 0; i < s->nst; i++) {
		int64_t live = 0;
		for (int k = 0; k < NBUF + NOPND; k++)
			if (first[k] <= i && i <= last[k])
				live += bytes_of(s, k);
		if (live > *peak)
			*peak = live;
	}
	for (int k = 0; k < NBUF + NOPND; k++) {
		bool input = k == B_X || k == B_W || k == B_DY || k == B_DX || k == B_DW;
		if (!input && first[k] < fwd_end && last[k] >= fwd_end)
			*saved += bytes_of(s, k);
	}
}
