/* kernels.h - plain C API of f8bench's CUDA kernels (defined extern "C" in
 * the kernels/ .cu files).  Every function only enqueues on `stream` and returns the
 * launch's cudaError_t as an int (0 = cudaSuccess); it never synchronises.
 * Semantics are those of the host reference (src/core/fp8.h,
 * src/core/scaling.h, src/core/fill.h and the ops of src/backend/backend.h,
 * which this header does not include): results must be bit-identical to it.
 * dtype / gran arguments take the values of enum f8b_dtype / f8b_granularity.
 */
#ifndef F8B_KERNELS_H
#define F8B_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

/* Only core/ and this folder: the kernels stand below the backend. */
#include "core/fill.h"
#include "core/optim.h" /* the optimizer kernel's element math and its tensor list */
#include "kernel_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fill.cu: seeded fill of n elements (dtype bf16 or f32), the formula in
 * core/fill.h; element i depends only on (seed, i). */
int f8b_k_fill(void *x, int dtype, int64_t n, const struct f8b_fill_spec *spec,
               cudaStream_t stream);

/* amax.cu: amax per block (granularity gran) of x (bf16 or f32, row-major
 * rows x cols) into amax (f8b_scale_count floats at f8b_scale_index
 * positions, padding 0).  NaN propagates. */
int f8b_k_amax(const void *x, int dtype, int64_t rows, int64_t cols, int gran, float *amax,
               cudaStream_t stream);

/* scale.cu: scale[i] = f8b_amax_to_scale(amax[i]) and scale_inv[i] =
 * 1.0f / scale[i] (IEEE division) for i < n. */
int f8b_k_scales(const float *amax, int64_t n, int target_dtype, float margin, int pow2,
                 float *scale, float *scale_inv, cudaStream_t stream);

/* scale.cu: delayed scaling's history step (backend.h history_scale):
 * hist moves one place, hist[0] = amax[0], scale[0] from max(hist). */
int f8b_k_history_scale(float *hist, int len, const float *amax, int target_dtype, float margin,
                        int pow2, float *scale, cudaStream_t stream);

/* scale.cu: dst[i] = src[0], i < n (a tensorwise scale as a vector). */
int f8b_k_broadcast(const float *src, float *dst, int64_t n, cudaStream_t stream);

/* cast.cu: out[r,c] = sat_cast_to_out_dtype(x[r,c] * scale[block(r,c)])
 * for x bf16 or f32, out e4m3 or e5m2 (fp32 multiply, then the
 * __NV_SATFINITE conversion). */
int f8b_k_cast(const void *x, int dtype, int64_t rows, int64_t cols, int gran, const float *scale,
               void *out, int out_dtype, cudaStream_t stream);

/* util.cu: a kernel that spins for `ns` nanoseconds of %globaltimer on one
 * thread (harness self-test: a kernel of known duration). */
int f8b_k_spin(uint64_t ns, cudaStream_t stream);
/* util.cu: reads `bytes` (a multiple of 16, 16-byte aligned) at buf, which
 * must not XOR to `key` (a zeroed buffer and a nonzero key): the L2 flush
 * that leaves clean lines (backend.h flush_cache, F8B_FLUSH_READ). */
int f8b_k_read_flush(const void *buf, size_t bytes, unsigned key, unsigned *sink,
                     cudaStream_t stream);

/* util.cu: holds the stream until *flag reaches gen (the host writes it
 * through mapped pinned memory) or timeout_ns passes, when it writes gen
 * into *timed_out (src/backend/cuda_gate.c). */
int f8b_k_hold(const volatile unsigned *flag, unsigned gen, uint64_t timeout_ns,
               volatile unsigned *timed_out, cudaStream_t stream);

/* bandwidth.cu: the bandwidth ops of backend.h (bw_read, bw_write,
 * bw_copy) with the same semantics: bytes a positive multiple of 16,
 * pointers 16-byte aligned, the buffer swept `passes` times.  bw_read
 * leaves F8B_BW_PARTIALS uint64 in partial (one per block, the rest 0)
 * whose wrapping sum is passes * (wrapping sum of src's 8-byte words). */
int f8b_k_bw_read(const void *src, int64_t bytes, int passes, uint64_t *partial,
                  cudaStream_t stream);
int f8b_k_bw_write(void *dst, int64_t bytes, int passes, uint64_t value, cudaStream_t stream);
int f8b_k_bw_copy(void *dst, const void *src, int64_t bytes, int passes, cudaStream_t stream);
/* bandwidth.cu: one launch of an empty <<<1, 1>>> kernel. */
int f8b_k_empty(cudaStream_t stream);

/* ---- The lls kernels (doc/kernels.md "lls kernels"); semantics are the
 * ops of the same names in backend.h.  Tensors are bf16 unless named.  The
 * row-wise kernels (LayerNorm, and axiswise / block1x128 fused casts) take
 * rows of at most F8B_LLS_ROW_MAX_COLS columns (cudaErrorInvalidValue
 * beyond). */

