/* test_lls_fused.c - the cuda backend's fused casts (layernorm_fwd_cast,
 * sigmoid_bwd_cast, cast_fused) against the host golden twins, through
 * the ops tables, on the same inputs:
 *   - q, q_t, amax and scale_inv bit-exact against the host's cast_fused
 *     of the GPU's own bf16 intermediate (y / dz, which the fused ops
 *     expose when asked), and the same fp8 bytes whether or not the
 *     intermediate is written;
 *   - dynamic tensorwise both ways: pass 1 accumulating into a zeroed amax,
 *     and pass 1 leaving block maxima in scratch (f8b_cast_spec.partial);
 *   - an axiswise cast's amax_all, and the tensorwise cast of x^T that
 *     takes it (amax_given).
 * Shapes: ragged and misaligned rows, each register depth of the row
 * kernel, more rows or tiles than resident blocks.  Without a usable GPU:
 * the TAP skip plan and exit 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lls_pt.h"

#include "../tap.h"

enum which { W_LN, W_SIG, W_PLAIN };
static const char *const wname[] = {"layernorm_fwd_cast", "sigmoid_bwd_cast", "cast_fused"};

struct fspec {
	enum f8b_granularity g;
	enum f8b_dtype dt;
	bool delayed, want_t;
	bool partial; /* dynamic tensorwise: pass 1's block maxima in scratch */
};

static int run_fused(bool dev, enum which w, struct pt *a, struct pt *b, struct f8b_tensor *v,
                     float *mean, float *rstd, struct f8b_cast_spec *cs)
{
	const struct f8b_backend_ops *ops = dev ? D : H;
	struct f8b_backend *be = dev ? dbe : hbe;
	struct f8b_tensor *x = dev ? &a->d : &a->h, *x2 = dev ? &b->d : &b->h;

	if (w == W_LN)
		return ops->layernorm_fwd_cast(be, x, 1e-5f, v, mean, rstd, cs);
	if (w == W_SIG)
		return ops->sigmoid_bwd_cast(be, x, x2, v, cs);
	return ops->cast_fused(be, x, cs);
}

