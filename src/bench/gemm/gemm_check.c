/* gemm_check.c - a GEMM's output against double-precision references. */
#include "bench/gemm/gemm_check.h"

#include <limits.h>
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

/* The checked block of D: rows ri[0..nr) and columns ci[0..nc), and the
 * double reference over it from the operands as the kernel read them
 * (ref), from the high-precision inputs (refh, when asked for), and the
 * sums of the products' magnitudes (absref, when asked for). */
struct block {
	int64_t *ri, *ci, nr, nc;
	double *ref, *refh;
	double *absref; /* sum_k |a_k b_k| per element, for an e4m3 D */
};

static void block_free(struct block *b)
{
	free(b->ri);
	free(b->ci);
	free(b->ref);
	free(b->refh);
	free(b->absref);
	memset(b, 0, sizeof *b);
}

/* The sums of the last block computed, kept for the next check of the same
 * GEMM: f8b_gemm_ref_amax (an e4m3 D's d_scale) and f8b_gemm_check on the
 * same operands, the same case run again with other output settings
 * (fast_accum, D^T, a second implementation), all compute the same sums.
 * They cost up to three double GEMMs over the block a check (5e9
 * multiply-adds each for a whole 1040x2064x2320 D: the GPU tests' e4m3 pass
 * spent its minutes there).  The key is what the sums are computed from,
 * compared whole, not pointers (the tests quantise new data into the same
 * memory): the shape and the sampling that pick the block's rows and
 * columns, and the operands' rows as fp32 (dequantised) and in high
 * precision.  One block is kept, freed at exit. */
static struct ref_memo {
	int64_t m, n, k, max_rows, max_cols;
	uint64_t seed;
	float *a, *b;                /* the operands' rows as the GEMM read them */
	float *ah, *bh;              /* the high-precision rows, when refh is kept */
	double *ref, *refh, *absref; /* NULL: not kept */
} memo;

static void memo_clear(void)
{
	free(memo.a);
	free(memo.b);
	free(memo.ah);
	free(memo.bh);
	free(memo.ref);
	free(memo.refh);
	free(memo.absref);
	memset(&memo, 0, sizeof memo);
}

static bool same(const void *x, const void *y, size_t bytes)
{
	return x && y && memcmp(x, y, bytes) == 0;
}

/* *sums = a new buffer of the double GEMM of x [nr, k] and y [nc, k] */
static int sums_of(const float *x, const float *y, int64_t nr, int64_t nc, int64_t k, double **sums)
{
	const size_t cnt = (size_t)(nr * nc);
	if (!(*sums = malloc(sizeof **sums * cnt)))
		return F8B_ERR(F8B_ENOMEM, "check buffer of %zu sums", cnt);
	int rc = f8b_ref_gemm(x, y, nr, nc, k, *sums);
	if (rc != F8B_OK) {
		free(*sums);
		*sums = NULL;
	}
	return rc;
}

/* dst = a copy of n doubles of src, or ENOMEM */
static int dup_sums(double **dst, const double *src, size_t n)
{
	if (!(*dst = malloc(sizeof **dst * n)))
		return F8B_ERR(F8B_ENOMEM, "check buffer of %zu sums", n);
	memcpy(*dst, src, sizeof **dst * n);
	return F8B_OK;
}

