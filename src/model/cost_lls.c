/* cost_lls.c - flops and bytes of the lls kernels; formulas in
 * doc/roofline.md "lls kernels".  E = elements, S = entries of a scale
 * tensor (f8b_scale_count), 4 bytes per fp32 scale, amax or statistic. */
#include "model/cost_lls.h"

#include "core/scaling.h"

#define F32_BYTES 4.0

static double elems(int64_t r, int64_t c)
{
	return r > 0 && c > 0 ? (double)r * (double)c : 0.0;
}

void f8b_cost_layernorm_fwd(int64_t m, int64_t k, struct f8b_cost *c)
{
	double e = elems(m, k);

	/* per element: add (mean), sub + mul + add (variance), sub + mul
	 * (normalise) = 6 */
	c->flops = 6.0 * e;
	c->bytes_read = 2.0 * e;
	c->bytes_written = 2.0 * e + 2.0 * F32_BYTES * (m > 0 ? (double)m : 0.0);
}

void f8b_cost_layernorm_bwd(int64_t m, int64_t k, struct f8b_cost *c)
{
	double e = elems(m, k);

	/* xh (sub, mul), two sums (add, mul + add), dx (sub, mul, sub, mul) = 9 */
	c->flops = 9.0 * e;
	c->bytes_read = 4.0 * e + 2.0 * F32_BYTES * (m > 0 ? (double)m : 0.0);
	c->bytes_written = 2.0 * e;
}

void f8b_cost_sigmoid_fwd(int64_t rows, int64_t cols, struct f8b_cost *c)
{
	double e = elems(rows, cols);

	c->flops = 4.0 * e; /* negate, exp (counted as one), add, divide */
	c->bytes_read = 2.0 * e;
	c->bytes_written = 2.0 * e;
}

void f8b_cost_sigmoid_bwd(int64_t rows, int64_t cols, struct f8b_cost *c)
{
	double e = elems(rows, cols);

	c->flops = 3.0 * e; /* 1 - y, y * (1 - y), dy * that */
	c->bytes_read = 4.0 * e;
	c->bytes_written = 2.0 * e;
}

void f8b_cost_amax_t(enum f8b_dtype in, enum f8b_granularity g, int64_t rows, int64_t cols,
                     struct f8b_cost *c)
{
	double e = elems(rows, cols);

	c->flops = e;
	c->bytes_read = e * (double)f8b_dtype_size(in);
	c->bytes_written = F32_BYTES * (double)f8b_scale_count(g, cols, rows);
}

void f8b_cost_lls_cast_transpose(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g,
                                 int64_t rows, int64_t cols, bool has_out, bool has_out_t,
                                 struct f8b_cost *c)
{
	double e = elems(rows, cols), n = (has_out ? 1.0 : 0.0) + (has_out_t ? 1.0 : 0.0);
	bool fp8 = f8b_dtype_is_fp8(out);

	c->flops = fp8 ? n * e : 0.0; /* one multiply per element and output */
	c->bytes_read = e * (double)f8b_dtype_size(in);
	if (fp8)
		c->bytes_read +=
		    F32_BYTES * ((has_out ? (double)f8b_scale_count(g, rows, cols) : 0) +
		                 (has_out_t ? (double)f8b_scale_count(g, cols, rows) : 0));
	c->bytes_written = n * e * (double)f8b_dtype_size(out);
}

int f8b_lls_cast_passes(const struct f8b_lls_cast_cost *q)
{
	return q->gran == F8B_GRAN_TENSORWISE && !q->delayed && !q->amax_given ? 2 : 1;
}

/* What every fused cast writes after its value pass: q / q_t, amax and
 * scale_inv per block (and reads the given scale when delayed). */
static void add_quant(int64_t rows, int64_t cols, const struct f8b_lls_cast_cost *q,
                      struct f8b_cost *c)
{
	double e = elems(rows, cols), s = (double)f8b_scale_count(q->gran, rows, cols);

	c->flops += 2.0 * e; /* |v| max, v * s */
	c->bytes_written += e * ((q->q ? 1.0 : 0.0) + (q->q_t ? 1.0 : 0.0)) * 1.0;
	c->bytes_written += 2.0 * F32_BYTES * s;
	if (q->delayed)
		c->bytes_read += F32_BYTES;
	if (q->hp_out)
		c->bytes_written += 2.0 * e;
}

void f8b_cost_layernorm_fwd_cast(int64_t m, int64_t k, const struct f8b_lls_cast_cost *q,
                                 struct f8b_cost *c)
{
	double e = elems(m, k), stats = 2.0 * F32_BYTES * (m > 0 ? (double)m : 0.0);

	/* pass 1 reads x and writes mean, rstd; the tensorwise pass 2 (also
	 * when delayed: the row statistics come first) re-reads x with the
	 * statistics and recomputes the values */
	c->flops = 6.0 * e;
	c->bytes_read = 2.0 * e;
	c->bytes_written = stats;
	if (q->gran == F8B_GRAN_TENSORWISE) {
		c->flops += 2.0 * e;
		c->bytes_read += 2.0 * e + stats;
	}
	add_quant(m, k, q, c);
}

void f8b_cost_sigmoid_bwd_cast(int64_t rows, int64_t cols, const struct f8b_lls_cast_cost *q,
                               struct f8b_cost *c)
{
	double e = elems(rows, cols);

	c->flops = 3.0 * e;
	c->bytes_read = 4.0 * e;
	c->bytes_written = 0.0;
	if (f8b_lls_cast_passes(q) == 2) { /* pass 2 re-reads y and dy */
		c->flops += 3.0 * e;
		c->bytes_read += 4.0 * e;
	} else if (q->gran == F8B_GRAN_TENSORWISE && q->hp_out) {
		/* delayed with dz wanted: a separate sigmoid_bwd writes it */
		c->flops += 3.0 * e;
		c->bytes_read += 4.0 * e;
	}
	add_quant(rows, cols, q, c);
}

void f8b_cost_cast_fused(int64_t rows, int64_t cols, const struct f8b_lls_cast_cost *q,
                         struct f8b_cost *c)
{
	double e = elems(rows, cols);
	struct f8b_lls_cast_cost qq = *q;

	qq.hp_out = false; /* x is the input: nothing high-precision to write */
	c->flops = 0.0;
	c->bytes_read = 2.0 * e * (double)f8b_lls_cast_passes(q);
	c->bytes_written = 0.0;
	add_quant(rows, cols, &qq, c);
}