static void test_fused(enum which w, const struct fspec *f, int64_t R, int64_t C)
{
	struct pt a = pmk(F8B_BF16, R, C, 0), b = pmk(F8B_BF16, R, C, 0);
	struct pt v = pmk(F8B_BF16, R, C, 0);
	struct pt q = pmk(f->dt, R, C, 0), qt = pmk(f->dt, C, R, 0), q2 = pmk(f->dt, R, C, 0);
	int64_t ns = f8b_scale_count(f->g, R, C);
	struct pf am = fmk(ns), si = fmk(ns), gs = fmk(1), mean = fmk(R), rstd = fmk(R);
	struct pf parts = fmk(f->partial ? F8B_CAST_PARTIALS : 1);
	struct f8b_cast_spec cd = {.gran = f->g, .dtype = f->dt};
	char what[160];

	snprintf(what, sizeof what, "%s %s %s%s%s%s %lldx%lld", wname[w],
	         f8b_granularity_name(f->g), f8b_dtype_name(f->dt), f->delayed ? " delayed" : "",
	         f->want_t ? " +T" : "", f->partial ? " (block maxima)" : "", (long long)R,
	         (long long)C);
	/* amax starts as garbage (every cast writes it, zeroing it first where
	 * it accumulates), and so does the scratch, all 0x7F7F7F7F (3.4e38):
	 * an entry read that pass 1 did not write would become the amax. */
	if (D->memset(dbe, am.d, 0x7F, (size_t)ns * 4) != F8B_OK ||
	    D->memset(dbe, parts.d, 0x7F, (size_t)parts.n * 4) != F8B_OK)
		die("memset");
	cd.opts.pow2 = f->g == F8B_GRAN_AXISWISE;
	gs.h[0] = 2.5f;
	if (D->upload(dbe, gs.d, gs.h, 4))
		die("upload scale");
	pfill(&a, 600 + C, w == W_SIG ? 0.5f : 1.0f, w == W_SIG ? 0.2f : 2.0f);
	pfill(&b, 601 + C, 0.0f, 1.0f);
	bool nan_in = w == W_SIG && f->g == F8B_GRAN_AXISWISE && R == 9;
	if (nan_in) { /* a NaN dy: its dz is NaN (0x7FFF), as is its row's amax */
		((uint16_t *)b.h.data)[3 * C + 5] = 0x7FC1;
		if (D->upload(dbe, b.d.data, b.h.data, pbytes(&b)) != F8B_OK)
			die("upload");
		size_t n = strlen(what);
		snprintf(what + n, sizeof what - n, " with a NaN dy");
	}
	if (w == W_LN && R == 9) {
		/* a NaN and an inf in x: their rows' y are NaN, and so is
		 * the amax of each (axiswise: of the row; else of the tensor
		 * or the row's 128-column block) */
		((uint16_t *)a.h.data)[3 * C + 5] = 0x7FC1;
		((uint16_t *)a.h.data)[6 * C + C - 1] = 0x7F80;
		if (D->upload(dbe, a.d.data, a.h.data, pbytes(&a)) != F8B_OK)
			die("upload");
		size_t n = strlen(what);
		snprintf(what + n, sizeof what - n, " with a NaN and an inf x");
	}
	cd.scale = f->delayed ? gs.d : NULL;
	cd.q = &q.d;
	cd.q_t = f->want_t ? &qt.d : NULL;
	cd.amax = am.d;
	cd.scale_inv = si.d;
	cd.partial = f->partial ? parts.d : NULL;
	int rc = run_fused(true, w, &a, &b, w == W_PLAIN ? NULL : &v.d, mean.d, rstd.d, &cd);
	if (!tap_ok(rc == F8B_OK, "%s runs%s%s", what, rc ? ": " : "", rc ? f8b_last_error() : ""))
		goto out;
	/* the host's cast of the GPU's own intermediate */
	struct f8b_tensor vg = w == W_PLAIN ? a.h : pdown(&v);
	struct f8b_cast_spec ch = cd;
	ch.scale = f->delayed ? gs.h : NULL;
	ch.q = &q.h;
	ch.q_t = f->want_t ? &qt.h : NULL;
	ch.amax = am.h;
	ch.scale_inv = si.h;
	ch.partial = NULL;
	if (H->cast_fused(hbe, &vg, &ch) != F8B_OK)
		die("host cast_fused");
	struct f8b_tensor qg = pdown(&q), qtg = pdown(&qt);
	float *amg = fdown(&am), *sig = fdown(&si);
	tap_ok(same(qg.data, q.h.data, (size_t)(R * C), 1, "q") &&
	           (!f->want_t || same(qtg.data, qt.h.data, (size_t)(R * C), 1, "q_t")) &&
	           same(amg, am.h, (size_t)ns, 4, "amax") &&
	           same(sig, si.h, (size_t)ns, 4, "scale_inv"),
	       "%s: fp8, amax, scale_inv bit-exact vs the host cast of the GPU's values", what);
	/* the intermediate itself: sigmoid_bwd is bit-exact, LayerNorm close */
	if (w != W_PLAIN) {
		struct f8b_tensor vh = v.h;
		rc = w == W_LN ? H->layernorm_fwd(hbe, &a.h, 1e-5f, &vh, mean.h, rstd.h)
		               : H->sigmoid_bwd(hbe, &a.h, &b.h, &vh);
		if (w == W_SIG)
			tap_ok(rc == F8B_OK && same(vg.data, vh.data, (size_t)(R * C), 2, "dz"),
			       "%s: dz bit-exact", what);
		else
			tap_ok(rc == F8B_OK && close_bf16(&vg, &vh, 0x1p-12, "y") == 0,
			       "%s: y within 1 bf16 ulp + 2^-12 of the host", what);
	}
	/* the same launch without the intermediate: the same fp8 bytes */
	if (w != W_PLAIN) {
		cd.q = &q2.d;
		rc = run_fused(true, w, &a, &b, NULL, mean.d, rstd.d, &cd);
		struct f8b_tensor q2g = pdown(&q2);
		tap_ok(rc == F8B_OK && same(q2g.data, qg.data, (size_t)(R * C), 1, "q (no y)"),
		       "%s: same q without writing the intermediate", what);
		f8b_tensor_free(H, hbe, &q2g);
		f8b_tensor_free(H, hbe, &vg);
	}
	f8b_tensor_free(H, hbe, &qg);
	f8b_tensor_free(H, hbe, &qtg);
	free(amg);
	free(sig);
out:
	pfree(&a), pfree(&b), pfree(&v), pfree(&q), pfree(&qt), pfree(&q2);
	ffree(&am), ffree(&si), ffree(&gs), ffree(&mean), ffree(&rstd), ffree(&parts);
}

