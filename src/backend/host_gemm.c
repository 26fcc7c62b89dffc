/* host_gemm.c - the host backend's GEMM: the golden reference the
 * cuBLASLt GEMM is checked against, written for fp32 rounding that matches
 * the formula in backend.h rather than for speed.
 */

/* Every fp32 operation is rounded on its own (backend.h), so no fused
 * multiply-add: backend_host.c says why each compiler gets its own switch. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/host_internal.h"
#include "core/fp8.h"
#include "core/scaling.h"

/* ------------------------------------------------------------ GEMM
 *
 * D[m,n] = sum over K-blocks kb of (sa(m,kb) * sb(n,kb)) * P(m,n,kb),
 * P = sum_{k in kb} A[m,k]*B[n,k], all in fp32 with one rounding per
 * operation, then stored as f32, rounded to bf16, or (e4m3 output)
 * multiplied by d_scale and cast to e4m3, its amax taken on the way.
 * When an operand is blockwise the K-blocks are the 128-wide blocks of
 * the scale tensors (the last one ragged) and each scaled partial is added
 * into the fp32 accumulator; otherwise there is one K-block, the whole of
 * K, and the scales are applied once after the full sum, as cuBLASLt's
 * epilogue does for tensorwise / outer-vector scales.  Each P is summed in
 * increasing k (the order never depends on the blocking below).
 *
 * Operands are decoded to fp32 once per call into scratch owned by the plan:
 * A as [Mp, K] rows (Mp = M rounded up to MR, extra rows zero) and B as
 * panels of NR columns, panel p holding B[p*NR + j, k] at [k][j], so the
 * inner loop is NR independent sums over contiguous floats that the compiler
 * turns into vector multiply + add without reassociating any sum.  An
 * MR x NR tile of accumulators lives in registers across the K loop.
 */
#define GEMM_MR 4
#define GEMM_NR 16 /* divides F8B_BLOCK: a panel never straddles a B block row */

struct f8b_gemm_plan {
	struct f8b_gemm_desc d;
	int64_t mp, np; /* M, N rounded up to GEMM_MR, GEMM_NR */
	int64_t kblk;   /* K-block length: 128 if either operand is blockwise, else K */
	float *a32;     /* [mp][k] */
	float *b32;     /* [np/NR][k][NR] */
	float lut_a[256], lut_b[256]; /* fp8 byte -> fp32 */
};

static bool gran_is_block(enum f8b_granularity g)
{
	return g == F8B_GRAN_BLOCK1X128 || g == F8B_GRAN_BLOCK128X128;
}

static void fill_lut(float *lut, enum f8b_dtype t)
{
	for (int v = 0; v < 256; v++)
		lut[v] = f8b_dtype_is_fp8(t) ? f8b_fp8_to_f32((uint8_t)v, t) : 0.0f;
}