static int ref_block(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     const struct f8b_gemm_data *g, int64_t max_rows, int64_t max_cols,
                     uint64_t seed, bool hp, bool abs, struct block *blk)
{
	static bool registered;
	const struct f8b_gemm_desc *d = g->desc;
	int64_t k = d->k;
	memset(blk, 0, sizeof *blk);
	blk->ri = malloc(sizeof *blk->ri * (size_t)max_rows);
	blk->ci = malloc(sizeof *blk->ci * (size_t)max_cols);
	if (!blk->ri || !blk->ci) {
		block_free(blk);
		return F8B_ERR(F8B_ENOMEM, "check indices");
	}
	if (!registered)
		registered = atexit(memo_clear) == 0;
	int64_t nr = blk->nr = f8b_sample_indices(d->m, max_rows, seed, blk->ri);
	int64_t nc = blk->nc = f8b_sample_indices(d->n, max_cols, seed + 1, blk->ci);
	size_t cnt = (size_t)(nr * nc), na = (size_t)(nr * k), nb = (size_t)(nc * k);
	float *a = malloc(sizeof *a * na), *b = malloc(sizeof *b * nb);
	float *ah = hp ? malloc(sizeof *ah * na) : NULL;
	float *bh = hp ? malloc(sizeof *bh * nb) : NULL;
	float *sa = NULL, *sb = NULL;
	int rc = F8B_OK;
	if (!a || !b || (hp && (!ah || !bh)))
		rc = F8B_ERR(F8B_ENOMEM, "check buffers for %lldx%lldx%lld", (long long)d->m,
		             (long long)k, (long long)d->n);
	if (rc == F8B_OK)
		rc = scales_host(ops, be, g->a, d->a_gran, g->a_scale_inv, &sa);
	if (rc == F8B_OK)
		rc = scales_host(ops, be, g->b, d->b_gran, g->b_scale_inv, &sb);
	/* Operands as the kernel consumed them, and the originals. */
	if (rc == F8B_OK)
		rc = rows_f32(ops, be, g->a, d->a_gran, sa, blk->ri, nr, a);
	if (rc == F8B_OK)
		rc = rows_f32(ops, be, g->b, d->b_gran, sb, blk->ci, nc, b);
	if (rc == F8B_OK && hp)
		rc = rows_f32(ops, be, g->a_hp, F8B_GRAN_TENSORWISE, NULL, blk->ri, nr, ah);
	if (rc == F8B_OK && hp)
		rc = rows_f32(ops, be, g->b_hp, F8B_GRAN_TENSORWISE, NULL, blk->ci, nc, bh);
	free(sa);
	free(sb);
	/* The kept block, where it is this one; else this one is kept (the
	 * memo takes a and b). */
	if (rc == F8B_OK &&
	    !(memo.ref && memo.m == d->m && memo.n == d->n && memo.k == k &&
	      memo.max_rows == max_rows && memo.max_cols == max_cols && memo.seed == seed &&
	      same(memo.a, a, sizeof *a * na) && same(memo.b, b, sizeof *b * nb))) {
		memo_clear();
		rc = sums_of(a, b, nr, nc, k, &memo.ref);
		if (rc == F8B_OK) {
			memo = (struct ref_memo){.m = d->m,
			                         .n = d->n,
			                         .k = k,
			                         .max_rows = max_rows,
			                         .max_cols = max_cols,
			                         .seed = seed,
			                         .a = a,
			                         .b = b,
			                         .ref = memo.ref};
			a = b = NULL;
		}
	}
	/* From the high-precision inputs: kept where they are the same (the
	 * memo takes ah and bh). */
	if (rc == F8B_OK && hp &&
	    !(memo.refh && same(memo.ah, ah, sizeof *ah * na) &&
	      same(memo.bh, bh, sizeof *bh * nb))) {
		free(memo.refh);
		free(memo.ah);
		free(memo.bh);
		memo.ah = memo.bh = NULL;
		rc = sums_of(ah, bh, nr, nc, k, &memo.refh);
		if (rc == F8B_OK) {
			memo.ah = ah;
			memo.bh = bh;
			ah = bh = NULL;
		}
	}
	/* sum_k |a_k b_k|: the same GEMM of the magnitudes (check_e4m3) */
	if (rc == F8B_OK && abs && !memo.absref) {
		float *ma = malloc(sizeof *ma * na), *mb = malloc(sizeof *mb * nb);
		if (!ma || !mb)
			rc = F8B_ERR(F8B_ENOMEM, "check buffers of %zu and %zu floats", na, nb);
		for (size_t i = 0; rc == F8B_OK && i < na; i++)
			ma[i] = fabsf(memo.a[i]);
		for (size_t i = 0; rc == F8B_OK && i < nb; i++)
			mb[i] = fabsf(memo.b[i]);
		if (rc == F8B_OK)
			rc = sums_of(ma, mb, nr, nc, k, &memo.absref);
		free(ma);
		free(mb);
	}
	if (rc == F8B_OK)
		rc = dup_sums(&blk->ref, memo.ref, cnt);
	if (rc == F8B_OK && hp)
		rc = dup_sums(&blk->refh, memo.refh, cnt);
	if (rc == F8B_OK && abs)
		rc = dup_sums(&blk->absref, memo.absref, cnt);
	free(a);
	free(b);
	free(ah);
	free(bh);
	if (rc != F8B_OK)
		block_free(blk);
	return rc;
}

