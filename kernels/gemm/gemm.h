/* gemm.h - plain C API of f8bench's own Hopper fp8 GEMM (kernels/gemm/,
 * doc/gemm-kernels.md).  Like kernels.h: every launch only enqueues on
 * `stream` and returns a cudaError_t as an int (0 = cudaSuccess).
 *
 * The problem is backend.h's: row-major A [M,K] and B [N,K] (both K-major,
 * fp8), D = A @ B^T [M,N] row-major, bf16 or f32, or e4m3 with its amax
 * (the variants the table lists in e4m3_modes).  A and B are read through
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

/* What a kernel variant computes (doc/gemm-kernels.md, "Accumulation"):
 * FAST: tensorwise or axiswise scales in the epilogue, the wgmma
 *   accumulator over all of K (fast_accum on);
 * PROMOTE: the same scales, the wgmma partial sum of every 128 of K added
 *   into fp32 registers (fast_accum off);
 * BLOCK: A block1x128 x B block128x128, each 128-of-K partial sum
 *   multiplied by its block scales as it is added (promotion);
 * BLOCK_1X128: A block1x128 x B block1x128 (grad_weight), the same. */
enum f8b_kgemm_mode {
	F8B_KGEMM_FAST = 0,
	F8B_KGEMM_PROMOTE = 1,
	F8B_KGEMM_BLOCK = 2,
	F8B_KGEMM_BLOCK_1X128 = 3,
	F8B_KGEMM_NMODES = 4
};

/* Whether the variant of a tile BN wide in `mode` promotes with two wgmma
 * groups in flight (doc/gemm-kernels.md, "Promotion"): K-block kb + 1 is
 * issued into a second partial accumulator before K-block kb is added, so
 * the adds overlap the tensor cores.  3 x BN/2 accumulators a thread fit
 * at BN = 128 only, and not beside BLOCK_1X128's BN/4 column scales. */
#define F8B_KGEMM_OVERLAPS(bn, mode)                                                               \
	((bn) == 128 && ((mode) == F8B_KGEMM_PROMOTE || (mode) == F8B_KGEMM_BLOCK))

/* Whether the variant of a tile BN wide in `mode` promotes in halves
 * (doc/gemm-kernels.md "Promotion in halves"): each K-block as two n128
 * groups into one BN/4 partial, so that a 256-wide tile fits the
 * registers. */
#define F8B_KGEMM_HALVES(bn, mode) ((bn) == 256 && (mode) != F8B_KGEMM_FAST)

/* Whether the variant of a tile BN wide in `mode` reads B's column scales
 * from shared memory (doc/gemm-kernels.md "Column scales in shared
 * memory"): BLOCK_1X128 in halves, whose registers hold no BN/4 column
 * scales beside the accumulators.  The producer copies each K-block's BN
 * scales of B (one bulk copy with the stage's boxes) into a ring of its own
 * beside the stages. */
#define F8B_KGEMM_SMEM_SCALES(bn, mode) ((bn) == 256 && (mode) == F8B_KGEMM_BLOCK_1X128)

/* Whether the variant of a tile BN wide in `mode` reads A's row scales
 * from shared memory: BLOCK in halves.  The producer copies each
 * K-block's 128 row scales of the tile (one bulk copy of 512 bytes with
 * the stage's boxes) into a ring beside the stages, so that the
 * consumers' scale reads are shared-memory loads of a stage they have
 * waited for, not L2 round trips (results/h100/experiments/
 * f8b-gemm-block-cost/: BLOCK's per-K-block scale loads are its cost
 * over PROMOTE). */
#define F8B_KGEMM_SMEM_ROWSCALES(bn, mode) ((bn) == 256 && (mode) == F8B_KGEMM_BLOCK)

/* How the two consumer warpgroups share the work (doc/gemm-kernels.md):
 * COOP: both on one tile, 64 rows each, storing it together; PINGPONG
 * (FAST only): each on whole tiles of its own, in turn, so that one
 * stores its tile while the other's wgmma run. */
enum f8b_kgemm_sched { F8B_KGEMM_SCHED_COOP = 0, F8B_KGEMM_SCHED_PINGPONG = 1 };

/* One entry of the tile table: a variant compiled at build time for each
 * mode in `modes`, dtype pair and output type. */
