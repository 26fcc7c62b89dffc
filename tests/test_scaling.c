/* test_scaling.c - granularity names, scale layouts, amax per block,
 * amax -> scale and the delayed-scaling history, on hand-computed cases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scaling.h"
#include "tap.h"

static uint32_t bits_of(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static void test_names(void)
{
	static const char *const names[] = {"tensorwise", "axiswise", "block1x128", "block128x128"};
	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		enum f8b_granularity out = F8B_GRAN_COUNT;
		tap_ok(strcmp(f8b_granularity_name((enum f8b_granularity)g), names[g]) == 0 &&
		           f8b_granularity_parse(names[g], &out) == F8B_OK && (int)out == g,
		       "granularity %s: name and parse round-trip", names[g]);
	}
	static const struct {
		const char *s;
		enum f8b_granularity g;
	} alias[] = {{"rowwise", F8B_GRAN_AXISWISE},
	             {"1x128", F8B_GRAN_BLOCK1X128},
	             {"128x128", F8B_GRAN_BLOCK128X128},
	             {"TensorWise", F8B_GRAN_TENSORWISE}};
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++) {
		enum f8b_granularity out = F8B_GRAN_COUNT;
		tap_ok(f8b_granularity_parse(alias[i].s, &out) == F8B_OK && out == alias[i].g,
		       "granularity alias '%s' -> %s", alias[i].s,
		       f8b_granularity_name(alias[i].g));
	}

	enum f8b_granularity g = F8B_GRAN_AXISWISE;
	f8b_clear_error();
	int rc = f8b_granularity_parse("block64", &g);
	const char *msg = f8b_last_error();
	tap_ok(rc == F8B_EINVAL && g == F8B_GRAN_AXISWISE,
	       "granularity 'block64' rejected, out untouched");
	tap_ok(strstr(msg, "'block64'") && strstr(msg, "tensorwise") && strstr(msg, "axiswise") &&
	           strstr(msg, "block1x128") && strstr(msg, "block128x128"),
	       "granularity error names the input and the accepted names: %s", msg);
	tap_ok(strcmp(f8b_granularity_name(F8B_GRAN_COUNT), "?") == 0,
	       "granularity name of an out-of-range value is '?'");

	static const char *const tnames[] = {"dynamic", "delayed", "disabled"};
	for (int t = 0; t < F8B_SCALING_TYPE_COUNT; t++) {
		enum f8b_scaling_type out = F8B_SCALING_TYPE_COUNT;
		tap_ok(strcmp(f8b_scaling_type_name((enum f8b_scaling_type)t), tnames[t]) == 0 &&
		           f8b_scaling_type_parse(tnames[t], &out) == F8B_OK && (int)out == t,
		       "scaling type %s: name and parse round-trip", tnames[t]);
	}
	enum f8b_scaling_type t = F8B_SCALING_DELAYED;
	tap_ok(f8b_scaling_type_parse("DELAYED", &t) == F8B_OK && t == F8B_SCALING_DELAYED,
	       "scaling type parse is case-insensitive");
	rc = f8b_scaling_type_parse("static", &t);
	msg = f8b_last_error();
	tap_ok(rc == F8B_EINVAL && strstr(msg, "'static'") && strstr(msg, "dynamic") &&
	           strstr(msg, "delayed") && strstr(msg, "disabled"),
	       "scaling type 'static' rejected with the accepted names: %s", msg);
}

static void check_shape(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t wr, int64_t wc)
{
	int64_t sr = -1, sc = -1;
	f8b_scale_shape(g, rows, cols, &sr, &sc);
	int64_t n = f8b_scale_count(g, rows, cols);
	/* block128x128 rows are padded to 4 floats (16 bytes) for cuBLASLt. */
	int64_t want_n = g == F8B_GRAN_BLOCK128X128 ? wr * ((wc + 3) / 4 * 4) : wr * wc;
	tap_ok(sr == wr && sc == wc && n == want_n,
	       "%s %lldx%lld: scale shape %lldx%lld count %lld (want %lldx%lld)",
	       f8b_granularity_name(g), (long long)rows, (long long)cols, (long long)sr,
	       (long long)sc, (long long)n, (long long)wr, (long long)wc);
}

