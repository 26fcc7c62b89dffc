/* test_f8b_gemm.c - f8bench's own sm_90a fp8 GEMM (--impl f8b,
 * kernels/gemm/) against the double reference, through the cuda backend's
 * ops table like test_gemm_cuda.c does for cuBLASLt.
 *
 * For every shape (square, non-square, and ragged: M and N not multiples of
 * any tile, K a multiple of 16 but not of 128), every scaling (tensorwise,
 * axiswise, axiswise x tensorwise and the reverse, blockwise 1x128 x
 * 128x128 and 1x128 x 1x128), every fp8 dtype pair, bf16 and f32 output,
 * fast_accum on and off, and every tile the kernel has for that mode
 * (algorithm candidates 0..n-1; the ping-pong and cluster tiles, FAST
 * only today, in passes of their own after the others): quantise A and B on
 * the GPU (inputs with 1 % outliers at 30x, so that scales differ by an
 * order of magnitude between rows and blocks and a misplaced scale is an
 * O(1) error), download what the GEMM reads, compute D in double on the host, poison D (all-ones
 * bytes: NaN in bf16 and f32) and run the kernel; rel_error must be within
 * f8b_gemm_tolerance(K, out, fast_accum) - the very tolerance the cuBLASLt
 * rows use.  Two shapes have inputs of mean 1 and long K, where fast
 * accumulation's error is 4-18x the tolerance without it (f32 output): they
 * fail a kernel that does not promote.  Large shapes are checked on sampled
 * rows (the last row always among them).  What the kernel does not take is refused
 * with F8B_EUNSUPPORTED, also checked.  The kernel's layers on their own:
 * test_f8b_gemm_layers.
 *
 * e4m3 output (doc/gemm-kernels.md "fp8 output": FAST and PROMOTE of the
 * 128x128 and 128x256 tiles, e4m3 x e4m3), in a pass of its own after the
 * others (the host's pick through TMA; on the small shapes every tile, and
 * the pick with direct stores): every shape, the tensorwise and axiswise scalings, fast_accum on
 * and off, through gemm_out8.h - D within one e4m3 step of the reference
 * quantised the same way (D poisoned with NaN codes first), amax_d the
 * reference's (poisoned with 1e30: the launch must zero it), and at 4 x
 * d_scale saturation to +-448, never NaN; the other dtype pairs, the block
 * modes and the fused sigmoid with an e4m3 D are refused.
 *
 * Axiswise B with its scales 4 bytes past an 8-byte boundary (a copy
 * of them at an odd float; the epilogue reads them a pair at a time only
 * where they are 8-byte aligned): the host's pick, bf16 D, main pass.
 *
 * The transposed write (out_t, doc/gemm-kernels.md "Transposed write"):
 * every bf16 case of e4m3 x e4m3 in the main, cluster and direct passes
 * runs again with D^T, every tile that writes it (the host's pick only
 * where D's rows are sampled), the fused sigmoid's too, and the e4m3
 * pass runs each case with D^T as well where D is checked whole; D^T
 * (poisoned first) must be D's bytes transposed, every element; f32 and
 * cuBLASLt are refused.
 *
 * F8B_TEST_SMALL=1 runs three small shapes only, e4m3 x e4m3 with bf16
 * output, every mode and tile (for compute-sanitizer).  F8B_TEST_E4M3=1
 * runs the e4m3-output pass alone (every shape), e.g. after a change to
 * its check; F8B_TEST_SHAPE=MxKxN runs that one shape of the list;
 * F8B_TEST_PASSES=main,direct (any of main pingpong cluster direct e4m3,
 * comma-separated) runs those passes only, e.g. main for a new tile;
 * make check sets main,pingpong and runs the cluster and direct passes as
 * tests/gpu/f8b_gemm_direct.sh and the e4m3 pass as
 * tests/gpu/f8b_gemm_e4m3.sh, in parallel.
 * Without a GPU: "1..0 # SKIP no CUDA GPU: why" and exit 77; on a GPU that
 * is not sm_90 every case is a TAP skip naming why.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "backend/backend.h"
#include "backend/reference.h"
#include "core/fp8.h"
#include "core/scaling.h"
#include "gemm_out8.h"

static const struct f8b_backend_ops *ops = &f8b_backend_cuda;
static struct f8b_backend *be;
static bool only_small;
static bool sm90; /* every case must run: a refusal fails */

#define COUNT(x)      (sizeof(x) / sizeof((x)[0]))
#define FULL_CHECK_MK ((int64_t)1 << 22) /* check every row below M*N of this */
#define SAMPLE_ROWS   96

/* M K N, as in inputs/. */
static const struct shape {
	int64_t m, k, n;
	bool small;  /* run under F8B_TEST_SMALL too */
	float mean;  /* of the inputs (std 1); 0 with outliers, 1 without */
	bool direct; /* in the direct-store pass too (the small ones always are) */
} shapes[] = {
    {128, 128, 128, false, 0, false},    /* one tile, one K-block */
    {16, 16, 16, true, 0, false},        /* far below a tile: TMA zero fill on every side */
    {272, 1040, 528, true, 0, false},    /* ragged M, N, K (K = 8 x 128 + 16); N: 128x192 tiles */
    {128, 2048, 128, true, 1, false},    /* mean 1: fast accumulation fails the tolerance without */
    {256, 512, 384, false, 0, false},    /* non-square */
    {208, 272, 400, false, 0, false},    /* 3 K-blocks: the two-group promotion's odd tail after
                                          * one pair; ragged; 128x192 tiles at columns 192, 384 */
    {1024, 1024, 1024, false, 0, false}, /* square */
    {1040, 2064, 2320, false, 0, true},  /* ragged, more tiles than SMs: persistent CTAs wrap
                                          * the ring */
    {256, 8192, 384, false, 1, false},   /* mean 1, long K */
    {4096, 4096, 4096, false, 0, false}, /* the benchmark's first size, sampled rows */
};

