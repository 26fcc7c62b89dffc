/* test_backend_host.c - the host backend against its formulas: fill bits,
 * amax / scales / cast against brute force and fp8.h, every supported GEMM
 * against the double reference and against a scalar restatement of the
 * backend.h formula, e4m3 output with its amax, the refusals, events,
 * lookup and tensor helpers. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "core/fp8.h"
#include "backend/reference.h"
#include "core/scaling.h"
#include "tap.h"

static const struct f8b_backend_ops *ops = &f8b_backend_host;
static struct f8b_backend *be;

/* ------------------------------------------------------------ fill */

static uint64_t ref_mix(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xBF58476D1CE4E5B9ull;
	z ^= z >> 27;
	z *= 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z;
}

/* The core/fill.h fill restated independently.  Every intermediate goes
 * through a volatile float, which forces its rounding and which no
 * compiler may fuse across whatever -ffp-contract says - so this also
 * catches an FMA contraction in the backend. */
static float ref_fill(const struct f8b_fill_spec *s, uint64_t i)
{
	float u[5];
	for (int j = 0; j < 5; j++) {
		uint64_t h = ref_mix(s->seed + (5 * i + j + 1) * 0x9E3779B97F4A7C15ull);
		u[j] = (float)(h >> 40) / 16777216.0f;
	}
	volatile float t, z, x;
	t = u[0] + u[1];
	t = t + u[2];
	t = t + u[3];
	t = t - 2.0f;
	z = t * 1.7320508f;
	x = z * s->std;
	x = x + s->mean;
	if (u[4] < s->outlier_frac)
		x = x * s->outlier_scale;
	return x;
}

static void test_fill(void)
{
	struct f8b_fill_spec spec = {
	    .seed = 42, .mean = 0.25f, .std = 1.5f, .outlier_frac = 0.05f, .outlier_scale = 37.0f};
	struct f8b_tensor a, b, c, h;
	const int64_t rows = 123, cols = 77, n = rows * cols;

	tap_ok(f8b_tensor_alloc(ops, be, &a, F8B_F32, rows, cols) == F8B_OK, "alloc f32 %lldx%lld",
	       (long long)rows, (long long)cols);
	f8b_tensor_alloc(ops, be, &b, F8B_F32, rows, cols);
	f8b_tensor_alloc(ops, be, &c, F8B_F32, n, 1);
	f8b_tensor_alloc(ops, be, &h, F8B_BF16, rows, cols);
	tap_ok(ops->fill(be, &a, &spec) == F8B_OK, "fill f32");
	ops->fill(be, &b, &spec);
	ops->fill(be, &c, &spec);
	tap_ok(ops->fill(be, &h, &spec) == F8B_OK, "fill bf16");
	tap_ok(memcmp(a.data, b.data, n * 4) == 0, "fill is deterministic (same seed, same bits)");
	tap_ok(memcmp(a.data, c.data, n * 4) == 0,
	       "fill depends on the element index only, not on the shape (%lldx%lld vs %lldx1)",
	       (long long)rows, (long long)cols, (long long)n);

	int64_t bad = -1, bad_bf16 = -1, outliers = 0;
	for (int64_t i = 0; i < n; i++) {
		float want = ref_fill(&spec, (uint64_t)i);
		float got = ((float *)a.data)[i];
		if (memcmp(&want, &got, 4) != 0 && bad < 0)
			bad = i;
		if (((uint16_t *)h.data)[i] != f8b_f32_to_bf16(want) && bad_bf16 < 0)
			bad_bf16 = i;
		if (fabsf(got - spec.mean) > 3.47f * spec.std)
			outliers++;
	}
	tap_ok(bad < 0, "f32 fill bit-identical to an independent restatement of the formula%s",
	       bad < 0 ? "" : " (first mismatch below)");
	if (bad >= 0)
		tap_diag("element %lld: got %a want %a", (long long)bad, ((float *)a.data)[bad],
		         ref_fill(&spec, (uint64_t)bad));
	tap_ok(bad_bf16 < 0, "bf16 fill = RNE(f32 fill) elementwise (first bad %lld)",
	       (long long)bad_bf16);
	tap_ok(outliers > 0, "outliers beyond the Irwin-Hall range are present (%lld)",
	       (long long)outliers);

	spec.seed = 43;
	ops->fill(be, &b, &spec);
	tap_ok(memcmp(a.data, b.data, n * 4) != 0, "another seed gives other data");

	f8b_tensor_free(ops, be, &a);
	f8b_tensor_free(ops, be, &b);
	f8b_tensor_free(ops, be, &c);
	f8b_tensor_free(ops, be, &h);
	tap_ok(a.data == NULL, "tensor_free clears the data pointer");
}

