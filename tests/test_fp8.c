/* test_fp8.c - fp8 (e4m3fn, e5m2) and bf16 conversions against an
 * independent reference written from the format definitions.
 *
 * The reference never looks at bits of the result: it decodes every code
 * from (sign, exponent, mantissa) with pow(), lists the finite magnitudes
 * in code order, and rounds by comparing the input with the exact midpoints
 * between neighbours in double (every midpoint has at most 5 significant
 * bits, so it and the comparison are exact), ties going to the code whose
 * mantissa LSB is 0.  Saturation is the OCP/CUDA SATFINITE rule stated as
 * "a result beyond max becomes max".
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/fp8.h"
#include "tap.h"

static uint32_t bits_of(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static float f32_of(uint32_t u)
{
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* ---- independent reference ------------------------------------------ */

struct ref_fmt {
	const char *name;
	int ebits, mbits, bias;
	int fn;        /* 1: e4m3fn (only S.1111.111 is NaN, no inf) */
	int max_code;  /* filled by ref_init: largest finite positive code */
	double v[130]; /* magnitudes of codes 0..max_code, then the value the
	                * code after max would have if the exponent went on */
	uint8_t (*enc)(float);
	float (*dec)(uint8_t);
};

static struct ref_fmt ref_e4m3 = {"e4m3", 4, 3, 7, 1, 0, {0}, f8b_f32_to_e4m3, f8b_e4m3_to_f32};
static struct ref_fmt ref_e5m2 = {"e5m2", 5, 2, 15, 0, 0, {0}, f8b_f32_to_e5m2, f8b_e5m2_to_f32};

/* Value of code c by the definition: (-1)^S * 2^(1-bias) * (0.M) for E = 0,
 * (-1)^S * 2^(E-bias) * (1.M) otherwise; the top exponent is special. */
static double ref_decode(const struct ref_fmt *f, int c)
{
	int s = (c >> 7) & 1;
	int e = (c >> f->mbits) & ((1 << f->ebits) - 1);
	int m = c & ((1 << f->mbits) - 1);
	int etop = (1 << f->ebits) - 1;
	double frac = (double)m / (double)(1 << f->mbits);
	double v;

	if (f->fn && e == etop && m == (1 << f->mbits) - 1)
		return NAN;
	if (!f->fn && e == etop)
		return m ? NAN : (s ? -INFINITY : INFINITY);
	if (e == 0)
		v = ldexp(frac, 1 - f->bias);
	else
		v = ldexp(1.0 + frac, e - f->bias);
	return s ? -v : v;
}

static void ref_init(struct ref_fmt *f)
{
	int c = 0;
	while (c < 128 && isfinite(ref_decode(f, c)))
		c++;
	f->max_code = c - 1;
	for (c = 0; c <= f->max_code; c++)
		f->v[c] = ref_decode(f, c);
	/* Same exponent, one more mantissa step: 480 for e4m3, 65536 for e5m2. */
	f->v[f->max_code + 1] = 2 * f->v[f->max_code] - f->v[f->max_code - 1];
}

static int ref_encode(const struct ref_fmt *f, float x)
{
	if (isnan(x))
		return 0x7F;
	int sign = signbit(x) ? 0x80 : 0;
	double a = fabs((double)x);
	int top = f->max_code + 1;
	int pick;

	if (a >= f->v[top]) {
		pick = top;
	} else {
		int lo = 0, hi = top; /* v[lo] <= a < v[hi] */
		while (hi - lo > 1) {
			int mid = (lo + hi) / 2;
			if (f->v[mid] <= a)
				lo = mid;
			else
				hi = mid;
		}
		double midpoint = 0.5 * (f->v[lo] + f->v[hi]);
		if (a < midpoint)
			pick = lo;
		else if (a > midpoint)
			pick = hi;
		else
			pick = (lo & 1) ? hi : lo;
	}
	if (pick > f->max_code) /* SATFINITE: beyond max (and inf) is max */
		pick = f->max_code;
	return sign | pick;
}

/* bf16 by value: the two neighbours of |x| are the truncation t and the
 * next magnitude; beyond the largest finite bf16 the "next" is 2^128, so
 * rounding past max + half an ulp gives inf as IEEE RNE requires. */
