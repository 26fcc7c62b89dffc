/* backend.c - backend lookup by name and the tensor helpers drivers use. */
#define _POSIX_C_SOURCE 200809L
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/cases.h"

int f8b_backend_find(const char *name, const struct f8b_backend_ops **ops)
{
	*ops = NULL;
	if (name && strcmp(name, "host") == 0) {
		*ops = &f8b_backend_host;
		return F8B_OK;
	}
	if (name && strcmp(name, "cuda") == 0) {
#ifdef F8B_HAVE_CUDA
		*ops = &f8b_backend_cuda;
		return F8B_OK;
#else
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "backend 'cuda': f8bench was built without CUDA (configure --with-cuda)");
#endif
	}
	return F8B_ERR(F8B_EINVAL, "unknown backend '%s' (accepted: host, cuda)",
	               name ? name : "(null)");
}

/* rows * cols * element size, or false when the shape is invalid or the
 * byte count does not fit a size_t. */
static bool tensor_bytes(enum f8b_dtype dt, int64_t rows, int64_t cols, size_t *out)
{
	int64_t n, bytes;
	size_t es = f8b_dtype_size(dt);

	if (es == 0 || rows <= 0 || cols <= 0)
		return false;
	if (f8b_mul_overflows(rows, cols, &n) || f8b_mul_overflows(n, (int64_t)es, &bytes))
		return false;
	if ((uint64_t)bytes > SIZE_MAX)
		return false;
	*out = (size_t)bytes;
	return true;
}

int f8b_tensor_alloc(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     struct f8b_tensor *t, enum f8b_dtype dt, int64_t rows, int64_t cols)
{
	size_t bytes;

	t->data = NULL;
	t->dtype = dt;
	t->rows = rows;
	t->cols = cols;
	if (f8b_dtype_size(dt) == 0)
		return F8B_ERR(F8B_EINVAL, "tensor dtype %d (accepted: f32, bf16, e4m3, e5m2)",
		               (int)dt);
	if (rows <= 0 || cols <= 0)
		return F8B_ERR(F8B_EINVAL, "tensor shape %lldx%lld (rows and cols must be > 0)",
		               (long long)rows, (long long)cols);
	if (!tensor_bytes(dt, rows, cols, &bytes))
		return F8B_ERR(F8B_EINVAL, "tensor shape %lldx%lld of %s is too large to address",
		               (long long)rows, (long long)cols, f8b_dtype_name(dt));
	return ops->alloc(be, bytes, &t->data);
}

void f8b_tensor_free(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     struct f8b_tensor *t)
{
	if (!t || !t->data)
		return;
	ops->free(be, t->data);
	t->data = NULL;
}

size_t f8b_tensor_bytes(const struct f8b_tensor *t)
{
	size_t bytes;

	return t && tensor_bytes(t->dtype, t->rows, t->cols, &bytes) ? bytes : 0;
}

int f8b_check_tensor(const struct f8b_tensor *t, const char *op, const char *what)
{
	int64_t n;

	if (!t || !t->data)
		return F8B_ERR(F8B_EINVAL, "%s: %s tensor has no data", op, what);
	if (t->rows <= 0 || t->cols <= 0 || f8b_mul_overflows(t->rows, t->cols, &n))
		return F8B_ERR(F8B_EINVAL,
		               "%s: %s tensor shape %lldx%lld (rows and cols must be > 0)", op,
		               what, (long long)t->rows, (long long)t->cols);
	return F8B_OK;
}

int f8b_check_wide_input(const struct f8b_tensor *x, const char *op)
{
	F8B_TRY(f8b_check_tensor(x, op, "input"));
	if (x->dtype != F8B_BF16 && x->dtype != F8B_F32)
		return F8B_ERR(F8B_EINVAL, "%s: input dtype %s (accepted: bf16, f32)", op,
		               f8b_dtype_name(x->dtype));
	return F8B_OK;
}

int f8b_check_gran(enum f8b_granularity g, const char *op)
{
	if ((unsigned)g >= F8B_GRAN_COUNT)
		return F8B_ERR(F8B_EINVAL,
		               "%s: granularity %d (accepted: tensorwise, axiswise, block1x128, "
		               "block128x128)",
		               op, (int)g);
	return F8B_OK;
}

int f8b_check_cast(const struct f8b_tensor *x, enum f8b_granularity g, const float *scale,
                   const struct f8b_tensor *out)
{
	F8B_TRY(f8b_check_wide_input(x, "cast"));
	F8B_TRY(f8b_check_gran(g, "cast"));
	F8B_TRY(f8b_check_tensor(out, "cast", "output"));
	if (!f8b_dtype_is_fp8(out->dtype))
		return F8B_ERR(F8B_EINVAL, "cast: output dtype %s (accepted: e4m3, e5m2)",
		               f8b_dtype_name(out->dtype));
	if (out->rows != x->rows || out->cols != x->cols)
		return F8B_ERR(F8B_EINVAL,
		               "cast: output shape %lldx%lld differs from input %lldx%lld",
		               (long long)out->rows, (long long)out->cols, (long long)x->rows,
		               (long long)x->cols);
	if (!scale)
		return F8B_ERR(F8B_EINVAL, "cast: no scale tensor");
	return F8B_OK;
}