static void test_fill_statistics(void)
{
	struct f8b_tensor x;
	const int64_t n = 1 << 20;
	struct f8b_fill_spec spec = {.seed = 7, .mean = 0.0f, .std = 1.0f};

	f8b_tensor_alloc(ops, be, &x, F8B_F32, 1024, n / 1024);
	ops->fill(be, &x, &spec);
	const float *v = x.data;
	double s = 0, s2 = 0, vmax = 0;
	for (int64_t i = 0; i < n; i++) {
		s += v[i];
		s2 += (double)v[i] * v[i];
		vmax = fmax(vmax, fabs(v[i]));
	}
	double mean = s / n, sd = sqrt(s2 / n - mean * mean);
	/* Standard error of the mean over 2^20 samples is 1e-3. */
	tap_ok(fabs(mean) < 5e-3, "fill mean %.5f ~ 0 over %lld values", mean, (long long)n);
	tap_ok(fabs(sd - 1.0) < 5e-3, "fill std %.5f ~ 1", sd);
	tap_ok(vmax <= 2 * 1.7320508 + 1e-6, "no outliers requested: |x| <= 2 sqrt(3) (max %.4f)",
	       vmax);

	spec = (struct f8b_fill_spec){.seed = 8, .mean = 3.0f, .std = 2.0f};
	ops->fill(be, &x, &spec);
	s = s2 = 0;
	for (int64_t i = 0; i < n; i++) {
		s += v[i];
		s2 += (double)v[i] * v[i];
	}
	mean = s / n;
	sd = sqrt(s2 / n - mean * mean);
	tap_ok(fabs(mean - 3.0) < 1e-2 && fabs(sd - 2.0) < 1e-2, "mean 3 std 2 -> %.4f, %.4f", mean,
	       sd);

	/* An outlier is x * 100 with |x| > 3.47 unless |z| < 0.0347, which
	 * has probability 2 * 0.0347 * 0.385 (density of z at 0) = 2.7 %,
	 * so 0.973 * 1 % of the values should exceed 3.47. */
	spec = (struct f8b_fill_spec){
	    .seed = 9, .mean = 0.0f, .std = 1.0f, .outlier_frac = 0.01f, .outlier_scale = 100.0f};
	ops->fill(be, &x, &spec);
	int64_t big = 0;
	for (int64_t i = 0; i < n; i++)
		big += fabsf(v[i]) > 3.47f;
	double freq = (double)big / n;
	tap_ok(freq > 0.0090 && freq < 0.0105, "outlier frequency %.5f ~ 0.0097 (frac 0.01)", freq);
	f8b_tensor_free(ops, be, &x);
}

/* ------------------------------------------------------------ amax, scales, cast */

/* Storage index of the scale of element (r, c): the block of the
 * scaling.h table, stored where f8b_scale_index() (the one mapping every
 * backend shares, tested in test_scaling) says. */
static int64_t block_index(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t r, int64_t c)
{
	switch (g) {
	case F8B_GRAN_TENSORWISE: return f8b_scale_index(g, rows, cols, 0, 0);
	case F8B_GRAN_AXISWISE: return f8b_scale_index(g, rows, cols, r, 0);
	case F8B_GRAN_BLOCK1X128: return f8b_scale_index(g, rows, cols, r, c / 128);
	case F8B_GRAN_BLOCK128X128: return f8b_scale_index(g, rows, cols, r / 128, c / 128);
	default: return -1;
	}
}

static float *host_f32(const struct f8b_tensor *t)
{
	size_t n = (size_t)(t->rows * t->cols);
	float *f = malloc(n * sizeof *f);
	f8b_to_f32(t->data, t->dtype, f, n);
	return f;
}

static void test_amax_scales_cast(void)
{
	const int64_t rows = 300, cols = 260; /* ragged: 3 x 128 rows, 3 x 128 cols */
	struct f8b_fill_spec spec = {
	    .seed = 5, .mean = 0.0f, .std = 1.0f, .outlier_frac = 0.002f, .outlier_scale = 50.0f};

	for (int dt = 0; dt < 2; dt++) {
		enum f8b_dtype xdt = dt ? F8B_BF16 : F8B_F32;
		struct f8b_tensor x;
		f8b_tensor_alloc(ops, be, &x, xdt, rows, cols);
		ops->fill(be, &x, &spec);
		float *xf = host_f32(&x);

		for (int g = 0; g < F8B_GRAN_COUNT; g++) {
			int64_t ns = f8b_scale_count(g, rows, cols);
			float *amax = malloc(ns * 4), *want = calloc(ns, 4);
			float *scale = malloc(ns * 4), *sinv = malloc(ns * 4);
			for (int64_t r = 0; r < rows; r++)
				for (int64_t c = 0; c < cols; c++) {
					float *w = &want[block_index(g, rows, cols, r, c)];
					*w = fmaxf(*w, fabsf(xf[r * cols + c]));
				}
			int rc = ops->amax(be, &x, g, amax);
			tap_ok(rc == F8B_OK && memcmp(amax, want, ns * 4) == 0,
			       "amax %s %s (%lld blocks) = brute force", f8b_dtype_name(xdt),
			       f8b_granularity_name(g), (long long)ns);

			struct f8b_scale_opts so = {.margin = 0, .pow2 = g % 2 == 1};
			for (int od = 0; od < 2; od++) {
				enum f8b_dtype qdt = od ? F8B_E5M2 : F8B_E4M3;
				ops->scales(be, amax, ns, qdt, &so, scale, sinv);
				int64_t bad_s = -1;
				for (int64_t i = 0; i < ns; i++) {
					float s = f8b_amax_to_scale(amax[i], qdt, &so);
					if (scale[i] != s || sinv[i] != 1.0f / s)
						bad_s = i;
				}
				tap_ok(bad_s < 0,
				       "scales %s %s pow2=%d = f8b_amax_to_scale, 1/scale",
				       f8b_granularity_name(g), f8b_dtype_name(qdt), so.pow2);

				struct f8b_tensor q;
				f8b_tensor_alloc(ops, be, &q, qdt, rows, cols);
				rc = ops->cast(be, &x, g, scale, &q);
				int64_t bad = -1;
				for (int64_t r = 0; r < rows && bad < 0; r++)
					for (int64_t c = 0; c < cols; c++) {
						float s = scale[block_index(g, rows, cols, r, c)];
						float y = xf[r * cols + c] * s;
						if (((uint8_t *)q.data)[r * cols + c] !=
						    f8b_f32_to_fp8(y, qdt)) {
							bad = r * cols + c;
							break;
						}
					}
				tap_ok(rc == F8B_OK && bad < 0,
				       "cast %s -> %s %s = f8b_f32_to_fp8(x * scale[block]) (first "
				       "bad %lld)",
				       f8b_dtype_name(xdt), f8b_dtype_name(qdt),
				       f8b_granularity_name(g), (long long)bad);
				f8b_tensor_free(ops, be, &q);
			}
			free(amax);
			free(want);
			free(scale);
			free(sinv);
		}
		free(xf);
		f8b_tensor_free(ops, be, &x);
	}

	/* NaN propagates through amax (a broken input must be loud). */
	struct f8b_tensor x;
	f8b_tensor_alloc(ops, be, &x, F8B_F32, 4, 256);
	memset(x.data, 0, 4 * 256 * 4);
	((float *)x.data)[2 * 256 + 200] = NAN;
	float am[8];
	ops->amax(be, &x, F8B_GRAN_BLOCK1X128, am);
	tap_ok(isnan(am[1 * 4 + 2]) && am[0] == 0.0f && am[1 * 4 + 1] == 0.0f,
	       "NaN propagates to its own block's amax only");

	struct f8b_tensor q8;
	f8b_tensor_alloc(ops, be, &q8, F8B_E4M3, 4, 256);
	tap_ok(ops->amax(be, &q8, F8B_GRAN_TENSORWISE, am) == F8B_EINVAL,
	       "amax of an fp8 tensor is refused");
	tap_ok(ops->cast(be, &x, F8B_GRAN_TENSORWISE, am, &x) == F8B_EINVAL,
	       "cast to f32 is refused: %s", f8b_last_error());
	q8.rows = 8;
	tap_ok(ops->cast(be, &x, F8B_GRAN_TENSORWISE, am, &q8) == F8B_EINVAL,
	       "cast with mismatched shapes is refused: %s", f8b_last_error());
	tap_ok(ops->scales(be, am, 1, F8B_BF16, NULL, am, am) == F8B_EINVAL,
	       "scales for a bf16 target are refused");
	q8.rows = 4;
	f8b_tensor_free(ops, be, &q8);
	f8b_tensor_free(ops, be, &x);
}

