/* host_lls.c - the golden twins of the lls ops (backend.h): LayerNorm
 * forward/backward, sigmoid forward/backward, amax of the transpose, cast
 * and transpose, and the fused casts, in portable C.
 *
 * Precision, the definition the cuda kernels are held to:
 *   - reductions (LayerNorm's sums) accumulate in double, in increasing
 *     column order, and are rounded to fp32 once (mean, rstd, the two
 *     backward means): the host is the more accurate side, so a GPU
 *     difference is the GPU's rounding (tests/gpu/test_lls_kernels.c);
 *   - elementwise arithmetic is fp32, one rounding per operation, in the
 *     order backend.h writes it (contraction off, as in backend_host.c);
 *   - every cast is amax (scaling.c) + f8b_amax_to_scale + v * s + the
 *     fp8 encoder of fp8.c, so the fused ops equal the unfused ones bit for
 *     bit (one helper, quantise(), does it for all three).
 */
#define _POSIX_C_SOURCE 200809L
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "backend/lls_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp8.h"
#include "core/scaling.h"

static float *alloc_f32(int64_t n, const char *op)
{
	float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);

	if (!p)
		(void)F8B_ERR(F8B_ENOMEM, "%s: cannot allocate %lld floats of scratch", op,
		              (long long)n);
	return p;
}

static float bf16_round(float v)
{
	return f8b_bf16_to_f32(f8b_f32_to_bf16(v));
}

static float bf16_at(const struct f8b_tensor *t, int64_t i)
{
	return f8b_bf16_to_f32(((const uint16_t *)t->data)[i]);
}

static float wide_at(const struct f8b_tensor *t, int64_t i)
{
	return t->dtype == F8B_F32 ? ((const float *)t->data)[i] : bf16_at(t, i);
}

/* ------------------------------------------------------------ LayerNorm */

/* Row statistics and y = bf16((x - mean) * rstd) as fp32 values into v
 * (M*K floats); mean/rstd as backend.h defines them. */
static void layernorm_rows(const struct f8b_tensor *x, float eps, float *mean, float *rstd,
                           float *v)
{
	const int64_t M = x->rows, K = x->cols;

	for (int64_t m = 0; m < M; m++) {
		double s = 0.0, q = 0.0;
		for (int64_t k = 0; k < K; k++)
			s += (double)bf16_at(x, m * K + k);
		double md = s / (double)K;
		for (int64_t k = 0; k < K; k++) {
			double d = (double)bf16_at(x, m * K + k) - md;
			q += d * d;
		}
		float mu = (float)md;
		float rs = (float)(1.0 / sqrt(q / (double)K + (double)eps));
		mean[m] = mu;
		rstd[m] = rs;
		for (int64_t k = 0; k < K; k++) {
			float t = bf16_at(x, m * K + k) - mu;
			v[m * K + k] = bf16_round(t * rs);
		}
	}
}

static void store_bf16(const float *v, struct f8b_tensor *y)
{
	int64_t n = y->rows * y->cols;
	uint16_t *p = y->data;

	for (int64_t i = 0; i < n; i++)
		p[i] = f8b_f32_to_bf16(v[i]);
}

int f8b_host_layernorm_fwd(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                           struct f8b_tensor *y, float *mean, float *rstd)
{
	(void)be;
	F8B_TRY(f8b_lls_check_layernorm(x, eps, y, false, mean, rstd, "layernorm_fwd"));
	float *v = alloc_f32(x->rows * x->cols, "layernorm_fwd");
	if (!v)
		return F8B_ENOMEM;
	layernorm_rows(x, eps, mean, rstd, v);
	store_bf16(v, y);
	free(v);
	return F8B_OK;
}

int f8b_host_layernorm_bwd(struct f8b_backend *be, const struct f8b_tensor *dy,
                           const struct f8b_tensor *x, const float *mean, const float *rstd,
                           struct f8b_tensor *dx)
{
	(void)be;
	F8B_TRY(f8b_lls_check_layernorm_bwd(dy, x, mean, rstd, dx));
	const int64_t M = x->rows, K = x->cols;
	uint16_t *out = dx->data;

