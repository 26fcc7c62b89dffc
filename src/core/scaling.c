/* scaling.c - scaling granularity, amax -> scale, delayed-scaling history.
 *
 * The formulas and layouts are stated in words in doc/formulas.md
 * ("scaling"); this file is their one implementation on the host, and the
 * CUDA kernels must reproduce f8b_amax_to_scale() bit for bit.
 */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "core/scaling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const gran_names[F8B_GRAN_COUNT] = {
    [F8B_GRAN_TENSORWISE] = "tensorwise",
    [F8B_GRAN_AXISWISE] = "axiswise",
    [F8B_GRAN_BLOCK1X128] = "block1x128",
    [F8B_GRAN_BLOCK128X128] = "block128x128",
};

static const char *const type_names[F8B_SCALING_TYPE_COUNT] = {
    [F8B_SCALING_DYNAMIC] = "dynamic",
    [F8B_SCALING_DELAYED] = "delayed",
    [F8B_SCALING_DISABLED] = "disabled",
};

const char *f8b_granularity_name(enum f8b_granularity g)
{
	return (unsigned)g < F8B_GRAN_COUNT ? gran_names[g] : "?";
}

int f8b_granularity_parse(const char *s, enum f8b_granularity *out)
{
	static const struct {
		const char *alias;
		enum f8b_granularity g;
	} aliases[] = {
	    {"tensorwise", F8B_GRAN_TENSORWISE}, {"axiswise", F8B_GRAN_AXISWISE},
	    {"rowwise", F8B_GRAN_AXISWISE},      {"block1x128", F8B_GRAN_BLOCK1X128},
	    {"1x128", F8B_GRAN_BLOCK1X128},      {"block128x128", F8B_GRAN_BLOCK128X128},
	    {"128x128", F8B_GRAN_BLOCK128X128},
	};
	for (size_t i = 0; s && i < sizeof aliases / sizeof aliases[0]; i++) {
		if (strcasecmp(s, aliases[i].alias) == 0) {
			*out = aliases[i].g;
			return F8B_OK;
		}
	}
	return F8B_ERR(F8B_EINVAL,
	               "unknown scaling granularity '%s' (accepted: tensorwise, axiswise "
	               "(or rowwise), block1x128 (or 1x128), block128x128 (or 128x128))",
	               s ? s : "(null)");
}

const char *f8b_scaling_type_name(enum f8b_scaling_type t)
{
	return (unsigned)t < F8B_SCALING_TYPE_COUNT ? type_names[t] : "?";
}

int f8b_scaling_type_parse(const char *s, enum f8b_scaling_type *out)
{
	for (int i = 0; s && i < F8B_SCALING_TYPE_COUNT; i++) {
		if (strcasecmp(s, type_names[i]) == 0) {
			*out = (enum f8b_scaling_type)i;
			return F8B_OK;
		}
	}
	return F8B_ERR(F8B_EINVAL,
	               "unknown scaling type '%s' (accepted: dynamic, delayed, disabled)",
	               s ? s : "(null)");
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a > 0 ? (a + b - 1) / b : 0;
}

void f8b_scale_shape(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t *srows,
                     int64_t *scols)
{
	int64_t r = 0, c = 0;

	switch (g) {
	case F8B_GRAN_TENSORWISE:
		r = 1;
		c = 1;
		break;
	case F8B_GRAN_AXISWISE:
		r = rows > 0 ? rows : 0;
		c = 1;
		break;
	case F8B_GRAN_BLOCK1X128:
		r = rows > 0 ? rows : 0;
		c = ceil_div(cols, F8B_BLOCK);
		break;
	case F8B_GRAN_BLOCK128X128:
		r = ceil_div(rows, F8B_BLOCK);
		c = ceil_div(cols, F8B_BLOCK);
		break;
	default: /* unknown granularity: an empty scale tensor */ break;
	}
	*srows = r;
	*scols = c;
}

/* The layouts are those cuBLASLt reads (scaling.h, doc/gemm-layout.md):
 * block1x128 is column-major, so the scales of one K-block are contiguous
 * (VEC128_32F); block128x128 is row-major with its rows padded to a
 * multiple of 4 floats, 16 bytes (BLK128x128_32F).  Measured on an H100:
 * any other block128x128 layout gives relative errors of O(1). */
static int64_t blk_ld(int64_t scols)
{
	return (scols + 3) / 4 * 4;
}

int64_t f8b_scale_index(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t br, int64_t bc)
{
	int64_t srows, scols;

	f8b_scale_shape(g, rows, cols, &srows, &scols);
	switch (g) {
	case F8B_GRAN_TENSORWISE: return 0;
	case F8B_GRAN_AXISWISE: return br;
	case F8B_GRAN_BLOCK1X128: return bc * srows + br;
	case F8B_GRAN_BLOCK128X128: return br * blk_ld(scols) + bc;
	default: return -1;
	}
}

int64_t f8b_scale_count(enum f8b_granularity g, int64_t rows, int64_t cols)
{
	int64_t srows, scols;

	f8b_scale_shape(g, rows, cols, &srows, &scols);
	return g == F8B_GRAN_BLOCK128X128 ? srows * blk_ld(scols) : srows * scols;
}