/* ------------------------------------------------------------ GEMM */

struct operand {
	struct f8b_tensor hp, q; /* high precision source, quantized copy */
	float *scale, *scale_inv;
	enum f8b_granularity g;
	float *deq; /* dequantized fp32 (host) */
	float *raw; /* decoded without scale (host) */
};

static void make_operand(struct operand *o, int64_t rows, int64_t cols, enum f8b_dtype dt,
                         enum f8b_granularity g, uint64_t seed)
{
	/* Outliers make block amaxes differ by ~30x, so a scale applied to
	 * the wrong block shows as an O(1) error. */
	struct f8b_fill_spec spec = {
	    .seed = seed, .mean = 0.0f, .std = 1.0f, .outlier_frac = 0.01f, .outlier_scale = 30.0f};
	memset(o, 0, sizeof *o);
	o->g = g;
	f8b_tensor_alloc(ops, be, &o->hp, F8B_BF16, rows, cols);
	ops->fill(be, &o->hp, &spec);
	o->deq = malloc(rows * cols * sizeof(float));
	o->raw = malloc(rows * cols * sizeof(float));
	if (dt == F8B_BF16) {
		o->q = o->hp;
		f8b_ref_dequantize(o->q.data, dt, rows, cols, g, NULL, o->deq);
		f8b_to_f32(o->q.data, dt, o->raw, rows * cols);
		return;
	}
	int64_t ns = f8b_scale_count(g, rows, cols);
	float *amax = malloc(ns * 4);
	o->scale = malloc(ns * 4);
	o->scale_inv = malloc(ns * 4);
	ops->amax(be, &o->hp, g, amax);
	ops->scales(be, amax, ns, dt, NULL, o->scale, o->scale_inv);
	f8b_tensor_alloc(ops, be, &o->q, dt, rows, cols);
	ops->cast(be, &o->hp, g, o->scale, &o->q);
	f8b_ref_dequantize(o->q.data, dt, rows, cols, g, o->scale_inv, o->deq);
	for (int64_t i = 0; i < rows * cols; i++)
		o->raw[i] = f8b_fp8_to_f32(((uint8_t *)o->q.data)[i], dt);
	free(amax);
}

static void free_operand(struct operand *o)
{
	if (o->q.data != o->hp.data)
		f8b_tensor_free(ops, be, &o->q);
	f8b_tensor_free(ops, be, &o->hp);
	free(o->scale);
	free(o->scale_inv);
	free(o->deq);
	free(o->raw);
}

static float scale_of(const struct operand *o, int64_t r, int64_t kb)
{
	if (!o->scale_inv)
		return 1.0f;
	int64_t br = o->g == F8B_GRAN_TENSORWISE ? 0 : o->g == F8B_GRAN_BLOCK128X128 ? r / 128 : r;
	int64_t bc = o->g == F8B_GRAN_BLOCK1X128 || o->g == F8B_GRAN_BLOCK128X128 ? kb : 0;
	return o->scale_inv[f8b_scale_index(o->g, o->hp.rows, o->hp.cols, br, bc)];
}

/* D[i,j] by the backend.h formula, scalar: fp32 partial sums in increasing
 * k per K-block (128 when an operand is blockwise, else all of K), scaled
 * by (sa * sb) and added to an fp32 accumulator; each operation rounded on
 * its own through a volatile, as in ref_fill. */
static float formula_element(const struct operand *a, const struct operand *b, bool blockwise,
                             int64_t i, int64_t j)
{
	const int64_t k = a->hp.cols, kblk = blockwise ? 128 : k;
	volatile float acc = 0.0f, part, prod, s, t;

	for (int64_t k0 = 0, kb = 0; k0 < k; k0 += kblk, kb++) {
		part = 0.0f;
		for (int64_t kk = k0; kk < k0 + kblk && kk < k; kk++) {
			prod = a->raw[i * k + kk] * b->raw[j * k + kk];
			part = part + prod;
		}
		s = scale_of(a, i, kb) * scale_of(b, j, kb);
		t = s * part;
		acc = acc + t;
	}
	return acc;
}