	for (int64_t m = 0; m < M; m++) {
		double s1 = 0.0, s2 = 0.0;
		for (int64_t k = 0; k < K; k++) {
			float xh = (bf16_at(x, m * K + k) - mean[m]) * rstd[m];
			double g = (double)bf16_at(dy, m * K + k);
			s1 += g;
			s2 += g * (double)xh;
		}
		float a = (float)(s1 / (double)K), b = (float)(s2 / (double)K);
		for (int64_t k = 0; k < K; k++) {
			float xh = (bf16_at(x, m * K + k) - mean[m]) * rstd[m];
			float t = bf16_at(dy, m * K + k) - a;
			float u = xh * b;
			t = t - u;
			out[m * K + k] = f8b_f32_to_bf16(rstd[m] * t);
		}
	}
	return F8B_OK;
}

/* ------------------------------------------------------------ sigmoid */

int f8b_host_sigmoid_fwd(struct f8b_backend *be, const struct f8b_tensor *z, struct f8b_tensor *y)
{
	(void)be;
	F8B_TRY(f8b_lls_check_elementwise(z, NULL, y, false, "sigmoid_fwd"));
	int64_t n = z->rows * z->cols;
	uint16_t *p = y->data;

	for (int64_t i = 0; i < n; i++) {
		float e = expf(-bf16_at(z, i));
		float d = 1.0f + e;
		p[i] = f8b_f32_to_bf16(1.0f / d);
	}
	return F8B_OK;
}

/* dz = dy * (y * (1 - y)), three fp32 roundings in that order. */
static float sigmoid_grad(float y, float dy)
{
	float t = 1.0f - y;
	t = y * t;
	return dy * t;
}

static void sigmoid_bwd_values(const struct f8b_tensor *y, const struct f8b_tensor *dy, float *v)
{
	int64_t n = y->rows * y->cols;

	for (int64_t i = 0; i < n; i++)
		v[i] = bf16_round(sigmoid_grad(bf16_at(y, i), bf16_at(dy, i)));
}

int f8b_host_sigmoid_bwd(struct f8b_backend *be, const struct f8b_tensor *y,
                         const struct f8b_tensor *dy, struct f8b_tensor *dz)
{
	(void)be;
	F8B_TRY(f8b_lls_check_elementwise(y, dy, dz, false, "sigmoid_bwd"));
	int64_t n = y->rows * y->cols;
	uint16_t *p = dz->data;

	for (int64_t i = 0; i < n; i++)
		p[i] = f8b_f32_to_bf16(sigmoid_grad(bf16_at(y, i), bf16_at(dy, i)));
	return F8B_OK;
}

/* ------------------------------------------------------------ casts */

/* The block's index in the scale tensor of a rows x cols operand with
 * granularity g, for element (r, c). */
static int64_t scale_slot(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t r, int64_t c)
{
	switch (g) {
	case F8B_GRAN_AXISWISE: return f8b_scale_index(g, rows, cols, r, 0);
	case F8B_GRAN_BLOCK1X128: return f8b_scale_index(g, rows, cols, r, c / F8B_BLOCK);
	case F8B_GRAN_BLOCK128X128:
		return f8b_scale_index(g, rows, cols, r / F8B_BLOCK, c / F8B_BLOCK);
	default: return 0;
	}
}

int f8b_host_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                    float *amax)
{
	(void)be;
	F8B_TRY(f8b_check_wide_input(x, "amax_t"));
	F8B_TRY(f8b_check_gran(g, "amax_t"));
	if (!amax)
		return F8B_ERR(F8B_EINVAL, "amax_t: no amax buffer");
	const int64_t R = x->rows, C = x->cols;
	float *t = alloc_f32(R * C, "amax_t");
	if (!t)
		return F8B_ENOMEM;
	for (int64_t r = 0; r < R; r++)
		for (int64_t c = 0; c < C; c++)
			t[c * R + r] = wide_at(x, r * C + c);
	f8b_amax_f32(t, C, R, g, amax);
	free(t);
	return F8B_OK;
}

