/* backend.c - backend lookup by name and the tensor helpers drivers use. */
#include "backend.h"

#include <string.h>

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