int f8b_check_transpose_fp8(const struct f8b_tensor *x, const struct f8b_tensor *out)
{
	F8B_TRY(f8b_check_tensor(x, "transpose_fp8", "input"));
	F8B_TRY(f8b_check_tensor(out, "transpose_fp8", "output"));
	if (!f8b_dtype_is_fp8(x->dtype) || out->dtype != x->dtype)
		return F8B_ERR(F8B_EINVAL,
		               "transpose_fp8: input %s, output %s (both e4m3 or both e5m2)",
		               f8b_dtype_name(x->dtype), f8b_dtype_name(out->dtype));
	if (out->rows != x->cols || out->cols != x->rows)
		return F8B_ERR(
		    F8B_EINVAL,
		    "transpose_fp8: output %lldx%lld is not the input %lldx%lld transposed",
		    (long long)out->rows, (long long)out->cols, (long long)x->rows,
		    (long long)x->cols);
	if (x->rows % 16 || x->cols % 16)
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "transpose_fp8: %lldx%lld (rows and columns must be multiples of 16)",
		    (long long)x->rows, (long long)x->cols);
	return F8B_OK;
}

int f8b_check_gemm_desc(const struct f8b_gemm_desc *d, const char *cfg)
{
	const char *sep = cfg ? " " : "", *c = cfg ? cfg : "";

	if (d->m <= 0 || d->n <= 0 || d->k <= 0)
		return F8B_ERR(F8B_EINVAL, "gemm: shape M=%lld N=%lld K=%lld (each must be > 0)",
		               (long long)d->m, (long long)d->n, (long long)d->k);
	bool fp8 = f8b_dtype_is_fp8(d->a_dtype) && f8b_dtype_is_fp8(d->b_dtype);
	bool bf16 = d->a_dtype == F8B_BF16 && d->b_dtype == F8B_BF16;
	if (!fp8 && !bf16)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm%s%s: operand dtypes %s x %s (accepted: bf16 x bf16, e4m3 x "
		               "e4m3, e4m3 x e5m2, e5m2 x e4m3)",
		               sep, c, f8b_dtype_name(d->a_dtype), f8b_dtype_name(d->b_dtype));
	/* cublasLtMatmul's fp8 type table has no e5m2 x e5m2 row (e5m2 is for
	 * gradients, which only meet an e4m3 operand); the host refuses it too,
	 * so a sweep fails the same way on every backend. */
	if (d->a_dtype == F8B_E5M2 && d->b_dtype == F8B_E5M2)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm%s%s: operand dtypes e5m2 x e5m2 (no fp8 GEMM takes two e5m2 "
		               "operands; accepted: e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3)",
		               sep, c);
	/* An fp8 D is e4m3 only: the forward's output, cast for the next
	 * GEMM (doc/gemm.md "fp8 output"); gradients (e5m2) leave their GEMMs
	 * in bf16 and are cast with their own amax. */
	if (d->out_dtype == F8B_E5M2)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm%s%s: output dtype e5m2 (an fp8 output is e4m3 only; accepted: "
		               "bf16, f32, e4m3)",
		               sep, c);
	if (d->out_dtype == F8B_E4M3 && !fp8)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm%s%s: output dtype e4m3 with %s x %s operands (an e4m3 output "
		               "needs fp8 operands; a bf16 GEMM writes bf16 or f32)",
		               sep, c, f8b_dtype_name(d->a_dtype), f8b_dtype_name(d->b_dtype));
	if (d->out_dtype != F8B_BF16 && d->out_dtype != F8B_F32 && d->out_dtype != F8B_E4M3)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm%s%s: output dtype %s (accepted: bf16, f32, e4m3)", sep, c,
		               f8b_dtype_name(d->out_dtype));
	if (!fp8)
		return F8B_OK;
	if (d->a_t || d->b_t)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm%s%s: a transposed fp8 operand (fp8 GEMMs take K-major A [M,K] "
		               "and B [N,K] only; make a transposed copy with cast_transpose)",
		               sep, c);
	if (d->a_gran != F8B_GRAN_TENSORWISE && d->a_gran != F8B_GRAN_AXISWISE &&
	    d->a_gran != F8B_GRAN_BLOCK1X128)
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "gemm%s%s: A (input) granularity %s (accepted: tensorwise, axiswise, "
		    "block1x128)",
		    sep, c, f8b_granularity_name(d->a_gran));
	if (d->b_gran != F8B_GRAN_TENSORWISE && d->b_gran != F8B_GRAN_AXISWISE &&
	    d->b_gran != F8B_GRAN_BLOCK128X128 && d->b_gran != F8B_GRAN_BLOCK1X128)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm%s%s: B (weight) granularity %s (accepted: tensorwise, "
		               "axiswise, block128x128, block1x128)",
		               sep, c, f8b_granularity_name(d->b_gran));
	return F8B_OK;
}

