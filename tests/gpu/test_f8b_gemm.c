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
                     enum f8b_dtype out, int cand, struct operand *a, struct operand *b,
                     const int64_t *rows, int64_t nrows, const double *ref, int *ncand)
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

static void run_shape(const struct shape *s, uint64_t seed)
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
					f8b_case(s, dtypes[di].a, dtypes[di].b, outs[oi], c, &a, &b,
					         rows, nrows, ref, &ncand);
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
	if (info.cc_major == 9 && info.cc_minor == 0)
		test_refusals();
	for (size_t i = 0; i < COUNT(shapes); i++)
		if (shapes[i].small || !only_small)
			run_shape(&shapes[i], 2000 + 10 * i);
	ops->close(be);
	return tap_done();
}