/* scale = fp8_max / max(amax, eps) / 2^margin, then optionally rounded down
 * to a power of two.  The exact fp32 operation sequence, which a CUDA
 * kernel must follow to get the same bits (nvcc's default -prec-div=true
 * makes '/' the IEEE correctly rounded division; never -use_fast_math):
 *
 *   1. a = (amax < F8B_AMAX_EPS) ? F8B_AMAX_EPS : amax;
 *        a NaN amax fails the comparison and stays NaN (so the scale is
 *        NaN and every cast value NaN: a broken input is loud, where
 *        fmaxf() would have silently picked eps); a negative amax (never
 *        produced by an abs-max) counts as zero.
 *   2. s = fp8_max / a;          fp32 division, RN; fp8_max = 448.0f or
 *                                57344.0f (f8b_dtype_max(target))
 *        amax = +inf gives s = 0 (and scale_inv = inf): every finite x
 *        then casts to 0 and the inf itself to NaN, which is what the
 *        plain division does on the GPU too.
 *   3. if (margin != 0) s = s / d, d = exp2f(margin) as an fp32 computed
 *        on the host and passed to kernels as a float (exact for integer
 *        margins, where the division only moves the exponent).
 *   4. if (pow2 && !isnan(s)) s = bits(bits(s) & 0xFF800000):
 *        clears the mantissa, i.e. rounds a positive normal s down to
 *        2^floor(log2 s); 0 and inf are unchanged; a subnormal s (only
 *        reachable with a huge margin) becomes 0.
 * A kernel written this way matched this function bit for bit on an H100
 * for 2^25 amaxes (every 128th fp32 pattern, plus 0, -1, inf, NaN), both
 * fp8 targets, margins 0, 1, 3, -2, 0.5, with and without pow2.
 */
float f8b_amax_to_scale(float amax, enum f8b_dtype target, const struct f8b_scale_opts *o)
{
	/* A NaN amax (or margin) gives the canonical NaN, bits 0x7FFFFFFF, so
	 * host and GPU agree bit for bit (kernels/scale.cu). */
	const uint32_t qnan = 0x7FFFFFFFu;
	float nan_s;
	memcpy(&nan_s, &qnan, sizeof nan_s);
	if (isnan(amax) || (o && isnan(o->margin)))
		return nan_s;
	float a = amax < F8B_AMAX_EPS ? F8B_AMAX_EPS : amax;
	float s = f8b_dtype_max(target) / a;

	if (o && o->margin != 0.0f)
		s = s / exp2f(o->margin);
	if (o && o->pow2 && !isnan(s)) {
		uint32_t u;
		memcpy(&u, &s, sizeof u);
		u &= 0xFF800000u;
		memcpy(&s, &u, sizeof s);
	}
	return s;
}

/* max(|x|) that keeps a NaN once seen: fabsf(NaN) > m is false, so NaN
 * must be taken explicitly; afterwards nothing compares greater. */
static inline float amax_step(float m, float x)
{
	float v = fabsf(x);
	return (v > m || isnan(v)) ? v : m;
}

void f8b_amax_f32(const float *x, int64_t rows, int64_t cols, enum f8b_granularity g, float *amax)
{
	int64_t srows, scols;
	int64_t n = f8b_scale_count(g, rows, cols);

	f8b_scale_shape(g, rows, cols, &srows, &scols);
	for (int64_t i = 0; i < n; i++)
		amax[i] = 0.0f;
	if (rows <= 0 || cols <= 0)
		return;

	switch (g) {
	case F8B_GRAN_TENSORWISE: {
		float m = 0.0f;
		for (int64_t i = 0; i < rows * cols; i++)
			m = amax_step(m, x[i]);
		amax[0] = m;
		break;
	}
	case F8B_GRAN_AXISWISE:
		for (int64_t r = 0; r < rows; r++) {
			const float *row = x + r * cols;
			float m = 0.0f;
			for (int64_t c = 0; c < cols; c++)
				m = amax_step(m, row[c]);
			amax[r] = m;
		}
		break;
	case F8B_GRAN_BLOCK1X128:
	case F8B_GRAN_BLOCK128X128:
		/* Walk rows in memory order; each row contributes one segment of
		 * up to 128 columns to each block column (the last one ragged). */
		for (int64_t r = 0; r < rows; r++) {
			const float *row = x + r * cols;
			int64_t br = g == F8B_GRAN_BLOCK1X128 ? r : r / F8B_BLOCK;
			for (int64_t bc = 0; bc < scols; bc++) {
				int64_t c0 = bc * F8B_BLOCK;
				int64_t c1 = c0 + F8B_BLOCK < cols ? c0 + F8B_BLOCK : cols;
				float *dst = &amax[f8b_scale_index(g, rows, cols, br, bc)];
				float m = *dst;
				for (int64_t c = c0; c < c1; c++)
					m = amax_step(m, row[c]);
				*dst = m;
			}
		}
		break;
	default: break;
	}
}

int f8b_history_init(struct f8b_amax_history *h, int len)
{
	memset(h, 0, sizeof *h);
	if (len < 1)
		return F8B_ERR(F8B_EINVAL, "amax history length %d (accepted: an integer >= 1)",
		               len);
	h->buf = calloc((size_t)len, sizeof *h->buf);
	if (!h->buf)
		return F8B_ERR(F8B_ENOMEM, "amax history of %d floats", len);
	h->len = len;
	return F8B_OK;
}

void f8b_history_free(struct f8b_amax_history *h)
{
	free(h->buf);
	memset(h, 0, sizeof *h);
}

void f8b_history_push(struct f8b_amax_history *h, float amax)
{
	if (!h->buf || h->len < 1)
		return;
	h->buf[h->pos] = amax;
	h->pos = (h->pos + 1) % h->len;
	if (h->count < h->len)
		h->count++;
}

/* Slots 0..count-1 are the valid ones: writing starts at slot 0, so until
 * the ring wraps the filled slots are a prefix, and afterwards all are. */
float f8b_history_amax(const struct f8b_amax_history *h)
{
	float m = 0.0f;
	for (int i = 0; h->buf && i < h->count; i++)
		m = amax_step(m, h->buf[i]);
	return m;
}