/* An axiswise cast that also writes the tensorwise amax (amax_all), then
 * the tensorwise cast of x^T alone from that amax (amax_given): the same
 * bytes as the host's two casts, the second with its own amax pass. */
static void test_amax_all(enum which w, int64_t R, int64_t C)
{
	struct pt a = pmk(F8B_BF16, R, C, 0), b = pmk(F8B_BF16, R, C, 0);
	struct pt q = pmk(F8B_E4M3, R, C, 0), qt = pmk(F8B_E4M3, C, R, 0);
	struct pf am = fmk(R), si = fmk(R), all = fmk(1), si1 = fmk(1), mean = fmk(R),
	          rstd = fmk(R);
	char what[96];

	snprintf(what, sizeof what, "%s axiswise %lldx%lld", wname[w], (long long)R, (long long)C);
	pfill(&a, 700 + C, w == W_SIG ? 0.5f : 0.0f, w == W_SIG ? 0.2f : 2.0f);
	pfill(&b, 701 + C, 0.0f, 1.0f);
	struct f8b_cast_spec cd = {.gran = F8B_GRAN_AXISWISE,
	                           .dtype = F8B_E4M3,
	                           .q = &q.d,
	                           .amax = am.d,
	                           .scale_inv = si.d,
	                           .amax_all = all.d};
	struct pt v = pmk(F8B_BF16, R, C, 0);
	int rc = run_fused(true, w, &a, &b, w == W_PLAIN ? NULL : &v.d, mean.d, rstd.d, &cd);
	struct f8b_tensor vg = w == W_PLAIN ? a.h : pdown(&v);
	/* the host: tensorwise amax of the same values, then the T cast */
	struct f8b_cast_spec ch = {.gran = F8B_GRAN_TENSORWISE,
	                           .dtype = F8B_E4M3,
	                           .q_t = &qt.h,
	                           .amax = all.h,
	                           .scale_inv = si1.h};
	if (H->cast_fused(hbe, &vg, &ch) != F8B_OK)
		die("host cast_fused");
	float *ag = fdown(&all);
	tap_ok(rc == F8B_OK && same(ag, all.h, 1, 4, "amax_all"),
	       "%s: amax_all is the tensorwise amax, bit for bit", what);
	struct f8b_cast_spec ct = {.gran = F8B_GRAN_TENSORWISE,
	                           .dtype = F8B_E4M3,
	                           .q_t = &qt.d,
	                           .amax = all.d,
	                           .scale_inv = si1.d,
	                           .amax_given = true};
	struct pt vd = pmk(F8B_BF16, R, C, 0);
	memcpy(vd.h.data, vg.data, pbytes(&vd));
	if (D->upload(dbe, vd.d.data, vd.h.data, pbytes(&vd)) != F8B_OK)
		die("upload");
	rc = D->cast_fused(dbe, &vd.d, &ct);
	struct f8b_tensor qtg = pdown(&qt);
	float *ag2 = fdown(&all), *sg = fdown(&si1);
	tap_ok(rc == F8B_OK && same(qtg.data, qt.h.data, (size_t)(R * C), 1, "q_t") &&
	           same(ag2, all.h, 1, 4, "amax (only read)") && same(sg, si1.h, 1, 4, "scale_inv"),
	       "%s: tensorwise q^T from the given amax, bit-exact, amax left as it was", what);
	free(ag), free(ag2), free(sg);
	f8b_tensor_free(H, hbe, &qtg);
	if (w != W_PLAIN)
		f8b_tensor_free(H, hbe, &vg);
	pfree(&a), pfree(&b), pfree(&q), pfree(&qt), pfree(&v), pfree(&vd);
	ffree(&am), ffree(&si), ffree(&all), ffree(&si1), ffree(&mean), ffree(&rstd);
}