int f8b_gemm_ref_amax(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                      const struct f8b_gemm_data *g, int64_t max_rows, int64_t max_cols,
                      uint64_t seed, double *amax, bool *sampled)
{
	struct block blk;
	F8B_TRY(ref_block(ops, be, g, max_rows, max_cols, seed, false, false, &blk));
	double m = 0;
	for (int64_t i = 0; i < blk.nr * blk.nc; i++)
		m = fmax(m, fabs(blk.ref[i]));
	*amax = m;
	*sampled = blk.nr < g->desc->m || blk.nc < g->desc->n;
	block_free(&blk);
	return F8B_OK;
}

double f8b_e4m3_sum_error(double t_acc, double rms, double absref, bool tensor_cores)
{
	return t_acc * rms + (tensor_cores ? 0x1p-10 * absref : 0.0);
}

int f8b_e4m3_steps(uint8_t a, uint8_t b)
{
	bool na = (a & 0x7F) == 0x7F, nb = (b & 0x7F) == 0x7F; /* e4m3's NaN: S.1111.111 */
	if (na || nb)
		return na && nb ? 0 : INT_MAX;
	/* sign and magnitude: the magnitude bits count up the finite values */
	int oa = a & 0x80 ? -(a & 0x7F) : a & 0x7F, ob = b & 0x80 ? -(b & 0x7F) : b & 0x7F;
	return abs(oa - ob);
}

/* The largest |D| of an e4m3 D [m, n] in backend memory as a code (0 to
 * 0x7E; 0x7F for a NaN anywhere), read in chunks of rows. */
static int max_abs_code(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                        const struct f8b_tensor *d, uint8_t *code)
{
	int64_t rows = (int64_t)(((size_t)1 << 22) / (size_t)d->cols);
	if (rows < 1)
		rows = 1;
	if (rows > d->rows)
		rows = d->rows;
	size_t bytes = (size_t)rows * (size_t)d->cols;
	uint8_t *buf = malloc(bytes), m = 0;
	if (!buf)
		return F8B_ERR(F8B_ENOMEM, "check buffer of %zu bytes", bytes);
	int rc = F8B_OK;
	for (int64_t r = 0; r < d->rows && rc == F8B_OK; r += rows) {
		size_t nb = (size_t)(r + rows <= d->rows ? rows : d->rows - r) * (size_t)d->cols;
		rc = ops->download(be, buf, (const uint8_t *)d->data + (size_t)r * (size_t)d->cols,
		                   nb);
		for (size_t i = 0; i < nb && rc == F8B_OK; i++)
			if ((buf[i] & 0x7F) > m)
				m = (uint8_t)(buf[i] & 0x7F);
	}
	free(buf);
	*code = m;
	return rc;
}

/* The e4m3 part of the verdict: codes[] (the checked block of D) against
 * the quantised reference, amax_d against the reference's and D's own. */
