/* cuda_lls.c - the lls ops of backend.h on the cuda backend: argument
 * checks (shared with the host, lls_check.c), then the kernels of
 * kernels/ (layernorm.cu, sigmoid.cu, amax_t.cu, cast_transpose.cu,
 * lls_fused.cu) enqueued on the backend's stream.  Compiled only with CUDA.
 */
#include "backend/lls_ops.h"

#include <cuda_runtime_api.h>

#include "kernels/kernels.h"

static int kernel_status(int e, const char *call, const char *file, int line)
{
	if (e == (int)cudaSuccess)
		return F8B_OK;
	(void)cudaGetLastError(); /* clear a non-sticky launch error */
	return f8b_errorf(e == (int)cudaErrorMemoryAllocation ? F8B_ENOMEM : F8B_EDEVICE, file,
	                  line, "%s: %s (%s)", call, cudaGetErrorString((cudaError_t)e),
	                  cudaGetErrorName((cudaError_t)e));
}

#define K_TRY(call) F8B_TRY(kernel_status((call), #call, __FILE__, __LINE__))

static cudaStream_t stream_of(struct f8b_backend *be)
{
	return (cudaStream_t)f8b_cuda_stream(be);
}

/* The row-wise kernels hold a row in registers (backend.h). */
static int check_row_len(int64_t cols, const char *op)
{
	if (cols > F8B_LLS_ROW_MAX_COLS)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "%s: rows of %lld columns (the cuda backend's row kernels take at "
		               "most %d)",
		               op, (long long)cols, F8B_LLS_ROW_MAX_COLS);
	return F8B_OK;
}

static struct f8b_k_qspec qspec(const struct f8b_cast_spec *cs)
{
	struct f8b_k_qspec q = {
	    .gran = (int)cs->gran,
	    .dtype = (int)cs->dtype,
	    .margin = cs->opts.margin,
	    .pow2 = cs->opts.pow2,
	    .scale = cs->scale,
	    .q = cs->q ? cs->q->data : NULL,
	    .q_t = cs->q_t ? cs->q_t->data : NULL,
	    .amax = cs->amax,
	    .scale_inv = cs->scale_inv,
	    .amax_all = cs->amax_all,
	    .amax_given = cs->amax_given,
	    .partial = cs->partial,
	};
	return q;
}

