/* backend.h - the one ops table every driver calls; drivers never call CUDA.
 *
 * Two implementations: "host" (portable C, the golden reference, runs in CI)
 * and "cuda" (kernels/ + cuBLASLt).  Pointers passed to ops are backend
 * memory from alloc(); upload/download move bytes between host and it.
 * Ops that compute are enqueue-only on the backend's stream (host: they
 * run synchronously); sync() waits for everything enqueued.
 *
 * Tensors are row-major.  GEMM problem, row-major (see doc/gemm-layout.md):
 *   A [M,K]  (input, dtype a_dtype)
 *   B [N,K]  (weight, dtype b_dtype)          D = A @ B^T   [M,N]
 *   D[m,n] = sum over k-blocks kb of sa(m,kb) * sb(n,kb) * sum_{k in kb} A[m,k]*B[n,k]
 * with fp32 accumulation, where sa/sb are the scale_inv tensors of A and B
 * laid out as in scaling.h (tensorwise: one value; axiswise: one per row of
 * A / row of B; block1x128 for A: [M, ceil(K/128)]; block128x128 for B:
 * [ceil(N/128), ceil(K/128)]).  bf16 GEMMs take no scales.
 *
 * Output dtype (f8b_gemm_desc.out_dtype): D is the fp32 value v above
 * rounded once to bf16 (RNE) or stored as is (f32); or, with fp8
 * operands only, e4m3 as cuBLASLt writes an fp8 D
 * (CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER;
 * doc/gemm.md "fp8 output"):
 *   D[m,n]   = e4m3(v[m,n] * d_scale)   (fp32 product, RNE, finite values
 *              beyond 448 and +-inf saturate to +-448, NaN -> NaN)
 *   amax_d   = max |v[m,n]| over all of D, before d_scale (NaN if any v is)
 * d_scale and amax_d are one float each in backend memory (struct
 * f8b_gemm_args): a given scale (delayed, or computed ahead), and an amax
 * the GEMM overwrites, for the next step's scale.  e5m2 output is refused.
 */
#ifndef F8B_BACKEND_H
#define F8B_BACKEND_H