int f8b_host_gemm_plan(struct f8b_backend *be, const struct f8b_gemm_desc *d, int candidate,
                       struct f8b_gemm_plan **out, struct f8b_algo_info *info)
{
	(void)be;
	*out = NULL;
	if (!d)
		return F8B_ERR(F8B_EINVAL, "gemm: no problem description");
	F8B_TRY(f8b_check_gemm_desc(d, NULL));
	/* backend.h, enum f8b_gemm_impl: the reference stands in for the
	 * library, never for f8bench's own kernel. */
	if (d->impl != F8B_GEMM_IMPL_CUBLASLT)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm: impl %s is a CUDA sm_90a kernel; the host backend runs its "
		               "reference GEMM only",
		               f8b_gemm_impl_name(d->impl));
	if (d->epilogue != F8B_GEMM_EPI_NONE)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm: a fused sigmoid epilogue is f8bench's own GEMM's (impl f8b); "
		               "the host backend, like cuBLASLt, runs the GEMM alone");
	if (d->out_t)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm: a transposed write of D (out_t) is f8bench's own GEMM's "
		               "(impl f8b); the host backend, like cuBLASLt, writes D alone");
	if (candidate != 0)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm: algorithm candidate %d (the host backend has one: 0)",
		               candidate);

	struct f8b_gemm_plan *p = calloc(1, sizeof *p);
	if (!p)
		return F8B_ERR(F8B_ENOMEM, "gemm plan: cannot allocate %zu bytes", sizeof *p);
	p->d = *d;
	p->mp = (d->m + GEMM_MR - 1) / GEMM_MR * GEMM_MR;
	p->np = (d->n + GEMM_NR - 1) / GEMM_NR * GEMM_NR;
	bool fp8 = f8b_dtype_is_fp8(d->a_dtype);
	p->kblk = fp8 && (gran_is_block(d->a_gran) || gran_is_block(d->b_gran)) ? F8B_BLOCK : d->k;

	int64_t na, nb, bytes_a, bytes_b;
	if (f8b_mul_overflows(p->mp, d->k, &na) || f8b_mul_overflows(p->np, d->k, &nb) ||
	    f8b_mul_overflows(na, (int64_t)sizeof(float), &bytes_a) ||
	    f8b_mul_overflows(nb, (int64_t)sizeof(float), &bytes_b) ||
	    (uint64_t)bytes_a > SIZE_MAX || (uint64_t)bytes_b > SIZE_MAX) {
		free(p);
		return F8B_ERR(F8B_EINVAL, "gemm: shape M=%lld N=%lld K=%lld is too large",
		               (long long)d->m, (long long)d->n, (long long)d->k);
	}
	/* Zeroed once: the padding rows/columns stay zero for every call. */
	p->a32 = calloc((size_t)na, sizeof(float));
	p->b32 = calloc((size_t)nb, sizeof(float));
	if (!p->a32 || !p->b32) {
		free(p->a32);
		free(p->b32);
		free(p);
		return F8B_ERR(F8B_ENOMEM, "gemm plan: cannot allocate %lld bytes of fp32 scratch",
		               (long long)(bytes_a + bytes_b));
	}
	fill_lut(p->lut_a, d->a_dtype);
	fill_lut(p->lut_b, d->b_dtype);

	if (info) {
		memset(info, 0, sizeof *info);
		info->algo_id = info->tile = info->stages = -1;
		info->reduction = info->swizzle = info->custom = info->cluster = -1;
		info->splitk = 1; /* K is never split */
		info->heuristic_rank = 0;
		info->candidates = 1;
		info->workspace = (size_t)(bytes_a + bytes_b);
		snprintf(info->desc, sizeof info->desc, "host blocked fp32");
	}
	*out = p;
	return F8B_OK;
}

void f8b_host_gemm_plan_free(struct f8b_backend *be, struct f8b_gemm_plan *p)
{
	(void)be;
	if (!p)
		return;
	free(p->a32);
	free(p->b32);
	free(p);
}

/* Decode A [M,K] into a32 rows and B [N,K] into NR-column panels (either
 * stored transposed when the plan says so). */
static void gemm_decode(struct f8b_gemm_plan *p, const void *a, const void *b)
{
	const int64_t m = p->d.m, n = p->d.n, k = p->d.k;

	if (p->d.a_t) { /* bf16 A stored [K,M] */
		const uint16_t *src = a;
		for (int64_t r = 0; r < m; r++)
			for (int64_t c = 0; c < k; c++)
				p->a32[r * k + c] = f8b_bf16_to_f32(src[c * m + r]);
	} else if (p->d.a_dtype == F8B_BF16) {
		f8b_to_f32(a, F8B_BF16, p->a32, (size_t)(m * k));
	} else {
		const uint8_t *q = a;
		for (int64_t i = 0; i < m * k; i++)
			p->a32[i] = p->lut_a[q[i]];
	}
	for (int64_t r = 0; r < n; r++) {
		float *dst = p->b32 + (r / GEMM_NR) * k * GEMM_NR + r % GEMM_NR;
		if (p->d.b_t) { /* bf16 B stored [K,N] */
			const uint16_t *src = (const uint16_t *)b + r;
			for (int64_t c = 0; c < k; c++)
				dst[c * GEMM_NR] = f8b_bf16_to_f32(src[c * n]);
		} else if (p->d.b_dtype == F8B_BF16) {
			const uint16_t *src = (const uint16_t *)b + r * k;
			for (int64_t c = 0; c < k; c++)
				dst[c * GEMM_NR] = f8b_bf16_to_f32(src[c]);
		} else {
			const uint8_t *src = (const uint8_t *)b + r * k;
			for (int64_t c = 0; c < k; c++)
				dst[c * GEMM_NR] = p->lut_b[src[c]];
		}
	}
}

/* part[i][j] = sum_{k0 <= k < k1} a[i][k] * bp[k][j], summed in increasing
 * k.  Fixed trip counts let GCC -O2 (very cheap vectoriser cost model)
 * keep the tile in vector registers. */