int f8b_cuda_layernorm_fwd(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                           struct f8b_tensor *y, float *mean, float *rstd)
{
	F8B_TRY(f8b_lls_check_layernorm(x, eps, y, false, mean, rstd, "layernorm_fwd"));
	F8B_TRY(check_row_len(x->cols, "layernorm_fwd"));
	K_TRY(f8b_k_layernorm_fwd(x->data, x->rows, x->cols, eps, y->data, mean, rstd, NULL,
	                          stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_layernorm_bwd(struct f8b_backend *be, const struct f8b_tensor *dy,
                           const struct f8b_tensor *x, const float *mean, const float *rstd,
                           struct f8b_tensor *dx)
{
	F8B_TRY(f8b_lls_check_layernorm_bwd(dy, x, mean, rstd, dx));
	F8B_TRY(check_row_len(x->cols, "layernorm_bwd"));
	K_TRY(f8b_k_layernorm_bwd(dy->data, x->data, mean, rstd, dx->data, x->rows, x->cols,
	                          stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_sigmoid_fwd(struct f8b_backend *be, const struct f8b_tensor *z, struct f8b_tensor *y)
{
	F8B_TRY(f8b_lls_check_elementwise(z, NULL, y, false, "sigmoid_fwd"));
	K_TRY(f8b_k_sigmoid_fwd(z->data, y->data, z->rows * z->cols, stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_sigmoid_bwd(struct f8b_backend *be, const struct f8b_tensor *y,
                         const struct f8b_tensor *dy, struct f8b_tensor *dz)
{
	F8B_TRY(f8b_lls_check_elementwise(y, dy, dz, false, "sigmoid_bwd"));
	K_TRY(f8b_k_sigmoid_bwd(y->data, dy->data, dz->data, y->rows * y->cols, stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                    float *amax)
{
	F8B_TRY(f8b_check_wide_input(x, "amax_t"));
	F8B_TRY(f8b_check_gran(g, "amax_t"));
	if (!amax)
		return F8B_ERR(F8B_EINVAL, "amax_t: no amax buffer");
	K_TRY(f8b_k_amax_t(x->data, (int)x->dtype, x->rows, x->cols, (int)g, amax, stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_cast_transpose(struct f8b_backend *be, const struct f8b_tensor *x,
                            enum f8b_granularity g, const float *scale, const float *scale_t,
                            struct f8b_tensor *out, struct f8b_tensor *out_t)
{
	F8B_TRY(f8b_lls_check_cast_transpose(x, g, scale, scale_t, out, out_t));
	int od = (int)(out ? out : out_t)->dtype;
	K_TRY(f8b_k_cast_transpose(x->data, (int)x->dtype, x->rows, x->cols, (int)g, scale, scale_t,
	                           out ? out->data : NULL, out_t ? out_t->data : NULL, od,
	                           stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_layernorm_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, float *amax)
{
	F8B_TRY(f8b_lls_check_ln_t(x, mean, rstd, g, NULL, NULL, amax, "layernorm_amax_t"));
	K_TRY(f8b_k_amax_t_ln(x->data, mean, rstd, x->rows, x->cols, (int)g, amax, stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_layernorm_cast_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, const float *scale_t,
                              struct f8b_tensor *out_t)
{
	if (!out_t)
		return F8B_ERR(F8B_EINVAL, "layernorm_cast_t: no out_t");
	F8B_TRY(f8b_lls_check_ln_t(x, mean, rstd, g, scale_t, out_t, NULL, "layernorm_cast_t"));
	K_TRY(f8b_k_cast_transpose_ln(x->data, mean, rstd, x->rows, x->cols, (int)g, scale_t,
	                              out_t->data, (int)out_t->dtype, stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_layernorm_fwd_cast(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                                struct f8b_tensor *y, float *mean, float *rstd,
                                const struct f8b_cast_spec *cast)
{
	const char *op = "layernorm_fwd_cast";

	F8B_TRY(f8b_lls_check_layernorm(x, eps, y, true, mean, rstd, op));
	F8B_TRY(f8b_lls_check_cast_spec(cast, x->rows, x->cols, op));
	F8B_TRY(check_row_len(x->cols, op));
	struct f8b_k_qspec q = qspec(cast);
	K_TRY(f8b_k_layernorm_fwd(x->data, x->rows, x->cols, eps, y ? y->data : NULL, mean, rstd,
	                          &q, stream_of(be)));
	return F8B_OK;
}

int f8b_cuda_sigmoid_bwd_cast(struct f8b_backend *be, const struct f8b_tensor *y,
                              const struct f8b_tensor *dy, struct f8b_tensor *dz,
                              const struct f8b_cast_spec *cast)
{
	const char *op = "sigmoid_bwd_cast";

	F8B_TRY(f8b_lls_check_elementwise(y, dy, dz, true, op));
	F8B_TRY(f8b_lls_check_cast_spec(cast, y->rows, y->cols, op));
	if (cast->gran != F8B_GRAN_TENSORWISE)
		F8B_TRY(check_row_len(y->cols, op));
	struct f8b_k_qspec q = qspec(cast);
	K_TRY(f8b_k_sigmoid_bwd_cast(y->data, dy->data, dz ? dz->data : NULL, y->rows, y->cols, &q,
	                             stream_of(be)));
	return F8B_OK;
}

/* cast_fused of rows longer than the row kernel holds (axiswise,
 * block1x128): the same values from the tile kernels, in four launches
 * instead of one.  The per-block amax; the scales, parked in scale_inv;
 * the cast by them; then scale_inv itself over them; and amax_all, the
 * max over the blocks' amaxes. */
static int cast_long_rows(struct f8b_backend *be, const struct f8b_tensor *x,
                          const struct f8b_cast_spec *cs)
{
	cudaStream_t st = stream_of(be);
	int64_t n = f8b_scale_count(cs->gran, x->rows, x->cols);
	int g = (int)cs->gran, dt = (int)cs->dtype, pow2 = cs->opts.pow2;
	float margin = cs->opts.margin;
	K_TRY(f8b_k_amax(x->data, F8B_BF16, x->rows, x->cols, g, cs->amax, st));
	if (cs->q) {
		K_TRY(f8b_k_scales(cs->amax, n, dt, margin, pow2, cs->scale_inv, NULL, st));
		K_TRY(f8b_k_cast(x->data, F8B_BF16, x->rows, x->cols, g, cs->scale_inv, cs->q->data,
		                 dt, st));
	}
	K_TRY(f8b_k_scales(cs->amax, n, dt, margin, pow2, NULL, cs->scale_inv, st));
	if (cs->amax_all)
		K_TRY(f8b_k_amax(cs->amax, F8B_F32, 1, n, F8B_GRAN_TENSORWISE, cs->amax_all, st));
	return F8B_OK;
}

int f8b_cuda_cast_fused(struct f8b_backend *be, const struct f8b_tensor *x,
                        const struct f8b_cast_spec *cast)
{
	const char *op = "cast_fused";

	F8B_TRY(f8b_lls_check_elementwise(x, NULL, NULL, true, op));
	F8B_TRY(f8b_lls_check_cast_fused_spec(cast, x->rows, x->cols));
	if (cast->gran != F8B_GRAN_TENSORWISE && x->cols > F8B_LLS_ROW_MAX_COLS)
		return cast_long_rows(be, x, cast);
	struct f8b_k_qspec q = qspec(cast);
	K_TRY(f8b_k_cast_fused(x->data, x->rows, x->cols, &q, stream_of(be)));
	return F8B_OK;
}