static bool is_block(enum f8b_granularity g)
{
	return g == F8B_GRAN_BLOCK1X128 || g == F8B_GRAN_BLOCK128X128;
}

/* One GEMM configuration on one shape, both output dtypes. */
static void check_gemm(int64_t m, int64_t k, int64_t n, enum f8b_dtype adt, enum f8b_dtype bdt,
                       enum f8b_granularity ag, enum f8b_granularity bg)
{
	struct operand a, b;
	char what[128];
	bool fp8 = adt != F8B_BF16;

	snprintf(what, sizeof what, "M=%lld K=%lld N=%lld %s:%s %s:%s", (long long)m, (long long)k,
	         (long long)n, f8b_dtype_name(adt), fp8 ? f8b_granularity_name(ag) : "-",
	         f8b_dtype_name(bdt), fp8 ? f8b_granularity_name(bg) : "-");
	make_operand(&a, m, k, adt, ag, 1000 + (uint64_t)m);
	make_operand(&b, n, k, bdt, bg, 2000 + (uint64_t)n);
	double *ref = malloc(m * n * sizeof *ref);
	f8b_ref_gemm(a.deq, b.deq, m, n, k, ref);

	float *d32 = malloc(m * n * 4), *dbf = malloc(m * n * 4);
	uint16_t *d16 = malloc(m * n * 2);
	struct f8b_tensor dev32, dev16;
	f8b_tensor_alloc(ops, be, &dev32, F8B_F32, m, n);
	f8b_tensor_alloc(ops, be, &dev16, F8B_BF16, m, n);

	int rc = F8B_OK;
	for (int o = 0; o < 2; o++) {
		struct f8b_gemm_desc d = {.m = m,
		                          .n = n,
		                          .k = k,
		                          .a_dtype = adt,
		                          .b_dtype = bdt,
		                          .out_dtype = o ? F8B_BF16 : F8B_F32,
		                          .a_gran = ag,
		                          .b_gran = bg};
		struct f8b_gemm_plan *plan;
		struct f8b_gemm_args args = {.a = a.q.data,
		                             .b = b.q.data,
		                             .a_scale_inv = a.scale_inv,
		                             .b_scale_inv = b.scale_inv,
		                             .d = o ? dev16.data : dev32.data};
		int r1 = ops->gemm_plan(be, &d, 0, &plan, NULL);
		if (r1 == F8B_OK) {
			r1 = ops->gemm(be, plan, &args);
			ops->gemm_plan_free(be, plan);
		}
		if (r1 != F8B_OK) {
			rc = r1;
			tap_diag("%s: %s", what, f8b_last_error());
		}
	}
	ops->download(be, d32, dev32.data, m * n * 4);
	ops->download(be, d16, dev16.data, m * n * 2);
	f8b_to_f32(d16, F8B_BF16, dbf, m * n);

	double e32 = f8b_rel_error(d32, ref, m * n), e16 = f8b_rel_error(dbf, ref, m * n);
	/* Host fp32 accumulation: sqrt(K) 2^-24-ish; the reference's own
	 * dequantization rounding adds ~2^-24.  bf16 adds <= 2^-8. */
	tap_ok(rc == F8B_OK && e32 < 4e-6 && e32 <= f8b_gemm_tolerance(k, F8B_F32, false),
	       "%s f32 out: rel error %.3g vs double reference", what, e32);
	tap_ok(rc == F8B_OK && e16 < 0x1p-8 && e16 <= f8b_gemm_tolerance(k, F8B_BF16, false),
	       "%s bf16 out: rel error %.3g", what, e16);

	int64_t bad16 = -1;
	for (int64_t i = 0; i < m * n && bad16 < 0; i++)
		if (d16[i] != f8b_f32_to_bf16(d32[i]))
			bad16 = i;
	tap_ok(bad16 < 0, "%s bf16 out = RNE(f32 out) bit for bit", what);

	/* Bit-exact agreement with the formula on a spread of elements,
	 * including the last row and column (padding edges). */
	bool blockwise = fp8 && (is_block(ag) || is_block(bg));
	int64_t bad = -1;
	for (int64_t s = 0; s < 64 && bad < 0; s++) {
		int64_t i = s == 63 ? m - 1 : (s * 7919) % m;
		int64_t j = s == 63 ? n - 1 : (s * 104729) % n;
		float want = formula_element(&a, &b, blockwise, i, j);
		if (memcmp(&want, &d32[i * n + j], 4) != 0)
			bad = i * n + j;
	}
	tap_ok(bad < 0, "%s f32 out bit-identical to the backend.h formula (%s scales)", what,
	       blockwise ? "per-128-K-block" : "epilogue");
	if (bad >= 0)
		tap_diag("element %lld: got %a want %a", (long long)bad, d32[bad],
		         formula_element(&a, &b, blockwise, bad / n, bad % n));

	f8b_tensor_free(ops, be, &dev32);
	f8b_tensor_free(ops, be, &dev16);
	free(d32);
	free(dbf);
	free(d16);
	free(ref);
	free_operand(&a);
	free_operand(&b);
}

