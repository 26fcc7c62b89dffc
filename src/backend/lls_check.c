/* lls_check.c - argument checks of the lls ops (backend.h), shared by the
 * host and cuda backends so both refuse a bad call with one message. */
#include "backend/lls_ops.h"

#include <math.h>

int f8b_lls_check_shape(const struct f8b_tensor *t, enum f8b_dtype dt, int64_t rows, int64_t cols,
                        const char *op, const char *what)
{
	F8B_TRY(f8b_check_tensor(t, op, what));
	if (t->dtype != dt)
		return F8B_ERR(F8B_EINVAL, "%s: %s dtype %s (accepted: %s)", op, what,
		               f8b_dtype_name(t->dtype), f8b_dtype_name(dt));
	if (t->rows != rows || t->cols != cols)
		return F8B_ERR(F8B_EINVAL, "%s: %s shape %lldx%lld (expected %lldx%lld)", op, what,
		               (long long)t->rows, (long long)t->cols, (long long)rows,
		               (long long)cols);
	return F8B_OK;
}

int f8b_lls_check_layernorm(const struct f8b_tensor *x, float eps, const struct f8b_tensor *y,
                            bool y_optional, const float *mean, const float *rstd, const char *op)
{
	F8B_TRY(f8b_lls_check_shape(x, F8B_BF16, x ? x->rows : 0, x ? x->cols : 0, op, "input"));
	if (!(eps >= 0.0f) || !isfinite(eps))
		return F8B_ERR(F8B_EINVAL, "%s: eps %g (accepted: finite, >= 0)", op, (double)eps);
	if (y || !y_optional)
		F8B_TRY(f8b_lls_check_shape(y, F8B_BF16, x->rows, x->cols, op, "output"));
	if (!mean || !rstd)
		return F8B_ERR(F8B_EINVAL, "%s: no %s buffer (M floats)", op,
		               !mean ? "mean" : "rstd");
	return F8B_OK;
}

int f8b_lls_check_layernorm_bwd(const struct f8b_tensor *dy, const struct f8b_tensor *x,
                                const float *mean, const float *rstd, const struct f8b_tensor *dx)
{
	const char *op = "layernorm_bwd";

	F8B_TRY(f8b_lls_check_shape(x, F8B_BF16, x ? x->rows : 0, x ? x->cols : 0, op, "input"));
	F8B_TRY(f8b_lls_check_shape(dy, F8B_BF16, x->rows, x->cols, op, "dy"));
	F8B_TRY(f8b_lls_check_shape(dx, F8B_BF16, x->rows, x->cols, op, "dx"));
	if (!mean || !rstd)
		return F8B_ERR(F8B_EINVAL, "%s: no %s buffer (M floats)", op,
		               !mean ? "mean" : "rstd");
	return F8B_OK;
}

int f8b_lls_check_elementwise(const struct f8b_tensor *a, const struct f8b_tensor *b,
                              const struct f8b_tensor *out, bool out_optional, const char *op)
{
	F8B_TRY(f8b_lls_check_shape(a, F8B_BF16, a ? a->rows : 0, a ? a->cols : 0, op, "input"));
	if (b)
		F8B_TRY(f8b_lls_check_shape(b, F8B_BF16, a->rows, a->cols, op, "second input"));
	if (out || !out_optional)
		F8B_TRY(f8b_lls_check_shape(out, F8B_BF16, a->rows, a->cols, op, "output"));
	return F8B_OK;
}

static int check_out_dtype(const struct f8b_tensor *t, const char *what)
{
	if (!f8b_dtype_is_fp8(t->dtype) && t->dtype != F8B_BF16)
		return F8B_ERR(F8B_EINVAL,
		               "cast_transpose: %s dtype %s (accepted: e4m3, e5m2, bf16)", what,
		               f8b_dtype_name(t->dtype));
	return F8B_OK;
}

int f8b_lls_check_cast_transpose(const struct f8b_tensor *x, enum f8b_granularity g,
                                 const float *scale, const float *scale_t,
                                 const struct f8b_tensor *out, const struct f8b_tensor *out_t)
{
	const char *op = "cast_transpose";

	F8B_TRY(f8b_check_wide_input(x, op));
	F8B_TRY(f8b_check_gran(g, op));
	if (!out && !out_t)
		return F8B_ERR(F8B_EINVAL, "%s: neither out nor out_t given", op);
	if (out) {
		F8B_TRY(check_out_dtype(out, "out"));
		F8B_TRY(f8b_lls_check_shape(out, out->dtype, x->rows, x->cols, op, "out"));
		if (f8b_dtype_is_fp8(out->dtype) && !scale)
			return F8B_ERR(F8B_EINVAL, "%s: fp8 out needs a scale tensor", op);
	}
	if (out_t) {
		F8B_TRY(check_out_dtype(out_t, "out_t"));
		F8B_TRY(f8b_lls_check_shape(out_t, out_t->dtype, x->cols, x->rows, op, "out_t"));
		if (f8b_dtype_is_fp8(out_t->dtype) && !scale_t)
			return F8B_ERR(F8B_EINVAL, "%s: fp8 out_t needs a scale_t tensor", op);
	}
	if (out && out_t && out->dtype != out_t->dtype)
		return F8B_ERR(F8B_EINVAL, "%s: out is %s but out_t %s (accepted: one dtype)", op,
		               f8b_dtype_name(out->dtype), f8b_dtype_name(out_t->dtype));
	return F8B_OK;
}

