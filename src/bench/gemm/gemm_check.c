/* gemm_check.c - a GEMM's output against double-precision references. */
#include "bench/gemm/gemm_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp8.h"
#include "backend/reference.h"

int64_t f8b_sample_indices(int64_t n, int64_t want, uint64_t seed, int64_t *idx)
{
	if (n <= want) {
		for (int64_t i = 0; i < n; i++)
			idx[i] = i;
		return n;
	}
	int64_t stride = n / want;
	for (int64_t i = 0; i < want - 1; i++)
		idx[i] = i * stride + (int64_t)((seed + 7919u * (uint64_t)i) % (uint64_t)stride);
	idx[want - 1] = n - 1;
	return want;
}

/* Rows `rows` of x (backend memory) as fp32, dequantised with scale_inv
 * (a host copy of the scale tensor of granularity g) when x is fp8. */
static int rows_f32(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                    const struct f8b_tensor *x, enum f8b_granularity g, const float *sinv,
                    const int64_t *rows, int64_t nr, float *out)
{
	size_t rb = f8b_dtype_size(x->dtype) * (size_t)x->cols;
	unsigned char *buf = malloc(rb);
	if (!buf)
		return F8B_ERR(F8B_ENOMEM, "check row of %zu bytes", rb);
	int rc = F8B_OK;
	for (int64_t i = 0; i < nr && rc == F8B_OK; i++) {
		int64_t r = rows[i];
		rc = ops->download(be, buf, (const char *)x->data + (size_t)r * rb, rb);
		if (rc != F8B_OK)
			break;
		float *o = out + i * x->cols;
		f8b_to_f32(buf, x->dtype, o, (size_t)x->cols);
		if (!f8b_dtype_is_fp8(x->dtype))
			continue;
		/* Block of (r, c): rows are blocked only by 128x128 scales,
		 * columns by both block granularities (scaling.h). */
		int64_t br = g == F8B_GRAN_TENSORWISE     ? 0
		             : g == F8B_GRAN_BLOCK128X128 ? r / F8B_BLOCK
		                                          : r;
		bool cb = g == F8B_GRAN_BLOCK1X128 || g == F8B_GRAN_BLOCK128X128;
		for (int64_t c = 0; c < x->cols; c++)
			o[c] *=
			    sinv[f8b_scale_index(g, x->rows, x->cols, br, cb ? c / F8B_BLOCK : 0)];
	}
	free(buf);
	return rc;
}

/* A host copy of a scale_inv tensor (NULL for bf16 operands). */
static int scales_host(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                       const struct f8b_tensor *x, enum f8b_granularity g, const float *sinv,
                       float **out)
{
	*out = NULL;
	if (!f8b_dtype_is_fp8(x->dtype))
		return F8B_OK;
	int64_t n = f8b_scale_count(g, x->rows, x->cols);
	if (!sinv || !(*out = malloc(sizeof **out * (size_t)n)))
		return F8B_ERR(sinv ? F8B_ENOMEM : F8B_EINTERNAL, "scale_inv of %lld floats",
		               (long long)n);
	return ops->download(be, *out, sinv, sizeof **out * (size_t)n);
}

int f8b_gemm_check(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                   const struct f8b_gemm_data *g, int64_t max_rows, int64_t max_cols, uint64_t seed,
                   struct f8b_gemm_verdict *v)
{
	const struct f8b_gemm_desc *d = g->desc;
	int64_t k = d->k;
	int64_t *ri = malloc(sizeof *ri * (size_t)max_rows),
	        *ci = malloc(sizeof *ci * (size_t)max_cols);
	if (!ri || !ci) {
		free(ri);
		free(ci);
		return F8B_ERR(F8B_ENOMEM, "check indices");
	}
	int64_t nr = f8b_sample_indices(d->m, max_rows, seed, ri);
	int64_t nc = f8b_sample_indices(d->n, max_cols, seed + 1, ci);
	bool hp = g->a_hp && g->b_hp;
	size_t cnt = (size_t)(nr * nc);
	float *a = malloc(sizeof *a * (size_t)(nr * k)), *b = malloc(sizeof *b * (size_t)(nc * k));
	float *ah = hp ? malloc(sizeof *ah * (size_t)(nr * k)) : NULL;
	float *bh = hp ? malloc(sizeof *bh * (size_t)(nc * k)) : NULL;
	float *drow = malloc(sizeof *drow * (size_t)d->n), *dsub = malloc(sizeof *dsub * cnt);
	double *ref = malloc(sizeof *ref * cnt), *refh = hp ? malloc(sizeof *refh * cnt) : NULL;
	unsigned char *dbuf = malloc(f8b_dtype_size(g->d->dtype) * (size_t)d->n);
	float *sa = NULL, *sb = NULL;
	int rc = F8B_OK;
	if (!a || !b || !drow || !dsub || !ref || !dbuf || (hp && (!ah || !bh || !refh)))
		rc = F8B_ERR(F8B_ENOMEM, "check buffers for %lldx%lldx%lld", (long long)d->m,
		             (long long)k, (long long)d->n);
	if (rc == F8B_OK)
		rc = scales_host(ops, be, g->a, d->a_gran, g->a_scale_inv, &sa);
	if (rc == F8B_OK)
		rc = scales_host(ops, be, g->b, d->b_gran, g->b_scale_inv, &sb);
	/* Operands as the kernel consumed them, and the originals. */
	if (rc == F8B_OK)
		rc = rows_f32(ops, be, g->a, d->a_gran, sa, ri, nr, a);
	if (rc == F8B_OK)
		rc = rows_f32(ops, be, g->b, d->b_gran, sb, ci, nc, b);
	if (rc == F8B_OK && hp)
		rc = rows_f32(ops, be, g->a_hp, F8B_GRAN_TENSORWISE, NULL, ri, nr, ah);
	if (rc == F8B_OK && hp)
		rc = rows_f32(ops, be, g->b_hp, F8B_GRAN_TENSORWISE, NULL, ci, nc, bh);
	size_t rb = f8b_dtype_size(g->d->dtype) * (size_t)d->n;
	for (int64_t i = 0; i < nr && rc == F8B_OK; i++) {
		rc = ops->download(be, dbuf, (const char *)g->d->data + (size_t)ri[i] * rb, rb);
		f8b_to_f32(dbuf, g->d->dtype, drow, (size_t)d->n);
		for (int64_t j = 0; j < nc; j++)
			dsub[i * nc + j] = drow[ci[j]];
	}
	if (rc == F8B_OK)
		rc = f8b_ref_gemm(a, b, nr, nc, k, ref);
	if (rc == F8B_OK && hp)
		rc = f8b_ref_gemm(ah, bh, nr, nc, k, refh);
	if (rc == F8B_OK) {
		bool fp8 = f8b_dtype_is_fp8(d->a_dtype);
		v->rel_error = f8b_rel_error(dsub, ref, cnt);
		v->tolerance = f8b_gemm_tolerance(k, g->d->dtype, fp8 && d->fast_accum);
		v->sqnr_db = hp ? f8b_sqnr_db(dsub, refh, cnt) : NAN;
		v->ok = v->rel_error <= v->tolerance; /* NaN fails */
		v->rows = nr;
		v->cols = nc;
		v->sampled = nr < d->m || nc < d->n;
	}
	free(ri);
	free(ci);
	free(a);
	free(b);
	free(ah);
	free(bh);
	free(drow);
	free(dsub);
	free(ref);
	free(refh);
	free(dbuf);
	free(sa);
	free(sb);
	return rc;
}