static uint16_t ref_bf16(float x)
{
	if (isnan(x))
		return 0x7FFF;
	uint32_t u = bits_of(x);
	uint32_t sign = u & 0x80000000u;
	uint32_t t = u & 0x7FFF0000u;
	if (t == 0x7F800000u) /* inf */
		return (uint16_t)((sign | t) >> 16);
	double a = fabs((double)x);
	double lo = (double)f32_of(t);
	double hi = t + 0x10000u == 0x7F800000u ? ldexp(1.0, 128) : (double)f32_of(t + 0x10000u);
	double mid = 0.5 * (lo + hi);
	uint32_t r;
	if (a < mid)
		r = t;
	else if (a > mid)
		r = t + 0x10000u;
	else
		r = (t & 0x10000u) ? t + 0x10000u : t;
	return (uint16_t)((sign | r) >> 16);
}

/* ---- tests ------------------------------------------------------------ */

static void test_ref_sane(struct ref_fmt *f, double max, double min_sub, double min_norm)
{
	int ordered = 1;
	for (int c = 1; c <= f->max_code; c++)
		ordered &= f->v[c] > f->v[c - 1];
	tap_ok(ordered, "%s reference: positive codes increase in value", f->name);
	tap_ok(f->v[f->max_code] == max, "%s reference: max %g (code 0x%02X)", f->name,
	       f->v[f->max_code], f->max_code);
	tap_ok(f->v[1] == min_sub, "%s reference: min subnormal %g", f->name, f->v[1]);
	tap_ok(f->v[1 << f->mbits] == min_norm, "%s reference: min normal %g", f->name,
	       f->v[1 << f->mbits]);
}

static void test_decode(const struct ref_fmt *f)
{
	int bad = 0, nan_ok = 1;
	for (int c = 0; c < 256; c++) {
		double r = ref_decode(f, c);
		float got = f->dec((uint8_t)c);
		if (isnan(r)) {
			nan_ok &= isnan(got) && bits_of(got) == 0x7FFFFFFFu;
			continue;
		}
		if (bits_of(got) != bits_of((float)r)) {
			if (bad++ < 5)
				tap_diag("%s decode 0x%02X: got %a want %a", f->name, c, got, r);
		}
	}
	tap_ok(bad == 0, "%s decode: all non-NaN codes equal the definition (%d bad)", f->name,
	       bad);
	tap_ok(nan_ok, "%s decode: every NaN code gives the canonical NaN 0x7FFFFFFF", f->name);
}

/* Every bf16 pattern is exactly an fp32 (its bits in the high half). */
static void test_bf16_sweep(const struct ref_fmt *f)
{
	int bad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		float x = f32_of(h << 16);
		int want = ref_encode(f, x);
		int got = f->enc(x);
		if (got != want && bad++ < 8)
			tap_diag("%s encode %a (bf16 0x%04X): got 0x%02X want 0x%02X", f->name, x,
			         (unsigned)h, got, want);
	}
	tap_ok(bad == 0, "%s encode: all 65536 bf16 patterns match the reference (%d bad)", f->name,
	       bad);
}

/* fp32 values one ulp either side of every midpoint (and the midpoints):
 * rounding must flip exactly there. */
static void test_midpoints(const struct ref_fmt *f)
{
	int bad = 0, n = 0;
	for (int c = 0; c <= f->max_code; c++) {
		float m = (float)(0.5 * (f->v[c] + f->v[c + 1]));
		float xs[] = {m, nextafterf(m, 0.0f), nextafterf(m, INFINITY)};
		for (int i = 0; i < 3; i++) {
			for (int s = 0; s < 2; s++) {
				float x = s ? -xs[i] : xs[i];
				int want = ref_encode(f, x), got = f->enc(x);
				n++;
				if (got != want && bad++ < 8)
					tap_diag("%s encode %a: got 0x%02X want 0x%02X", f->name, x,
					         got, want);
			}
		}
	}
	tap_ok(bad == 0, "%s encode: %d values at and 1 fp32 ulp around midpoints (%d bad)",
	       f->name, n, bad);
}

/* A pseudo-random 2^20 fp32 patterns (all exponents, full mantissas). */
static void test_random(const struct ref_fmt *f)
{
	uint64_t st = 0x9E3779B97F4A7C15ull;
	int bad = 0;
	for (int i = 0; i < (1 << 20); i++) {
		st = st * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t u = (uint32_t)(st >> 32);
		/* half the samples squeezed into the fp8 range: exponent field
		 * 100..143 (2^-27 .. 2^16) */
		if (i & 1)
			u = (u & 0x807FFFFFu) | ((100u + (u >> 23) % 44u) << 23);
		float x = f32_of(u);
		int want = ref_encode(f, x), got = f->enc(x);
		if (got != want && bad++ < 8)
			tap_diag("%s encode 0x%08X: got 0x%02X want 0x%02X", f->name, u, got, want);
	}
	tap_ok(bad == 0, "%s encode: 2^20 random fp32 patterns match the reference (%d bad)",
	       f->name, bad);
}

