/* test_f8b_gemm.c - f8bench's own sm_90a fp8 GEMM (--impl f8b,
 * kernels/gemm/) against the double reference, through the cuda backend's
 * ops table like test_gemm_cuda.c does for cuBLASLt.
 *
 * For every shape (square, non-square, and ragged: M and N not multiples of
 * any tile, K a multiple of 16 but not of 128), every fp8 dtype pair, bf16
 * and f32 output, and every tile of the table (algorithm candidates
 * 0..n-1): quantise A and B tensorwise on the GPU, download what the GEMM
 * reads, compute D in double on the host, poison D (all-ones bytes: NaN in
 * bf16 and f32) and run the kernel; rel_error must be within
 * f8b_gemm_tolerance(K, out, fast_accum on) - the very tolerance the
 * cuBLASLt rows use.  Large shapes are checked on sampled rows (the last
 * row always among them).  What the kernel does not take yet is refused
 * with F8B_EUNSUPPORTED, also checked.
 *
 * First the kernel's layers on their own (kernels/gemm/ptx_selftest.cu):
 * a TMA box and its swizzle, one wgmma per K step and N, the mbarrier ring
 * over many wraps - so that a wrong GEMM can be traced to a layer.
 *
 * F8B_TEST_SMALL=1 runs the small shapes only (for compute-sanitizer).
 * Without a GPU: "1..0 # SKIP no CUDA GPU: why" and exit 77; on a GPU that
 * is not sm_90 every case is a TAP skip naming why.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "backend/backend.h"
#include "backend/cuda_internal.h" /* f8b_cuda_kgemm_encode: the layer tests */
#include "kernels/gemm/gemm.h"
#include "backend/reference.h"
#include "core/fp8.h"
#include "core/scaling.h"

static const struct f8b_backend_ops *ops = &f8b_backend_cuda;
static struct f8b_backend *be;

#define COUNT(x)      (sizeof(x) / sizeof((x)[0]))
#define FULL_CHECK_MK ((int64_t)1 << 22) /* check every row below M*N of this */
#define SAMPLE_ROWS   96

/* M K N, as in inputs/. */
static const struct shape {
	int64_t m, k, n;
	bool small; /* run under F8B_TEST_SMALL too */
} shapes[] = {
    {128, 128, 128, true},     /* one tile, one K-block */
    {16, 16, 16, true},        /* far below a tile: TMA zero fill on every side */
    {272, 1040, 528, true},    /* ragged M, N, K (K = 8 x 128 + 16) */
    {256, 512, 384, false},    /* non-square */
    {1024, 1024, 1024, false}, /* square */
    {1040, 2064, 2320, false}, /* ragged, more tiles than SMs: persistent CTAs wrap the ring */
    {4096, 4096, 4096, false}, /* the benchmark's first size, sampled rows */
};

static const struct dtype_pair {
	enum f8b_dtype a, b;
} dtypes[] = {
    {F8B_E4M3, F8B_E4M3},
    {F8B_E4M3, F8B_E5M2},
    {F8B_E5M2, F8B_E4M3},
};

static void skip_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void skip_line(const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("ok %d # SKIP ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "test_f8b_gemm: out of host memory (%zu x %zu bytes)\n", n, size);
		exit(2);
	}
	return p;
}