/* y = bf16((x - mean) * rstd) of backend.h's layernorm_amax_t/_cast_t,
 * into a new bf16 tensor (free its data). */
static int ln_output(const struct f8b_tensor *x, const float *mean, const float *rstd,
                     struct f8b_tensor *y, const char *op)
{
	const int64_t R = x->rows, C = x->cols;
	*y = *x;
	y->data = malloc((size_t)(R * C) * sizeof(uint16_t) + 1);
	if (!y->data)
		return F8B_ERR(F8B_ENOMEM, "%s: %lld bytes of host memory", op,
		               (long long)(R * C * 2));
	uint16_t *p = y->data;
	for (int64_t r = 0; r < R; r++)
		for (int64_t c = 0; c < C; c++) {
			float t = bf16_at(x, r * C + c) - mean[r];
			p[r * C + c] = f8b_f32_to_bf16(t * rstd[r]);
		}
	return F8B_OK;
}

int f8b_host_layernorm_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, float *amax)
{
	struct f8b_tensor y;
	F8B_TRY(f8b_lls_check_ln_t(x, mean, rstd, g, NULL, NULL, amax, "layernorm_amax_t"));
	F8B_TRY(ln_output(x, mean, rstd, &y, "layernorm_amax_t"));
	int rc = f8b_host_amax_t(be, &y, g, amax);
	free(y.data);
	return rc;
}

int f8b_host_layernorm_cast_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, const float *scale_t,
                              struct f8b_tensor *out_t)
{
	struct f8b_tensor y;
	if (!out_t)
		return F8B_ERR(F8B_EINVAL, "layernorm_cast_t: no out_t");
	F8B_TRY(f8b_lls_check_ln_t(x, mean, rstd, g, scale_t, out_t, NULL, "layernorm_cast_t"));
	F8B_TRY(ln_output(x, mean, rstd, &y, "layernorm_cast_t"));
	int rc = f8b_host_cast_transpose(be, &y, g, NULL, scale_t, NULL, out_t);
	free(y.data);
	return rc;
}

static void put(struct f8b_tensor *o, int64_t i, float v, float s)
{
	if (o->dtype == F8B_BF16)
		((uint16_t *)o->data)[i] = f8b_f32_to_bf16(v);
	else
		((uint8_t *)o->data)[i] = f8b_f32_to_fp8(v * s, o->dtype);
}

int f8b_host_cast_transpose(struct f8b_backend *be, const struct f8b_tensor *x,
                            enum f8b_granularity g, const float *scale, const float *scale_t,
                            struct f8b_tensor *out, struct f8b_tensor *out_t)
{
	(void)be;
	F8B_TRY(f8b_lls_check_cast_transpose(x, g, scale, scale_t, out, out_t));
	const int64_t R = x->rows, C = x->cols;
	bool fp8 = f8b_dtype_is_fp8((out ? out : out_t)->dtype);

	for (int64_t r = 0; r < R; r++) {
		for (int64_t c = 0; c < C; c++) {
			float v = wide_at(x, r * C + c);
			if (out)
				put(out, r * C + c, v,
				    fp8 ? scale[scale_slot(g, R, C, r, c)] : 1.0f);
			if (out_t)
				put(out_t, c * R + r, v,
				    fp8 ? scale_t[scale_slot(g, C, R, c, r)] : 1.0f);
		}
	}
	return F8B_OK;
}

/* The quantisation of backend.h's fused casts, on the values v (rows x
 * cols fp32, each a widened bf16): amax, scales, q and q_t. */
