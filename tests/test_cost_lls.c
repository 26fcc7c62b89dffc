/* test_cost_lls.c - the lls kernels' bytes and flops (cost_lls.c) against
 * the formulas of doc/roofline.md "lls kernels", on an 8192 x 8192 case
 * where every count is easy to state by hand. */
#include <math.h>

#include "model/cost_lls.h"
#include "tap.h"

#define E  (8192.0 * 8192.0)
#define MB (8192.0 * 4.0) /* one fp32 per row */

static bool eq(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

int main(void)
{
	struct f8b_cost c;
	const int64_t n = 8192;

	f8b_cost_layernorm_fwd(n, n, &c);
	tap_ok(eq(c.bytes_read, 2 * E) && eq(c.bytes_written, 2 * E + 2 * MB) && eq(c.flops, 6 * E),
	       "layernorm_fwd: reads 2E, writes 2E + mean + rstd");
	f8b_cost_layernorm_bwd(n, n, &c);
	tap_ok(eq(c.bytes_read, 4 * E + 2 * MB) && eq(c.bytes_written, 2 * E),
	       "layernorm_bwd: reads x, dy, mean, rstd; writes dx");
	f8b_cost_sigmoid_fwd(n, n, &c);
	tap_ok(eq(f8b_cost_bytes(&c), 4 * E), "sigmoid_fwd: 4 B per element");
	f8b_cost_sigmoid_bwd(n, n, &c);
	tap_ok(eq(f8b_cost_bytes(&c), 6 * E), "sigmoid_bwd: 6 B per element");
	f8b_cost_amax_t(F8B_BF16, F8B_GRAN_AXISWISE, n, n, &c);
	tap_ok(eq(c.bytes_read, 2 * E) && eq(c.bytes_written, MB),
	       "amax_t axiswise: one per column");
	f8b_cost_lls_cast_transpose(F8B_BF16, F8B_E4M3, F8B_GRAN_TENSORWISE, n, n, true, true, &c);
	tap_ok(eq(c.bytes_read, 2 * E + 8) && eq(c.bytes_written, 2 * E),
	       "cast_transpose bf16 -> fp8 + fp8^T: reads 2E (+ 2 scales), writes 2E");
	f8b_cost_lls_cast_transpose(F8B_BF16, F8B_BF16, F8B_GRAN_TENSORWISE, n, n, false, true, &c);
	tap_ok(eq(c.bytes_read, 2 * E) && eq(c.bytes_written, 2 * E) && c.flops == 0,
	       "bf16 transpose: 4 B per element, no flops");

	struct f8b_lls_cast_cost q = {
	    .gran = F8B_GRAN_TENSORWISE, .dtype = F8B_E4M3, .q = true, .q_t = true};
	f8b_cost_layernorm_fwd_cast(n, n, &q, &c);
	tap_ok(eq(c.bytes_read, 4 * E + 2 * MB) && eq(c.bytes_written, 2 * E + 2 * MB + 8),
	       "layernorm_fwd_cast tensorwise +T: two passes over x, q and q^T");
	tap_ok(f8b_lls_cast_passes(&q) == 2, "dynamic tensorwise takes two passes");
	q.delayed = true;
	tap_ok(f8b_lls_cast_passes(&q) == 1, "delayed tensorwise takes one");
	q.gran = F8B_GRAN_AXISWISE;
	q.q_t = false;
	q.delayed = false;
	q.hp_out = true;
	f8b_cost_layernorm_fwd_cast(n, n, &q, &c);
	tap_ok(eq(c.bytes_read, 2 * E) && eq(c.bytes_written, 2 * MB + E + 2 * E + 2 * MB),
	       "layernorm_fwd_cast axiswise + bf16 y: one pass, 5 B per element + rows");
	q.hp_out = false;
	f8b_cost_cast_fused(n, n, &q, &c);
	tap_ok(eq(c.bytes_read, 2 * E) && eq(c.bytes_written, E + 2 * MB),
	       "cast_fused axiswise: read bf16 once, write fp8 once (3 B per element)");
	q.gran = F8B_GRAN_TENSORWISE;
	q.dtype = F8B_E5M2;
	q.q_t = true;
	f8b_cost_sigmoid_bwd_cast(n, n, &q, &c);
	tap_ok(eq(c.bytes_read, 8 * E) && eq(c.bytes_written, 2 * E + 8),
	       "sigmoid_bwd_cast tensorwise +T: y, dy read twice; q, q^T written");
	q.gran = F8B_GRAN_BLOCK1X128;
	q.q_t = false;
	f8b_cost_sigmoid_bwd_cast(n, n, &q, &c);
	tap_ok(eq(c.bytes_read, 4 * E) && eq(c.bytes_written, E + 2 * 4.0 * 8192 * 64),
	       "sigmoid_bwd_cast 1x128: one pass, 8192 x 64 scales");
	return tap_done();
}