static void test_gemm_all(void)
{
	/* M K N: the last K-block ragged (272 = 2*128 + 16, 400 = 3*128 + 16),
	 * N = 400 also ragged for 128x128 weight blocks, and one shape not
	 * divisible by the host tile (4 x 16) at all. */
	static const int64_t shapes[][3] = {{48, 272, 80}, {256, 400, 144}, {7, 130, 9}};
	static const enum f8b_dtype pairs[][2] = {
	    {F8B_E4M3, F8B_E4M3}, {F8B_E4M3, F8B_E5M2}, {F8B_E5M2, F8B_E4M3}};
	static const enum f8b_granularity ag[] = {F8B_GRAN_TENSORWISE, F8B_GRAN_AXISWISE,
	                                          F8B_GRAN_BLOCK1X128};
	static const enum f8b_granularity bg[] = {F8B_GRAN_TENSORWISE, F8B_GRAN_AXISWISE,
	                                          F8B_GRAN_BLOCK128X128};

	for (int s = 0; s < 3; s++) {
		const int64_t *sh = shapes[s];
		check_gemm(sh[0], sh[1], sh[2], F8B_BF16, F8B_BF16, 0, 0);
		for (int p = 0; p < 3; p++)
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 3; j++) {
					/* All 9 granularity pairs on the first shape;
					 * matched pairs (the recipes) on the others. */
					if (s > 0 && i != j)
						continue;
					check_gemm(sh[0], sh[1], sh[2], pairs[p][0], pairs[p][1],
					           ag[i], bg[j]);
				}
	}
}

/* A wrong scale layout must not pass: the same data with each row's 1x128
 * scales taken from the neighbouring K-block (what reading a column-major
 * layout as row-major amounts to) gives an O(1) error. */
static void test_gemm_wrong_layout(void)
{
	const int64_t m = 256, k = 400, n = 144;
	struct operand a, b;
	make_operand(&a, m, k, F8B_E4M3, F8B_GRAN_BLOCK1X128, 11);
	make_operand(&b, n, k, F8B_E4M3, F8B_GRAN_BLOCK128X128, 12);
	int64_t sr, sc;
	f8b_scale_shape(F8B_GRAN_BLOCK1X128, m, k, &sr, &sc);
	int64_t ns = f8b_scale_count(F8B_GRAN_BLOCK1X128, m, k);
	float *wrong = malloc(ns * 4);
	for (int64_t r = 0; r < sr; r++)
		for (int64_t c = 0; c < sc; c++)
			wrong[f8b_scale_index(F8B_GRAN_BLOCK1X128, m, k, r, c)] =
			    a.scale_inv[f8b_scale_index(F8B_GRAN_BLOCK1X128, m, k, r,
			                                (c + 1) % sc)];

	struct f8b_gemm_desc d = {.m = m,
	                          .n = n,
	                          .k = k,
	                          .a_dtype = F8B_E4M3,
	                          .b_dtype = F8B_E4M3,
	                          .out_dtype = F8B_BF16,
	                          .a_gran = F8B_GRAN_BLOCK1X128,
	                          .b_gran = F8B_GRAN_BLOCK128X128};
	struct f8b_gemm_plan *plan;
	struct f8b_tensor out;
	f8b_tensor_alloc(ops, be, &out, F8B_BF16, m, n);
	struct f8b_gemm_args args = {.a = a.q.data,
	                             .b = b.q.data,
	                             .a_scale_inv = wrong,
	                             .b_scale_inv = b.scale_inv,
	                             .d = out.data};
	ops->gemm_plan(be, &d, 0, &plan, NULL);
	ops->gemm(be, plan, &args);
	ops->gemm_plan_free(be, plan);

	double *ref = malloc(m * n * 8);
	float *got = malloc(m * n * 4);
	f8b_ref_gemm(a.deq, b.deq, m, n, k, ref);
	f8b_to_f32(out.data, F8B_BF16, got, m * n);
	double e = f8b_rel_error(got, ref, m * n);
	double tol = f8b_gemm_tolerance(k, F8B_BF16, true);
	tap_ok(e > 0.1 && e > 10 * tol,
	       "shifted block scales give rel error %.3g, far above the loosest tolerance %.3g", e,
	       tol);
	free(ref);
	free(got);
	free(wrong);
	f8b_tensor_free(ops, be, &out);
	free_operand(&a);
	free_operand(&b);
}