static const struct dtype_pair {
	enum f8b_dtype a, b;
} dtypes[] = {
    {F8B_E4M3, F8B_E4M3},
    {F8B_E4M3, F8B_E5M2},
    {F8B_E5M2, F8B_E4M3},
};

/* The tiles run in passes, one after the other over every shape, so that
 * a failure in a later one (a trap leaves the CUDA context unusable)
 * cannot hide the results of an earlier one: the tiles the host picks,
 * then the --autotune-only tiles, the ping-pong one (algo_custom 1) and
 * the cluster ones (algo_cluster 3 = 2x1x1); last, every tile of
 * every mode again with the epilogue's direct stores in place of TMA
 * (F8B_KGEMM_DIRECT_STORE=1, which a plan reads: the fp8 GEMM's N is a
 * multiple of 16, so D's rows always suit TMA otherwise), on the small
 * shapes and one ragged one; then the e4m3-output variants on every shape. */
enum pass { PASS_MAIN, PASS_PINGPONG, PASS_CLUSTER, PASS_DIRECT, PASS_E4M3, NPASSES };

static const struct scaling {
	enum f8b_granularity a, b;
	/* a FAST mode with fast_accum on: run in the ping-pong pass */
	bool fast_mode;
	/* run in the cluster pass too: the two scalings of the epilogue
	 * whose scale reads differ (a scalar, vectors); with fast_accum off
	 * too, should the table get a cluster tile of PROMOTE */
	bool cluster_pass;
} scalings[] = {
    {F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, true, true},
    {F8B_GRAN_AXISWISE, F8B_GRAN_AXISWISE, true, true},
    {F8B_GRAN_AXISWISE, F8B_GRAN_TENSORWISE, true, false},
    {F8B_GRAN_TENSORWISE, F8B_GRAN_AXISWISE, true, false},
    {F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK128X128, false, false},
    {F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK1X128, false, false},
};

static bool in_pass(const struct scaling *sc, enum pass pass)
{
	return pass == PASS_MAIN || pass == PASS_DIRECT ||
	       ((pass == PASS_PINGPONG || pass == PASS_E4M3) && sc->fast_mode) ||
	       (pass == PASS_CLUSTER && sc->cluster_pass);
}

struct operand {
	int64_t rows, cols;
	enum f8b_granularity g;
	struct f8b_tensor hp, q;
	float *amax, *scale, *scale_inv; /* device, f8b_scale_count(g, rows, cols) each */
	float *deq;                      /* host, dequantised */
};

static void release(struct operand *o)
{
	f8b_tensor_free(ops, be, &o->q);
	ops->free(be, o->amax);
	ops->free(be, o->scale);
	ops->free(be, o->scale_inv);
	free(o->deq);
	o->amax = o->scale = o->scale_inv = NULL;
	o->deq = NULL;
}

static int fill(struct operand *o, int64_t rows, int64_t cols, float mean, uint64_t seed)
{
	struct f8b_fill_spec spec = {.seed = seed,
	                             .mean = mean,
	                             .std = 1.0f,
	                             .outlier_frac = mean == 0 ? 0.01f : 0.0f,
	                             .outlier_scale = 30.0f};

	memset(o, 0, sizeof *o);
	o->rows = rows;
	o->cols = cols;
	F8B_TRY(f8b_tensor_alloc(ops, be, &o->hp, F8B_BF16, rows, cols));
	return ops->fill(be, &o->hp, &spec);
}

/* amax -> scale -> cast on the GPU at granularity g; the fp8 bytes and
 * scale_inv downloaded and dequantised for the reference. */
static int quantize(struct operand *o, enum f8b_dtype dt, enum f8b_granularity g)
{
	struct f8b_scale_opts so = {.margin = 0.0f, .pow2 = false};
	size_t n = (size_t)(o->rows * o->cols);
	int64_t ns = f8b_scale_count(g, o->rows, o->cols);
	int rc;

	o->g = g;
	F8B_TRY(f8b_tensor_alloc(ops, be, &o->q, dt, o->rows, o->cols));
	F8B_TRY(ops->alloc(be, sizeof(float) * (size_t)ns, (void **)&o->amax));
	F8B_TRY(ops->alloc(be, sizeof(float) * (size_t)ns, (void **)&o->scale));
	F8B_TRY(ops->alloc(be, sizeof(float) * (size_t)ns, (void **)&o->scale_inv));
	/* block128x128 rows are padded: the padding is never read, but set */
	F8B_TRY(ops->memset(be, o->amax, 0, sizeof(float) * (size_t)ns));
	F8B_TRY(ops->amax(be, &o->hp, g, o->amax));
	F8B_TRY(ops->scales(be, o->amax, ns, dt, &so, o->scale, o->scale_inv));
	F8B_TRY(ops->cast(be, &o->hp, g, o->scale, &o->q));
	uint8_t *qh = tap_xcalloc(n, 1);
	float *sinv = tap_xcalloc((size_t)ns, sizeof(float));
	o->deq = tap_xcalloc(n, sizeof(float));
	rc = ops->download(be, qh, o->q.data, n);
	if (rc == F8B_OK)
		rc = ops->download(be, sinv, o->scale_inv, sizeof(float) * (size_t)ns);
	if (rc == F8B_OK)
		rc = f8b_ref_dequantize(qh, dt, o->rows, o->cols, g, sinv, o->deq);
	free(sinv);
	free(qh);
	return rc;
}

/* What a wrong D looks like, to tell which part of the kernel to look at
 * (TAP comments, printed only for a failing case): how many elements were
 * never written (still NaN), the best single factor between D and ref (a
 * scale error gives a clean factor), and the relative error by position
 * inside a tile - rows by 8 (a warp's row halves: fragment layout), columns
 * by 8 (one wgmma n-octet), K not involved - and by tile, for the first
 * tiles: a pipeline (phase) error shows as whole tiles wrong, a descriptor
 * or swizzle error as all tiles wrong in the same pattern. */