static void test_roundtrip(const struct ref_fmt *f)
{
	int bad = 0, n = 0;
	for (int c = 0; c < 256; c++) {
		float v = f->dec((uint8_t)c);
		if (isnan(v) || isinf(v)) /* inf saturates to max by design */
			continue;
		n++;
		uint8_t back = f->enc(v);
		if (back != c || bits_of(f->dec(back)) != bits_of(v)) {
			if (bad++ < 5)
				tap_diag("%s round trip 0x%02X -> %a -> 0x%02X", f->name, c, v,
				         back);
		}
	}
	tap_ok(bad == 0, "%s: encode(decode(c)) == c for all %d finite codes", f->name, n);
}

#define EQ8(f, x, want, what)                                                                      \
	do {                                                                                       \
		int got_ = (f)((x));                                                               \
		tap_ok(got_ == (want), "%s: %s -> 0x%02X (got 0x%02X)", #f, what, (want), got_);   \
	} while (0)

static void test_e4m3_edges(void)
{
	EQ8(f8b_f32_to_e4m3, 0.0f, 0x00, "+0");
	EQ8(f8b_f32_to_e4m3, -0.0f, 0x80, "-0");
	EQ8(f8b_f32_to_e4m3, 1.0f, 0x38, "1.0");
	EQ8(f8b_f32_to_e4m3, -2.0f, 0xC0, "-2.0");
	EQ8(f8b_f32_to_e4m3, 0x1p-9f, 0x01, "min subnormal 2^-9");
	EQ8(f8b_f32_to_e4m3, 0x1p-10f, 0x00, "2^-10 (half min subnormal, tie to 0)");
	EQ8(f8b_f32_to_e4m3, -0x1p-10f, 0x80, "-2^-10 (tie to -0)");
	EQ8(f8b_f32_to_e4m3, nextafterf(0x1p-10f, 1.0f), 0x01, "2^-10 + 1 fp32 ulp");
	EQ8(f8b_f32_to_e4m3, 0x1.8p-9f, 0x02, "1.5 * 2^-9 (tie 1|2 -> 2)");
	EQ8(f8b_f32_to_e4m3, 0x1.4p-8f, 0x02, "2.5 * 2^-9 (tie 2|3 -> 2)");
	EQ8(f8b_f32_to_e4m3, 0x1.cp-7f, 0x07, "largest subnormal 7 * 2^-9");
	EQ8(f8b_f32_to_e4m3, 0x1.ep-7f, 0x08, "7.5 * 2^-9 (tie -> min normal 2^-6)");
	EQ8(f8b_f32_to_e4m3, 0x1p-6f, 0x08, "min normal 2^-6");
	EQ8(f8b_f32_to_e4m3, 448.0f, 0x7E, "max 448");
	EQ8(f8b_f32_to_e4m3, -448.0f, 0xFE, "-448");
	EQ8(f8b_f32_to_e4m3, 432.0f, 0x7E, "432 (tie 416|448 -> 448, even)");
	EQ8(f8b_f32_to_e4m3, 424.0f, 0x7D, "424 (-> 416)");
	EQ8(f8b_f32_to_e4m3, 456.0f, 0x7E, "456 (max + quarter ulp)");
	EQ8(f8b_f32_to_e4m3, 464.0f, 0x7E, "464 (max + half ulp)");
	EQ8(f8b_f32_to_e4m3, nextafterf(464.0f, 1e9f), 0x7E, "464 + 1 ulp (saturates)");
	EQ8(f8b_f32_to_e4m3, 480.0f, 0x7E, "480 (the NaN code's would-be value)");
	EQ8(f8b_f32_to_e4m3, 511.0f, 0x7E, "511 (below next power of two)");
	EQ8(f8b_f32_to_e4m3, 512.0f, 0x7E, "512");
	EQ8(f8b_f32_to_e4m3, -1000.0f, 0xFE, "-1000");
	EQ8(f8b_f32_to_e4m3, FLT_MAX, 0x7E, "FLT_MAX");
	EQ8(f8b_f32_to_e4m3, INFINITY, 0x7E, "+inf (saturates)");
	EQ8(f8b_f32_to_e4m3, -INFINITY, 0xFE, "-inf (saturates)");
	EQ8(f8b_f32_to_e4m3, NAN, 0x7F, "NaN");
	EQ8(f8b_f32_to_e4m3, -NAN, 0x7F, "-NaN (sign dropped)");
	EQ8(f8b_f32_to_e4m3, f32_of(0xFF800001u), 0x7F, "-sNaN 0xFF800001");
	EQ8(f8b_f32_to_e4m3, FLT_MIN, 0x00, "FLT_MIN");
	EQ8(f8b_f32_to_e4m3, -FLT_MIN, 0x80, "-FLT_MIN");
	EQ8(f8b_f32_to_e4m3, f32_of(1), 0x00, "smallest fp32 denormal");
	EQ8(f8b_f32_to_e4m3, f32_of(0x807FFFFFu), 0x80, "largest negative fp32 denormal");
}

static void test_e5m2_edges(void)
{
	EQ8(f8b_f32_to_e5m2, 0.0f, 0x00, "+0");
	EQ8(f8b_f32_to_e5m2, -0.0f, 0x80, "-0");
	EQ8(f8b_f32_to_e5m2, 1.0f, 0x3C, "1.0");
	EQ8(f8b_f32_to_e5m2, -1.25f, 0xBD, "-1.25");
	EQ8(f8b_f32_to_e5m2, 1.125f, 0x3C, "1.125 (tie 1|1.25 -> 1)");
	EQ8(f8b_f32_to_e5m2, 1.375f, 0x3E, "1.375 (tie 1.25|1.5 -> 1.5)");
	EQ8(f8b_f32_to_e5m2, 0x1p-16f, 0x01, "min subnormal 2^-16");
	EQ8(f8b_f32_to_e5m2, 0x1p-17f, 0x00, "2^-17 (half min subnormal, tie to 0)");
	EQ8(f8b_f32_to_e5m2, nextafterf(0x1p-17f, 1.0f), 0x01, "2^-17 + 1 fp32 ulp");
	EQ8(f8b_f32_to_e5m2, -0x1.8p-16f, 0x82, "-1.5 * 2^-16 (tie -> -2)");
	EQ8(f8b_f32_to_e5m2, 0x1.cp-15f, 0x04, "3.5 * 2^-16 (tie -> min normal 2^-14)");
	EQ8(f8b_f32_to_e5m2, 57344.0f, 0x7B, "max 57344");
	EQ8(f8b_f32_to_e5m2, 61439.0f, 0x7B, "61439 (below max + half ulp)");
	EQ8(f8b_f32_to_e5m2, 61440.0f, 0x7B, "61440 (max + half ulp, would tie to inf)");
	EQ8(f8b_f32_to_e5m2, 65536.0f, 0x7B, "65536 (next power of two)");
	EQ8(f8b_f32_to_e5m2, -1e30f, 0xFB, "-1e30");
	EQ8(f8b_f32_to_e5m2, INFINITY, 0x7B, "+inf (saturates)");
	EQ8(f8b_f32_to_e5m2, -INFINITY, 0xFB, "-inf (saturates)");
	EQ8(f8b_f32_to_e5m2, NAN, 0x7F, "NaN");
	EQ8(f8b_f32_to_e5m2, -NAN, 0x7F, "-NaN (sign dropped)");
	EQ8(f8b_f32_to_e5m2, FLT_MIN, 0x00, "FLT_MIN");
	EQ8(f8b_f32_to_e5m2, f32_of(0x80000001u), 0x80, "smallest negative fp32 denormal");
}

static void test_decode_named(void)
{
	tap_ok(f8b_e4m3_to_f32(0x7E) == 448.0f, "e4m3 0x7E decodes to 448");
	tap_ok(f8b_e4m3_to_f32(0x01) == 0x1p-9f, "e4m3 0x01 decodes to 2^-9");
	tap_ok(f8b_e4m3_to_f32(0xF8) == -256.0f, "e4m3 0xF8 decodes to -256");
	tap_ok(f8b_e4m3_to_f32(0x80) == 0.0f && signbit(f8b_e4m3_to_f32(0x80)),
	       "e4m3 0x80 decodes to -0.0");
	tap_ok(isnan(f8b_e4m3_to_f32(0xFF)), "e4m3 0xFF decodes to NaN");
	tap_ok(f8b_e5m2_to_f32(0x7B) == 57344.0f, "e5m2 0x7B decodes to 57344");
	tap_ok(f8b_e5m2_to_f32(0x7C) == INFINITY, "e5m2 0x7C decodes to +inf");
	tap_ok(f8b_e5m2_to_f32(0xFC) == -INFINITY, "e5m2 0xFC decodes to -inf");
	tap_ok(isnan(f8b_e5m2_to_f32(0x7D)) && isnan(f8b_e5m2_to_f32(0xFE)),
	       "e5m2 0x7D and 0xFE decode to NaN");
	tap_ok(f8b_e5m2_to_f32(0x03) == 0x1.8p-15f, "e5m2 0x03 decodes to 3 * 2^-16");
}

static void test_bf16(void)
{
	int bad = 0, n = 0;

	/* Every 4099th pattern (a prime stride: all exponents, varied low
	 * bits), plus for every high half the low halves at and around the
	 * tie: 0x7FFF, 0x8000, 0x8001, and 0x0000, 0xFFFF. */
	for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
		float x = f32_of((uint32_t)u);
		uint16_t want = ref_bf16(x), got = f8b_f32_to_bf16(x);
		n++;
		if (got != want && bad++ < 8)
			tap_diag("bf16 encode 0x%08X: got 0x%04X want 0x%04X", (unsigned)u, got,
			         want);
	}
	static const uint32_t lows[] = {0x0000, 0x7FFF, 0x8000, 0x8001, 0xFFFF};
	for (uint32_t h = 0; h < 65536; h++) {
		for (size_t i = 0; i < sizeof lows / sizeof lows[0]; i++) {
			uint32_t u = h << 16 | lows[i];
			float x = f32_of(u);
			uint16_t want = ref_bf16(x), got = f8b_f32_to_bf16(x);
			n++;
			if (got != want && bad++ < 8)
				tap_diag("bf16 encode 0x%08X: got 0x%04X want 0x%04X", u, got,
				         want);
		}
	}
	tap_ok(bad == 0, "bf16 encode: %d fp32 patterns match the by-value reference (%d bad)", n,
	       bad);

	int dbad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		float got = f8b_bf16_to_f32((uint16_t)h);
		uint32_t want = h << 16;
		if (bits_of(got) != want && dbad++ < 5)
			tap_diag("bf16 decode 0x%04X: got 0x%08X", (unsigned)h, bits_of(got));
	}
	tap_ok(dbad == 0, "bf16 decode: all 65536 patterns widen exactly (NaN payloads kept)");

	struct {
		uint32_t in;
		uint16_t out;
		const char *what;
	} cases[] = {
	    {0x3F800000u, 0x3F80, "1.0"},
	    {0x80000000u, 0x8000, "-0.0"},
	    {0x3F808000u, 0x3F80, "tie with even lsb stays"},
	    {0x3F818000u, 0x3F82, "tie with odd lsb rounds up"},
	    {0x3F808001u, 0x3F81, "just above tie rounds up"},
	    {0xBF807FFFu, 0xBF80, "negative just below tie rounds toward zero"},
	    {0x00008000u, 0x0000, "denormal tie to even zero"},
	    {0x00018000u, 0x0002, "denormal tie up"},
	    {0x007FFFFFu, 0x0080, "largest denormal rounds up to FLT_MIN's bf16"},
	    {0x7F7F7FFFu, 0x7F7F, "below max + half ulp stays max"},
	    {0x7F7F8000u, 0x7F80, "max + half ulp (odd lsb) overflows to inf"},
	    {0x7F7FFFFFu, 0x7F80, "FLT_MAX overflows to inf"},
	    {0xFF7FFFFFu, 0xFF80, "-FLT_MAX overflows to -inf"},
	    {0x7F800000u, 0x7F80, "+inf"},
	    {0xFF800000u, 0xFF80, "-inf"},
	    {0x7FC00000u, 0x7FFF, "qNaN -> canonical 0x7FFF"},
	    {0xFFC00000u, 0x7FFF, "-qNaN -> canonical 0x7FFF (sign dropped)"},
	    {0x7F800001u, 0x7FFF, "sNaN with payload in the dropped half"},
	    {0xFF810000u, 0x7FFF, "-sNaN with payload in the kept half"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint16_t got = f8b_f32_to_bf16(f32_of(cases[i].in));
		tap_ok(got == cases[i].out, "bf16: 0x%08X %s -> 0x%04X (got 0x%04X)", cases[i].in,
		       cases[i].what, cases[i].out, got);
	}
}