struct operand {
	int64_t rows, cols;
	struct f8b_tensor hp, q;
	float *amax, *scale, *scale_inv; /* device, one float each (tensorwise) */
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

static int fill(struct operand *o, int64_t rows, int64_t cols, uint64_t seed)
{
	struct f8b_fill_spec spec = {.seed = seed, .mean = 0.0f, .std = 1.0f};

	memset(o, 0, sizeof *o);
	o->rows = rows;
	o->cols = cols;
	F8B_TRY(f8b_tensor_alloc(ops, be, &o->hp, F8B_BF16, rows, cols));
	return ops->fill(be, &o->hp, &spec);
}

/* Tensorwise amax -> scale -> cast on the GPU; the fp8 bytes and scale_inv
 * downloaded and dequantised for the reference. */
static int quantize(struct operand *o, enum f8b_dtype dt)
{
	struct f8b_scale_opts so = {.margin = 0.0f, .pow2 = false};
	size_t n = (size_t)(o->rows * o->cols);
	float sinv = 0;
	int rc;

	F8B_TRY(f8b_tensor_alloc(ops, be, &o->q, dt, o->rows, o->cols));
	F8B_TRY(ops->alloc(be, sizeof(float), (void **)&o->amax));
	F8B_TRY(ops->alloc(be, sizeof(float), (void **)&o->scale));
	F8B_TRY(ops->alloc(be, sizeof(float), (void **)&o->scale_inv));
	F8B_TRY(ops->amax(be, &o->hp, F8B_GRAN_TENSORWISE, o->amax));
	F8B_TRY(ops->scales(be, o->amax, 1, dt, &so, o->scale, o->scale_inv));
	F8B_TRY(ops->cast(be, &o->hp, F8B_GRAN_TENSORWISE, o->scale, &o->q));
	uint8_t *qh = xcalloc(n, 1);
	o->deq = xcalloc(n, sizeof(float));
	rc = ops->download(be, qh, o->q.data, n);
	if (rc == F8B_OK)
		rc = ops->download(be, &sinv, o->scale_inv, sizeof sinv);
	if (rc == F8B_OK)
		rc = f8b_ref_dequantize(qh, dt, o->rows, o->cols, F8B_GRAN_TENSORWISE, &sinv,
		                        o->deq);
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

/* Plans candidate `cand` of impl f8b, runs it on poisoned D and checks the
 * rows `rows` (nrows of them) against ref. */
static void f8b_case(const struct shape *s, enum f8b_dtype at, enum f8b_dtype bt,
                     enum f8b_dtype out, int cand, bool clusters, struct operand *a,
                     struct operand *b, const int64_t *rows, int64_t nrows, const double *ref,
                     int *ncand)
{
	struct f8b_gemm_desc d = {.m = s->m,
	                          .n = s->n,
	                          .k = s->k,
	                          .a_dtype = at,
	                          .b_dtype = bt,
	                          .out_dtype = out,
	                          .a_gran = F8B_GRAN_TENSORWISE,
	                          .b_gran = F8B_GRAN_TENSORWISE,
	                          .fast_accum = true,
	                          .impl = F8B_GEMM_IMPL_F8B};
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_algo_info info = {.candidates = 1};
	struct f8b_tensor dt = {0};
	char label[200];
	int rc;

	snprintf(label, sizeof label, "f8b M=%lld K=%lld N=%lld %s x %s -> %s candidate %d",
	         (long long)s->m, (long long)s->k, (long long)s->n, f8b_dtype_name(at),
	         f8b_dtype_name(bt), f8b_dtype_name(out), cand);
	rc = ops->gemm_plan(be, &d, cand, &plan, &info);
	/* Every tile of the table in turn (at most 8, should it grow). */
	*ncand = info.candidates >= 1 && info.candidates <= 8 ? info.candidates : 1;
	if (rc == F8B_EUNSUPPORTED) {
		skip_line("unsupported: %s", f8b_last_error());
		return;
	}
	/* Tiles with clusters (algo_cluster 3 = 2x1x1) run in a pass of their
	 * own after all the others, so that a failure there (a trap leaves the
	 * CUDA context unusable) cannot hide the results of the others. */
	if (rc == F8B_OK && (info.cluster == 3) != clusters) {
		ops->gemm_plan_free(be, plan);
		return;
	}
	if (!tap_ok(rc == F8B_OK, "%s: plan%s%s", label, rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		return;
	tap_ok(info.candidates >= 1 && info.heuristic_rank == cand && info.desc[0] &&
	           (info.tile == 20 || info.tile == 23),
	       "%s: algo info: %s (%d candidates)", label, info.desc, info.candidates);
	size_t n = (size_t)(s->m * s->n);
	rc = f8b_tensor_alloc(ops, be, &dt, out, s->m, s->n);
	/* All-ones bytes are NaN in bf16 and f32: an element the kernel
	 * never wrote fails the comparison. */
	if (rc == F8B_OK)
		rc = ops->memset(be, dt.data, 0xFF, f8b_tensor_bytes(&dt));
	struct f8b_gemm_args args = {.a = a->q.data,
	                             .b = b->q.data,
	                             .a_scale_inv = a->scale_inv,
	                             .b_scale_inv = b->scale_inv,
	                             .d = dt.data};
	if (rc == F8B_OK)
		rc = ops->gemm(be, plan, &args);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (tap_ok(rc == F8B_OK, "%s: gemm + sync%s%s", label, rc ? ": " : "",
	           rc ? f8b_last_error() : "")) {
		void *raw = xcalloc(n, f8b_dtype_size(out));
		float *full = xcalloc(n, sizeof(float));
		float *sub = xcalloc((size_t)(nrows * s->n), sizeof(float));
		rc = ops->download(be, raw, dt.data, f8b_tensor_bytes(&dt));
		if (tap_ok(rc == F8B_OK, "%s: download D", label)) {
			f8b_to_f32(raw, out, full, n);
			for (int64_t i = 0; i < nrows; i++)
				memcpy(sub + i * s->n, full + rows[i] * s->n,
				       (size_t)s->n * sizeof(float));
			size_t ns = (size_t)(nrows * s->n);
			double err = f8b_rel_error(sub, ref, ns);
			double tol = f8b_gemm_tolerance(s->k, out, true);
			size_t bad = 0;
			for (size_t i = 0; i < ns; i++)
				bad += !isfinite(sub[i]);
			tap_diag("%s: rel_error=%.3e tol=%.3e SQNR=%.1f dB, %lld of %lld rows "
			         "checked [%s]",
			         label, err, tol, f8b_sqnr_db(sub, ref, ns), (long long)nrows,
			         (long long)s->m, info.desc);
			tap_ok(bad == 0, "%s: every checked element written and finite (%zu not)",
			       label, bad);
			if (!tap_ok(err <= tol, "%s: rel_error %.3e <= tolerance %.3e", label, err,
			            tol))
				explain(label, sub, ref, rows, nrows, s->n,
				        info.tile == 23 ? 256 : 128);
		}
		free(sub);
		free(full);
		free(raw);
	}
	f8b_tensor_free(ops, be, &dt);
	ops->gemm_plan_free(be, plan);
}

static void run_shape(const struct shape *s, uint64_t seed, bool clusters)
{
	struct operand a = {0}, b = {0};
	int64_t nrows = s->m * s->n <= FULL_CHECK_MK ? s->m : SAMPLE_ROWS;
	int64_t *rows = xcalloc((size_t)nrows, sizeof *rows);
	double *ref = xcalloc((size_t)(nrows * s->n), sizeof(double));
	int rc;

	/* Sampled rows spread over M, the last one included (the ragged tile). */
	for (int64_t i = 0; i < nrows; i++)
		rows[i] = nrows == s->m ? i : i * (s->m - 1) / (nrows - 1);
	rc = fill(&a, s->m, s->k, seed);
	if (rc == F8B_OK)
		rc = fill(&b, s->n, s->k, seed + 1);
	if (!tap_ok(rc == F8B_OK, "M=%lld K=%lld N=%lld: fill%s%s", (long long)s->m,
	            (long long)s->k, (long long)s->n, rc ? ": " : "", rc ? f8b_last_error() : ""))
		goto out;
	for (size_t di = 0; di < COUNT(dtypes); di++) {
		rc = quantize(&a, dtypes[di].a);
		if (rc == F8B_OK)
			rc = quantize(&b, dtypes[di].b);
		if (rc == F8B_OK)
			rc = f8b_ref_gemm_rows(a.deq, b.deq, s->m, s->n, s->k, rows, nrows, ref);
		if (tap_ok(rc == F8B_OK, "M=%lld K=%lld N=%lld %s x %s: quantise and reference%s%s",
		           (long long)s->m, (long long)s->k, (long long)s->n,
		           f8b_dtype_name(dtypes[di].a), f8b_dtype_name(dtypes[di].b),
		           rc ? ": " : "", rc ? f8b_last_error() : "")) {
			static const enum f8b_dtype outs[] = {F8B_BF16, F8B_F32};
			for (size_t oi = 0; oi < COUNT(outs); oi++) {
				int ncand = 1;
				for (int c = 0; c < ncand; c++)
					f8b_case(s, dtypes[di].a, dtypes[di].b, outs[oi], c,
					         clusters, &a, &b, rows, nrows, ref, &ncand);
			}
		}
		release(&a);
		release(&b);
	}
out:
	f8b_tensor_free(ops, be, &a.hp);
	f8b_tensor_free(ops, be, &b.hp);
	free(ref);
	free(rows);
}

/* ---------------------------------------------------------------- layers */

static int upload_bytes(const uint8_t *h, size_t n, void **d)
{
	F8B_TRY(ops->alloc(be, n, d));
	return ops->upload(be, *d, h, n);
}

/* One TMA box (128 rows x 128 bytes, 128-byte swizzle) of a [200, 176]
 * uint8 tensor at two places, one of them past both edges. */
static void test_tma(void)
{
	enum { ROWS = 200, K = 176 };
	static const int at[][2] = {{0, 0}, {128, 128}};
	uint8_t *h = xcalloc(ROWS * K, 1), *got = xcalloc(128 * 128, 1);
	void *dx = NULL, *dout = NULL;
	_Alignas(128) unsigned char map[128];
	int rc;

	for (int r = 0; r < ROWS; r++)
		for (int k = 0; k < K; k++)
			h[r * K + k] = (uint8_t)(r * 131 + k * 7 + 1) | 1; /* never 0 */
	rc = upload_bytes(h, ROWS * K, &dx);
	if (rc == F8B_OK)
		rc = ops->alloc(be, 128 * 128, &dout);
	if (rc == F8B_OK)
		rc = f8b_cuda_kgemm_encode(dx, ROWS, K, 128, map);
	if (!tap_ok(rc == F8B_OK, "layer tma: upload, encode the tensor map%s%s", rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		goto out;
	for (size_t t = 0; t < COUNT(at); t++) {
		int c0 = at[t][1], c1 = at[t][0]; /* (k, row) */
		rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_tma(
		                         map, dout, 128, c0, c1, (cudaStream_t)f8b_cuda_stream(be)),
		                     "f8b_kgemm_selftest_tma", __FILE__, __LINE__);
		if (rc == F8B_OK)
			rc = ops->sync(be);
		if (rc == F8B_OK)
			rc = ops->download(be, got, dout, 128 * 128);
		if (!tap_ok(rc == F8B_OK, "layer tma: box at row %d, k %d ran%s%s", c1, c0,
		            rc ? ": " : "", rc ? f8b_last_error() : ""))
			continue;
		int bad = 0, first = -1, as_plain = 0;
		for (int r = 0; r < 128; r++)
			for (int c = 0; c < 8; c++)
				for (int b = 0; b < 16; b++) {
					int gr = c1 + r, gk = c0 + 16 * c + b;
					uint8_t want = gr < ROWS && gk < K ? h[gr * K + gk] : 0;
					int i = r * 128 + ((c ^ (r & 7)) * 16) + b;
					if (got[i] != want && bad++ == 0)
						first = i;
					as_plain += got[r * 128 + 16 * c + b] == want;
				}
		tap_ok(
		    bad == 0,
		    "layer tma: box at row %d, k %d lies in shared memory 128B-swizzled (chunk c "
		    "of row r at c ^ (r %% 8)), zeros outside the tensor: %d of 16384 bytes wrong "
		    "(first at byte %d; %d bytes would match an unswizzled layout)",
		    c1, c0, bad, first, as_plain);
	}
out:
	ops->free(be, dx);
	ops->free(be, dout);
	free(h);
	free(got);
}

/* One wgmma m64nNk32 per K step, on e4m3 values in {0, +-0.5, +-1, +-1.5,
 * +-2}: every product and sum is exact, so D must equal the host's. */
static void test_wgmma(void)
{
	static const uint8_t codes[] = {0x00, 0x30, 0x38, 0x3C, 0x40, 0xB0, 0xB8, 0xBC, 0xC0};
	uint8_t *ha = xcalloc(128 * 128, 1), *hb = xcalloc(256 * 128, 1);
	float *got = xcalloc(64 * 256, sizeof(float));
	void *da = NULL, *db = NULL, *dd = NULL;
	_Alignas(128) unsigned char ma[128], mb128[128], mb256[128];
	uint64_t x = 12345;
	int rc;

	for (int i = 0; i < 128 * 128; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ha[i] = codes[(x >> 33) % COUNT(codes)];
	}
	for (int i = 0; i < 256 * 128; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		hb[i] = codes[(x >> 33) % COUNT(codes)];
	}
	rc = upload_bytes(ha, 128 * 128, &da);
	if (rc == F8B_OK)
		rc = upload_bytes(hb, 256 * 128, &db);
	if (rc == F8B_OK)
		rc = ops->alloc(be, 64 * 256 * sizeof(float), &dd);
	if (rc == F8B_OK)
		rc = f8b_cuda_kgemm_encode(da, 128, 128, 128, ma);
	if (rc == F8B_OK)
		rc = f8b_cuda_kgemm_encode(db, 256, 128, 128, mb128);
	if (rc == F8B_OK)
		rc = f8b_cuda_kgemm_encode(db, 256, 128, 256, mb256);
	if (!tap_ok(rc == F8B_OK, "layer wgmma: upload, encode the tensor maps%s%s", rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		goto out;
	for (int n = 128; n <= 256; n += 128)
		for (int ks = 0; ks < 4; ks++) {
			rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_wgmma(
			                         ma, n == 128 ? mb128 : mb256, dd, n, ks,
			                         (cudaStream_t)f8b_cuda_stream(be)),
			                     "f8b_kgemm_selftest_wgmma", __FILE__, __LINE__);
			if (rc == F8B_OK)
				rc = ops->sync(be);
			if (rc == F8B_OK)
				rc = ops->download(be, got, dd, 64 * (size_t)n * sizeof(float));
			if (!tap_ok(rc == F8B_OK, "layer wgmma: m64n%dk32, K step %d ran%s%s", n,
			            ks, rc ? ": " : "", rc ? f8b_last_error() : ""))
				continue;
			int bad = 0, fr = -1, fc = -1;
			float fw = 0, fg = 0;
			for (int r = 0; r < 64; r++)
				for (int c = 0; c < n; c++) {
					float want = 0;
					for (int k = 32 * ks; k < 32 * ks + 32; k++)
						want += f8b_fp8_to_f32(ha[r * 128 + k], F8B_E4M3) *
						        f8b_fp8_to_f32(hb[c * 128 + k], F8B_E4M3);
					if (got[r * n + c] != want && bad++ == 0) {
						fr = r;
						fc = c;
						fw = want;
						fg = got[r * n + c];
					}
				}
			tap_ok(bad == 0,
			       "layer wgmma: m64n%dk32 K step %d equals the host's sums exactly "
			       "(descriptors, K advance, fragment layout): %d of %d wrong (first "
			       "D[%d][%d] = %g, want %g)",
			       n, ks, bad, 64 * n, fr, fc, fg, fw);
		}
out:
	ops->free(be, da);
	ops->free(be, db);
	ops->free(be, dd);
	free(ha);
	free(hb);
	free(got);
}

/* The GEMM's full/empty protocol, 4 stages, 4003 uses (1000 wraps). */
static void test_ring(void)
{
	unsigned *derr = NULL, errors = 1;
	int rc = ops->alloc(be, sizeof errors, (void **)&derr);
	if (rc == F8B_OK)
		rc = ops->memset(be, derr, 0, sizeof errors);
	if (rc == F8B_OK)
		rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_ring(
		                         4003, derr, (cudaStream_t)f8b_cuda_stream(be)),
		                     "f8b_kgemm_selftest_ring", __FILE__, __LINE__);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (rc == F8B_OK)
		rc = ops->download(be, &errors, derr, sizeof errors);
	tap_ok(rc == F8B_OK && errors == 0,
	       "layer ring: 4003 uses of a 4-stage full/empty mbarrier ring, 256 consumer threads: "
	       "%u stale words%s%s",
	       errors, rc ? ": " : "", rc ? f8b_last_error() : "");
	ops->free(be, derr);
}

/* What the kernel does not take (yet) is refused, naming why; the same
 * configurations are accepted by cuBLASLt. */
static void test_refusals(void)
{
	static const struct {
		enum f8b_granularity ga, gb;
		bool fast;
		enum f8b_dtype at;
		const char *what;
	} cases[] = {
	    {F8B_GRAN_AXISWISE, F8B_GRAN_AXISWISE, true, F8B_E4M3, "axiswise"},
	    {F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK128X128, false, F8B_E4M3, "blockwise"},
	    {F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, false, F8B_E4M3, "fast_accum off"},
	    {F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, true, F8B_BF16, "bf16"},
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct f8b_gemm_desc d = {.m = 256,
		                          .n = 256,
		                          .k = 256,
		                          .a_dtype = cases[i].at,
		                          .b_dtype = cases[i].at,
		                          .out_dtype = F8B_BF16,
		                          .a_gran = cases[i].ga,
		                          .b_gran = cases[i].gb,
		                          .fast_accum = cases[i].fast,
		                          .impl = F8B_GEMM_IMPL_F8B};
		struct f8b_gemm_plan *plan = NULL;
		int rc = ops->gemm_plan(be, &d, 0, &plan, NULL);
		tap_ok(rc == F8B_EUNSUPPORTED && !plan && strstr(f8b_last_error(), "impl f8b"),
		       "impl f8b refuses %s: %s", cases[i].what,
		       rc ? f8b_last_error() : "accepted");
		if (plan)
			ops->gemm_plan_free(be, plan);
	}
}

int main(void)
{
	char why[256], msg[320];
	struct f8b_device_info info;
	const char *small = getenv("F8B_TEST_SMALL");
	bool only_small = small && *small && strcmp(small, "0");
	int n, rc;

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
	if (info.cc_major == 9 && info.cc_minor == 0) {
		test_tma();
		test_wgmma();
		test_ring();
		test_refusals();
	}
	for (int clusters = 0; clusters <= 1; clusters++)
		for (size_t i = 0; i < COUNT(shapes); i++)
			if (shapes[i].small || !only_small)
				run_shape(&shapes[i], 2000 + 10 * i, clusters != 0);
	ops->close(be);
	return tap_done();
}