/* Every (br, bc) maps to a distinct slot in [0, count). */
static void check_bijection(enum f8b_granularity g, int64_t rows, int64_t cols)
{
	int64_t sr, sc, n = f8b_scale_count(g, rows, cols);
	f8b_scale_shape(g, rows, cols, &sr, &sc);
	char *seen = calloc((size_t)n, 1);
	int ok = seen != NULL;
	for (int64_t br = 0; ok && br < sr; br++) {
		for (int64_t bc = 0; bc < sc; bc++) {
			int64_t i = f8b_scale_index(g, rows, cols, br, bc);
			if (i < 0 || i >= n || seen[i]) {
				ok = 0;
				break;
			}
			seen[i] = 1;
		}
	}
	free(seen);
	tap_ok(ok, "%s %lldx%lld: every block has its own slot in [0, %lld)",
	       f8b_granularity_name(g), (long long)rows, (long long)cols, (long long)n);
}

static void test_layout(void)
{
	check_shape(F8B_GRAN_TENSORWISE, 256, 384, 1, 1);
	check_shape(F8B_GRAN_AXISWISE, 256, 384, 256, 1);
	check_shape(F8B_GRAN_BLOCK1X128, 256, 384, 256, 3);
	check_shape(F8B_GRAN_BLOCK128X128, 256, 384, 2, 3);
	check_shape(F8B_GRAN_TENSORWISE, 130, 200, 1, 1);
	check_shape(F8B_GRAN_AXISWISE, 130, 200, 130, 1);
	check_shape(F8B_GRAN_BLOCK1X128, 130, 200, 130, 2);
	check_shape(F8B_GRAN_BLOCK128X128, 130, 200, 2, 2);
	check_shape(F8B_GRAN_BLOCK128X128, 128, 128, 1, 1);
	check_shape(F8B_GRAN_BLOCK1X128, 3, 129, 3, 2);
	check_shape(F8B_GRAN_BLOCK128X128, 0, 0, 0, 0);
	check_shape(F8B_GRAN_COUNT, 16, 16, 0, 0);

	tap_ok(f8b_scale_index(F8B_GRAN_TENSORWISE, 130, 200, 0, 0) == 0, "tensorwise index 0");
	tap_ok(f8b_scale_index(F8B_GRAN_AXISWISE, 130, 200, 77, 0) == 77,
	       "axiswise index of row 77 is 77");
	tap_ok(f8b_scale_index(F8B_GRAN_BLOCK1X128, 130, 200, 5, 1) == 1 * 130 + 5,
	       "block1x128 130x200 (br 5, bc 1) -> 135 (column-major)");
	tap_ok(f8b_scale_index(F8B_GRAN_BLOCK1X128, 130, 200, 129, 0) == 129,
	       "block1x128 (br 129, bc 0) -> 129: a block column is contiguous");
	tap_ok(f8b_scale_index(F8B_GRAN_BLOCK128X128, 256, 384, 1, 2) == 1 * 4 + 2,
	       "block128x128 256x384 (br 1, bc 2) -> 6 (row-major, rows padded 3 -> 4)");
	tap_ok(f8b_scale_index(F8B_GRAN_BLOCK128X128, 256, 384, 0, 1) == 1,
	       "block128x128 256x384 (br 0, bc 1) -> 1");
	tap_ok(f8b_scale_index(F8B_GRAN_BLOCK128X128, 1024, 1024, 2, 7) == 2 * 8 + 7,
	       "block128x128 1024x1024 (br 2, bc 7) -> 23 (no padding when scols %% 4 == 0)");
	tap_ok(f8b_scale_index(F8B_GRAN_COUNT, 1, 1, 0, 0) == -1, "unknown granularity index -1");

	for (int g = 0; g < F8B_GRAN_COUNT; g++) {
		check_bijection((enum f8b_granularity)g, 130, 200);
		check_bijection((enum f8b_granularity)g, 256, 384);
	}
}

/* A tensor of small values (|x| <= 0.25) with the wanted maxima planted. */
static float *background(int64_t rows, int64_t cols)
{
	float *x = malloc((size_t)(rows * cols) * sizeof *x);
	for (int64_t i = 0; x && i < rows * cols; i++)
		x[i] = (float)((i * 37) % 101 - 50) * 0.005f;
	return x;
}