static void test_gemm_refusals(void)
{
	struct f8b_gemm_plan *plan = (void *)1;
	struct f8b_algo_info info;
	struct f8b_gemm_desc ok = {.m = 16,
	                           .n = 32,
	                           .k = 48,
	                           .a_dtype = F8B_E4M3,
	                           .b_dtype = F8B_E4M3,
	                           .out_dtype = F8B_BF16,
	                           .a_gran = F8B_GRAN_BLOCK1X128,
	                           .b_gran = F8B_GRAN_BLOCK128X128,
	                           .fast_accum = true};
	struct f8b_gemm_desc d;

	tap_ok(ops->gemm_plan(be, &ok, 0, &plan, &info) == F8B_OK, "blockwise fp8 plan accepted");
	tap_ok(info.algo_id == -1 && info.tile == -1 && info.stages == -1 && info.splitk == 1 &&
	           strcmp(info.desc, "host blocked fp32") == 0,
	       "algo info: ids -1, no split-K, desc '%s'", info.desc);
	struct f8b_gemm_args noscale = {.a = plan, .b = plan, .d = plan};
	tap_ok(ops->gemm(be, plan, &noscale) == F8B_EINVAL,
	       "fp8 gemm without scale_inv refused: %s", f8b_last_error());
	ops->gemm_plan_free(be, plan);

	d = ok;
	d.a_dtype = d.b_dtype = F8B_E5M2;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EUNSUPPORTED &&
	           strstr(f8b_last_error(), "e5m2 x e5m2") && plan == NULL,
	       "e5m2 x e5m2 unsupported: %s", f8b_last_error());
	d = ok;
	d.a_gran = F8B_GRAN_BLOCK128X128;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EUNSUPPORTED &&
	           strstr(f8b_last_error(), "block128x128"),
	       "block128x128 for A unsupported: %s", f8b_last_error());
	d = ok;
	d.b_gran = F8B_GRAN_BLOCK1X128;
	/* 1x128 x 1x128: both operands scaled per 128 along K, as the
	 * blockwise recipe's grad_weight needs. */
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_OK && plan != NULL,
	       "block1x128 x block1x128 accepted");
	ops->gemm_plan_free(be, plan);
	plan = NULL;
	d = ok;
	d.out_dtype = F8B_E5M2;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EUNSUPPORTED &&
	           strstr(f8b_last_error(), "e5m2") && strstr(f8b_last_error(), "e4m3"),
	       "e5m2 output unsupported, naming e4m3: %s", f8b_last_error());
	d = ok;
	d.a_dtype = d.b_dtype = F8B_BF16;
	d.out_dtype = F8B_E4M3;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EUNSUPPORTED &&
	           strstr(f8b_last_error(), "needs fp8 operands"),
	       "bf16 x bf16 -> e4m3 unsupported: %s", f8b_last_error());
	d = ok;
	d.out_dtype = F8B_E4M3;
	plan = NULL;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_OK && plan,
	       "e4m3 x e4m3 -> e4m3 accepted");
	float ds = 1.0f, am = 0.0f;
	struct f8b_gemm_args a8 = {
	    .a = plan, .b = plan, .a_scale_inv = &ds, .b_scale_inv = &ds, .d = plan, .amax_d = &am};
	tap_ok(ops->gemm(be, plan, &a8) == F8B_EINVAL && strstr(f8b_last_error(), "d_scale"),
	       "e4m3 output without d_scale refused: %s", f8b_last_error());
	a8.d_scale = &ds;
	a8.amax_d = NULL;
	tap_ok(ops->gemm(be, plan, &a8) == F8B_EINVAL && strstr(f8b_last_error(), "amax_d"),
	       "e4m3 output without amax_d refused: %s", f8b_last_error());
	ops->gemm_plan_free(be, plan);
	d = ok;
	d.a_dtype = F8B_BF16;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EUNSUPPORTED,
	       "bf16 x e4m3 unsupported: %s", f8b_last_error());
	d = ok;
	d.a_dtype = d.b_dtype = F8B_F32;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EUNSUPPORTED, "f32 x f32 unsupported");
	d = ok;
	d.k = 0;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EINVAL &&
	           strstr(f8b_last_error(), "K=0"),
	       "K=0 invalid: %s", f8b_last_error());
	d = ok;
	d.m = -16;
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_EINVAL, "negative M invalid");
	tap_ok(ops->gemm_plan(be, &ok, 1, &plan, NULL) == F8B_EUNSUPPORTED,
	       "candidate 1 unsupported (host has one algorithm): %s", f8b_last_error());
	d = ok;
	d.a_dtype = d.b_dtype = F8B_BF16;
	d.a_gran = F8B_GRAN_BLOCK128X128; /* ignored for bf16 operands */
	tap_ok(ops->gemm_plan(be, &d, 0, &plan, NULL) == F8B_OK, "bf16 plan ignores granularities");
	ops->gemm_plan_free(be, plan);
}

/* e4m3 output (backend.h; doc/gemm.md "fp8 output"): with v the fp32 value
 * the f32-output GEMM of the same operands stores (bit for bit the same
 * sum), D = e4m3(v * d_scale) bit for bit (fp8.h's RNE, saturating) and
 * amax_d = max |v| exactly, before the scale and overwriting what amax_d
 * held; too large a d_scale saturates to +-448, never to NaN; a NaN v
 * gives the NaN code and a NaN amax_d.  With d_scale = 448 / amax the
 * largest element is 448 and D / d_scale is within the e4m3 tolerance of
 * the double reference. */
static void gemm_e4m3_case(int64_t m, int64_t k, int64_t n, enum f8b_dtype bdt,
                           enum f8b_granularity ag, enum f8b_granularity bg, bool nan_row)
{
	struct operand a, b;
	char what[128];
	snprintf(what, sizeof what, "M=%lld K=%lld N=%lld e4m3:%s %s x %s -> e4m3%s", (long long)m,
	         (long long)k, (long long)n, f8b_dtype_name(bdt), f8b_granularity_name(ag),
	         f8b_granularity_name(bg), nan_row ? ", NaN row" : "");
	make_operand(&a, m, k, F8B_E4M3, ag, 3000 + (uint64_t)m);
	make_operand(&b, n, k, bdt, bg, 4000 + (uint64_t)n);
	if (nan_row) /* row 1 of A: its (axiswise) scale NaN, so every v of the row */
		a.scale_inv[1] = NAN;
	struct f8b_gemm_desc d = {.m = m,
	                          .n = n,
	                          .k = k,
	                          .a_dtype = F8B_E4M3,
	                          .b_dtype = bdt,
	                          .out_dtype = F8B_F32,
	                          .a_gran = ag,
	                          .b_gran = bg};
	struct f8b_tensor d32, d8;
	f8b_tensor_alloc(ops, be, &d32, F8B_F32, m, n);
	f8b_tensor_alloc(ops, be, &d8, F8B_E4M3, m, n);
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_gemm_args args = {.a = a.q.data,
	                             .b = b.q.data,
	                             .a_scale_inv = a.scale_inv,
	                             .b_scale_inv = b.scale_inv,
	                             .d = d32.data};
	int rc = ops->gemm_plan(be, &d, 0, &plan, NULL);
	if (rc == F8B_OK)
		rc = ops->gemm(be, plan, &args);
	ops->gemm_plan_free(be, plan);
	const float *v = d32.data;
	float amax = 0.0f;
	for (int64_t i = 0; i < m * n; i++)
		if (!isnan(v[i]) && fabsf(v[i]) > amax)
			amax = fabsf(v[i]);

