/* test_lls_kernels.c - the cuda backend's lls ops (cuda_lls.c and the
 * kernels behind it) against the host golden twins (host_lls.c), through
 * the ops tables, on the same inputs:
 *   - amax_t, cast_transpose, their LayerNorm-sourced forms (from x, mean
 *     and rstd), sigmoid_bwd and every fp8 output: bit-exact;
 *   - LayerNorm and sigmoid forward within the tolerances argued at
 *     close_bf16() (reductions and expf differ in rounding only).
 * The fused casts are test_lls_fused.c's.  Shapes cover the kernels'
 * edges: ragged 64-tiles, 128-blocks and 8-element chunks, each register
 * depth of the row kernel (up to F8B_LLS_ROW_MAX_COLS columns) and a
 * misaligned input.  Without a usable GPU: the TAP skip plan and exit 77.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lls_pt.h"

#include "../tap.h"

/* ------------------------------------------------------------ LN, sigmoid */

static void test_layernorm(int64_t M, int64_t K, int off)
{
	const float eps = 1e-5f;
	struct pt x = pmk(F8B_BF16, M, K, off), y = pmk(F8B_BF16, M, K, off);
	struct pt dy = pmk(F8B_BF16, M, K, off), dx = pmk(F8B_BF16, M, K, off);
	struct pf mean = fmk(M), rstd = fmk(M);

	pfill(&x, 100 + K, 0.75f, 2.0f);
	pfill(&dy, 200 + K, 0.0f, 1.0f);
	int rh = H->layernorm_fwd(hbe, &x.h, eps, &y.h, mean.h, rstd.h);
	int rd = D->layernorm_fwd(dbe, &x.d, eps, &y.d, mean.d, rstd.d);
	tap_ok(rh == F8B_OK && rd == F8B_OK, "layernorm_fwd %lldx%lld%s runs%s%s", (long long)M,
	       (long long)K, off ? " misaligned" : "", rd ? ": " : "", rd ? f8b_last_error() : "");
	if (rh || rd)
		goto out;
	struct f8b_tensor yg = pdown(&y);
	float *mg = fdown(&mean), *rg = fdown(&rstd);
	/* mean/rstd: fp32 tree sums vs double, 2^-10 relative at worst */
	tap_ok(close_f32(mg, mean.h, M, 0x1p-10) == 0 && close_f32(rg, rstd.h, M, 0x1p-10) == 0,
	       "layernorm mean/rstd %lldx%lld close to the host's", (long long)M, (long long)K);
	/* |x - mean| * rstd error ~ rstd * |mean error|: 2^-12 absolute */
	tap_ok(close_bf16(&yg, &y.h, 0x1p-12, "layernorm y") == 0,
	       "layernorm y %lldx%lld within 1 bf16 ulp + 2^-12 of the host", (long long)M,
	       (long long)K);
	/* backward from the host's statistics, so only its own sums differ */
	if (D->upload(dbe, mean.d, mean.h, (size_t)M * 4) || D->upload(dbe, rstd.d, rstd.h, M * 4))
		die("upload stats");
	rh = H->layernorm_bwd(hbe, &dy.h, &x.h, mean.h, rstd.h, &dx.h);
	rd = D->layernorm_bwd(dbe, &dy.d, &x.d, mean.d, rstd.d, &dx.d);
	if (tap_ok(rh == F8B_OK && rd == F8B_OK, "layernorm_bwd %lldx%lld runs", (long long)M,
	           (long long)K)) {
		struct f8b_tensor dg = pdown(&dx);
		double gmax = 0;
		for (int64_t i = 0; i < M * K; i++)
			gmax = fmax(gmax, fabs(bfv(&dx.h, i)));
		tap_ok(close_bf16(&dg, &dx.h, 0x1p-12 * gmax, "layernorm dx") == 0,
		       "layernorm dx within 1 bf16 ulp + 2^-12 max|dx| of the host");
		f8b_tensor_free(H, hbe, &dg);
	}
	f8b_tensor_free(H, hbe, &yg);
	free(mg);
	free(rg);
out:
	pfree(&x), pfree(&y), pfree(&dy), pfree(&dx);
	ffree(&mean), ffree(&rstd);
}