static void test_amax_4x256(void)
{
	float *x = background(4, 256);
	float a[8];
	/* row 0: 3 at col 0 (block 0), 1.5 at col 128 (block 1)
	 * row 1: -7 at col 255 (block 1), 0.75 at col 127 (block 0)
	 * row 2: -9.5 at col 200 (block 1); block 0 keeps the background
	 * row 3: 0.5 at col 128 (block 1), -2 at col 1 (block 0) */
	x[0 * 256 + 0] = 3.0f;
	x[0 * 256 + 128] = 1.5f;
	x[1 * 256 + 255] = -7.0f;
	x[1 * 256 + 127] = 0.75f;
	x[2 * 256 + 200] = -9.5f;
	x[3 * 256 + 128] = 0.5f;
	x[3 * 256 + 1] = -2.0f;
	float bg2 = 0.0f; /* background max of row 2, cols 0..127 */
	for (int c = 0; c < 128; c++)
		bg2 = fmaxf(bg2, fabsf(x[2 * 256 + c]));

	f8b_amax_f32(x, 4, 256, F8B_GRAN_TENSORWISE, a);
	tap_ok(a[0] == 9.5f, "4x256 tensorwise amax 9.5 (got %g)", a[0]);

	f8b_amax_f32(x, 4, 256, F8B_GRAN_AXISWISE, a);
	tap_ok(a[0] == 3.0f && a[1] == 7.0f && a[2] == 9.5f && a[3] == 2.0f,
	       "4x256 axiswise amax {3, 7, 9.5, 2} (got {%g, %g, %g, %g})", a[0], a[1], a[2], a[3]);

	f8b_amax_f32(x, 4, 256, F8B_GRAN_BLOCK1X128, a);
	/* column-major 4x2: slot bc*4 + br */
	float want[8] = {3.0f, 0.75f, bg2, 2.0f, 1.5f, 7.0f, 9.5f, 0.5f};
	int ok = 1;
	for (int i = 0; i < 8; i++)
		ok &= a[i] == want[i];
	tap_ok(ok, "4x256 block1x128 amax in column-major order (got %g %g %g %g | %g %g %g %g)",
	       a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);

	f8b_amax_f32(x, 4, 256, F8B_GRAN_BLOCK128X128, a);
	tap_ok(a[0] == 3.0f && a[1] == 9.5f, "4x256 block128x128 amax {3 | 9.5} (got {%g | %g})",
	       a[0], a[1]);
	free(x);
}

static void test_amax_256x384(void)
{
	float *x = background(256, 384);
	float a[256 * 3];
	/* One planted maximum per 128x128 block, at its corners and inside:
	 * block (br, bc) gets 10 * (1 + br + 2 * bc) with alternating sign. */
	static const int at[6][2] = {{0, 0},     {255, 0}, {127, 255},
	                             {128, 128}, {0, 383}, {255, 256}};
	/* (br, bc) of those: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2) */
	for (int k = 0; k < 6; k++) {
		int r = at[k][0], c = at[k][1];
		float v = 10.0f * (float)(1 + r / 128 + 2 * (c / 128));
		x[r * 384 + c] = k & 1 ? -v : v;
	}

	f8b_amax_f32(x, 256, 384, F8B_GRAN_BLOCK128X128, a);
	int ok = 1;
	for (int bc = 0; bc < 3; bc++)
		for (int br = 0; br < 2; br++)
			ok &= a[br * 4 + bc] == 10.0f * (float)(1 + br + 2 * bc);
	ok &= a[3] == 0.0f && a[7] == 0.0f; /* padding */
	tap_ok(ok,
	       "256x384 block128x128: each block's planted max at br*4+bc, padding 0 "
	       "(got %g %g %g %g | %g %g %g %g)",
	       a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);

	f8b_amax_f32(x, 256, 384, F8B_GRAN_TENSORWISE, a);
	tap_ok(a[0] == 60.0f, "256x384 tensorwise amax 60 (got %g)", a[0]);

	f8b_amax_f32(x, 256, 384, F8B_GRAN_AXISWISE, a);
	tap_ok(a[0] == 50.0f && a[255] == 60.0f && a[127] == 30.0f && a[128] == 40.0f &&
	           a[1] <= 0.25f,
	       "256x384 axiswise: rows 0, 127, 128, 255 = 50, 30, 40, 60; others background");

	f8b_amax_f32(x, 256, 384, F8B_GRAN_BLOCK1X128, a);
	tap_ok(a[0 * 256 + 0] == 10.0f && a[2 * 256 + 0] == 50.0f && a[0 * 256 + 255] == 20.0f &&
	           a[2 * 256 + 255] == 60.0f && a[1 * 256 + 127] == 30.0f &&
	           a[1 * 256 + 128] == 40.0f && a[1 * 256 + 0] <= 0.25f,
	       "256x384 block1x128: planted maxima at bc*256+r");
	free(x);
}