struct f8b_kgemm_tile {
	int bm, bn, bk; /* output tile BM x BN, K step BK (elements = bytes for fp8) */
	int stages;     /* TMA -> wgmma ring depth */
	int threads;    /* 128 producer + 2 x 128 consumer threads */
	int smem_bytes; /* dynamic shared memory per CTA */
	int cluster;    /* CTAs of a cluster along M sharing B (multicast): 1 or 2 */
	int sched;      /* enum f8b_kgemm_sched */
	unsigned modes; /* bit (1u << mode) set for each enum f8b_kgemm_mode compiled */
	/* The modes also compiled with e4m3 output (e4m3 x e4m3 operands,
	 * direct stores: doc/gemm-kernels.md "fp8 output"); a subset of modes. */
	unsigned e4m3_modes;
	const char *name; /* "128x256x128/c1", "128x128x128/c1/pp" */
};

extern const struct f8b_kgemm_tile f8b_kgemm_tiles[];
extern const int f8b_kgemm_ntiles;

/* The kernel's arguments besides the tensor maps.  Scales are the
 * scale_inv tensors of backend.h / scaling.h:
 *   FAST, PROMOTE: a_scale_inv[a_vec ? m : 0], b_scale_inv[b_vec ? n : 0]
 *     (a_vec / b_vec: 1 axiswise, 0 tensorwise), applied in the epilogue
 *     as (sa * sb) * acc;
 *   BLOCK, BLOCK_1X128: A [M, ceil(K/128)] column-major (a_scale_inv[kb * M
 *     + m]); B block128x128 row-major with rows of b_scale_ld floats
 *     (b_scale_inv[(n / 128) * b_scale_ld + kb]), B block1x128 like A
 *     (b_scale_inv[kb * N + n]), applied at each promotion. */
struct f8b_kgemm_args {
	const float *a_scale_inv, *b_scale_inv;
	void *d; /* [M, N] row-major, bf16, f32 or e4m3 */
	/* e4m3 output only: D = e4m3(v * d_scale[0]) (RNE, saturating), and
	 * amax_d[0] = max(amax_d[0], max |v|) by an atomic max on the bits,
	 * one per warp: the caller zeroes amax_d before the launch. */
	const float *d_scale;
	float *amax_d;
	int m, n, k;
	int a_vec, b_vec;
	int b_scale_ld;
	int tma_store; /* set by f8b_kgemm_run: D stored through its tensor map */
	int sigmoid;   /* 1: D = sigmoid(the scaled sum), then rounded (the fused epilogue) */
	/* The transposed write (doc/gemm-kernels.md "Transposed write"): D^T
	 * [N, M] row-major, the same values as D bit for bit (an e4m3 D^T with
	 * the same d_scale; amax_d covers both), stored through its own
	 * tensor map; NULL: none.  bf16 and e4m3 outputs, the cooperative
	 * tiles only (not the ping-pong one). */
	void *d_t;
	int tma_t; /* set by f8b_kgemm_run: D^T's tensor map was given */
};

/* Outside timing, once per plan: raises the dynamic shared memory limit of
 * every variant of `tile` in `mode` (the e4m3-output ones where the tile
 * has them) and reports in *ptx_version the
 * virtual architecture its loaded code was compiled for (cudaFuncAttributes:
 * 90 for the sm_90a kernels; 89 when the driver fell back to the build's
 * compute_89 PTX, whose bodies are empty: this build cannot run them).
 * cudaErrorInvalidValue when the tile has no variant of that mode. */
int f8b_kgemm_prepare(int tile, int mode, int *ptx_version);

/* How many clusters of `tile` (its cluster size > 1) can be resident at
 * once in `mode` (cudaOccupancyMaxActiveClusters, after f8b_kgemm_prepare):
 * a cluster's CTAs share one GPC, so fewer than SMs / cluster may fit,
 * and a persistent grid must not ask for more. */
int f8b_kgemm_max_clusters(int tile, int mode, int *clusters);

/* Enqueues the variant (tile, mode, a_dtype, b_dtype, out_dtype):
 *   D[m,n] = sum over K-blocks of scales * sum_k A[m,k] B[n,k]
 * a_dtype, b_dtype: F8B_E4M3 / F8B_E5M2 (not both e5m2); out_dtype F8B_BF16
 * or F8B_F32, or F8B_E4M3 where the tile lists the mode in e4m3_modes
 * (e4m3 x e4m3 only; tmap_d NULL: its stores are direct, and the caller
 * zeroes args->amax_d first); tmap_a / tmap_b point to the host copies of the two
 * CUtensorMap (128-byte aligned, passed by value to the kernel); tmap_d, D's
 * (dims {N, M}, row stride N x the output's size, a
 * multiple of 16 bytes, box {128 bytes of columns, 64 rows}, 128-byte
 * swizzle), or NULL to store D from registers; tmap_t, D^T's (args->d_t:
 * dims {M, N}, row stride M x the output's size, a multiple of 16 bytes,
 * box {64 columns, 64 rows}, swizzled 128-byte for bf16 and 64-byte for
 * e4m3: one row of the box, 64 elements, fills the swizzle's span), or
 * NULL for no D^T; grid: CTAs (at most one per
 * SM: the kernel is persistent; a multiple of the tile's cluster size). */