static int check_e4m3(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                      const struct f8b_gemm_data *g, const struct block *blk, const uint8_t *codes,
                      struct f8b_gemm_verdict *v)
{
	const struct f8b_gemm_desc *d = g->desc;
	const size_t cnt = (size_t)(blk->nr * blk->nc);
	const float s = v->d_scale;
	/* The accumulation part of the tolerance (f32 output: no rounding
	 * term), as an absolute error at the block's rms. */
	const double t_acc =
	    f8b_gemm_tolerance(d->k, F8B_F32, f8b_dtype_is_fp8(d->a_dtype) && d->fast_accum);
	double r2 = 0, amax_ref = 0;
	for (size_t i = 0; i < cnt; i++) {
		r2 += blk->ref[i] * blk->ref[i];
		amax_ref = fmax(amax_ref, fabs(blk->ref[i]));
	}
	const double rms = sqrt(r2 / (double)(cnt ? cnt : 1));
	const bool tc = f8b_dtype_is_fp8(d->a_dtype);
	v->off = 0;
	for (size_t i = 0; i < cnt; i++) {
		/* the GEMM's order: the fp32 sum, one fp32 product, e4m3 */
		const float y = (float)blk->ref[i] * s;
		const uint8_t want = f8b_f32_to_e4m3(y);
		const double got = (double)f8b_e4m3_to_f32(codes[i]);
		const double allow = (double)s * f8b_e4m3_sum_error(t_acc, rms, blk->absref[i], tc);
		if (f8b_e4m3_steps(codes[i], want) > 1 &&
		    !(fabs(got - (double)s * blk->ref[i]) <= allow))
			v->off++;
	}
	v->amax_ref = amax_ref;
	bool sampled = blk->nr < d->m || blk->nc < d->n;
	bool near = sampled ? v->amax_d >= amax_ref * (1.0 - t_acc)
	                    : fabs(v->amax_d - amax_ref) <= t_acc * amax_ref;
	uint8_t dmax = 0;
	F8B_TRY(max_abs_code(ops, be, g->d, &dmax));
	const uint8_t amax_code = f8b_f32_to_e4m3(fabsf((float)v->amax_d * s)) & 0x7F;
	v->max_steps = f8b_e4m3_steps(dmax, amax_code);
	v->amax_ok = near && v->max_steps <= 1; /* NaN amax_d fails `near` */
	return F8B_OK;
}

int f8b_gemm_check(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                   const struct f8b_gemm_data *g, int64_t max_rows, int64_t max_cols, uint64_t seed,
                   struct f8b_gemm_verdict *v)
{
	const struct f8b_gemm_desc *d = g->desc;
	const bool out8 = g->d->dtype == F8B_E4M3;
	bool hp = g->a_hp && g->b_hp;
	struct block blk;
	v->off = 0;
	v->amax_d = v->amax_ref = NAN;
	v->d_scale = 1.0f;
	v->max_steps = 0;
	v->amax_ok = true;
	if (out8 && (!g->d_scale || !g->amax_d))
		return F8B_ERR(F8B_EINTERNAL, "check of an e4m3 D without d_scale and amax_d");
	F8B_TRY(ref_block(ops, be, g, max_rows, max_cols, seed, hp, out8, &blk));
	int64_t nr = blk.nr, nc = blk.nc;
	size_t cnt = (size_t)(nr * nc);
	float *drow = malloc(sizeof *drow * (size_t)d->n), *dsub = malloc(sizeof *dsub * cnt);
	unsigned char *dbuf = malloc(f8b_dtype_size(g->d->dtype) * (size_t)d->n);
	uint8_t *codes = out8 ? malloc(cnt) : NULL;
	int rc = F8B_OK;
	if (!drow || !dsub || !dbuf || (out8 && !codes))
		rc = F8B_ERR(F8B_ENOMEM, "check buffers for %lldx%lldx%lld", (long long)d->m,
		             (long long)d->k, (long long)d->n);
	if (rc == F8B_OK && out8) {
		float amax = NAN;
		rc = ops->download(be, &v->d_scale, g->d_scale, sizeof v->d_scale);
		if (rc == F8B_OK)
			rc = ops->download(be, &amax, g->amax_d, sizeof amax);
		v->amax_d = amax;
	}
	size_t rb = f8b_dtype_size(g->d->dtype) * (size_t)d->n;
	for (int64_t i = 0; i < nr && rc == F8B_OK; i++) {
		rc = ops->download(be, dbuf, (const char *)g->d->data + (size_t)blk.ri[i] * rb, rb);
		f8b_to_f32(dbuf, g->d->dtype, drow, (size_t)d->n);
		for (int64_t j = 0; j < nc; j++) {
			/* an e4m3 D is compared as D / d_scale, its value */
			dsub[i * nc + j] = out8 ? drow[blk.ci[j]] / v->d_scale : drow[blk.ci[j]];
			if (out8)
				codes[i * nc + j] = dbuf[blk.ci[j]];
		}
	}
	if (rc == F8B_OK && out8)
		rc = check_e4m3(ops, be, g, &blk, codes, v);
	if (rc == F8B_OK) {
		bool fp8 = f8b_dtype_is_fp8(d->a_dtype);
		v->rel_error = f8b_rel_error(dsub, blk.ref, cnt);
		v->tolerance = f8b_gemm_tolerance(d->k, g->d->dtype, fp8 && d->fast_accum);
		v->sqnr_db = hp ? f8b_sqnr_db(dsub, blk.refh, cnt) : NAN;
		v->ok = v->rel_error <= v->tolerance && v->off == 0 && v->amax_ok; /* NaN fails */
		v->rows = nr;
		v->cols = nc;
		v->sampled = nr < d->m || nc < d->n;
	}
	block_free(&blk);
	free(drow);
	free(dsub);
	free(dbuf);
	free(codes);
	return rc;
}