	d.out_dtype = F8B_E4M3;
	plan = NULL;
	if (rc == F8B_OK)
		rc = ops->gemm_plan(be, &d, 0, &plan, NULL);
	/* twice: a scale that uses the range, then one that saturates */
	for (int pass = 0; pass < 2 && rc == F8B_OK; pass++) {
		float ds = 448.0f / amax * (pass ? 4.0f : 1.0f), amax_d = 1e30f;
		args.d = d8.data;
		args.d_scale = &ds;
		args.amax_d = &amax_d;
		memset(d8.data, 0xAA, (size_t)(m * n));
		rc = ops->gemm(be, plan, &args);
		if (rc != F8B_OK)
			break;
		const uint8_t *q = d8.data;
		int64_t bad = -1, sat = 0, nanc = 0;
		uint8_t top = 0;
		for (int64_t i = 0; i < m * n; i++) {
			if (q[i] != f8b_f32_to_e4m3(v[i] * ds) && bad < 0)
				bad = i;
			sat += (q[i] & 0x7F) == 0x7E && fabsf(v[i] * ds) > 464.0f;
			nanc += (q[i] & 0x7F) == 0x7F;
			if ((q[i] & 0x7F) != 0x7F && (q[i] & 0x7F) > top)
				top = q[i] & 0x7F;
		}
		tap_ok(bad < 0, "%s, d_scale %g: D = e4m3(v * d_scale) bit for bit", what, ds);
		if (bad >= 0)
			tap_diag("element %lld: v %a, D 0x%02x, want 0x%02x", (long long)bad,
			         v[bad], q[bad], f8b_f32_to_e4m3(v[bad] * ds));
		if (nan_row)
			tap_ok(isnan(amax_d) && nanc == n,
			       "%s: amax_d NaN (%g), the NaN row's %lld codes NaN", what, amax_d,
			       (long long)nanc);
		else
			tap_ok(amax_d == amax && nanc == 0,
			       "%s, d_scale %g: amax_d %.9g = max |v| %.9g (before the scale, "
			       "overwriting 1e30), no NaN code",
			       what, ds, amax_d, amax);
		if (pass == 0 && !nan_row) {
			tap_ok(top == 0x7E,
			       "%s: d_scale 448/amax puts the largest |D| at 448 (0x%02x)", what,
			       top);
			double *ref = malloc(sizeof *ref * (size_t)(m * n));
			float *dq = malloc(sizeof *dq * (size_t)(m * n));
			f8b_ref_gemm(a.deq, b.deq, m, n, k, ref);
			for (int64_t i = 0; i < m * n; i++)
				dq[i] = f8b_e4m3_to_f32(q[i]) / ds;
			double e = f8b_rel_error(dq, ref, (size_t)(m * n));
			double tol = f8b_gemm_tolerance(k, F8B_E4M3, false);
			tap_ok(e > 0x1p-8 && e <= tol,
			       "%s: D / d_scale vs the double reference: rel error %.3g (e4m3 "
			       "rounding, > 2^-8), tolerance %.3g",
			       what, e, tol);
			free(ref);
			free(dq);
		}
		if (pass == 1 && !nan_row)
			tap_ok(sat > 0 && top == 0x7E,
			       "%s: 4x the scale saturates %lld elements to +-448, none to NaN",
			       what, (long long)sat);
	}
	tap_ok(rc == F8B_OK, "%s ran: %s", what, rc ? f8b_last_error() : "ok");
	ops->gemm_plan_free(be, plan);
	f8b_tensor_free(ops, be, &d32);
	f8b_tensor_free(ops, be, &d8);
	free_operand(&a);
	free_operand(&b);
}

static void test_gemm_e4m3_out(void)
{
	gemm_e4m3_case(48, 272, 80, F8B_E4M3, F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, false);
	gemm_e4m3_case(7, 130, 9, F8B_E5M2, F8B_GRAN_AXISWISE, F8B_GRAN_AXISWISE, false);
	gemm_e4m3_case(256, 400, 144, F8B_E4M3, F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK128X128, false);
	gemm_e4m3_case(48, 272, 80, F8B_E4M3, F8B_GRAN_AXISWISE, F8B_GRAN_TENSORWISE, true);
}

static void time_gemm(void)
{
	const int64_t m = 512, k = 1024, n = 256;
	struct operand a, b;
	make_operand(&a, m, k, F8B_E4M3, F8B_GRAN_BLOCK1X128, 21);
	make_operand(&b, n, k, F8B_E4M3, F8B_GRAN_BLOCK128X128, 22);
	struct f8b_tensor out;
	f8b_tensor_alloc(ops, be, &out, F8B_BF16, m, n);
	struct f8b_gemm_desc d = {.m = m,
	                          .n = n,
	                          .k = k,
	                          .a_dtype = F8B_E4M3,
	                          .b_dtype = F8B_E4M3,
	                          .out_dtype = F8B_BF16,
	                          .a_gran = F8B_GRAN_BLOCK1X128,
	                          .b_gran = F8B_GRAN_BLOCK128X128};
	struct f8b_gemm_plan *plan;
	struct f8b_gemm_args args = {.a = a.q.data,
	                             .b = b.q.data,
	                             .a_scale_inv = a.scale_inv,
	                             .b_scale_inv = b.scale_inv,
	                             .d = out.data};
	struct f8b_event *e0, *e1;
	double s = -1;

	ops->gemm_plan(be, &d, 0, &plan, NULL);
	ops->event_create(be, &e0);
	ops->event_create(be, &e1);
	ops->event_record(be, e0);
	int rc = ops->gemm(be, plan, &args);
	ops->event_record(be, e1);
	ops->event_elapsed(be, e0, e1, &s);
	/* A timing, not a test: reported for whoever tunes the host path. */
	tap_ok(rc == F8B_OK, "blockwise gemm %lldx%lldx%lld ran", (long long)m, (long long)k,
	       (long long)n);
	tap_diag("host gemm M=%lld K=%lld N=%lld: %.4f s, %.2f GFLOP/s", (long long)m, (long long)k,
	         (long long)n, s, 2.0 * m * n * k / s * 1e-9);
	ops->event_destroy(be, e0);
	ops->event_destroy(be, e1);
	ops->gemm_plan_free(be, plan);
	f8b_tensor_free(ops, be, &out);
	free_operand(&a);
	free_operand(&b);
}