static void test_amax_ragged(void)
{
	enum { R = 130, C = 200 };
	float *x = background(R, C);
	float a[R * 2];
	x[129 * C + 199] = -5.0f; /* last row, last column: ragged corner block */
	x[128 * C + 0] = 4.0f;    /* ragged block row, full block column */
	x[0 * C + 199] = 3.0f;    /* full block row, ragged block column */
	x[127 * C + 127] = 2.0f;  /* last element of the full block */

	f8b_amax_f32(x, R, C, F8B_GRAN_BLOCK128X128, a);
	tap_ok(
	    a[0] == 2.0f && a[4] == 4.0f && a[1] == 3.0f && a[5] == 5.0f,
	    "130x200 block128x128: ragged blocks {2, 3 | 4, 5} at br*4+bc (got {%g, %g | %g, %g})",
	    a[0], a[1], a[4], a[5]);

	f8b_amax_f32(x, R, C, F8B_GRAN_BLOCK1X128, a);
	tap_ok(a[1 * R + 129] == 5.0f && a[0 * R + 128] == 4.0f && a[1 * R + 0] == 3.0f &&
	           a[0 * R + 127] == 2.0f && a[1 * R + 128] <= 0.25f,
	       "130x200 block1x128: ragged last block column (72 wide) at bc*130+r");

	/* Nothing outside a ragged block leaks in: a tensor whose only large
	 * value is in the 72 ragged columns of row 2. */
	float y[3 * 200] = {0};
	y[2 * 200 + 150] = 8.0f;
	f8b_amax_f32(y, 3, 200, F8B_GRAN_BLOCK1X128, a);
	tap_ok(a[0] == 0.0f && a[1] == 0.0f && a[2] == 0.0f && a[3] == 0.0f && a[4] == 0.0f &&
	           a[5] == 8.0f,
	       "3x200 block1x128: only slot 1*3+2 holds 8 (got %g %g %g | %g %g %g)", a[0], a[1],
	       a[2], a[3], a[4], a[5]);
	free(x);
}

static void test_amax_special(void)
{
	float x[2 * 256] = {0};
	float a[4];

	f8b_amax_f32(x, 2, 256, F8B_GRAN_TENSORWISE, a);
	tap_ok(a[0] == 0.0f, "all-zero tensor: amax 0");
	x[3] = -0.0f;
	x[4] = -1e-30f;
	f8b_amax_f32(x, 2, 256, F8B_GRAN_TENSORWISE, a);
	tap_ok(a[0] == 1e-30f, "amax is |x|: -1e-30 gives 1e-30");

	x[10] = NAN;        /* row 0, block 0 */
	x[11] = 100.0f;     /* larger values after the NaN must not replace it */
	x[300] = -INFINITY; /* row 1, block 0 */
	x[511] = 7.0f;      /* row 1, block 1 */
	f8b_amax_f32(x, 2, 256, F8B_GRAN_BLOCK1X128, a);
	tap_ok(isnan(a[0]) && a[1] == INFINITY && a[2] == 0.0f && a[3] == 7.0f,
	       "NaN and inf propagate to their block only (got %g %g %g %g)", a[0], a[1], a[2],
	       a[3]);
	f8b_amax_f32(x, 2, 256, F8B_GRAN_TENSORWISE, a);
	tap_ok(isnan(a[0]), "tensorwise amax with a NaN (and inf after it) is NaN");
	f8b_amax_f32(x, 2, 256, F8B_GRAN_AXISWISE, a);
	tap_ok(isnan(a[0]) && a[1] == INFINITY, "axiswise: NaN row 0, inf row 1");
}

#define SCALE_EQ(amax, t, o, want, what)                                                           \
	do {                                                                                       \
		float got_ = f8b_amax_to_scale((amax), (t), (o));                                  \
		float want_ = (want);                                                              \
		tap_ok(bits_of(got_) == bits_of(want_), "scale %s: %.9g (want %.9g)", what,        \
		       (double)got_, (double)want_);                                               \
	} while (0)

