/* fp8.c - host encode/decode of float8_e4m3fn, float8_e5m2 and bfloat16.
 *
 * The formats (OCP "8-bit Floating Point Specification (OFP8)" rev. 1.0):
 *   e4m3fn  S.EEEE.MMM  bias 7,  no inf, NaN = S.1111.111, max 1.75 * 2^8 = 448,
 *           min normal 2^-6, min subnormal 2^-9;
 *   e5m2    S.EEEEE.MM  bias 15, IEEE-like: inf = S.11111.00, NaN = S.11111.{01,10,11},
 *           max 1.75 * 2^15 = 57344, min normal 2^-14, min subnormal 2^-16.
 *
 * What is bit-exact with what (verified by reading the CUDA 13.0 headers in
 * /usr/local/cuda/include, not copied):
 *   - cuda_fp8.hpp, __nv_cvt_float_to_fp8(): on sm_89+ with __NV_SATFINITE it
 *     is the PTX instruction cvt.rn.satfinite.{e4m3,e5m2}x2.f32; elsewhere it
 *     maps every fp32 NaN to 0x7FFFFFFF (sign dropped), widens to double and
 *     calls __nv_cvt_double_to_fp8().  There:
 *       * |x| <= min_subnormal/2 gives (signed) zero: the tie at exactly half
 *         the smallest subnormal goes to the even code, zero;
 *       * NaN gives 0x7F for e4m3 and 0x7E|mantissa = 0x7F for e5m2 (the
 *         canonical positive NaN above), so -NaN also gives 0x7F;
 *       * |x| > "overflow threshold" gives +-max with SATFINITE.  The
 *         threshold is max + half an ulp for e4m3 (464) and one double ulp
 *         below max + half an ulp for e5m2 (61440).  Below it plain RNE runs,
 *         and RNE of anything in [max, threshold] is max (464 ties to 448,
 *         whose mantissa 110 is even).  So under SATFINITE every finite
 *         |x| >= max and +-inf give +-max: that is the rule used below.
 *       * otherwise RNE on the exact value, subnormals included (the double
 *         holds every fp32 exactly, so rounding once there equals rounding
 *         the fp32 value once, which is what we do on the fp32 bits).
 *   - cuda_fp8.hpp, __nv_cvt_fp8_to_halfraw(): fp8 NaN decodes to the fp16
 *     canonical NaN 0x7FFF (sign dropped); __half2float on the GPU turns it
 *     into the fp32 canonical NaN 0x7FFFFFFF, which f8b_*_to_f32 return.
 *   - cuda_bf16.hpp, __float2bfloat16_rn(): on sm_80+ PTX cvt.rn.bf16.f32,
 *     elsewhere NaN -> 0x7FFF (canonical, sign dropped) and RNE on the low 16
 *     bits otherwise (overflow rounds to inf, inf stays inf).
 * Checked on an NVIDIA H100 (sm_90, CUDA 13.0): for all 2^32 fp32 bit
 * patterns the three encoders here equal __nv_cvt_float_to_fp8(x,
 * __NV_SATFINITE, __NV_E4M3 / __NV_E5M2) and __float2bfloat16_rn(x) (NaN
 * included: the GPU, too, gives bf16 0x7FFF for every NaN), and all 256
 * codes of both formats decode to the GPU's bits.
 */
#include "core/fp8.h"

#include <math.h>
#include <string.h>