/* ------------------------------------------------------------ the rest */

static void test_events(void)
{
	struct f8b_event *a = NULL, *b = NULL, *c = NULL;
	double s = -1;

	tap_ok(ops->event_create(be, &a) == F8B_OK && ops->event_create(be, &b) == F8B_OK &&
	           ops->event_create(be, &c) == F8B_OK,
	       "event_create");
	ops->event_record(be, a);
	nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
	ops->event_record(be, b);
	/* A sleep is never shorter than asked; on a loaded machine (make -j
	 * with MPI tests beside it) it can be much longer. */
	int erc = ops->event_elapsed(be, a, b, &s);
	tap_ok(erc == F8B_OK && s >= 0.0199 && s < 0.2, "a 20 ms sleep measures %.2f ms (20..200)",
	       s * 1e3);
	tap_ok(ops->event_elapsed(be, a, c, &s) == F8B_EINVAL, "unrecorded event refused: %s",
	       f8b_last_error());
	double t0 = f8b_now();
	int rc = ops->flush_cache(be, F8B_FLUSH_READ);
	double t1 = f8b_now();
	tap_ok(rc == F8B_OK && ops->sync(be) == F8B_OK, "flush_cache and sync succeed");
	tap_diag("flush of 64 MiB: %.2f ms", (t1 - t0) * 1e3);
	tap_ok(ops->clock_state == NULL, "host has no clock_state");
	ops->event_destroy(be, a);
	ops->event_destroy(be, b);
	ops->event_destroy(be, c);
}

static void test_memory_and_lookup(void)
{
	const struct f8b_backend_ops *found;
	void *p = NULL;

	tap_ok(f8b_backend_find("host", &found) == F8B_OK && found == &f8b_backend_host &&
	           strcmp(found->name, "host") == 0,
	       "find 'host'");
#ifdef F8B_HAVE_CUDA
	tap_ok(f8b_backend_find("cuda", &found) == F8B_OK, "find 'cuda' (built with CUDA)");
#else
	tap_ok(f8b_backend_find("cuda", &found) == F8B_EUNSUPPORTED &&
	           strstr(f8b_last_error(), "--with-cuda"),
	       "find 'cuda' without CUDA: %s", f8b_last_error());
#endif
	tap_ok(f8b_backend_find("opencl", &found) == F8B_EINVAL &&
	           strstr(f8b_last_error(), "host, cuda"),
	       "find unknown: %s", f8b_last_error());

	size_t huge = (size_t)1 << 62;
	char want[64];
	snprintf(want, sizeof want, "%zu bytes", huge);
	tap_ok(ops->alloc(be, huge, &p) == F8B_ENOMEM && strstr(f8b_last_error(), want),
	       "alloc of 2^62 bytes: %s", f8b_last_error());

	struct f8b_tensor t;
	tap_ok(f8b_tensor_alloc(ops, be, &t, F8B_BF16, 3, 5) == F8B_OK &&
	           f8b_tensor_bytes(&t) == 30,
	       "bf16 3x5 tensor is 30 bytes");
	uint16_t src[15], dst[15];
	for (int i = 0; i < 15; i++)
		src[i] = (uint16_t)(i * 977);
	ops->upload(be, t.data, src, sizeof src);
	ops->download(be, dst, t.data, sizeof dst);
	tap_ok(memcmp(src, dst, sizeof src) == 0, "upload/download round trip");
	ops->memset(be, t.data, 0xAB, 30);
	ops->download(be, dst, t.data, sizeof dst);
	tap_ok(dst[0] == 0xABAB && dst[14] == 0xABAB, "memset");
	f8b_tensor_free(ops, be, &t);

	tap_ok(f8b_tensor_alloc(ops, be, &t, F8B_F32, INT64_MAX / 2, 4) == F8B_EINVAL &&
	           t.data == NULL,
	       "overflowing tensor size refused: %s", f8b_last_error());
	tap_ok(f8b_tensor_alloc(ops, be, &t, F8B_E4M3, 0, 4) == F8B_EINVAL,
	       "empty tensor refused: %s", f8b_last_error());
	tap_ok(f8b_tensor_alloc(ops, be, &t, F8B_DTYPE_COUNT, 2, 4) == F8B_EINVAL,
	       "unknown dtype refused");
	t = (struct f8b_tensor){.dtype = F8B_E5M2, .rows = 1000, .cols = 1000};
	tap_ok(f8b_tensor_bytes(&t) == 1000000, "tensor_bytes e5m2 1000x1000");
}

int main(void)
{
	struct f8b_device_info info;

	int rc = ops->open(0, &be, &info);
	tap_ok(rc == F8B_OK, "open host backend");
	if (rc != F8B_OK)
		return tap_done();
	tap_ok(info.device == -1 && info.name[0] && info.mem_bytes > 0 && info.cc_major == 0,
	       "device info: '%s', %zu MiB, LLC %zu KiB", info.name, info.mem_bytes >> 20,
	       info.l2_bytes >> 10);

	test_memory_and_lookup();
	test_fill();
	test_fill_statistics();
	test_amax_scales_cast();
	test_gemm_all();
	test_gemm_wrong_layout();
	test_gemm_refusals();
	test_gemm_e4m3_out();
	test_events();
	time_gemm();

	ops->close(be);
	return tap_done();
}