static void test_sigmoid(int64_t R, int64_t C, int off)
{
	struct pt z = pmk(F8B_BF16, R, C, off), y = pmk(F8B_BF16, R, C, off);
	struct pt dy = pmk(F8B_BF16, R, C, off), dz = pmk(F8B_BF16, R, C, off);

	pfill(&z, 300, 0.0f, 4.0f);
	pfill(&dy, 301, 0.0f, 1.0f);
	int rc = H->sigmoid_fwd(hbe, &z.h, &y.h) | D->sigmoid_fwd(dbe, &z.d, &y.d);
	struct f8b_tensor yg = pdown(&y);
	tap_ok(rc == F8B_OK && close_bf16(&yg, &y.h, 0.0, "sigmoid y") == 0,
	       "sigmoid_fwd %lldx%lld within 1 bf16 ulp of the host", (long long)R, (long long)C);
	/* backward from the host's y on both sides: bit-exact */
	rc = H->sigmoid_bwd(hbe, &y.h, &dy.h, &dz.h) |
	     D->upload(dbe, y.d.data, y.h.data, pbytes(&y)) |
	     D->sigmoid_bwd(dbe, &y.d, &dy.d, &dz.d);
	struct f8b_tensor dg = pdown(&dz);
	tap_ok(rc == F8B_OK && same(dg.data, dz.h.data, (size_t)(R * C), 2, "sigmoid dz"),
	       "sigmoid_bwd %lldx%lld bit-exact", (long long)R, (long long)C);
	f8b_tensor_free(H, hbe, &yg);
	f8b_tensor_free(H, hbe, &dg);
	pfree(&z), pfree(&y), pfree(&dy), pfree(&dz);
}

/* ------------------------------------------------------------ casts */

/* specials: a NaN, a -inf and a -0 among the values (bf16 only). */
static void test_amax_t(enum f8b_dtype xd, int64_t R, int64_t C, bool specials)
{
	struct pt x = pmk(xd, R, C, 0);
	pfill(&x, 400 + R, 0.0f, 3.0f);
	if (specials) {
		uint16_t *h = x.h.data;
		h[(R / 2) * C + C / 3] = 0x7FC1;     /* NaN */
		h[(R / 3) * C + C / 2] = 0xFF80;     /* -inf */
		h[(R - 1) * C + C - 1] = 0x8000;     /* -0 */
		h[(R / 4) * C + C - 2] = 0x7F80 - 1; /* the largest finite */
		if (D->upload(dbe, x.d.data, x.h.data, pbytes(&x)) != F8B_OK)
			die("upload");
	}
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		struct pf a = fmk(f8b_scale_count(g, C, R));
		/* garbage first: every entry, padding included, is written
		 * (axiswise's atomics start from a memset) */
		if (D->memset(dbe, a.d, 0x7F, (size_t)a.n * 4) != F8B_OK)
			die("memset");
		int rc = H->amax_t(hbe, &x.h, g, a.h) | D->amax_t(dbe, &x.d, g, a.d);
		float *ag = fdown(&a);
		tap_ok(rc == F8B_OK && same(ag, a.h, (size_t)a.n, 4, "amax_t"),
		       "amax_t %s %lldx%lld %s%s bit-exact", f8b_dtype_name(xd), (long long)R,
		       (long long)C, f8b_granularity_name(g),
		       specials ? " with NaN, -inf, -0" : "");
		free(ag);
		ffree(&a);
	}
	pfree(&x);
}