static void explain(const char *label, const float *d, const double *ref, const int64_t *rows,
                    int64_t nrows, int64_t n, int bn)
{
	double dr = 0, rr = 0, er[16] = {0}, nr[16] = {0}, ec[32] = {0}, nc[32] = {0};
	double et[8] = {0}, nt[8] = {0};
	size_t nan = 0;
	int cgroups = bn / 8 < 32 ? bn / 8 : 32;

	for (int64_t i = 0; i < nrows; i++)
		for (int64_t j = 0; j < n; j++) {
			double x = d[i * n + j], y = ref[i * n + j];
			if (!isfinite(x)) {
				nan++;
				continue;
			}
			double e = (x - y) * (x - y), w = y * y;
			dr += x * y;
			rr += y * y;
			int r = (int)(rows[i] % 128) / 8, c = (int)(j % bn) / 8 % cgroups;
			int t = (int)((rows[i] / 128) * ((n + bn - 1) / bn) + j / bn);
			er[r] += e;
			nr[r] += w;
			ec[c] += e;
			nc[c] += w;
			if (t < 8) {
				et[t] += e;
				nt[t] += w;
			}
		}
	tap_diag("%s: DIAGNOSIS: %zu checked elements not finite (unwritten: D was NaN-poisoned); "
	         "best factor D/ref %.6g",
	         label, nan, rr > 0 ? dr / rr : 0.0);
	char line[1024];
	int o = 0;
	for (int r = 0; r < 16; r++)
		o += snprintf(line + o, sizeof line - (size_t)o, " %.1e",
		              nr[r] > 0 ? sqrt(er[r] / nr[r]) : 0.0);
	tap_diag("%s: DIAGNOSIS: rel error by tile row group (rows 8g..8g+7 of 128):%s", label,
	         line);
	o = 0;
	for (int c = 0; c < cgroups; c++)
		o += snprintf(line + o, sizeof line - (size_t)o, " %.1e",
		              nc[c] > 0 ? sqrt(ec[c] / nc[c]) : 0.0);
	tap_diag("%s: DIAGNOSIS: rel error by tile column octet (of %d columns):%s", label, bn,
	         line);
	o = 0;
	for (int t = 0; t < 8; t++)
		o += snprintf(line + o, sizeof line - (size_t)o, " %.1e",
		              nt[t] > 0 ? sqrt(et[t] / nt[t]) : 0.0);
	tap_diag("%s: DIAGNOSIS: rel error of tiles 0..7 (row-major tile index):%s", label, line);
}

/* One GEMM of a shape: its operands (quantised), the checked rows and
 * their reference. */
struct gemm_case {
	const struct shape *s;
	const struct scaling *sc;
	enum f8b_dtype at, bt, out;
	bool fast;
	enum pass pass;
	struct operand *a, *b;
	const int64_t *rows;
	int64_t nrows;
	const double *ref;
	bool sigmoid;     /* the fused sigmoid epilogue (F8B_GEMM_EPI_SIGMOID) */
	bool trans;       /* D^T written too (out_t): D's bytes transposed, every one */
	float *keep;      /* where to copy the checked rows of D (a plain f32 run) */
	const float *v32; /* sigmoid: the same GEMM's own f32 sum on those rows */
	/* B's axiswise scales 4 bytes past an 8-byte boundary (a copy), so
	 * that the epilogue cannot read them a pair a load */
	bool b_off;
};

static int tile_width(int algo_tile)
{
	return algo_tile == 23 ? 256 : algo_tile == 32 ? 192 : 128;
}

/* Checks D (downloaded, as f32) against the reference on the case's rows. */
static void check_d(const struct gemm_case *c, const char *label, const float *full,
                    const struct f8b_algo_info *info)
{
	const struct shape *s = c->s;
	size_t ns = (size_t)(c->nrows * s->n);
	float *sub = tap_xcalloc(ns, sizeof(float));
	for (int64_t i = 0; i < c->nrows; i++)
		memcpy(sub + i * s->n, full + c->rows[i] * s->n, (size_t)s->n * sizeof(float));
	const double *ref = c->ref;
	double *sref = NULL;
	double tol = f8b_gemm_tolerance(s->k, c->out, c->fast);
	if (c->sigmoid) {
		/* y = 1 / (1 + exp(-v)) of the reference.  |dy| <= |dv| / 4, and
		 * v is not rounded before the sigmoid: the sum's error is the
		 * f32-output tolerance's, a quarter of it in y, taken against
		 * y's norm; then y's one rounding (the output's part of the
		 * tolerance). */
		double nv = 0, ny = 0;
		sref = tap_xcalloc(ns, sizeof(double));
		for (size_t i = 0; i < ns; i++) {
			sref[i] = 1.0 / (1.0 + exp(-c->ref[i]));
			nv += c->ref[i] * c->ref[i];
			ny += sref[i] * sref[i];
		}
		double t32 = f8b_gemm_tolerance(s->k, F8B_F32, c->fast);
		tol = (tol - t32) + 0.25 * t32 * sqrt(nv / ny) + 0x1p-22;
		ref = sref;
	}
	double err = f8b_rel_error(sub, ref, ns);
	size_t bad = 0;
	for (size_t i = 0; i < ns; i++)
		bad += !isfinite(sub[i]);
	tap_diag("%s: rel_error=%.3e tol=%.3e SQNR=%.1f dB, %lld of %lld rows checked [%s]", label,
	         err, tol, f8b_sqnr_db(sub, ref, ns), (long long)c->nrows, (long long)s->m,
	         info->desc);
	tap_ok(bad == 0, "%s: every checked element written and finite (%zu not)", label, bad);
	if (!tap_ok(err <= tol, "%s: rel_error %.3e <= tolerance %.3e", label, err, tol))
		explain(label, sub, ref, c->rows, c->nrows, s->n, tile_width(info->tile));
	if (c->keep)
		memcpy(c->keep, sub, ns * sizeof(float));
	if (c->sigmoid && c->v32) {
		/* Sharper: y against the host's sigmoid of this kernel's own f32
		 * sum, rounded to the output type.  They differ only by the fast
		 * exp and reciprocal (a few fp32 ulps): at most one bf16 ulp an
		 * element, 2^-16 relative in f32. */
		double *want = tap_xcalloc(ns, sizeof(double));
		for (size_t i = 0; i < ns; i++) {
			float y = 1.0f / (1.0f + expf(-c->v32[i]));
			want[i] = c->out == F8B_BF16 ? f8b_bf16_to_f32(f8b_f32_to_bf16(y)) : y;
		}
		double e2 = f8b_rel_error(sub, want, ns),
		       t2 = c->out == F8B_BF16 ? 0x1p-8 : 0x1p-16;
		tap_ok(e2 <= t2,
		       "%s: y against the host's sigmoid of the kernel's own f32 sum: %.3e <= %.3e",
		       label, e2, t2);
		free(want);
	}
	free(sref);
	free(sub);
}