int f8b_kgemm_run(int tile, int mode, int a_dtype, int b_dtype, int out_dtype, const void *tmap_a,
                  const void *tmap_b, const void *tmap_d, const void *tmap_t,
                  const struct f8b_kgemm_args *args, int grid, cudaStream_t stream);

/* ptx_selftest.cu: the GEMM's layers one by one, for the tests (one CTA
 * each; see that file).  tma: the box at (c0, c1) of tmap, box_rows x 128
 * bytes, copied as it lies in shared memory to out.  wgmma: one
 * m64nNk32 e4m3 x e4m3 (n = 128 or 256) at K step kstep (0..3) of the
 * boxes at (0, 0) of tmap_a (128 rows) and tmap_b (n rows), D (64 x n,
 * row-major f32) to out.  ring: `uses` passes through a 4-stage ring of
 * full/empty mbarriers, errors[0] += words a consumer found wrong.
 * tma_store: a box of 64 rows x row_bytes (128 or 64) written into shared
 * memory in the epilogue's swizzle (128- or 64-byte), byte b of box row r
 * holding F8B_KGEMM_SELFTEST_BYTE(r, b), and stored with TMA at (c0, c1)
 * of tmap (f8b_cuda_kgemm_encode_out's map; c0 in elements). */
int f8b_kgemm_selftest_tma(const void *tmap, void *out, int box_rows, int c0, int c1,
                           cudaStream_t stream);
int f8b_kgemm_selftest_wgmma(const void *tmap_a, const void *tmap_b, float *out, int n, int kstep,
                             cudaStream_t stream);
int f8b_kgemm_selftest_ring(int uses, unsigned *errors, cudaStream_t stream);
int f8b_kgemm_selftest_tma_store(const void *tmap, int row_bytes, int c0, int c1,
                                 cudaStream_t stream);
/* bulk: `bytes` (16 to F8B_KGEMM_SELFTEST_BULK, a multiple of 16) at src
 * (16-byte aligned) copied with cp.async.bulk into a shared region of
 * F8B_KGEMM_SELFTEST_BULK bytes filled with 0xFF first; the whole region to
 * out. */
#define F8B_KGEMM_SELFTEST_BULK 1024
int f8b_kgemm_selftest_bulk(const void *src, void *out, int bytes, cudaStream_t stream);
/* cluster: one cluster of two CTAs; info[r] = the rank CTA r read,
 * out + r * 128 * 128 = the box at (c0, c1) of tmap (128 rows x 128
 * bytes, f8b_cuda_kgemm_encode's map), as it lies in CTA r's shared
 * memory, loaded once by rank 0 and multicast to both; each CTA also
 * waits for an arrival on its mbarrier from the other (mapa). */
int f8b_kgemm_selftest_cluster(const void *tmap, void *out, unsigned *info, int c0, int c1,
                               cudaStream_t stream);
/* named_bar: `rounds` hand-offs between two warpgroups through named
 * barriers; words[0], zeroed by the caller, counts the tickets taken (256
 * a round); words[1] (zeroed) += tickets out of order and words a reader
 * found wrong. */
int f8b_kgemm_selftest_named_bar(int rounds, unsigned *words, cudaStream_t stream);
/* setmaxnreg: in and out 384 floats; out[t] = 2 in[t] for t < 128, else
 * the sum of LIVE values v[i] = in[(t + i) % 384] after ITERS sweeps of
 * v[i] = fmaf(v[i], v[(i + 1) % LIVE], 0.5f), i = 0..LIVE-1 in order, summed
 * in order from 0.0f: the host's recomputation matches it exactly. */
#define F8B_KGEMM_SELFTEST_NREG_LIVE  184
#define F8B_KGEMM_SELFTEST_NREG_ITERS 3
int f8b_kgemm_selftest_setmaxnreg(const float *in, float *out, cudaStream_t stream);
/* The byte at row r, byte b of a tma_store box: never 0 and always odd, so
 * neither zeros nor an even fill byte pass for it. */
#define F8B_KGEMM_SELFTEST_BYTE(r, b) ((uint8_t)(((r)*29 + (b)*7 + 3) | 1))

#ifdef __cplusplus
}
#endif

#endif