int f8b_lls_check_ln_t(const struct f8b_tensor *x, const float *mean, const float *rstd,
                       enum f8b_granularity g, const float *scale_t, const struct f8b_tensor *out_t,
                       const float *amax, const char *op)
{
	if (!x || !x->data)
		return F8B_ERR(F8B_EINVAL, "%s: no input x", op);
	if (x->dtype != F8B_BF16)
		return F8B_ERR(F8B_EINVAL, "%s: x is %s (accepted: bf16, LayerNorm's input)", op,
		               f8b_dtype_name(x->dtype));
	if (!mean || !rstd)
		return F8B_ERR(F8B_EINVAL, "%s: needs the mean and rstd of x's rows", op);
	F8B_TRY(f8b_check_gran(g, op));
	if (out_t) {
		if (!f8b_dtype_is_fp8(out_t->dtype))
			return F8B_ERR(F8B_EINVAL, "%s: out_t is %s (accepted: e4m3, e5m2)", op,
			               f8b_dtype_name(out_t->dtype));
		F8B_TRY(f8b_lls_check_cast_transpose(x, g, NULL, scale_t, NULL, out_t));
	} else if (!amax) {
		return F8B_ERR(F8B_EINVAL, "%s: no amax buffer", op);
	}
	return F8B_OK;
}

static int check_spec(const struct f8b_cast_spec *cs, int64_t rows, int64_t cols, const char *op,
                      bool given_ok)
{
	if (!cs)
		return F8B_ERR(F8B_EINVAL, "%s: no cast spec", op);
	if (cs->gran != F8B_GRAN_TENSORWISE && cs->gran != F8B_GRAN_AXISWISE &&
	    cs->gran != F8B_GRAN_BLOCK1X128)
		return F8B_ERR(F8B_EINVAL,
		               "%s: granularity %s (accepted: tensorwise, axiswise, block1x128; "
		               "block128x128 is amax + scales + cast_transpose)",
		               op, f8b_granularity_name(cs->gran));
	if (!f8b_dtype_is_fp8(cs->dtype))
		return F8B_ERR(F8B_EINVAL, "%s: target dtype %s (accepted: e4m3, e5m2)", op,
		               f8b_dtype_name(cs->dtype));
	if (!cs->q && !cs->q_t)
		return F8B_ERR(F8B_EINVAL, "%s: neither q nor q_t given", op);
	if (cs->q)
		F8B_TRY(f8b_lls_check_shape(cs->q, cs->dtype, rows, cols, op, "q"));
	if (cs->q_t) {
		if (cs->gran != F8B_GRAN_TENSORWISE)
			return F8B_ERR(F8B_EINVAL,
			               "%s: q_t with %s scales (accepted: tensorwise only; other "
			               "granularities of x^T run along the other axis: amax_t + "
			               "scales + cast_transpose)",
			               op, f8b_granularity_name(cs->gran));
		F8B_TRY(f8b_lls_check_shape(cs->q_t, cs->dtype, cols, rows, op, "q_t"));
	}
	if (cs->scale && cs->gran != F8B_GRAN_TENSORWISE)
		return F8B_ERR(F8B_EINVAL,
		               "%s: a given (delayed) scale with %s (accepted: tensorwise)", op,
		               f8b_granularity_name(cs->gran));
	if (!cs->amax || !cs->scale_inv)
		return F8B_ERR(F8B_EINVAL, "%s: no %s buffer", op,
		               !cs->amax ? "amax" : "scale_inv");
	if (cs->amax_all && cs->gran != F8B_GRAN_AXISWISE)
		return F8B_ERR(F8B_EINVAL, "%s: amax_all with %s scales (accepted: axiswise)", op,
		               f8b_granularity_name(cs->gran));
	if (cs->amax_given && (!given_ok || cs->gran != F8B_GRAN_TENSORWISE || cs->scale))
		return F8B_ERR(F8B_EINVAL,
		               "%s: amax_given (accepted: cast_fused, tensorwise, no given scale)",
		               op);
	return F8B_OK;
}

int f8b_lls_check_cast_spec(const struct f8b_cast_spec *cs, int64_t rows, int64_t cols,
                            const char *op)
{
	return check_spec(cs, rows, cols, op, false);
}

int f8b_lls_check_cast_fused_spec(const struct f8b_cast_spec *cs, int64_t rows, int64_t cols)
{
	return check_spec(cs, rows, cols, "cast_fused", true);
}