/* D^T (device, poisoned before the run) against D (device), m x n
 * elements of es bytes: every element, bit for bit (f8b_gemm_check_t). */
static void check_t(const char *label, const struct f8b_tensor *dt, const struct f8b_tensor *dtt,
                    int64_t m, int64_t n, size_t es)
{
	int64_t off = 0, checked = 0;
	int rc = f8b_gemm_check_t(ops, be, dt->data, dtt->data, m, n, es, true, &off, &checked);
	if (tap_ok(rc == F8B_OK, "%s: download D^T", label))
		tap_ok(off == 0 && checked == m * n,
		       "%s: D^T is D transposed, bit for bit (%lld of %lld differ)", label,
		       (long long)off, (long long)checked);
}

/* Case c's GEMM for impl f8b: output `out`, fast_accum `fast`, D^T beside
 * D when `trans` (no activation). */
static struct f8b_gemm_desc case_desc(const struct gemm_case *c, enum f8b_dtype out, bool fast,
                                      bool trans)
{
	return (struct f8b_gemm_desc){.m = c->s->m,
	                              .n = c->s->n,
	                              .k = c->s->k,
	                              .a_dtype = c->at,
	                              .b_dtype = c->bt,
	                              .out_dtype = out,
	                              .a_gran = c->sc->a,
	                              .b_gran = c->sc->b,
	                              .fast_accum = fast,
	                              .impl = F8B_GEMM_IMPL_F8B,
	                              .out_t = trans};
}

/* Plans candidate `cand` of impl f8b, runs it on poisoned D and checks it;
 * *ncand: the candidates the plan reports. */