static void test_cast_transpose(enum f8b_dtype xd, enum f8b_dtype od, int64_t R, int64_t C, int off)
{
	struct pt x = pmk(xd, R, C, off), q = pmk(od, R, C, off), qt = pmk(od, C, R, off);
	struct f8b_scale_opts o = {0};

	pfill(&x, 500 + C, 0.0f, 3.0f);
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		bool fp8 = f8b_dtype_is_fp8(od);
		if (!fp8 && g > 0)
			break;
		struct pf a = fmk(f8b_scale_count(g, R, C)), at = fmk(f8b_scale_count(g, C, R));
		struct pf s = fmk(a.n), st = fmk(at.n);
		if (fp8 && (H->amax(hbe, &x.h, g, a.h) || H->amax_t(hbe, &x.h, g, at.h) ||
		            H->scales(hbe, a.h, a.n, od, &o, s.h, NULL) ||
		            H->scales(hbe, at.h, at.n, od, &o, st.h, NULL) ||
		            D->upload(dbe, s.d, s.h, (size_t)s.n * 4) ||
		            D->upload(dbe, st.d, st.h, (size_t)st.n * 4)))
			die("scales");
		int rc = H->cast_transpose(hbe, &x.h, g, fp8 ? s.h : NULL, fp8 ? st.h : NULL, &q.h,
		                           &qt.h) |
		         D->cast_transpose(dbe, &x.d, g, fp8 ? s.d : NULL, fp8 ? st.d : NULL, &q.d,
		                           &qt.d);
		struct f8b_tensor qg = pdown(&q), qtg = pdown(&qt);
		size_t es = f8b_dtype_size(od);
		tap_ok(rc == F8B_OK && same(qg.data, q.h.data, (size_t)(R * C), es, "out") &&
		           same(qtg.data, qt.h.data, (size_t)(R * C), es, "out_t"),
		       "cast_transpose %s -> %s %lldx%lld %s%s bit-exact", f8b_dtype_name(xd),
		       f8b_dtype_name(od), (long long)R, (long long)C, f8b_granularity_name(g),
		       off ? " misaligned" : "");
		f8b_tensor_free(H, hbe, &qg);
		f8b_tensor_free(H, hbe, &qtg);
		ffree(&a), ffree(&at), ffree(&s), ffree(&st);
	}
	pfree(&x), pfree(&q), pfree(&qt);
}

/* layernorm_amax_t / layernorm_cast_t from the host's statistics of x:
 * bit-exact with the host (whose twin is amax_t / cast_transpose of the
 * stored y, test_lls_host). */
static void test_layernorm_t(int64_t R, int64_t C, int off)
{
	struct pt x = pmk(F8B_BF16, R, C, off), y = pmk(F8B_BF16, R, C, off);
	struct pf mean = fmk(R), rstd = fmk(R);
	struct f8b_scale_opts o = {0};
	pfill(&x, 500 + R, 0.25f, 2.0f);
	if (H->layernorm_fwd(hbe, &x.h, 1e-5f, &y.h, mean.h, rstd.h) ||
	    D->upload(dbe, mean.d, mean.h, (size_t)R * 4) ||
	    D->upload(dbe, rstd.d, rstd.h, (size_t)R * 4))
		die("layernorm statistics");
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		enum f8b_dtype od = g % 2 ? F8B_E5M2 : F8B_E4M3;
		struct pt qt = pmk(od, C, R, off);
		struct pf a = fmk(f8b_scale_count(g, C, R)), s = fmk(a.n);
		int rc = H->layernorm_amax_t(hbe, &x.h, mean.h, rstd.h, g, a.h) |
		         D->layernorm_amax_t(dbe, &x.d, mean.d, rstd.d, g, a.d);
		float *ag = fdown(&a);
		tap_ok(rc == F8B_OK && same(ag, a.h, (size_t)a.n, 4, "layernorm_amax_t"),
		       "layernorm_amax_t %lldx%lld %s%s bit-exact", (long long)R, (long long)C,
		       f8b_granularity_name(g), off ? " misaligned" : "");
		free(ag);
		if (H->scales(hbe, a.h, a.n, od, &o, s.h, NULL) ||
		    D->upload(dbe, s.d, s.h, (size_t)s.n * 4))
			die("scales");
		rc = H->layernorm_cast_t(hbe, &x.h, mean.h, rstd.h, g, s.h, &qt.h) |
		     D->layernorm_cast_t(dbe, &x.d, mean.d, rstd.d, g, s.d, &qt.d);
		struct f8b_tensor qg = pdown(&qt);
		tap_ok(rc == F8B_OK && same(qg.data, qt.h.data, (size_t)(R * C), 1, "out_t"),
		       "layernorm_cast_t -> %s %lldx%lld %s%s bit-exact", f8b_dtype_name(od),
		       (long long)R, (long long)C, f8b_granularity_name(g),
		       off ? " misaligned" : "");
		f8b_tensor_free(H, hbe, &qg);
		pfree(&qt);
		ffree(&a), ffree(&s);
	}
	pfree(&x), pfree(&y);
	ffree(&mean), ffree(&rstd);
}