int main(void)
{
	char msg[320];
	int rc;

	lls_pt_prog = "test_lls_fused";
	rc = lls_pt_open(msg, sizeof msg);
	if (rc == 77)
		return tap_skip_all(msg);
	if (!tap_ok(rc == 0, "%s", msg))
		return tap_done();
	tap_diag("%s", msg);

	static const struct fspec specs[] = {
	    {F8B_GRAN_TENSORWISE, F8B_E4M3, false, true, false},
	    {F8B_GRAN_TENSORWISE, F8B_E4M3, false, true, true},
	    {F8B_GRAN_TENSORWISE, F8B_E5M2, true, true, false},
	    {F8B_GRAN_TENSORWISE, F8B_E4M3, false, false, false},
	    {F8B_GRAN_TENSORWISE, F8B_E5M2, false, false, true},
	    {F8B_GRAN_AXISWISE, F8B_E4M3, false, false, false},
	    {F8B_GRAN_BLOCK1X128, F8B_E4M3, false, false, false},
	    {F8B_GRAN_BLOCK1X128, F8B_E5M2, false, false, false},
	};
	/* 1030 x 4104: 585 tiles of the tensorwise tile pass, more than its
	 * resident blocks on an H100 (4 per SM for LayerNorm and sigmoid);
	 * 2100 x 1000 and 1500 x 2056: more rows than the row kernel's
	 * resident blocks, each block prefetching its next row */
	static const int64_t fshapes[][2] = {{9, 264},     {9, 263},     {130, 4104}, {2, 16384},
	                                     {1030, 4104}, {2100, 1000}, {1500, 2056}};
	for (int w = W_LN; w <= W_PLAIN; w++)
		for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
			for (size_t i = 0; i < sizeof fshapes / sizeof fshapes[0]; i++)
				test_fused(w, &specs[s], fshapes[i][0], fshapes[i][1]);
	/* 2100 x 4104: 1105 tiles, more than 5 a SM on an H100, so the tile
	 * pass stages its chunks in shared memory (cast_transpose.cu): the
	 * tensorwise casts of pass 2 (LayerNorm and plain bf16 sources, the
	 * ones it stages), block maxima and not, q_t or not */
	for (size_t s = 0; s < 5; s++) {
		test_fused(W_LN, &specs[s], 2100, 4104);
		test_fused(W_PLAIN, &specs[s], 2100, 4104);
	}
	for (int w = W_LN; w <= W_PLAIN; w++) {
		test_amax_all(w, 9, 264);
		test_amax_all(w, 1500, 2056); /* more rows than resident blocks */
	}
	/* cast_fused of rows longer than the row kernel holds
	 * (F8B_LLS_ROW_MAX_COLS): axiswise and block1x128 from the tile
	 * kernels, the same bytes; a ragged last 128-column block, and the
	 * 28672-column rows of a Llama 2 70B FFN weight */
	static const int64_t lshapes[][2] = {{3, F8B_LLS_ROW_MAX_COLS + 8}, {5, 20001}, {4, 28672}};
	for (size_t s = 5; s < sizeof specs / sizeof specs[0]; s++)
		for (size_t i = 0; i < sizeof lshapes / sizeof lshapes[0]; i++)
			test_fused(W_PLAIN, &specs[s], lshapes[i][0], lshapes[i][1]);
	test_amax_all(W_PLAIN, 3, 20001);

	lls_pt_close();
	return tap_done();
}