static int quantise(const float *v, int64_t rows, int64_t cols, const struct f8b_cast_spec *cs,
                    const char *op)
{
	int64_t ns = f8b_scale_count(cs->gran, rows, cols);
	float *s = alloc_f32(ns, op);

	if (!s)
		return F8B_ENOMEM;
	if (!cs->amax_given)
		f8b_amax_f32(v, rows, cols, cs->gran, cs->amax);
	if (cs->amax_all)
		f8b_amax_f32(v, rows, cols, F8B_GRAN_TENSORWISE, cs->amax_all);
	for (int64_t i = 0; i < ns; i++) {
		s[i] =
		    cs->scale ? cs->scale[0] : f8b_amax_to_scale(cs->amax[i], cs->dtype, &cs->opts);
		cs->scale_inv[i] = isnan(s[i]) ? s[i] : 1.0f / s[i];
	}
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t c = 0; c < cols; c++) {
			float si = s[scale_slot(cs->gran, rows, cols, r, c)];
			uint8_t q = f8b_f32_to_fp8(v[r * cols + c] * si, cs->dtype);
			if (cs->q)
				((uint8_t *)cs->q->data)[r * cols + c] = q;
			if (cs->q_t)
				((uint8_t *)cs->q_t->data)[c * rows + r] = q;
		}
	}
	free(s);
	return F8B_OK;
}

int f8b_host_layernorm_fwd_cast(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                                struct f8b_tensor *y, float *mean, float *rstd,
                                const struct f8b_cast_spec *cast)
{
	const char *op = "layernorm_fwd_cast";

	(void)be;
	F8B_TRY(f8b_lls_check_layernorm(x, eps, y, true, mean, rstd, op));
	F8B_TRY(f8b_lls_check_cast_spec(cast, x->rows, x->cols, op));
	float *v = alloc_f32(x->rows * x->cols, op);
	if (!v)
		return F8B_ENOMEM;
	layernorm_rows(x, eps, mean, rstd, v);
	if (y)
		store_bf16(v, y);
	int rc = quantise(v, x->rows, x->cols, cast, op);
	free(v);
	return rc;
}

int f8b_host_sigmoid_bwd_cast(struct f8b_backend *be, const struct f8b_tensor *y,
                              const struct f8b_tensor *dy, struct f8b_tensor *dz,
                              const struct f8b_cast_spec *cast)
{
	const char *op = "sigmoid_bwd_cast";

	(void)be;
	F8B_TRY(f8b_lls_check_elementwise(y, dy, dz, true, op));
	F8B_TRY(f8b_lls_check_cast_spec(cast, y->rows, y->cols, op));
	float *v = alloc_f32(y->rows * y->cols, op);
	if (!v)
		return F8B_ENOMEM;
	sigmoid_bwd_values(y, dy, v);
	if (dz)
		store_bf16(v, dz);
	int rc = quantise(v, y->rows, y->cols, cast, op);
	free(v);
	return rc;
}

int f8b_host_cast_fused(struct f8b_backend *be, const struct f8b_tensor *x,
                        const struct f8b_cast_spec *cast)
{
	const char *op = "cast_fused";

	(void)be;
	F8B_TRY(f8b_lls_check_elementwise(x, NULL, NULL, true, op));
	F8B_TRY(f8b_lls_check_cast_fused_spec(cast, x->rows, x->cols));
	int64_t n = x->rows * x->cols;
	float *v = alloc_f32(n, op);
	if (!v)
		return F8B_ENOMEM;
	f8b_to_f32(x->data, F8B_BF16, v, (size_t)n);
	int rc = quantise(v, x->rows, x->cols, cast, op);
	free(v);
	return rc;
}

/* transpose_fp8: the bytes moved as they are. */
int f8b_host_transpose_fp8(struct f8b_backend *be, const struct f8b_tensor *x,
                           struct f8b_tensor *out)
{
	(void)be;
	F8B_TRY(f8b_check_transpose_fp8(x, out));
	const uint8_t *src = x->data;
	uint8_t *dst = out->data;
	for (int64_t r = 0; r < x->rows; r++)
		for (int64_t c = 0; c < x->cols; c++)
			dst[c * x->rows + r] = src[r * x->cols + c];
	return F8B_OK;
}