static void test_refusals(void)
{
	const int64_t K = F8B_LLS_ROW_MAX_COLS + 8;
	struct pt x = pmk(F8B_BF16, 1, K, 0), y = pmk(F8B_BF16, 1, K, 0);
	struct pf m = fmk(1), r = fmk(1);
	tap_ok(D->layernorm_fwd(dbe, &x.d, 1e-5f, &y.d, m.d, r.d) == F8B_EUNSUPPORTED,
	       "layernorm_fwd refuses rows over %d columns: %s", F8B_LLS_ROW_MAX_COLS,
	       f8b_last_error());
	struct pt q = pmk(F8B_E4M3, 1, K, 0);
	struct f8b_cast_spec cs = {.gran = F8B_GRAN_AXISWISE, .dtype = F8B_E4M3, .q = &q.d};
	cs.amax = m.d;
	cs.scale_inv = r.d;
	/* cast_fused takes longer rows in four launches (test_lls_fused
	 * checks their bytes against the host) */
	int rc = D->cast_fused(dbe, &x.d, &cs);
	tap_ok(rc == F8B_OK, "axiswise cast_fused takes rows over %d columns%s%s",
	       F8B_LLS_ROW_MAX_COLS, rc ? ": " : "", rc ? f8b_last_error() : "");
	cs.gran = F8B_GRAN_TENSORWISE; /* the tile kernel takes any width */
	tap_ok(D->cast_fused(dbe, &x.d, &cs) == F8B_OK, "tensorwise cast_fused takes them");
	pfree(&x), pfree(&y), pfree(&q);
	ffree(&m), ffree(&r);
}

int main(void)
{
	char msg[320];
	int rc;

	lls_pt_prog = "test_lls_kernels";
	rc = lls_pt_open(msg, sizeof msg);

	if (rc == 77)
		return tap_skip_all(msg);
	if (!tap_ok(rc == 0, "%s", msg))
		return tap_done();
	tap_diag("%s", msg);

	/* every register depth of the row kernels, ragged and misaligned rows */
	static const int64_t ln_shapes[][2] = {{5, 200},   {64, 1024}, {33, 2056},
	                                       {17, 4104}, {7, 8192},  {3, 16384}};
	for (size_t i = 0; i < sizeof ln_shapes / sizeof ln_shapes[0]; i++)
		test_layernorm(ln_shapes[i][0], ln_shapes[i][1], 0);
	test_layernorm(9, 203, 1);
	test_sigmoid(37, 1000, 0);
	test_sigmoid(5, 77, 1);
	test_amax_t(F8B_BF16, 200, 136, false);
	test_amax_t(F8B_F32, 300, 520, false);
	test_amax_t(F8B_BF16, 1024, 1024, false);
	test_amax_t(F8B_BF16, 300, 100, false); /* rows of 100: scalar loads */
	test_amax_t(F8B_BF16, 1000, 1048, true);
	/* more 128 x 256 tiles than resident blocks: blocks take several */
	test_amax_t(F8B_BF16, 4104, 2056, false);
	test_amax_t(F8B_F32, 1100, 1040, false);
	test_layernorm_t(200, 136, 0);
	test_layernorm_t(300, 100, 0); /* rows of 100: scalar loads */
	test_layernorm_t(1030, 1048, 0);
	test_layernorm_t(130, 72, 1);
	test_layernorm_t(4104, 1048, 0); /* several tiles a block */
	/* 33 x 33 tiles, more than 5 a SM on an H100: staged in shared memory */
	test_layernorm_t(4104, 2056, 0);
	test_cast_transpose(F8B_BF16, F8B_E4M3, 200, 136, 0);
	test_cast_transpose(F8B_BF16, F8B_E5M2, 256, 512, 0);
	test_cast_transpose(F8B_F32, F8B_E4M3, 130, 72, 0);
	test_cast_transpose(F8B_BF16, F8B_E4M3, 67, 131, 1);
	test_cast_transpose(F8B_BF16, F8B_BF16, 200, 136, 0);
	test_cast_transpose(F8B_BF16, F8B_BF16, 67, 131, 1);
	/* more 128 x 64 tiles (33 x 33) than resident blocks: each block
	 * prefetches its next tile behind the current one's transpose */
	test_cast_transpose(F8B_BF16, F8B_E4M3, 4104, 2056, 0);
	test_refusals();

	lls_pt_close();
	return tap_done();
}