static void f8b_case(const struct gemm_case *c, int cand, int *ncand)
{
	const struct shape *s = c->s;
	struct f8b_gemm_desc d = case_desc(c, c->out, c->fast, c->trans);
	d.epilogue = c->sigmoid ? F8B_GEMM_EPI_SIGMOID : F8B_GEMM_EPI_NONE;
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_algo_info info = {.candidates = 1};
	struct f8b_tensor dt = {0}, dtt = {0};
	char label[240];
	int rc;

	snprintf(
	    label, sizeof label,
	    "f8b M=%lld K=%lld N=%lld %s x %s, %s x %s -> %s fast_accum %s candidate %d%s%s%s%s",
	    (long long)s->m, (long long)s->k, (long long)s->n, f8b_dtype_name(c->at),
	    f8b_dtype_name(c->bt), f8b_granularity_name(c->sc->a), f8b_granularity_name(c->sc->b),
	    f8b_dtype_name(c->out), c->fast ? "on" : "off", cand,
	    c->pass == PASS_DIRECT ? ", direct stores" : "", c->sigmoid ? ", sigmoid epilogue" : "",
	    c->trans ? ", D^T too" : "",
	    c->b_off ? ", B's scales 4 bytes off an 8-byte boundary" : "");
	rc = ops->gemm_plan(be, &d, cand, &plan, &info);
	/* Every tile of the mode in turn (at most 8, should the table grow). */
	*ncand = info.candidates >= 1 && info.candidates <= 8 ? info.candidates : 1;
	if (rc == F8B_EUNSUPPORTED && !sm90) {
		tap_skip("unsupported: %s", f8b_last_error());
		return;
	}
	/* Each tile in its own pass (enum pass). */
	enum pass tile_pass = info.cluster == 3  ? PASS_CLUSTER
	                      : info.custom == 1 ? PASS_PINGPONG
	                                         : PASS_MAIN;
	if (rc == F8B_OK && c->pass != PASS_DIRECT && tile_pass != c->pass) {
		ops->gemm_plan_free(be, plan);
		return;
	}
	if (!tap_ok(rc == F8B_OK, "%s: plan%s%s", label, rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		return;
	tap_ok(info.candidates >= 1 && info.heuristic_rank == cand && info.desc[0] &&
	           (info.tile == 20 || info.tile == 23 || info.tile == 32),
	       "%s: algo info: %s (%d candidates)", label, info.desc, info.candidates);
	tap_ok(strstr(info.desc, c->pass == PASS_DIRECT ? "store=direct" : "store=tma") != NULL &&
	           (strstr(info.desc, "+sigmoid") != NULL) == c->sigmoid &&
	           (strstr(info.desc, "+dT") != NULL) == c->trans,
	       "%s: the epilogue's stores and activation as the case asks (%s)", label, info.desc);
	size_t n = (size_t)(s->m * s->n);
	rc = f8b_tensor_alloc(ops, be, &dt, c->out, s->m, s->n);
	/* All-ones bytes are NaN in bf16 and f32: an element the kernel
	 * never wrote fails the comparison. */
	if (rc == F8B_OK)
		rc = ops->memset(be, dt.data, 0xFF, f8b_tensor_bytes(&dt));
	if (rc == F8B_OK && c->trans)
		rc = f8b_tensor_alloc(ops, be, &dtt, c->out, s->n, s->m);
	if (rc == F8B_OK && c->trans)
		rc = ops->memset(be, dtt.data, 0xFF, f8b_tensor_bytes(&dtt));
	struct f8b_gemm_args args = {.a = c->a->q.data,
	                             .b = c->b->q.data,
	                             .a_scale_inv = c->a->scale_inv,
	                             .b_scale_inv = c->b->scale_inv,
	                             .d = dt.data,
	                             .d_t = dtt.data};
	float *b_off = NULL; /* c->b_off: ns + 1 floats, B's scales from the second */
	if (rc == F8B_OK && c->b_off) {
		const size_t ns = (size_t)f8b_scale_count(c->b->g, c->b->rows, c->b->cols);
		float *h = tap_xcalloc(ns, sizeof(float));
		rc = ops->alloc(be, sizeof(float) * (ns + 1), (void **)&b_off);
		if (rc == F8B_OK)
			rc = ops->download(be, h, c->b->scale_inv, sizeof(float) * ns);
		if (rc == F8B_OK)
			rc = ops->upload(be, b_off + 1, h, sizeof(float) * ns);
		free(h);
		args.b_scale_inv = b_off + 1;
	}
	if (rc == F8B_OK)
		rc = ops->gemm(be, plan, &args);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (tap_ok(rc == F8B_OK, "%s: gemm + sync%s%s", label, rc ? ": " : "",
	           rc ? f8b_last_error() : "")) {
		void *raw = tap_xcalloc(n, f8b_dtype_size(c->out));
		float *full = tap_xcalloc(n, sizeof(float));
		rc = ops->download(be, raw, dt.data, f8b_tensor_bytes(&dt));
		if (tap_ok(rc == F8B_OK, "%s: download D", label)) {
			f8b_to_f32(raw, c->out, full, n);
			check_d(c, label, full, &info);
			if (c->trans)
				check_t(label, &dt, &dtt, s->m, s->n, f8b_dtype_size(c->out));
		}
		free(full);
		free(raw);
	}
	if (b_off)
		ops->free(be, b_off);
	f8b_tensor_free(ops, be, &dtt);
	f8b_tensor_free(ops, be, &dt);
	ops->gemm_plan_free(be, plan);
}

/* Every output type, accumulation mode and candidate of one quantised
 * case. */
static void run_outputs(struct gemm_case *c)
{
	static const enum f8b_dtype outs[] = {F8B_BF16, F8B_F32};
	for (size_t oi = 0; oi < (only_small ? 1 : COUNT(outs)); oi++)
		for (int fast = 1; fast >= 0; fast--) {
			if (c->pass == PASS_PINGPONG && !fast)
				continue; /* the ping-pong tile is FAST only */
			c->out = outs[oi];
			c->fast = fast != 0;
			int ncand = 1;
			for (int cand = 0; cand < ncand; cand++)
				f8b_case(c, cand, &ncand);
			/* D^T beside D (bf16, e4m3 x e4m3: the operands' types
			 * do not reach the epilogue): every tile that writes it
			 * (the cooperative ones: the candidates of an out_t
			 * plan), the host's pick alone on shapes whose D is
			 * checked on sampled rows (D^T is compared whole: the
			 * big ones cost make check a minute and a half) */
			if (c->out == F8B_BF16 && c->pass != PASS_PINGPONG && c->at == F8B_E4M3 &&
			    c->bt == F8B_E4M3) {
				const bool every = c->nrows == c->s->m;
				c->trans = true;
				ncand = 1;
				for (int cand = 0; cand < (every ? ncand : 1); cand++)
					f8b_case(c, cand, &ncand);
				c->trans = false;
			}
			/* B's axiswise scales at an address the epilogue cannot
			 * read a pair at a time: the host's pick, bf16 D */
			if (c->pass == PASS_MAIN && c->out == F8B_BF16 &&
			    c->sc->b == F8B_GRAN_AXISWISE) {
				c->b_off = true;
				f8b_case(c, 0, &ncand);
				c->b_off = false;
			}
			/* The fused sigmoid (lls's forward GEMM): the host's pick of
			 * each mode, both ways to D. */
			if (c->pass == PASS_MAIN || c->pass == PASS_DIRECT) {
				enum f8b_dtype out = c->out;
				float *v32 =
				    tap_xcalloc((size_t)(c->nrows * c->s->n), sizeof(float));
				c->out = F8B_F32;
				c->keep = v32;
				f8b_case(c, 0, &ncand); /* the kernel's own sum, kept */
				c->keep = NULL;
				c->out = out;
				c->sigmoid = true;
				c->v32 = v32;
				f8b_case(c, 0, &ncand);
				if (out == F8B_BF16 && c->at == F8B_E4M3 &&
				    c->bt == F8B_E4M3) { /* the sigmoid's y transposed too */
					c->trans = true;
					f8b_case(c, 0, &ncand);
					c->trans = false;
				}
				c->sigmoid = false;
				c->v32 = NULL;
				free(v32);
			}
		}
}

/* One e4m3-D run of the case (run_out8): candidate cand through TMA, or
 * (direct) the pick with direct stores, fast_accum `fast`, D^T beside D
 * when `trans`, checked by gemm_out8.h.  Returns the plan's tile (-1 when
 * it did not run) and, through *ncand, how many candidates the host has
 * (set by the first run of a small shape).  tiles[0..nt): the tiles of
 * earlier candidates, which this one must differ from (nt 0: no check). */
static int out8_case(const struct gemm_case *c, int cand, bool direct, bool fast, bool trans,
                     const int *tiles, int nt, int *ncand)
{
	const struct shape *s = c->s;
	struct f8b_gemm_desc d = case_desc(c, F8B_E4M3, fast, trans);
	char label[260];
	struct out8_result r;
	snprintf(label, sizeof label,
	         "f8b M=%lld K=%lld N=%lld %s x %s, %s x %s -> e4m3%s fast_accum %s candidate %d%s",
	         (long long)s->m, (long long)s->k, (long long)s->n, f8b_dtype_name(c->at),
	         f8b_dtype_name(c->bt), f8b_granularity_name(c->sc->a),
	         f8b_granularity_name(c->sc->b), trans ? " and D^T" : "", fast ? "on" : "off", cand,
	         direct ? " direct" : "");
	out8_run(ops, be, &d, cand, &c->a->q, &c->b->q, c->a->scale_inv, c->b->scale_inv, &c->a->hp,
	         &c->b->hp, c->nrows, &r);
	if (r.unsupported && !sm90) {
		tap_skip("unsupported: %s", f8b_last_error());
		return -1;
	}
	if (!tap_ok(r.rc == F8B_OK, "%s: %s%s%s", label, r.step, r.rc ? ": " : "",
	            r.rc ? f8b_last_error() : ""))
		return -1;
	if (ncand)
		*ncand = r.info.candidates >= 1 && r.info.candidates <= 8 ? r.info.candidates : 1;
	const struct f8b_gemm_verdict *vd = &r.v, *w = &r.vsat;
	tap_diag("%s: d_scale %g: rel_error=%.3e tol=%.3e SQNR=%.1f dB, amax_d %.7g (reference "
	         "%.7g%s), max |D| %d steps from e4m3(amax_d * d_scale) [%s]",
	         label, r.d_scale, vd->rel_error, vd->tolerance, vd->sqnr_db, vd->amax_d,
	         vd->amax_ref, vd->sampled ? ", sampled" : "", vd->max_steps, r.info.desc);
	bool other = true;
	for (int u = 0; u < nt; u++)
		other = other && tiles[u] != r.info.tile;
	tap_ok(strstr(r.info.desc, direct ? "store=direct+amax" : "store=tma+amax") &&
	           r.info.heuristic_rank == cand && other &&
	           (strstr(r.info.desc, "+dT") != NULL) == trans,
	       "%s: %s stores and the amax%s (%s)", label, direct ? "direct" : "TMA",
	       trans ? ", D^T through TMA" : "", r.info.desc);
	if (trans)
		tap_ok(r.t_off == 0,
		       "%s: D^T is D transposed, byte for byte, at d_scale and 4 x d_scale (%lld "
		       "differ)",
		       label, (long long)r.t_off);
	tap_ok(vd->ok && vd->off == 0 && vd->amax_ok,
	       "%s: D within one e4m3 step of the quantised reference (%lld of %lldx%lld off), "
	       "rel_error %.3e <= %.3e, amax_d %.7g vs %.7g",
	       label, (long long)vd->off, (long long)vd->rows, (long long)vd->cols, vd->rel_error,
	       vd->tolerance, vd->amax_d, vd->amax_ref);
	tap_ok(r.amax_d < OUT8_POISON,
	       "%s: amax_d %.7g: zeroed by the launch, not maxed with the %g it held", label,
	       r.amax_d, OUT8_POISON);
	/* the same kernel on the same data: the same sums, the same max */
	tap_ok(w->off == 0 && w->amax_ok && r.nan_codes == 0 && r.sat_codes > 0 &&
	           r.amax_sat == r.amax_d,
	       "%s: at 4 x d_scale %lld elements saturate to +-448, %lld NaN (none allowed), %lld "
	       "off, amax_d %.7g (%.7g at d_scale)",
	       label, (long long)r.sat_codes, (long long)r.nan_codes, (long long)w->off, r.amax_sat,
	       r.amax_d);
	return r.info.tile;
}

/* An e4m3 D (PASS_E4M3): the host's pick through TMA, fast_accum on and
 * off, run and checked by gemm_out8.h, D^T written beside D too where D is
 * checked whole; on the small shapes (F8B_TEST_SMALL's) also every other
 * candidate tile (info.candidates) through TMA, each a tile of its own, and
 * the pick with direct stores (F8B_KGEMM_DIRECT_STORE=1).  Every variant
 * on every shape took the pass past its 360 s (the host's checks of
 * 1040x2064x2320). */
static void run_out8(const struct gemm_case *c)
{
	/* fast_accum on, off; then each with D^T written too, where D is
	 * checked whole (on the sampled shape the two more runs doubled the
	 * pass's host references: bf16 D^T covers it in the main pass) */
	const int runs = c->nrows == c->s->m ? 4 : 2;
	int ncand = 1, tiles[8];
	for (int v = 0; v < ncand; v++) /* candidate v through TMA */
		for (int run = 0; run < runs; run++) {
			const int t =
			    out8_case(c, v, false, !(run & 1), run >= 2, tiles, run == 0 ? v : 0,
			              v == 0 && run == 0 && c->s->small ? &ncand : NULL);
			if (run == 0)
				tiles[v] = t;
		}
	if (!c->s->small)
		return;
	/* the pick with direct stores */
	if (setenv("F8B_KGEMM_DIRECT_STORE", "1", 1) != 0) {
		tap_ok(false, "setenv F8B_KGEMM_DIRECT_STORE");
		return;
	}
	for (int run = 0; run < runs; run++)
		out8_case(c, 0, true, !(run & 1), run >= 2, NULL, 0, NULL);
	unsetenv("F8B_KGEMM_DIRECT_STORE");
}

static void run_shape(const struct shape *s, uint64_t seed, enum pass pass)
{
	struct operand a = {0}, b = {0};
	int64_t nrows = s->m * s->n <= FULL_CHECK_MK ? s->m : SAMPLE_ROWS;
	int64_t *rows = tap_xcalloc((size_t)nrows, sizeof *rows);
	double *ref = tap_xcalloc((size_t)(nrows * s->n), sizeof(double));
	int rc;

	/* Sampled rows spread over M, the last one included (the ragged tile). */
	for (int64_t i = 0; i < nrows; i++)
		rows[i] = nrows == s->m ? i : i * (s->m - 1) / (nrows - 1);
	rc = fill(&a, s->m, s->k, s->mean, seed);
	if (rc == F8B_OK)
		rc = fill(&b, s->n, s->k, s->mean, seed + 1);
	if (!tap_ok(rc == F8B_OK, "M=%lld K=%lld N=%lld: fill%s%s", (long long)s->m,
	            (long long)s->k, (long long)s->n, rc ? ": " : "", rc ? f8b_last_error() : ""))
		goto out;
	for (size_t si = 0; si < COUNT(scalings); si++) {
		if (!in_pass(&scalings[si], pass))
			continue;
		/* e4m3 output: e4m3 x e4m3 only (the others are refused) */
		size_t ndt = only_small || pass == PASS_E4M3 ? 1 : COUNT(dtypes);
		for (size_t di = 0; di < ndt; di++) {
			const struct scaling *sc = &scalings[si];
			rc = quantize(&a, dtypes[di].a, sc->a);
			if (rc == F8B_OK)
				rc = quantize(&b, dtypes[di].b, sc->b);
			if (rc == F8B_OK)
				rc = f8b_ref_gemm_rows(a.deq, b.deq, s->m, s->n, s->k, rows, nrows,
				                       ref);
			if (tap_ok(
			        rc == F8B_OK,
			        "M=%lld K=%lld N=%lld %s x %s, %s x %s: quantise and reference%s%s",
			        (long long)s->m, (long long)s->k, (long long)s->n,
			        f8b_dtype_name(dtypes[di].a), f8b_dtype_name(dtypes[di].b),
			        f8b_granularity_name(sc->a), f8b_granularity_name(sc->b),
			        rc ? ": " : "", rc ? f8b_last_error() : "")) {
				struct gemm_case c = {.s = s,
				                      .sc = sc,
				                      .at = dtypes[di].a,
				                      .bt = dtypes[di].b,
				                      .pass = pass,
				                      .a = &a,
				                      .b = &b,
				                      .rows = rows,
				                      .nrows = nrows,
				                      .ref = ref};
				if (pass == PASS_E4M3)
					run_out8(&c);
				else
					run_outputs(&c);
			}
			release(&a);
			release(&b);
		}
	}
out:
	f8b_tensor_free(ops, be, &a.hp);
	f8b_tensor_free(ops, be, &b.hp);
	free(ref);
	free(rows);
}

/* What the kernel does not take is refused, naming why: "impl f8b", or,
 * for what no implementation takes (A in 128x128 blocks), the operand's
 * granularity, refused by the problem's check before any plan. */
static void test_refusals(void)
{
	static const struct {
		enum f8b_granularity ga, gb;
		enum f8b_dtype at;
		const char *what, *why;
	} cases[] = {
	    {F8B_GRAN_BLOCK128X128, F8B_GRAN_TENSORWISE, F8B_E4M3, "block128x128 x tensorwise",
	     "A (input) granularity block128x128"},
	    {F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, F8B_BF16, "bf16", "impl f8b"},
	};
	for (size_t i = 0; i < COUNT(cases); i++)
		for (int fast = 0; fast <= 1; fast++) {
			struct f8b_gemm_desc d = {.m = 256,
			                          .n = 256,
			                          .k = 256,
			                          .a_dtype = cases[i].at,
			                          .b_dtype = cases[i].at,
			                          .out_dtype = F8B_BF16,
			                          .a_gran = cases[i].ga,
			                          .b_gran = cases[i].gb,
			                          .fast_accum = fast != 0,
			                          .impl = F8B_GEMM_IMPL_F8B};
			struct f8b_gemm_plan *plan = NULL;
			int rc = ops->gemm_plan(be, &d, 0, &plan, NULL);
			tap_ok(rc != F8B_OK && !plan && strstr(f8b_last_error(), cases[i].why),
			       "impl f8b refuses %s, fast_accum %s: %s", cases[i].what,
			       fast ? "on" : "off", rc ? f8b_last_error() : "accepted");
			if (plan)
				ops->gemm_plan_free(be, plan);
		}
	/* e4m3 output: compiled for e4m3 x e4m3 in FAST and PROMOTE only, and
	 * never beside the fused sigmoid. */
	static const struct {
		enum f8b_dtype bt;
		enum f8b_granularity ga, gb;
		bool sigmoid;
		const char *what, *why;
	} out8[] = {
	    {F8B_E5M2, F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, false, "e4m3 x e5m2 -> e4m3",
	     "e4m3 x e5m2"},
	    {F8B_E4M3, F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK128X128, false, "blockwise -> e4m3",
	     "e4m3-output"},
	    {F8B_E4M3, F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, true, "sigmoid -> e4m3",
	     "sigmoid"},
	};
	for (size_t i = 0; i < COUNT(out8); i++) {
		struct f8b_gemm_desc d = {.m = 256,
		                          .n = 256,
		                          .k = 256,
		                          .a_dtype = F8B_E4M3,
		                          .b_dtype = out8[i].bt,
		                          .out_dtype = F8B_E4M3,
		                          .a_gran = out8[i].ga,
		                          .b_gran = out8[i].gb,
		                          .impl = F8B_GEMM_IMPL_F8B,
		                          .epilogue = out8[i].sigmoid ? F8B_GEMM_EPI_SIGMOID
		                                                      : F8B_GEMM_EPI_NONE};
		struct f8b_gemm_plan *plan = NULL;
		int rc = ops->gemm_plan(be, &d, 0, &plan, NULL);
		tap_ok(rc == F8B_EUNSUPPORTED && !plan && strstr(f8b_last_error(), out8[i].why),
		       "impl f8b refuses %s: %s", out8[i].what, rc ? f8b_last_error() : "accepted");
		if (plan)
			ops->gemm_plan_free(be, plan);
	}
}

/* The transposed write (out_t): bf16 or e4m3 only, impl f8b only;
 * BLOCK_1X128 takes the 128x128 tile for it (its 128x256 halves have no
 * room for it).  (D^T's rows are 16-byte multiples whenever the problem
 * is taken at all: every fp8 GEMM dimension is a multiple of 16, checked
 * first; test_f8b_gemm_pick.c tests the plan's own check.) */
static void test_refusals_t(void)
{
	static const struct {
		int64_t m;
		enum f8b_dtype out;
		enum f8b_gemm_impl impl;
		int want;
		const char *what, *why;
	} cases[] = {
	    {256, F8B_F32, F8B_GEMM_IMPL_F8B, F8B_EUNSUPPORTED, "f32 D^T", "bf16 or e4m3"},
	    {256, F8B_BF16, F8B_GEMM_IMPL_CUBLASLT, F8B_EUNSUPPORTED, "D^T on cuBLASLt",
	     "needs impl f8b"},
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct f8b_gemm_desc d = {.m = cases[i].m,
		                          .n = 256,
		                          .k = 256,
		                          .a_dtype = F8B_E4M3,
		                          .b_dtype = F8B_E4M3,
		                          .out_dtype = cases[i].out,
		                          .a_gran = F8B_GRAN_TENSORWISE,
		                          .b_gran = F8B_GRAN_TENSORWISE,
		                          .fast_accum = true,
		                          .impl = cases[i].impl,
		                          .out_t = true};
		struct f8b_gemm_plan *plan = NULL;
		int rc = ops->gemm_plan(be, &d, 0, &plan, NULL);
		tap_ok(rc == cases[i].want && !plan && strstr(f8b_last_error(), cases[i].why),
		       "refuses %s: %s", cases[i].what, rc ? f8b_last_error() : "accepted");
		if (plan)
			ops->gemm_plan_free(be, plan);
	}
	struct f8b_gemm_desc d = {.m = 8192,
	                          .n = 8192,
	                          .k = 8192,
	                          .a_dtype = F8B_E4M3,
	                          .b_dtype = F8B_E4M3,
	                          .out_dtype = F8B_BF16,
	                          .a_gran = F8B_GRAN_BLOCK1X128,
	                          .b_gran = F8B_GRAN_BLOCK1X128,
	                          .impl = F8B_GEMM_IMPL_F8B,
	                          .out_t = true};
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_algo_info info = {0};
	int rc = ops->gemm_plan(be, &d, 0, &plan, &info);
	tap_ok(rc == F8B_OK && info.tile == 20 && info.candidates == 1,
	       "blockwise-1x128 with D^T at 8192^3: the 128x128 tile, the only candidate (%s)",
	       rc ? f8b_last_error() : info.desc);
	if (plan)
		ops->gemm_plan_free(be, plan);
}

static const char *const pass_names[NPASSES] = {"main", "pingpong", "cluster", "direct", "e4m3"};

/* Whether pass p is named in the comma-separated list (NULL or empty: every
 * pass); *bad: a name that is no pass. */
static bool pass_listed(int p, const char *list, const char **bad)
{
	if (!list || !*list)
		return true;
	bool found = false;
	for (const char *w = list; *w;) {
		size_t len = strcspn(w, ",");
		bool known = false;
		for (int q = 0; q < NPASSES; q++)
			if (strlen(pass_names[q]) == len && strncmp(w, pass_names[q], len) == 0) {
				known = true;
				found |= q == p;
			}
		if (!known && bad)
			*bad = w;
		w += len + (w[len] == ',');
	}
	return found;
}

/* Whether shape s runs in this pass: F8B_TEST_SMALL keeps the small ones,
 * F8B_TEST_SHAPE=MxKxN (one, or NULL) only that one, and the direct-store
 * pass takes the small shapes and those marked for it. */
static bool shape_runs(const struct shape *s, enum pass pass, const char *one)
{
	char name[64];
	snprintf(name, sizeof name, "%lldx%lldx%lld", (long long)s->m, (long long)s->k,
	         (long long)s->n);
	return (s->small || !only_small) && (!one || strcmp(name, one) == 0) &&
	       (pass != PASS_DIRECT || s->small || s->direct);
}

int main(void)
{
	char why[256], msg[320];
	struct f8b_device_info info;
	const char *small = getenv("F8B_TEST_SMALL"), *e4m3 = getenv("F8B_TEST_E4M3");
	const bool only_e4m3 = e4m3 && *e4m3 && strcmp(e4m3, "0");
	const char *one = getenv("F8B_TEST_SHAPE"), *passes = getenv("F8B_TEST_PASSES");
	const char *bad = NULL;
	int n, rc;

	only_small = small && *small && strcmp(small, "0");
	pass_listed(0, passes, &bad);
	if (bad) {
		printf("Bail out! F8B_TEST_PASSES=%s: \"%.*s\" is none of main pingpong cluster "
		       "direct e4m3\n",
		       passes, (int)strcspn(bad, ","), bad);
		return 1;
	}
	n = f8b_cuda_device_count(why, sizeof why);
	if (n <= 0) {
		snprintf(msg, sizeof msg, "no CUDA GPU: %s", why);
		return tap_skip_all(msg);
	}
	rc = ops->open(0, &be, &info);
	if (rc == F8B_EUNSUPPORTED) {
		snprintf(msg, sizeof msg, "no usable CUDA GPU: %s", f8b_last_error());
		return tap_skip_all(msg);
	}
	if (!tap_ok(rc == F8B_OK, "open device 0%s%s", rc ? ": " : "", rc ? f8b_last_error() : ""))
		return tap_done();
	tap_diag("device 0: %s, sm_%d%d, %d SMs", info.name, info.cc_major, info.cc_minor,
	         info.sm_count);
	sm90 = info.cc_major == 9 && info.cc_minor == 0;
	if (sm90) {
		test_refusals();
		test_refusals_t();
	}
	for (int pass = only_e4m3 ? PASS_E4M3 : 0; pass < NPASSES; pass++) {
		if (!pass_listed(pass, passes, NULL))
			continue;
		if (pass == PASS_DIRECT && setenv("F8B_KGEMM_DIRECT_STORE", "1", 1) != 0) {
			tap_ok(false, "setenv F8B_KGEMM_DIRECT_STORE");
			break;
		}
		for (size_t i = 0; i < COUNT(shapes); i++)
			if (shape_runs(&shapes[i], (enum pass)pass, one))
				run_shape(&shapes[i], 2000 + 10 * i, (enum pass)pass);
		/* the direct pass only: the e4m3 pass after it stores through
		 * TMA but where it asks otherwise */
		unsetenv("F8B_KGEMM_DIRECT_STORE");
	}
	ops->close(be);
	return tap_done();
}