static void test_arrays(void)
{
	enum { N = 37 };
	float src[N], back[N];
	uint8_t q[N];
	uint16_t h[N];
	for (int i = 0; i < N; i++)
		src[i] = (float)((i - 18) * (i - 18)) * 1.37f * (i & 1 ? -1.0f : 1.0f) - 3.0f;
	src[5] = NAN;
	src[6] = INFINITY;
	src[7] = 1e6f;

	static const enum f8b_dtype fp8s[] = {F8B_E4M3, F8B_E5M2};
	for (int k = 0; k < 2; k++) {
		enum f8b_dtype t = fp8s[k];
		int ok = 1, dok = 1, dispatch = 1;
		f8b_from_f32(src, q, t, N);
		f8b_to_f32(q, t, back, N);
		for (int i = 0; i < N; i++) {
			uint8_t one =
			    t == F8B_E4M3 ? f8b_f32_to_e4m3(src[i]) : f8b_f32_to_e5m2(src[i]);
			float dec = t == F8B_E4M3 ? f8b_e4m3_to_f32(one) : f8b_e5m2_to_f32(one);
			ok &= q[i] == one;
			dok &= bits_of(back[i]) == bits_of(dec);
			dispatch &= f8b_f32_to_fp8(src[i], t) == one &&
			            bits_of(f8b_fp8_to_f32(one, t)) == bits_of(dec);
		}
		tap_ok(ok, "f8b_from_f32(%s) equals the scalar encoder", f8b_dtype_name(t));
		tap_ok(dok, "f8b_to_f32(%s) equals the scalar decoder", f8b_dtype_name(t));
		tap_ok(dispatch, "f8b_f32_to_fp8/f8b_fp8_to_f32(%s) dispatch to the scalar ones",
		       f8b_dtype_name(t));
	}

	int ok = 1, dok = 1;
	f8b_from_f32(src, h, F8B_BF16, N);
	f8b_to_f32(h, F8B_BF16, back, N);
	for (int i = 0; i < N; i++) {
		ok &= h[i] == f8b_f32_to_bf16(src[i]);
		dok &= bits_of(back[i]) == (uint32_t)h[i] << 16;
	}
	tap_ok(ok, "f8b_from_f32(bf16) equals f8b_f32_to_bf16");
	tap_ok(dok, "f8b_to_f32(bf16) equals f8b_bf16_to_f32");

	float f[N];
	f8b_from_f32(src, f, F8B_F32, N);
	f8b_to_f32(f, F8B_F32, back, N);
	tap_ok(memcmp(back, src, sizeof src) == 0, "f32 -> f32 array conversions copy bits");

	tap_ok(f8b_f32_to_fp8(1.0f, F8B_BF16) == 0x7F && isnan(f8b_fp8_to_f32(0x38, F8B_F32)),
	       "non-fp8 dtype in the fp8 dispatchers gives NaN, not a plausible value");
	back[0] = 1.0f;
	f8b_to_f32(q, (enum f8b_dtype)99, back, 1);
	tap_ok(isnan(back[0]), "f8b_to_f32 with an unknown dtype writes NaN");
}

int main(void)
{
	ref_init(&ref_e4m3);
	ref_init(&ref_e5m2);

	test_ref_sane(&ref_e4m3, 448.0, 0x1p-9, 0x1p-6);
	test_ref_sane(&ref_e5m2, 57344.0, 0x1p-16, 0x1p-14);
	tap_ok(ref_e4m3.v[ref_e4m3.max_code + 1] == 480.0 &&
	           ref_e5m2.v[ref_e5m2.max_code + 1] == 65536.0,
	       "reference: the values one step past max are 480 and 65536");

	struct ref_fmt *fmts[] = {&ref_e4m3, &ref_e5m2};
	for (int i = 0; i < 2; i++) {
		test_decode(fmts[i]);
		test_bf16_sweep(fmts[i]);
		test_midpoints(fmts[i]);
		test_random(fmts[i]);
		test_roundtrip(fmts[i]);
	}
	test_e4m3_edges();
	test_e5m2_edges();
	test_decode_named();
	test_bf16();
	test_arrays();
	return tap_done();
}