static void test_scale(void)
{
	struct f8b_scale_opts plain = {0.0f, false};
	struct f8b_scale_opts m1 = {1.0f, false}, m2 = {2.0f, false};
	struct f8b_scale_opts p2 = {0.0f, true}, m1p2 = {1.0f, true};

	SCALE_EQ(448.0f, F8B_E4M3, &plain, 1.0f, "e4m3 amax 448");
	SCALE_EQ(1.0f, F8B_E4M3, &plain, 448.0f, "e4m3 amax 1");
	SCALE_EQ(2.0f, F8B_E4M3, &plain, 224.0f, "e4m3 amax 2");
	/* 448/3 = 149.333..., fp32 RN: 1.0010101...b * 2^7 -> 0x43155555 */
	uint32_t u = 0x43155555u;
	float third;
	memcpy(&third, &u, sizeof third);
	SCALE_EQ(3.0f, F8B_E4M3, &plain, third, "e4m3 amax 3 (fp32 RN of 448/3)");
	SCALE_EQ(3.0f, F8B_E4M3, NULL, third, "NULL opts = margin 0, no pow2");
	SCALE_EQ(57344.0f, F8B_E5M2, &plain, 1.0f, "e5m2 amax 57344");
	SCALE_EQ(0.5f, F8B_E5M2, &plain, 114688.0f, "e5m2 amax 0.5");
	SCALE_EQ(1.0f, F8B_E4M3, &m1, 224.0f, "e4m3 amax 1 margin 1");
	SCALE_EQ(1.0f, F8B_E4M3, &m2, 112.0f, "e4m3 amax 1 margin 2");
	SCALE_EQ(3.0f, F8B_E4M3, &m1, third / 2.0f, "e4m3 amax 3 margin 1 (exact halving)");

	SCALE_EQ(3.0f, F8B_E4M3, &p2, 128.0f, "e4m3 amax 3 pow2 (149.3 -> 128)");
	SCALE_EQ(448.0f, F8B_E4M3, &p2, 1.0f, "e4m3 amax 448 pow2 (1 stays 1)");
	SCALE_EQ(500.0f, F8B_E4M3, &p2, 0.5f, "e4m3 amax 500 pow2 (0.896 -> 0.5)");
	SCALE_EQ(3.0f, F8B_E5M2, &p2, 16384.0f, "e5m2 amax 3 pow2 (19114.7 -> 16384)");
	SCALE_EQ(3.0f, F8B_E4M3, &m1p2, 64.0f, "e4m3 amax 3 margin 1 pow2 (74.7 -> 64)");
	SCALE_EQ(0.001f, F8B_E4M3, &p2, 262144.0f, "e4m3 amax 0.001 pow2 (448000 -> 2^18)");

	float eps_scale = 448.0f / F8B_AMAX_EPS;
	SCALE_EQ(0.0f, F8B_E4M3, &plain, eps_scale, "e4m3 amax 0 uses eps (448/1e-12)");
	SCALE_EQ(1e-13f, F8B_E4M3, &plain, eps_scale, "e4m3 amax 1e-13 < eps uses eps");
	SCALE_EQ(-5.0f, F8B_E4M3, &plain, eps_scale, "negative amax counts as 0");
	tap_ok(isfinite(eps_scale) && eps_scale > 4e14f, "eps scale is finite (%g)",
	       (double)eps_scale);
	SCALE_EQ(0.0f, F8B_E5M2, &plain, 57344.0f / F8B_AMAX_EPS, "e5m2 amax 0 uses eps");

	tap_ok(isnan(f8b_amax_to_scale(NAN, F8B_E4M3, &plain)), "amax NaN -> scale NaN");
	tap_ok(isnan(f8b_amax_to_scale(NAN, F8B_E4M3, &p2)), "amax NaN with pow2 -> scale NaN");
	{
		float sn = f8b_amax_to_scale(-NAN, F8B_E5M2, &plain);
		uint32_t bits;
		memcpy(&bits, &sn, sizeof bits);
		tap_ok(bits == 0x7FFFFFFFu,
		       "any NaN amax -> the canonical NaN 0x7FFFFFFF (got 0x%08X)", bits);
	}
	SCALE_EQ(INFINITY, F8B_E4M3, &plain, 0.0f, "amax inf -> scale 0");
	SCALE_EQ(INFINITY, F8B_E4M3, &p2, 0.0f, "amax inf with pow2 -> scale 0");

	/* The pow2 scale makes scale_inv exact: 1/s is a power of two too. */
	int exact = 1;
	for (int i = 1; i < 1000; i++) {
		float s = f8b_amax_to_scale((float)i * 0.37f, F8B_E4M3, &p2);
		int e;
		exact &= frexpf(s, &e) == 0.5f && (1.0f / s) * s == 1.0f;
	}
	tap_ok(exact, "pow2 scales are powers of two for 999 amaxes");

	int mono = 1;
	float prev = INFINITY;
	for (int i = 0; i < 2000; i++) {
		float s = f8b_amax_to_scale((float)i * 0.25f, F8B_E4M3, &plain);
		mono &= s <= prev;
		prev = s;
	}
	tap_ok(mono, "scale does not increase with amax");
}