static inline uint32_t f32_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static inline float bits_f32(uint32_t u)
{
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* What the GPU returns for any fp8 NaN through fp8 -> half -> float
 * (__nv_cvt_fp8_to_halfraw then __half2float): the canonical fp32 NaN,
 * observed on an H100 (cvt.f32.f16 canonicalises the fp16 NaN 0x7FFF). */
#define F8B_DECODED_NAN 0x7FFFFFFFu

struct fp8_fmt {
	int mbits;        /* stored mantissa bits */
	int bias;         /* exponent bias */
	uint8_t max_code; /* largest finite magnitude code */
	uint32_t max_f32; /* its value as fp32 bits */
};

static const struct fp8_fmt fmt_e4m3 = {3, 7, 0x7E, 0x43E00000u};  /* 448 */
static const struct fp8_fmt fmt_e5m2 = {2, 15, 0x7B, 0x47600000u}; /* 57344 */

/* RNE of the fp32 value x into the format f, saturating (see top). */
static uint8_t encode(float x, const struct fp8_fmt *f)
{
	uint32_t u = f32_bits(x);
	uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
	uint32_t a = u & 0x7FFFFFFFu;

	if (a > 0x7F800000u)
		return 0x7F;
	if (a >= f->max_f32) /* finite overflow and inf: SATFINITE */
		return (uint8_t)(sign | f->max_code);
	/* fp32 zero or subnormal (< 2^-126): far below half the smallest fp8
	 * subnormal (2^-10, 2^-17), so a signed zero. */
	if (a < 0x00800000u)
		return sign;

	int e = (int)(a >> 23) - 127;             /* unbiased exponent */
	uint32_t m = (a & 0x7FFFFFu) | 0x800000u; /* 24-bit significand */
	int emin = 1 - f->bias;                   /* exponent of min normal */
	uint32_t q;
	int s; /* right shift taking m to units of the result's last place */

	if (e >= emin) {
		/* Normal: keep mbits fraction bits; the biased exponent sits
		 * above them so a rounding carry out of the mantissa bumps the
		 * exponent, as it should. */
		s = 23 - f->mbits;
		q = ((uint32_t)(e + f->bias) << f->mbits) | ((m & 0x7FFFFFu) >> s);
	} else {
		/* Subnormal: code = |x| / 2^(emin - mbits) = m * 2^(e - 23 - emin
		 * + mbits).  A shift of 25 already leaves m/2^s < 1/2 (m < 2^24),
		 * so clamping keeps the shifts defined without changing the
		 * result.  A carry out of the top gives the min normal code. */
		s = 23 + emin - f->mbits - e;
		if (s > 25)
			s = 25;
		q = m >> s;
	}
	uint32_t rem = m & ((1u << s) - 1u);
	uint32_t half = 1u << (s - 1);
	if (rem > half || (rem == half && (q & 1u)))
		q++;
	/* |x| < max, so q <= max_code: reaching max_code + 1 would need
	 * |x| > max + ulp/2. */
	return (uint8_t)(sign | q);
}

static float decode(uint8_t v, const struct fp8_fmt *f)
{
	uint32_t sign = (uint32_t)(v & 0x80u) << 24;
	int ebits = 7 - f->mbits;
	uint32_t e = (uint32_t)(v & 0x7F) >> f->mbits;
	uint32_t m = v & ((1u << f->mbits) - 1u);
	uint32_t emax = (1u << ebits) - 1u;

	if (f->mbits == 3 && (v & 0x7F) == 0x7F)
		return bits_f32(F8B_DECODED_NAN);
	if (f->mbits == 2 && e == emax)
		return m ? bits_f32(F8B_DECODED_NAN) : bits_f32(sign | 0x7F800000u);
	if (e == 0) {
		/* m * 2^(1 - bias - mbits): exact, m has at most 3 bits. */
		float mag = ldexpf((float)m, 1 - f->bias - f->mbits);
		return bits_f32(sign | f32_bits(mag));
	}
	return bits_f32(sign | ((e - (uint32_t)f->bias + 127u) << 23) | (m << (23 - f->mbits)));
}

uint8_t f8b_f32_to_e4m3(float x)
{
	return encode(x, &fmt_e4m3);
}

uint8_t f8b_f32_to_e5m2(float x)
{
	return encode(x, &fmt_e5m2);
}

float f8b_e4m3_to_f32(uint8_t v)
{
	return decode(v, &fmt_e4m3);
}

float f8b_e5m2_to_f32(uint8_t v)
{
	return decode(v, &fmt_e5m2);
}

uint16_t f8b_f32_to_bf16(float x)
{
	uint32_t u = f32_bits(x);
	if ((u & 0x7FFFFFFFu) > 0x7F800000u)
		return 0x7FFF; /* CUDA's canonical bf16 NaN (see top) */
	/* RNE on the 16 dropped bits: adding 0x7FFF + lsb carries into the
	 * kept half exactly when the dropped half is above 0x8000, or equal
	 * to it with an odd lsb.  A carry out of the exponent gives inf,
	 * which is the correct RNE overflow; no NaN can be reached. */
	u += 0x7FFFu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

float f8b_bf16_to_f32(uint16_t v)
{
	return bits_f32((uint32_t)v << 16);
}

/* Other dtypes are not fp8: encoding gives the NaN code and decoding NaN,
 * so a caller's mistake shows up in every checked value. */
uint8_t f8b_f32_to_fp8(float x, enum f8b_dtype t)
{
	switch (t) {
	case F8B_E4M3: return f8b_f32_to_e4m3(x);
	case F8B_E5M2: return f8b_f32_to_e5m2(x);
	default: return 0x7F;
	}
}

float f8b_fp8_to_f32(uint8_t v, enum f8b_dtype t)
{
	switch (t) {
	case F8B_E4M3: return f8b_e4m3_to_f32(v);
	case F8B_E5M2: return f8b_e5m2_to_f32(v);
	default: return NAN;
	}
}

void f8b_to_f32(const void *src, enum f8b_dtype t, float *dst, size_t n)
{
	const uint8_t *b = src;
	const uint16_t *h = src;

	switch (t) {
	case F8B_F32:
		if (n)
			memmove(dst, src, n * sizeof *dst);
		break;
	case F8B_BF16:
		for (size_t i = 0; i < n; i++)
			dst[i] = f8b_bf16_to_f32(h[i]);
		break;
	case F8B_E4M3:
		for (size_t i = 0; i < n; i++)
			dst[i] = decode(b[i], &fmt_e4m3);
		break;
	case F8B_E5M2:
		for (size_t i = 0; i < n; i++)
			dst[i] = decode(b[i], &fmt_e5m2);
		break;
	default: /* unknown dtype: NaN everywhere rather than stale data */
		for (size_t i = 0; i < n; i++)
			dst[i] = NAN;
		break;
	}
}

void f8b_from_f32(const float *src, void *dst, enum f8b_dtype t, size_t n)
{
	uint8_t *b = dst;
	uint16_t *h = dst;

	switch (t) {
	case F8B_F32:
		if (n)
			memmove(dst, src, n * sizeof *src);
		break;
	case F8B_BF16:
		for (size_t i = 0; i < n; i++)
			h[i] = f8b_f32_to_bf16(src[i]);
		break;
	case F8B_E4M3:
		for (size_t i = 0; i < n; i++)
			b[i] = encode(src[i], &fmt_e4m3);
		break;
	case F8B_E5M2:
		for (size_t i = 0; i < n; i++)
			b[i] = encode(src[i], &fmt_e5m2);
		break;
	default:
		/* unknown dtype: its element size is unknown, write nothing */
		break;
	}
}
