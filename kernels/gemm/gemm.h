/* gemm.h - plain C API of f8bench's own Hopper fp8 GEMM (kernels/gemm/,
 * doc/gemm-kernels.md).  Like kernels.h: every launch only enqueues on
 * `stream` and returns a cudaError_t as an int (0 = cudaSuccess).
 *
 * The problem is backend.h's: row-major A [M,K] and B [N,K] (both K-major,
 * fp8), D = A @ B^T [M,N] row-major, bf16 or f32.  A and B are read through
 * TMA tensor maps the caller encodes (cuTensorMapEncodeTiled, 2-D, uint8
 * elements, dims {K, rows}, row stride K bytes, box {128, rows}: bm rows
 * for A and bn / cluster rows for B, 128-byte swizzle, OOB fill NONE =
 * zeros); f8b_kgemm_tiles[] gives the boxes each tile needs.
 */
#ifndef F8B_KERNELS_GEMM_H
#define F8B_KERNELS_GEMM_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One entry of the tile table: a variant compiled at build time. */
struct f8b_kgemm_tile {
	int bm, bn, bk;   /* output tile BM x BN, K step BK (elements = bytes for fp8) */
	int stages;       /* TMA -> wgmma ring depth */
	int threads;      /* 128 producer + 2 x 128 consumer threads */
	int smem_bytes;   /* dynamic shared memory per CTA */
	int cluster;      /* CTAs of a cluster along M sharing B (multicast): 1 or 2 */
	const char *name; /* "128x256x128/c1" */
};

extern const struct f8b_kgemm_tile f8b_kgemm_tiles[];
extern const int f8b_kgemm_ntiles;

/* Outside timing, once per plan: raises the dynamic shared memory limit of
 * every variant of `tile` and reports in *ptx_version the virtual
 * architecture its loaded code was compiled for (cudaFuncAttributes:
 * 90 for the sm_90a kernels; 89 when the driver fell back to the build's
 * compute_89 PTX, whose bodies are empty: this build cannot run them). */
int f8b_kgemm_prepare(int tile, int *ptx_version);

/* Tensorwise scaling, fast accumulation (the wgmma accumulator throughout):
 *   D[m,n] = (a_scale_inv[0] * b_scale_inv[0]) * sum_k A[m,k] B[n,k]
 * a_dtype, b_dtype: F8B_E4M3 / F8B_E5M2 (not both e5m2); out_dtype F8B_BF16
 * or F8B_F32; tmap_a / tmap_b point to the host copies of the two
 * CUtensorMap (128-byte aligned, passed by value to the kernel); grid: CTAs
 * (at most one per SM: the kernel is persistent; a multiple of the tile's
 * cluster size). */
int f8b_kgemm_tensorwise(int tile, int a_dtype, int b_dtype, int out_dtype, const void *tmap_a,
                         const void *tmap_b, const float *a_scale_inv, const float *b_scale_inv,
                         void *d, int m, int n, int k, int grid, cudaStream_t stream);

/* ptx_selftest.cu: the GEMM's layers one by one, for the tests (one CTA
 * each; see that file).  tma: the box at (c0, c1) of tmap, box_rows x 128
 * bytes, copied as it lies in shared memory to out.  wgmma: one
 * m64nNk32 e4m3 x e4m3 (n = 128 or 256) at K step kstep (0..3) of the
 * boxes at (0, 0) of tmap_a (128 rows) and tmap_b (n rows), D (64 x n,
 * row-major f32) to out.  ring: `uses` passes through a 4-stage ring of
 * full/empty mbarriers, errors[0] += words a consumer found wrong. */
int f8b_kgemm_selftest_tma(const void *tmap, void *out, int box_rows, int c0, int c1,
                           cudaStream_t stream);
int f8b_kgemm_selftest_wgmma(const void *tmap_a, const void *tmap_b, float *out, int n, int kstep,
                             cudaStream_t stream);
int f8b_kgemm_selftest_ring(int uses, unsigned *errors, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