static void test_history(void)
{
	struct f8b_amax_history h;

	f8b_clear_error();
	tap_ok(f8b_history_init(&h, 0) == F8B_EINVAL && h.buf == NULL, "history length 0 rejected");
	tap_ok(strstr(f8b_last_error(), "0") && strstr(f8b_last_error(), ">= 1"),
	       "history error names the length and what is accepted: %s", f8b_last_error());

	tap_ok(f8b_history_init(&h, 3) == F8B_OK && h.len == 3 && h.count == 0 && h.pos == 0,
	       "history of 3 initialised empty");
	tap_ok(f8b_history_amax(&h) == 0.0f, "empty history amax 0");
	SCALE_EQ(f8b_history_amax(&h), F8B_E4M3, NULL, 448.0f / F8B_AMAX_EPS,
	         "empty history gives the eps scale");

	f8b_history_push(&h, 1.0f);
	f8b_history_push(&h, 5.0f);
	tap_ok(h.count == 2 && h.pos == 2 && f8b_history_amax(&h) == 5.0f,
	       "after 1, 5: count 2, max 5");
	f8b_history_push(&h, 2.0f);
	tap_ok(h.count == 3 && h.pos == 0 && f8b_history_amax(&h) == 5.0f,
	       "after 1, 5, 2: full, pos wrapped to 0, max 5");
	f8b_history_push(&h, 0.5f); /* overwrites 1 */
	tap_ok(h.count == 3 && h.pos == 1 && f8b_history_amax(&h) == 5.0f,
	       "0.5 overwrites the oldest (1): max 5");
	f8b_history_push(&h, 0.25f); /* overwrites 5 */
	tap_ok(f8b_history_amax(&h) == 2.0f, "0.25 overwrites 5: max 2");
	f8b_history_push(&h, 0.125f); /* overwrites 2 */
	tap_ok(f8b_history_amax(&h) == 0.5f && h.count == 3,
	       "0.125 overwrites 2: max 0.5 (window of the last 3)");
	f8b_history_push(&h, NAN);
	tap_ok(isnan(f8b_history_amax(&h)), "a NaN in the window makes the history amax NaN");
	f8b_history_push(&h, 1.0f);
	f8b_history_push(&h, 1.0f);
	tap_ok(isnan(f8b_history_amax(&h)), "... for as long as it is in the window");
	f8b_history_push(&h, 1.0f);
	tap_ok(f8b_history_amax(&h) == 1.0f, "... and not after it left");
	f8b_history_free(&h);
	tap_ok(h.buf == NULL && h.len == 0 && h.count == 0, "history freed and zeroed");
	f8b_history_push(&h, 3.0f);
	tap_ok(f8b_history_amax(&h) == 0.0f, "push after free is ignored");

	tap_ok(f8b_history_init(&h, 1) == F8B_OK, "history of 1");
	f8b_history_push(&h, 9.0f);
	f8b_history_push(&h, 4.0f);
	tap_ok(f8b_history_amax(&h) == 4.0f && h.count == 1 && h.pos == 0,
	       "history of 1 keeps only the latest amax");
	f8b_history_free(&h);
}

int main(void)
{
	test_names();
	test_layout();
	test_amax_4x256();
	test_amax_256x384();
	test_amax_ragged();
	test_amax_special();
	test_scale();
	test_history();
	return tap_done();
}