int f8b_check_gemm_args(const struct f8b_gemm_desc *d, const struct f8b_gemm_args *a)
{
	if (!a->a || !a->b || !a->d)
		return F8B_ERR(F8B_EINVAL, "gemm: missing A, B or D buffer");
	if (f8b_dtype_is_fp8(d->a_dtype) && (!a->a_scale_inv || !a->b_scale_inv))
		return F8B_ERR(F8B_EINVAL, "gemm: fp8 operands need both scale_inv tensors");
	if (d->out_dtype == F8B_E4M3 && (!a->d_scale || !a->amax_d))
		return F8B_ERR(F8B_EINVAL,
		               "gemm: an e4m3 output needs d_scale and amax_d (%s missing)",
		               !a->d_scale && !a->amax_d ? "both"
		               : !a->d_scale             ? "d_scale"
		                                         : "amax_d");
	if (d->out_t && !a->d_t)
		return F8B_ERR(F8B_EINVAL, "gemm: a transposed write (out_t) needs the D^T buffer");
	return F8B_OK;
}

const char *f8b_gemm_impl_name(enum f8b_gemm_impl impl)
{
	switch (impl) {
	case F8B_GEMM_IMPL_CUBLASLT: return "cublaslt";
	case F8B_GEMM_IMPL_F8B: return "f8b";
	default: return "?";
	}
}

int f8b_gemm_impl_parse(const char *s, enum f8b_gemm_impl *impl)
{
	for (int i = 0; i < F8B_GEMM_IMPL_COUNT; i++)
		if (s && !strcasecmp(s, f8b_gemm_impl_name((enum f8b_gemm_impl)i))) {
			*impl = (enum f8b_gemm_impl)i;
			return F8B_OK;
		}
	return F8B_ERR(F8B_EINVAL, "unknown GEMM implementation '%s' (accepted: cublaslt, f8b)",
	               s ? s : "");
}

static int parse_impl_item(const char *s, void *out)
{
	return f8b_gemm_impl_parse(s, out);
}

int f8b_gemm_impl_list_parse(const char *spec, const char *opt,
                             enum f8b_gemm_impl out[F8B_GEMM_IMPL_COUNT], int *n)
{
	enum f8b_gemm_impl *v = NULL;
	size_t k = 0;
	*n = 0;
	F8B_TRY(f8b_parse_list(spec, opt, sizeof *v, parse_impl_item, (void **)&v, &k));
	/* A name seen before is refused before it is stored: out never holds
	 * more than the F8B_GEMM_IMPL_COUNT distinct values. */
	int rc = F8B_OK;
	for (size_t i = 0; i < k && rc == F8B_OK; i++) {
		for (int j = 0; j < *n && rc == F8B_OK; j++)
			if (out[j] == v[i])
				rc = F8B_ERR(
				    F8B_EINVAL,
				    "%s '%s': '%s' is listed twice (accepted: cublaslt, f8b, "
				    "each once)",
				    opt, spec, f8b_gemm_impl_name(v[i]));
		if (rc == F8B_OK)
			out[(*n)++] = v[i];
	}
	free(v);
	return rc;
}

const char *f8b_gemm_impl_col(const char *col, size_t size, char *buf, size_t n)
{
	size_t len = strnlen(col, size);
	if (!len)
		return f8b_gemm_impl_name(F8B_GEMM_IMPL_CUBLASLT);
	snprintf(buf, n, "%.*s", (int)len, col);
	return buf;
}

int f8b_gemm_plan_error(int rc, const char *what)
{
	const char *e = f8b_last_error(), *f = strstr(e, "impl f8b");
	return F8B_ERR(rc, "%s: %s", what, f ? f : e);
}

bool f8b_gemm_impl_same(const char *a, const char *b, size_t size)
{
	char x[64], y[64];
	return !strcmp(f8b_gemm_impl_col(a, size, x, sizeof x),
	               f8b_gemm_impl_col(b, size, y, sizeof y));
}

int f8b_check_bw(const void *a, const void *b, bool two, size_t bytes, int passes, size_t align,
                 const char *op)
{
	if (!a || (two && !b))
		return F8B_ERR(F8B_EINVAL, "%s: missing buffer", op);
	if (bytes == 0 || bytes % 16 || bytes > (size_t)INT64_MAX / 16)
		return F8B_ERR(F8B_EINVAL, "%s: %zu bytes (accepted: a positive multiple of 16)",
		               op, bytes);
	if (passes < 1)
		return F8B_ERR(F8B_EINVAL, "%s: %d passes (accepted: >= 1)", op, passes);
	if ((uintptr_t)a % align || (b && (uintptr_t)b % align))
		return F8B_ERR(F8B_EINVAL, "%s: buffer not %zu-byte aligned", op, align);
	return F8B_OK;
}