/* What a fused cast writes: backend.h's struct f8b_cast_spec with plain
 * pointers (gran, dtype: enum values; scale: given tensorwise scale or
 * NULL; q, q_t fp8 or NULL; amax and scale_inv required). */
struct f8b_k_qspec {
	int gran, dtype;
	float margin;
	int pow2;
	const float *scale;
	void *q, *q_t;
	float *amax, *scale_inv;
	float *amax_all; /* axiswise: also max over the rows' amaxes (backend.h) */
	int amax_given;  /* tensorwise cast_fused: amax[0] is already max |v| */
	float *partial;  /* dynamic tensorwise: F8B_CAST_PARTIALS floats of scratch
	                    for pass 1's block maxima, or NULL (backend.h) */
};

/* lls_fused.cu: LayerNorm forward of x [rows, cols] (mean, rstd written;
 * y written when not NULL), then the fused cast qs (NULL: none, y
 * required). */
int f8b_k_layernorm_fwd(const void *x, int64_t rows, int64_t cols, float eps, void *y, float *mean,
                        float *rstd, const struct f8b_k_qspec *qs, cudaStream_t stream);
/* lls_fused.cu: sigmoid backward (dz written when not NULL) + fused cast. */
int f8b_k_sigmoid_bwd_cast(const void *y, const void *dy, void *dz, int64_t rows, int64_t cols,
                           const struct f8b_k_qspec *qs, cudaStream_t stream);
/* lls_fused.cu: the fused cast of x itself. */
int f8b_k_cast_fused(const void *x, int64_t rows, int64_t cols, const struct f8b_k_qspec *qs,
                     cudaStream_t stream);
/* layernorm.cu: LayerNorm backward. */
int f8b_k_layernorm_bwd(const void *dy, const void *x, const float *mean, const float *rstd,
                        void *dx, int64_t rows, int64_t cols, cudaStream_t stream);
/* sigmoid.cu: n elements. */
int f8b_k_sigmoid_fwd(const void *z, void *y, int64_t n, cudaStream_t stream);
int f8b_k_sigmoid_bwd(const void *y, const void *dy, void *dz, int64_t n, cudaStream_t stream);
/* amax_t.cu: amax per block (gran) of the [cols, rows] transpose of x (bf16
 * or f32 [rows, cols]) at f8b_scale_index(gran, cols, rows, ...). */
int f8b_k_amax_t(const void *x, int dtype, int64_t rows, int64_t cols, int gran, float *amax,
                 cudaStream_t stream);
/* cast_transpose.cu: out / out_t (either may be NULL) of x (bf16 or f32),
 * out_dtype e4m3, e5m2 or bf16 (no scales). */
int f8b_k_cast_transpose(const void *x, int dtype, int64_t rows, int64_t cols, int gran,
                         const float *scale, const float *scale_t, void *out, void *out_t,
                         int out_dtype, cudaStream_t stream);
/* The same two of y = bf16((x - mean[r]) * rstd[r]), x bf16: LayerNorm's
 * output formed again from x and its row statistics (out_t only). */
int f8b_k_amax_t_ln(const void *x, const float *mean, const float *rstd, int64_t rows, int64_t cols,
                    int gran, float *amax, cudaStream_t stream);
int f8b_k_cast_transpose_ln(const void *x, const float *mean, const float *rstd, int64_t rows,
                            int64_t cols, int gran, const float *scale_t, void *out_t,
                            int out_dtype, cudaStream_t stream);

/* transpose.cu: out[c,r] = x[r,c] for one-byte elements (fp8), x rows x
 * cols row-major; rows and cols positive multiples of 16. */
int f8b_k_transpose8(const void *x, int64_t rows, int64_t cols, void *out, cudaStream_t stream);

/* optim.cu: one pass (enum f8b_optim_pass) of the optim step over every
 * chunk of a (backend.h optim_pass): one CTA per chunk, the last CTA
 * folding the amax and computing the next scales.  The fused pass of
 * dynamic-sync goes to f8b_k_optim_sync_pass. */
int f8b_k_optim_pass(const struct f8b_optim_args *a, int pass, cudaStream_t stream);

/* optim_sync.cu: dynamic-sync's fused pass as one cooperative launch
 * (doc/optim.md "One launch with a grid barrier"): as many CTAs as are
 * resident at once (at most a->nchunks, and a->sync_ctas when set), each
 * striding over the chunks; the update and the exact amax, a grid
 * barrier, the fold spread over the grid, a second barrier, the cast.
 * *grid (when not NULL) gets the CTAs launched.  cudaErrorNotSupported
 * when the device has no cooperative launch. */
int f8b_k_optim_sync_pass(const struct f8b_optim_args *a, cudaStream_t stream, unsigned *grid);

#ifdef __cplusplus
}
#endif

#endif