#define T_ROWS 64
#define T_COLS 64
int f8b_gemm_check_t(const struct f8b_backend_ops *ops, struct f8b_backend *be, const void *d,
                     const void *d_t, int64_t m, int64_t n, size_t es, bool whole, int64_t *off,
                     int64_t *checked)
{
	const bool all = whole || m * n <= ((int64_t)1 << 22);
	const int64_t band = all || m <= 2 * T_ROWS ? m : T_ROWS; /* rows per band */
	const int64_t ncols = all || n <= T_COLS ? n : T_COLS;
	const int nbands = band == m ? 1 : 2;
	/* D^T in one download when every element is compared (not one per
	 * row of D^T: a short, wide D has many), else each sampled row of it
	 * in turn */
	const int64_t trows = all ? n : 1;
	uint8_t *hd = malloc((size_t)(nbands * band * n) * es);
	uint8_t *ht = malloc((size_t)(trows * m) * es);
	int rc = hd && ht ? F8B_OK : F8B_ERR(F8B_ENOMEM, "gemm: the D^T check's buffers");
	*off = *checked = 0;
	for (int b = 0; rc == F8B_OK && b < nbands; b++)
		rc = ops->download(be, hd + (size_t)(b * band * n) * es,
		                   (const uint8_t *)d + (size_t)((b ? m - band : 0) * n) * es,
		                   (size_t)(band * n) * es);
	if (rc == F8B_OK && all)
		rc = ops->download(be, ht, d_t, (size_t)(n * m) * es);
	for (int64_t c = 0; rc == F8B_OK && c < ncols; c++) {
		const int64_t j = ncols == n ? c : c * (n - 1) / (ncols - 1);
		const uint8_t *tr = ht + (all ? (size_t)(j * m) * es : 0); /* D^T's row j */
		if (!all)
			rc = ops->download(be, ht, (const uint8_t *)d_t + (size_t)(j * m) * es,
			                   (size_t)m * es);
		for (int b = 0; rc == F8B_OK && b < nbands; b++)
			for (int64_t r = 0; r < band; r++) {
				const int64_t row = b ? m - band + r : r;
				*off += memcmp(hd + (size_t)((b * band + r) * n + j) * es,
				               tr + (size_t)row * es, es) != 0;
				(*checked)++;
			}
	}
	free(hd);
	free(ht);
	return rc;
}