static void gemm_tile(const float *a, int64_t lda, const float *bp, int64_t k0, int64_t k1,
                      float part[GEMM_MR][GEMM_NR])
{
	float acc[GEMM_MR][GEMM_NR];

	for (int i = 0; i < GEMM_MR; i++)
		for (int j = 0; j < GEMM_NR; j++)
			acc[i][j] = 0.0f;
	for (int64_t k = k0; k < k1; k++) {
		const float *bk = bp + k * GEMM_NR;
		for (int i = 0; i < GEMM_MR; i++) {
			const float av = a[i * lda + k];
			for (int j = 0; j < GEMM_NR; j++) {
				float prod = av * bk[j];
				acc[i][j] = acc[i][j] + prod;
			}
		}
	}
	memcpy(part, acc, sizeof acc);
}

int f8b_host_gemm(struct f8b_backend *be, struct f8b_gemm_plan *p, const struct f8b_gemm_args *args)
{
	(void)be;
	if (!p || !args)
		return F8B_ERR(F8B_EINVAL, "gemm: no plan or no arguments");
	const struct f8b_gemm_desc *d = &p->d;
	const bool fp8 = f8b_dtype_is_fp8(d->a_dtype);
	F8B_TRY(f8b_check_gemm_args(d, args));
	/* e4m3 output (backend.h): D = e4m3(v * d_scale), amax_d = max |v|
	 * over D before the scale, NaN when any v is NaN. */
	const bool out8 = d->out_dtype == F8B_E4M3;
	const float d_scale = out8 ? *args->d_scale : 1.0f;
	float amax = 0.0f;
	bool amax_nan = false;

	gemm_decode(p, args->a, args->b);

	const int64_t m = d->m, n = d->n, k = d->k, kblk = p->kblk;
	const int64_t nkb = (k + kblk - 1) / kblk;
	for (int64_t n0 = 0; n0 < p->np; n0 += GEMM_NR) {
		const float *panel = p->b32 + (n0 / GEMM_NR) * k * GEMM_NR;
		for (int64_t m0 = 0; m0 < p->mp; m0 += GEMM_MR) {
			float acc[GEMM_MR][GEMM_NR] = {{0}};
			for (int64_t kb = 0; kb < nkb; kb++) {
				int64_t k0 = kb * kblk;
				int64_t k1 = k0 + kblk < k ? k0 + kblk : k;
				float part[GEMM_MR][GEMM_NR], sa[GEMM_MR], sb[GEMM_NR];

				gemm_tile(p->a32 + m0 * k, k, panel, k0, k1, part);
				/* Scale of each row / column for this K-block;
				 * padding rows and columns are never stored. */
				for (int i = 0; i < GEMM_MR; i++)
					sa[i] = !fp8 || m0 + i >= m
					            ? 1.0f
					            : args->a_scale_inv[f8b_host_scale_at(
					                  d->a_gran, m, k, m0 + i, kb)];
				for (int j = 0; j < GEMM_NR; j++)
					sb[j] = !fp8 || n0 + j >= n
					            ? 1.0f
					            : args->b_scale_inv[f8b_host_scale_at(
					                  d->b_gran, n, k, n0 + j, kb)];
				for (int i = 0; i < GEMM_MR; i++) {
					for (int j = 0; j < GEMM_NR; j++) {
						float s = sa[i] * sb[j];
						float t = s * part[i][j];
						acc[i][j] = acc[i][j] + t;
					}
				}
			}
			for (int i = 0; i < GEMM_MR && m0 + i < m; i++) {
				int64_t row = m0 + i;
				for (int j = 0; j < GEMM_NR && n0 + j < n; j++) {
					const float v = acc[i][j];
					const int64_t at = row * n + n0 + j;
					if (d->out_dtype == F8B_F32) {
						((float *)args->d)[at] = v;
					} else if (!out8) {
						((uint16_t *)args->d)[at] = f8b_f32_to_bf16(v);
					} else {
						const float av = fabsf(v);
						if (isnan(av))
							amax_nan = true;
						else if (av > amax)
							amax = av;
						/* one fp32 product, then RNE with
						 * saturation (fp8.h) */
						const float y = v * d_scale;
						((uint8_t *)args->d)[at] = f8b_f32_to_e4m3(y);
					}
				}
			}
		}
	}
	if (out8)
		*args->amax_d = amax_nan ? NAN : amax;
	return F8B_OK;
}