#ifdef __cplusplus
extern "C" {
#endif

#include "core/common.h"
#include "core/fill.h" /* struct f8b_fill_spec: the fill op's formula */
#include "core/optim.h"
#include "core/scaling.h"
/* F8B_CAST_PARTIALS, F8B_LLS_ROW_MAX_COLS, F8B_BW_PARTIALS: the sizes the
 * kernels' launch geometry fixes, which callers of the ops size by. */
#include "kernels/kernel_limits.h"

struct f8b_backend; /* opaque, one per process (one GPU per rank) */
struct f8b_event;
struct f8b_gemm_plan;
struct f8b_graph;  /* a captured sequence of ops, replayed by graph_launch */
struct f8b_stream; /* a second queue of ops (stream_create) */

/* A second queue's priority against the backend's own (stream_create). */
enum f8b_stream_priority {
	F8B_STREAM_LOW = -1, /* behind the backend's own queue */
	F8B_STREAM_DEFAULT,  /* the backend's own queue's */
	F8B_STREAM_HIGH      /* ahead of it */
};

struct f8b_tensor {
	void *data; /* backend memory */
	enum f8b_dtype dtype;
	int64_t rows, cols; /* row-major, contiguous */
};

/* What the device is (host backend: the CPU). */
struct f8b_device_info {
	char name[128];         /* "NVIDIA H100 80GB HBM3" / CPU model */
	int device;             /* CUDA ordinal, -1 for host */
	unsigned pci_device_id; /* PCI device id (0x2330 for H100 SXM), 0 unknown */
	int cc_major, cc_minor; /* compute capability; 0 for host */
	int sm_count;
	size_t mem_bytes;
	size_t l2_bytes;
	char driver_version[32];  /* "580.159.04" (from NVML), "" unknown */
	char runtime_version[32]; /* CUDA runtime "13.0" */
	char cublaslt_version[32];
	char nccl_version[32];
	char uuid[48];
};

/* The algorithm a GEMM plan will run (cuBLASLt exposes these). */
struct f8b_algo_info {
	int algo_id;        /* CUBLASLT_ALGO_CONFIG_ID; -1 host */
	int tile;           /* cublasLtMatmulTile_t; -1 unknown */
	int stages;         /* cublasLtMatmulStages_t */
	int splitk;         /* split-K factor, 1 = none */
	int reduction;      /* split-K reduction scheme */
	int swizzle;        /* CTA swizzling */
	int custom;         /* custom option */
	int cluster;        /* cluster shape id (Hopper) */
	int heuristic_rank; /* 0 = heuristic's first choice */
	int candidates;     /* how many the heuristic offered */
	size_t workspace;   /* bytes */
	char desc[96];      /* human-readable "tile=... stages=..." or "host-blocked" */
};

/* Which GEMM implementation a plan runs (f8bench gemm --impl, recorded in
 * every row): cuBLASLt, or f8bench's own sm_90a kernel (kernels/gemm/,
 * doc/gemm-kernels.md), which so far takes fp8 tensorwise x tensorwise with
 * fast accumulation only.  The host backend has one GEMM, the reference:
 * it runs it for F8B_GEMM_IMPL_CUBLASLT (the default, as before the
 * choice existed) and refuses F8B_GEMM_IMPL_F8B (F8B_EUNSUPPORTED), so a
 * row never claims a kernel that did not run. */
enum f8b_gemm_impl { F8B_GEMM_IMPL_CUBLASLT = 0, F8B_GEMM_IMPL_F8B = 1, F8B_GEMM_IMPL_COUNT };

/* What a GEMM does to D before its one rounding to out_dtype
 * (f8b_gemm_desc.epilogue): nothing, or the lls forward's sigmoid,
 * y = 1 / (1 + exp(-D)) in fp32 on the scaled sum (fast exp and
 * reciprocal: sm90_fp8_gemm_epilogue.cuh), fused into the GEMM.  f8bench's own GEMM only: cuBLASLt
 * has no sigmoid epilogue, and the host backend refuses it like cuBLASLt. */
enum f8b_gemm_epilogue { F8B_GEMM_EPI_NONE = 0, F8B_GEMM_EPI_SIGMOID = 1 };

struct f8b_gemm_desc {
	int64_t m, n, k;
	enum f8b_dtype a_dtype, b_dtype, out_dtype; /* bf16/bf16/bf16 = baseline */
	enum f8b_granularity a_gran, b_gran;        /* ignored for bf16 operands */
	bool fast_accum;
	/* bf16 only: the operand is stored transposed - A as [K,M], B as
	 * [K,N], row-major - so a backward GEMM reads the forward's tensors
	 * as they are (grad_input = dz @ W, grad_weight = dz^T @ x).  fp8
	 * GEMMs take K-major operands only (Hopper's fp8 tensor cores): a
	 * transposed fp8 copy is made by cast_transpose. */
	bool a_t, b_t;
	enum f8b_gemm_impl impl; /* 0 (zero-initialised) = cuBLASLt */
	/* SMs left to a concurrent queue (NCCL's kernels while a gather
	 * overlaps): cuBLASLt plans for the device's SMs minus this many
	 * (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET), so a persistent kernel's
	 * grid does not take them all.  0: every SM.  The host ignores it. */
	int sm_margin;
	enum f8b_gemm_epilogue epilogue; /* 0 (zero-initialised) = none */
	/* Also write D^T [N,M] row-major (f8b_gemm_args.d_t): D's values, bit
	 * for bit, transposed; an e4m3 D^T with the same d_scale, amax_d
	 * covering both (one tensor, two layouts: doc/gemm-kernels.md
	 * "Transposed write").  f8bench's own GEMM only (impl f8b: bf16 or
	 * e4m3 output, M a multiple of 16 bytes of the output); cuBLASLt and
	 * the host backend refuse it. */
	bool out_t;
};

struct f8b_gemm_args {
	const void *a, *b;                      /* backend memory */
	const float *a_scale_inv, *b_scale_inv; /* backend memory; NULL for bf16 */
	void *d;                                /* backend memory, out_dtype */
	/* e4m3 output only (required there, ignored otherwise): D's scale,
	 * one float read by the GEMM, and amax_d, one float the GEMM
	 * overwrites with max |v| over D (backend memory both; the backend
	 * resets amax_d itself where its kernel accumulates into it, as part
	 * of the enqueue: no host synchronisation). */
	const float *d_scale;
	float *amax_d;
	void *d_t; /* f8b_gemm_desc.out_t: D^T [N,M], out_dtype (required there, else ignored) */
};

struct f8b_clock_state { /* from the driver's management library, if present */
	bool valid;
	unsigned sm_mhz, mem_mhz;
	unsigned long long throttle_reasons; /* NVML clocks-event reasons bitmask */
	bool throttled; /* reasons other than idle / application clocks setting */
};

/* What a fused cast writes (the lls ops at the end of the table). */
struct f8b_cast_spec {
	enum f8b_granularity gran;  /* tensorwise, axiswise or block1x128, of [R,C] */
	enum f8b_dtype dtype;       /* e4m3 or e5m2 */
	struct f8b_scale_opts opts; /* margin, pow2 (dynamic scaling) */
	const float *scale;         /* tensorwise delayed: the given scale; NULL = dynamic */
	struct f8b_tensor *q;       /* fp8 [R,C] or NULL */
	struct f8b_tensor *q_t;     /* fp8 [C,R] (tensorwise only) or NULL */
	float *amax;                /* out: amax per block (delayed: for the history) */
	float *scale_inv;           /* out: 1 / scale per block, what the GEMM reads */
	/* axiswise: also the tensorwise amax (the max over the rows' amaxes)
	 * written to amax_all[0]; NULL = not.  For a tensorwise cast of the
	 * same values that then needs no amax pass (amax_given). */
	float *amax_all;
	/* cast_fused, tensorwise without a given scale: amax[0] already holds
	 * max |v| (an earlier cast's amax_all), so the cast is one pass and
	 * amax is only read. */
	bool amax_given;
	/* Dynamic tensorwise in two passes (the cuda backend; the host ignores
	 * it): F8B_CAST_PARTIALS floats of scratch.  Pass 1 leaves one max per
	 * block there and pass 2 reduces them, so amax needs no zeroing before
	 * the cast (no memset, no atomics).  NULL: pass 1 zeroes amax and
	 * accumulates into it. */
	float *partial;
};

/* How flush_cache evicts (struct f8b_backend_ops). */
enum { F8B_FLUSH_READ = 0, F8B_FLUSH_WRITE = 1 };

struct f8b_backend_ops {
	const char *name; /* "host" or "cuda" */

	/* Opens the device `device` (host: ignored).  Fills info. */
	int (*open)(int device, struct f8b_backend **be, struct f8b_device_info *info);
	void (*close)(struct f8b_backend *be);

	int (*alloc)(struct f8b_backend *be, size_t bytes, void **ptr); /* F8B_ENOMEM names bytes */
	void (*free)(struct f8b_backend *be, void *ptr);
	int (*upload)(struct f8b_backend *be, void *dst, const void *src, size_t bytes);
	int (*download)(struct f8b_backend *be, void *dst, const void *src, size_t bytes);
	int (*memset)(struct f8b_backend *be, void *dst, int byte, size_t bytes);

	/* Fill x (bf16 or f32) per spec. */
	int (*fill)(struct f8b_backend *be, struct f8b_tensor *x, const struct f8b_fill_spec *spec);
	/* amax per block of x (bf16 or f32) into amax (f32, f8b_scale_count entries). */
	int (*amax)(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
	            float *amax);
	/* scale[i] = f8b_amax_to_scale(amax[i]), scale_inv[i] = 1/scale[i]. */
	int (*scales)(struct f8b_backend *be, const float *amax, int64_t n, enum f8b_dtype target,
	              const struct f8b_scale_opts *o, float *scale, float *scale_inv);
	/* out (fp8, same shape as x) = sat_cast(x * scale[block]). */
	int (*cast)(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
	            const float *scale, struct f8b_tensor *out);

	/* Plans outside timing: descriptors, layouts, workspace, heuristic.
	 * F8B_EUNSUPPORTED (with a message) when this GPU/library cannot run
	 * the configuration.  candidate selects the heuristic's n-th choice. */
	int (*gemm_plan)(struct f8b_backend *be, const struct f8b_gemm_desc *d, int candidate,
	                 struct f8b_gemm_plan **plan, struct f8b_algo_info *info);
	/* Enqueue-only: no allocation, no synchronisation. */
	int (*gemm)(struct f8b_backend *be, struct f8b_gemm_plan *plan,
	            const struct f8b_gemm_args *args);
	void (*gemm_plan_free)(struct f8b_backend *be, struct f8b_gemm_plan *plan);

	/* Timing: events on the backend's stream (host: a clock read). */
	int (*event_create)(struct f8b_backend *be, struct f8b_event **ev);
	void (*event_destroy)(struct f8b_backend *be, struct f8b_event *ev);
	int (*event_record)(struct f8b_backend *be, struct f8b_event *ev);
	/* Seconds from a to b; waits for b. */
	int (*event_elapsed)(struct f8b_backend *be, struct f8b_event *a, struct f8b_event *b,
	                     double *seconds);
	/* Enqueue an L2 (host: last-level cache) flush; buffer allocated at
	 * open.  how: F8B_FLUSH_WRITE (the harness's default) evicts by
	 * writing the buffer (a memset, as nvbench does), leaving L2-size of
	 * dirty lines for the next kernel to write back, as a kernel after
	 * another meets them in a pipeline; F8B_FLUSH_READ by reading it, so
	 * the cache is left holding clean lines (Nsight Compute's cache
	 * control), which flatters a kernel whose output fits in L2
	 * (doc/formulas.md).  The host backend writes either way. */
	int (*flush_cache)(struct f8b_backend *be, int how);
	int (*sync)(struct f8b_backend *be);
	/* Optional (NULL): current clocks and throttle reasons. */
	int (*clock_state)(struct f8b_backend *be, struct f8b_clock_state *c);

	/* Machine ceilings (f8bench ceilings, doc/roofline.md).  The three
	 * bandwidth ops sweep a buffer of `bytes` (a positive multiple of 16;
	 * pointers from alloc()) `passes` times in one launch, so that a
	 * working set that fits in cache is timed from cache and the launch
	 * cost is spread over many bytes.  Enqueue-only, like gemm.
	 * bw_read reads every 8-byte word of src on every pass and leaves in
	 * partial (backend memory, F8B_BW_PARTIALS uint64) numbers whose
	 * wrapping (mod 2^64) sum is passes * (wrapping sum of the words). */
	int (*bw_read)(struct f8b_backend *be, const void *src, size_t bytes, int passes,
	               uint64_t *partial);
	/* Stores `value` into every 8-byte word of dst on every pass. */
	int (*bw_write)(struct f8b_backend *be, void *dst, size_t bytes, int passes,
	                uint64_t value);
	/* dst = src, `bytes` each (not overlapping), on every pass; on a GPU
	 * by a kernel (not cudaMemcpy), so it runs like the other two. */
	int (*bw_copy)(struct f8b_backend *be, void *dst, const void *src, size_t bytes,
	               int passes);
	/* One launch of an empty kernel (host: one call of an empty function). */
	int (*launch_empty)(struct f8b_backend *be);

	/* Optional (NULL: no gate, e.g. host): the stream gate of collective
	 * samples.  hold() queues a wait that keeps the stream from running
	 * what is queued after it until release() (or until timeout_s passes,
	 * which release() then reports), so a timed region starts when the
	 * host says, not when the host finished queueing it. */
	int (*hold)(struct f8b_backend *be, double timeout_s);
	int (*release)(struct f8b_backend *be);
	/* Memory that alloc() can still hand out and its total, in bytes
	 * (host: MemAvailable / MemTotal; cuda: cudaMemGetInfo). */
	int (*mem_info)(struct f8b_backend *be, size_t *free_bytes, size_t *total_bytes);

	/* ---- The lls benchmark's kernels (doc/kernels.md "lls kernels").
	 * Enqueue-only like gemm.  Every tensor is row-major and contiguous;
	 * "[R,C]" is rows x cols.  bf16 values are computed in fp32 and
	 * rounded to nearest even once, at the store.  A backend that cannot
	 * run a shape returns F8B_EUNSUPPORTED with a message (cuda: rows of
	 * more than F8B_LLS_ROW_MAX_COLS columns in the row-wise kernels of
	 * LayerNorm and of sigmoid_bwd_cast's row granularities; cast_fused
	 * takes them in more launches). */

	/* LayerNorm over each row of x (bf16 [M,K]), no affine parameters:
	 *   mean[m] = sum_k x / K,  var[m] = sum_k (x - mean)^2 / K  (f32 out)
	 *   rstd[m] = 1 / sqrt(var + eps)                            (f32 out)
	 *   y[m,k]  = bf16((x - mean) * rstd)      (fp32 sub, fp32 mul)
	 * y bf16 [M,K]; mean, rstd: backend memory, M floats each. */
	int (*layernorm_fwd)(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
	                     struct f8b_tensor *y, float *mean, float *rstd);
	/* Its input gradient from dy (bf16 [M,K]), x and the forward's mean and
	 * rstd, with xh = (x - mean) * rstd in fp32:
	 *   a = sum_k dy / K,  b = sum_k dy * xh / K
	 *   dx = bf16(rstd * ((dy - a) - xh * b))                 (bf16 [M,K]) */
	int (*layernorm_bwd)(struct f8b_backend *be, const struct f8b_tensor *dy,
	                     const struct f8b_tensor *x, const float *mean, const float *rstd,
	                     struct f8b_tensor *dx);
	/* y = bf16(1 / (1 + exp(-z))), z and y bf16 of one shape. */
	int (*sigmoid_fwd)(struct f8b_backend *be, const struct f8b_tensor *z,
	                   struct f8b_tensor *y);
	/* dz = bf16(dy * (y * (1 - y))), each fp32 operation rounded in that
	 * order (bit-exact on every backend); y, dy, dz bf16 of one shape. */
	int (*sigmoid_bwd)(struct f8b_backend *be, const struct f8b_tensor *y,
	                   const struct f8b_tensor *dy, struct f8b_tensor *dz);
	/* amax per block of x^T: the amax op applied to the [C,R] transpose of
	 * x (bf16 or f32 [R,C]) without forming it; amax has
	 * f8b_scale_count(g, C, R) floats at f8b_scale_index(g, C, R, ...).
	 * axiswise = one amax per column of x; block1x128 = 128x1 strips of x. */
	int (*amax_t)(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
	              float *amax);
	/* Cast and/or transpose x (bf16 or f32 [R,C]); out, out_t may each be
	 * NULL (not both).  fp8 outputs (e4m3/e5m2, both of one dtype):
	 *   out[r,c]   = sat_cast(x[r,c] * scale[block of (r,c) in [R,C], g])
	 *   out_t[c,r] = sat_cast(x[r,c] * scale_t[block of (c,r) in [C,R], g])
	 * i.e. scale is laid out for x and scale_t for x^T (f8b_scale_index
	 * with rows/cols swapped); tensorwise may pass one pointer for both.
	 * A bf16 output is the value rounded to bf16, scales ignored (NULL):
	 * the plain transposes the bf16 recipe's backward GEMMs need. */
	int (*cast_transpose)(struct f8b_backend *be, const struct f8b_tensor *x,
	                      enum f8b_granularity g, const float *scale, const float *scale_t,
	                      struct f8b_tensor *out, struct f8b_tensor *out_t);
	/* amax_t, and cast_transpose's out_t (fp8), of LayerNorm's output y
	 * formed again from x (bf16 [R,C]) and the mean and rstd that
	 * layernorm_fwd(_cast) wrote for it:
	 *   y[r,c] = bf16((x[r,c] - mean[r]) * rstd[r])   (fp32 sub, fp32 mul)
	 * the y layernorm_fwd stores, so each result is bit for bit the op's
	 * on that y, and y need never be stored.  Any granularity. */
	int (*layernorm_amax_t)(struct f8b_backend *be, const struct f8b_tensor *x,
	                        const float *mean, const float *rstd, enum f8b_granularity g,
	                        float *amax);
	int (*layernorm_cast_t)(struct f8b_backend *be, const struct f8b_tensor *x,
	                        const float *mean, const float *rstd, enum f8b_granularity g,
	                        const float *scale_t, struct f8b_tensor *out_t);
	/* The fused casts below share one output description: the value v of
	 * each element (a bf16 value widened to fp32) is quantised as
	 *   amax[b]      = max |v| over block b (gran of [R,C])
	 *   s[b]         = f8b_amax_to_scale(amax[b], dtype, &opts), or, with
	 *                  a given scale (delayed scaling, tensorwise only),
	 *                  s = scale[0]
	 *   scale_inv[b] = 1 / s[b]    (NaN s: canonical NaN, as scales())
	 *   q[r,c]       = sat_cast(v[r,c] * s[block]),   q_t[c,r] = q[r,c]
	 * exactly as amax + scales + cast of v would (bit for bit).  gran is
	 * tensorwise, axiswise or block1x128; q_t only with tensorwise (other
	 * granularities run along the other axis in x^T: amax_t + scales +
	 * cast_transpose).  q or q_t may be NULL, not both; amax and scale_inv
	 * (backend memory, f8b_scale_count(gran, R, C) floats) are required. */
	/* LayerNorm forward as layernorm_fwd (mean, rstd written; y written
	 * when not NULL), then v = y's bf16 values quantised per `cast`. */
	int (*layernorm_fwd_cast)(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
	                          struct f8b_tensor *y, float *mean, float *rstd,
	                          const struct f8b_cast_spec *cast);
	/* sigmoid_bwd (dz written when not NULL), then v = dz's bf16 values
	 * quantised per `cast` (e5m2 for the gradient in torchao's recipes). */
	int (*sigmoid_bwd_cast)(struct f8b_backend *be, const struct f8b_tensor *y,
	                        const struct f8b_tensor *dy, struct f8b_tensor *dz,
	                        const struct f8b_cast_spec *cast);
	/* v = x (bf16 [R,C]) quantised per `cast` in the fewest passes: one
	 * for axiswise / block1x128 rows and for a given scale, two for
	 * dynamic tensorwise (the amax must be complete before any cast);
	 * cuda: rows over F8B_LLS_ROW_MAX_COLS columns, axiswise or
	 * block1x128, take the amax, the scales and the cast apart (the same
	 * bytes, four launches). */
	int (*cast_fused)(struct f8b_backend *be, const struct f8b_tensor *x,
	                  const struct f8b_cast_spec *cast);
	/* Delayed scaling's history (tensorwise), one step: the history
	 * hist[0..len-1] (newest first) moves one place (hist[i] = hist[i-1],
	 * the oldest dropped), hist[0] = amax[0], and
	 *   scale[0] = f8b_amax_to_scale(max_i hist[i], dtype, opts)
	 * is the scale the next step casts with.  1 <= len <= 1024. */
	int (*history_scale)(struct f8b_backend *be, float *hist, int len, const float *amax,
	                     enum f8b_dtype dtype, const struct f8b_scale_opts *opts, float *scale);

	/* ---- Graphs: fn(arg) enqueues a sequence of ops; graph_capture
	 * records it once (cuda: stream capture into a CUDA graph, nothing
	 * runs), graph_launch enqueues all of it as one launch.  The host
	 * backend, which has no launch cost, replays fn(arg).  fn must not
	 * sync, allocate, or move data between host and device. */
	int (*graph_capture)(struct f8b_backend *be, int (*fn)(void *arg), void *arg,
	                     struct f8b_graph **graph);
	int (*graph_launch)(struct f8b_backend *be, struct f8b_graph *graph);
	void (*graph_free)(struct f8b_backend *be, struct f8b_graph *graph);

	/* ---- Streams: the allgather benchmark's communication queue beside
	 * the compute one, and the lls step's second lane of independent
	 * kernels.  stream_create makes a second queue (cuda: a non-blocking
	 * stream; at most 4; a GEMM there uses the queue's own workspace, made
	 * by its first GEMM, which must not be in a capture); stream_use(s) sends every op
	 * enqueued after it - collectives of comm.h included - to s, and
	 * stream_use(NULL) back to the backend's own queue, which is where
	 * timing events, the gate and graphs belong; stream_wait makes the
	 * current queue wait, before what is queued after it, for the work
	 * queued before `ev` was recorded (on any queue).  Events recorded on
	 * different queues may be compared by event_elapsed.  sync() waits
	 * for every queue.  The host backend runs each op when it is called,
	 * so its queues are in name only and the waits are no-ops.
	 * priority (enum f8b_stream_priority): where two queues both have
	 * work ready, a higher one's goes first (cuda: HIGH is the device's
	 * greatest stream priority, LOW its least, DEFAULT the backend's own
	 * queue's, one above the least; host: no effect). */
	int (*stream_create)(struct f8b_backend *be, int priority, struct f8b_stream **s);
	void (*stream_destroy)(struct f8b_backend *be, struct f8b_stream *s);
	int (*stream_use)(struct f8b_backend *be, struct f8b_stream *s);
	int (*stream_wait)(struct f8b_backend *be, struct f8b_event *ev);
	/* out[c,r] = x[r,c], fp8 x [R,C] to fp8 out [C,R] of the same dtype,
	 * the bytes moved as they are (no cast: the scale stays x's) - the
	 * K-major copy grad_input's GEMM needs of a weight gathered in fp8.
	 * R and C multiples of 16. */
	int (*transpose_fp8)(struct f8b_backend *be, const struct f8b_tensor *x,
	                     struct f8b_tensor *out);

	/* ---- The optim benchmark's step (doc/optim.md), one launch per pass
	 * (enum f8b_optim_pass) over every chunk of `a`; enqueue-only.  Each
	 * element: AdamW (f8b_optim_adamw) unless its gradient is not finite
	 * (counted, the element left as it was); the fp8 states requantised
	 * per block; the exact amax of the new master into amax_acc; the cast
	 * w8 = e4m3(master * scale[slot]).  At the end of the pass (the last
	 * CTA on a GPU) the amax is folded (amax_last, amax_acc zeroed), the
	 * next scales computed and the step counter advanced, as the pass
	 * says (host_optim.c is the reference).  Bit-exact on every backend. */
	int (*optim_pass)(struct f8b_backend *be, const struct f8b_optim_args *a, int pass);
};

extern const struct f8b_backend_ops f8b_backend_host;
#ifdef F8B_HAVE_CUDA
extern const struct f8b_backend_ops f8b_backend_cuda;
/* Number of usable CUDA devices; 0 (and a reason in *why) when there is no
 * driver or no GPU.  Never fails hard: used to pick the default backend. */
int f8b_cuda_device_count(char *why, size_t n);
/* The backend's CUDA stream (a cudaStream_t), for tests that enqueue their
 * own kernels (the harness self-test). */
void *f8b_cuda_stream(struct f8b_backend *be);
#endif

/* Looks up a backend by name ("host", "cuda"); F8B_EINVAL / F8B_EUNSUPPORTED
 * (built without CUDA) with a message. */
int f8b_backend_find(const char *name, const struct f8b_backend_ops **ops);

/* Convenience wrappers used by drivers (allocate tensor of dtype/shape). */
int f8b_tensor_alloc(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     struct f8b_tensor *t, enum f8b_dtype dt, int64_t rows, int64_t cols);
void f8b_tensor_free(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     struct f8b_tensor *t);
size_t f8b_tensor_bytes(const struct f8b_tensor *t);

/* Argument checks every backend makes the same way, so a bad call fails
 * with the same message on host and GPU.  `op` names the operation
 * ("amax", "cast"...); F8B_EINVAL / F8B_EUNSUPPORTED with a message. */
int f8b_check_tensor(const struct f8b_tensor *t, const char *op, const char *what);
/* A high-precision input: a tensor of bf16 or f32. */
int f8b_check_wide_input(const struct f8b_tensor *x, const char *op);
int f8b_check_gran(enum f8b_granularity g, const char *op);
/* The cast op's arguments: x a wide input, g a granularity, out an fp8
 * tensor of x's shape, a scale tensor present. */
int f8b_check_cast(const struct f8b_tensor *x, enum f8b_granularity g, const float *scale,
                   const struct f8b_tensor *out);
/* What any backend's GEMM takes: positive dims; bf16 x bf16 or an fp8 pair
 * other than e5m2 x e5m2; bf16/f32 output, or e4m3 output with fp8
 * operands; A tensorwise, axiswise or block1x128, B tensorwise, axiswise,
 * block128x128 or block1x128.  `cfg` (may be NULL) describes the
 * configuration in messages. */
int f8b_check_gemm_desc(const struct f8b_gemm_desc *d, const char *cfg);
/* "cublaslt" / "f8b"; "?" out of range. */
const char *f8b_gemm_impl_name(enum f8b_gemm_impl impl);
/* The name back to the value (case-insensitive); F8B_EINVAL with a message
 * naming the accepted values. */
int f8b_gemm_impl_parse(const char *s, enum f8b_gemm_impl *impl);
/* --gemm-impl's comma list (lls, allgather): each name once, at most one
 * of each implementation; F8B_EINVAL naming `opt` and the accepted values,
 * or the name listed twice. */
int f8b_gemm_impl_list_parse(const char *spec, const char *opt,
                             enum f8b_gemm_impl out[F8B_GEMM_IMPL_COUNT], int *n);
/* A results row's gemm_impl column as the implementation it names: ""
 * (files from before the column, when every GEMM was cuBLASLt's) reads as
 * "cublaslt".  `col` holds at most `size` bytes (need not end in NUL). */
const char *f8b_gemm_impl_col(const char *col, size_t size, char *buf, size_t n);
/* A failed gemm_plan's error (status rc, the message f8b_last_error
 * holds) again, as "WHAT: ..." for a results row: a refusal of impl f8b
 * keeps its reason from "impl f8b" on, dropping the problem's description
 * that precedes it (the row names the case; its message column is short). */
int f8b_gemm_plan_error(int rc, const char *what);
/* Two rows' gemm_impl columns name the same implementation. */
bool f8b_gemm_impl_same(const char *a, const char *b, size_t size);
/* A GEMM's arguments for its plan's description: A, B and D present,
 * both scale_inv tensors for fp8 operands, d_scale and amax_d for e4m3
 * output; F8B_EINVAL with the same message on every backend. */
int f8b_check_gemm_args(const struct f8b_gemm_desc *d, const struct f8b_gemm_args *a);
/* transpose_fp8's arguments (backend.h), the same message on every backend. */
int f8b_check_transpose_fp8(const struct f8b_tensor *x, const struct f8b_tensor *out);
/* Bandwidth ops: a (and b when two) present and `align`-byte aligned,
 * bytes a positive multiple of 16, passes >= 1. */
int f8b_check_bw(const void *a, const void *b, bool two, size_t bytes, int passes, size_t align,
                 const char *op);

#ifdef __cplusplus
}
#endif

#endif
