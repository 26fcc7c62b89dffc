/* lls_fused.cu - the row kernel (LayerNorm forward, and the row-scaled
 * fused casts) and the launchers of the fused casts of backend.h:
 * layernorm_fwd(_cast), sigmoid_bwd_cast, cast_fused.
 *
 * Row kernel: one 256-thread block per row (grid-stride over rows); the
 * row lives in registers, first as the source's raw words, then as its
 * values' bf16 words (row_body() says why), NCH chunks of 8 per thread
 * (NCH = 1, 2, 4, 8 for rows up to 2048, 4096, 8192, 16384 columns), chunk
 * j of thread t at columns 8 * (t + 256 j): a warp's loads are 512
 * contiguous bytes.  With the row on chip, everything after the load is
 * free of DRAM traffic:
 *   LayerNorm: block sums for mean and variance (two-pass, on the register
 *     copy), mean/rstd stored, v = bf16((x - mean) * rstd);
 *   mode NONE: store v as bf16 (layernorm_fwd);
 *   mode AMAX: tensorwise amax of v, atomicMax per block (pass 1 of the
 *     dynamic tensorwise cast: the scale needs every row first);
 *   mode AXIS: one amax per row (block max), scale, q, scale_inv: one pass;
 *   mode B1X128: one amax per 128 columns = 16 consecutive chunks = 16
 *     consecutive lanes (a 16-lane shuffle max), scale, q: one pass.
 * Tensorwise with the scale unknown until the whole tensor is seen takes
 * a second pass: the tile kernel of cast_transpose.cu re-reads the input,
 * recomputes v bit-identically (same fp32 operations from the stored
 * mean/rstd) and writes q and q^T.
 */
#include "lls_internal.cuh"

#include <string.h>

enum { ROW_NONE = 0, ROW_AMAX, ROW_AXIS, ROW_B1X128 };

struct row_p {
	int64_t rows, cols;
	float eps;
	float *mean, *rstd; /* LayerNorm */
	uint16_t *y;        /* bf16 v, or NULL */
	int mode;
	struct f8b_lls_sp sp;
	struct f8b_k_sgeom sg; /* of q's scales */
	uint8_t *q;
	float *amax, *scale_inv;
	float *amax_all; /* AXIS: also the max over the rows (atomicMax), or NULL */
	float *parts;    /* AMAX: each block's max here instead of atomicMax (amax) */
	bool vec_y, vec_q;
};

/* q of a chunk's eight values (as bf16 words) at p. */
static __device__ __forceinline__ void st_q(uint8_t *p, int len, bool vec, uint4 w, float s,
                                            int e5m2)
{
	float v[8];
	f8b_lls_unpack(w, v);
	const uint2 q = f8b_lls_q8(v, s, e5m2);
	if (vec) {
		*(uint2 *)p = q;
		return;
	}
	for (int j = 0; j < 8; j++)
		if (j < len)
			p[j] = (uint8_t)((j < 4 ? q.x : q.y) >> (j % 4 * 8));
}

/* The chunk's bf16 words at p (16-byte store when vec). */
static __device__ __forceinline__ void st_w(uint16_t *p, int len, bool vec, uint4 w)
{
	if (vec) {
		*(uint4 *)p = w;
		return;
	}
	const uint32_t u[4] = {w.x, w.y, w.z, w.w};
	for (int j = 0; j < 8; j++)
		if (j < len)
			p[j] = (uint16_t)(u[j / 2] >> (j % 2 * 16));
}

/* max |v| of the chunk's len valid values, as widened fp32 bits (the
 * f8b_d_abs_bits order): the sign-cleared bf16 halves, two at a time. */
static __device__ __forceinline__ uint32_t absmax_w(uint4 w, int len)
{
	uint32_t u[4] = {w.x & 0x7FFF7FFFu, w.y & 0x7FFF7FFFu, w.z & 0x7FFF7FFFu,
	                 w.w & 0x7FFF7FFFu};
	if (len < 8)
		for (int j = 0; j < 8; j++)
			if (j >= len)
				u[j / 2] &= j % 2 ? 0x0000FFFFu : 0xFFFF0000u;
	const uint32_t m = __vmaxu2(__vmaxu2(u[0], u[1]), __vmaxu2(u[2], u[3]));
	return max(m << 16, m & 0xFFFF0000u);
}

/* Valid columns of this thread's chunk j of a row of C (0..8). */
static __device__ __forceinline__ int chunk_len(int64_t C, int j)
{
	const int64_t c = ((int64_t)threadIdx.x + j * F8B_K_THREADS) * 8;
	return c < C ? (int)min((int64_t)8, C - c) : 0;
}

/* mean, rstd of the row held as raw words (chunk_len() valid per chunk,
 * the rest 0); thread 0 stores the statistics.  A whole chunk skips the
 * per-element test of the variance's sum (the same additions: an invalid
 * entry adds 0). */
template <int NCH, class S>
static __device__ __forceinline__ void ln_stats(const S &src, const typename S::raw_t (&raw)[NCH],
                                                int64_t r, const struct row_p &p, float *fsm,
                                                float *mu_out, float *rs_out)
{
	float s = 0.0f, q = 0.0f;
	const float n = (float)p.cols;

#pragma unroll
	for (int j = 0; j < NCH; j++) {
		float v[8];
		src.val(raw[j], v);
		for (int e = 0; e < 8; e++)
			s += v[e]; /* invalid entries are 0 */
	}
	const float mu = __fdiv_rn(f8b_lls_block_sum(s, fsm), n);
#pragma unroll
	for (int j = 0; j < NCH; j++) {
		float v[8];
		src.val(raw[j], v);
		const int len = chunk_len(p.cols, j);
		if (len == 8) {
			for (int e = 0; e < 8; e++) {
				const float d = __fsub_rn(v[e], mu);
				q += __fmul_rn(d, d);
			}
		} else {
			for (int e = 0; e < 8; e++) {
				const float d = __fsub_rn(v[e], mu);
				q += e < len ? __fmul_rn(d, d) : 0.0f;
			}
		}
	}
	const float var = __fdiv_rn(f8b_lls_block_sum(q, fsm), n);
	const float rs = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(var, p.eps)));
	if (threadIdx.x == 0) {
		p.mean[r] = mu;
		p.rstd[r] = rs;
	}
	*mu_out = mu;
	*rs_out = rs;
}

/* The values of a chunk as bf16 words: the source's, or with LN
 * bf16((x - mean) * rstd) of the bf16 x. */
template <class S, bool LN>
static __device__ __forceinline__ uint4 row_words(const S &src, const typename S::raw_t &w,
                                                  float mu, float rs)
{
	if constexpr (LN) {
		float v[8];
		src.val(w, v);
		for (int e = 0; e < 8; e++)
			v[e] = __fmul_rn(__fsub_rn(v[e], mu), rs);
		return f8b_lls_pack8(v);
	} else {
		return src.words(w);
	}
}

template <int NCH, class S>
static __device__ __forceinline__ void row_load(const S &src, int64_t r, int64_t C,
                                                typename S::raw_t (&raw)[NCH])
{
#pragma unroll
	for (int j = 0; j < NCH; j++) {
		raw[j] = typename S::raw_t{};
		const int len = chunk_len(C, j);
		if (len > 0)
			src.load(r, ((int64_t)threadIdx.x + j * F8B_K_THREADS) * 8, len, raw[j]);
	}
}

/* B1X128: q of the row's chunks, and the amax and scale_inv of each
 * 128-column block.  Chunk j's block is 16 consecutive lanes (a 16-lane
 * shuffle max); the warp's 2 * NCH block maxima then go to lanes
 * 0 .. 2 NCH - 1, which take their scales with one division each (one
 * instruction stream for all, where a scale per chunk took NCH) and
 * store the block's amax and scale_inv, and each chunk's scale comes back
 * by a shuffle. */
template <int NCH>
static __device__ __forceinline__ void row_b1x128(const struct row_p &p, int64_t r,
                                                  const uint4 (&vw)[NCH])
{
	const int64_t C = p.cols;
	const int lane = threadIdx.x & 31;
	uint32_t mine = 0;

#pragma unroll
	for (int j = 0; j < NCH; j++) { /* to lane 2j + h: half h of chunk j */
		const int len = chunk_len(C, j);
		const uint32_t g = f8b_d_group_max(len > 0 ? absmax_w(vw[j], len) : 0u, 16, NULL);
		const uint32_t t = __shfl_sync(F8B_K_FULL_MASK, g, (lane & 1) * 16);
		if (lane >> 1 == j)
			mine = t;
	}
	const float s1 = f8b_lls_scale(__uint_as_float(mine), p.sp);
	const int64_t c1 = ((int64_t)(threadIdx.x & ~31) + (lane & 1) * 16 +
	                    (int64_t)(lane >> 1) * F8B_K_THREADS) *
	                   8; /* its first column */
	if (lane < 2 * NCH && c1 < C) {
		const int64_t i = f8b_d_scale_index(p.sg, r, c1 / F8B_BLOCK);
		p.amax[i] = __uint_as_float(mine);
		p.scale_inv[i] = f8b_lls_inv(s1);
	}
#pragma unroll
	for (int j = 0; j < NCH; j++) {
		const float s = __shfl_sync(F8B_K_FULL_MASK, s1, 2 * j + (lane >> 4));
		const int len = chunk_len(C, j);
		const int64_t off = r * C + ((int64_t)threadIdx.x + j * F8B_K_THREADS) * 8;
		if (len > 0)
			st_q(p.q + off, len, p.vec_q, vw[j], s, p.sp.e5m2);
	}
}

/* The row arrives as the source's raw words (LayerNorm first takes its
 * statistics from them) and is then kept as its values' bf16 words (a row
 * of 16384 columns: 32 registers a thread), from which every output is
 * made: the bf16 store is the words themselves, the amax an integer max
 * on them, q their product with the scale.  Each value is rounded to bf16
 * once, two per instruction, and converted to fp8 two per instruction.
 * PF: the loads of the block's next row go out as soon as this row's
 * words are formed, so they are in flight while this row is reduced and
 * stored (the block waits on DRAM once, not once per row).  AMAX keeps a
 * max per thread and reduces it over the block once, at the end. */
template <int NCH, class S, bool LN, bool PF>
static __device__ __forceinline__ void row_body(S &src, const struct row_p &p)
{
	__shared__ float fsm[F8B_K_THREADS / 32];
	__shared__ uint32_t usm[F8B_K_THREADS / 32];
	const int64_t C = p.cols;
	typename S::raw_t raw[NCH];
	uint32_t bm = 0; /* AMAX: the max over this thread's values */

	if (PF && blockIdx.x < p.rows)
		row_load<NCH>(src, blockIdx.x, C, raw);
	for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
		if (!PF)
			row_load<NCH>(src, r, C, raw);
		float mu = 0.0f, rs = 1.0f;
		if (LN)
			ln_stats<NCH>(src, raw, r, p, fsm, &mu, &rs);
		uint4 vw[NCH];
#pragma unroll
		for (int j = 0; j < NCH; j++)
			vw[j] = row_words<S, LN>(src, raw[j], mu, rs);
		if (PF && r + gridDim.x < p.rows)
			row_load<NCH>(src, r + gridDim.x, C, raw);

		uint32_t m = 0;
#pragma unroll
		for (int j = 0; j < NCH; j++) {
			const int len = chunk_len(C, j);
			int64_t off = r * C + ((int64_t)threadIdx.x + j * F8B_K_THREADS) * 8;
			if (p.y && len > 0)
				st_w(p.y + off, len, p.vec_y, vw[j]);
			if (p.mode != ROW_B1X128 && len > 0)
				m = max(m, absmax_w(vw[j], len));
		}
		if (p.mode == ROW_B1X128)
			row_b1x128<NCH>(p, r, vw);
		bm = max(bm, m);
		if (p.mode == ROW_AXIS) {
			m = f8b_d_group_max(m, F8B_K_THREADS, usm);
			float s = f8b_lls_scale(__uint_as_float(m), p.sp);
#pragma unroll
			for (int j = 0; j < NCH; j++) {
				int64_t off =
				    r * C + ((int64_t)threadIdx.x + j * F8B_K_THREADS) * 8;
				const int len = chunk_len(C, j);
				if (len > 0)
					st_q(p.q + off, len, p.vec_q, vw[j], s, p.sp.e5m2);
			}
			if (threadIdx.x == 0) {
				p.amax[r] = __uint_as_float(m);
				p.scale_inv[r] = f8b_lls_inv(s);
				if (p.amax_all && m)
					atomicMax((unsigned int *)p.amax_all, m);
			}
		}
		__syncthreads(); /* usm / fsm are reused by the next row */
	}
	if (p.mode == ROW_AMAX) {
		bm = f8b_d_group_max(bm, F8B_K_THREADS, usm);
		if (threadIdx.x == 0)
			f8b_d_put_block_max(bm, p.amax, p.parts);
	}
}

/* Prefetching holds the next row's raw words beside this row's values:
 * worth it where both fit in registers with blocks to spare (rows up to
 * 8192 columns of one bf16 input). */
template <int NCH, class S> struct row_pf {
	static constexpr bool on = NCH <= 4 && sizeof(typename S::raw_t) <= 16;
};

template <int NCH, class S, bool LN>
static __global__ void __launch_bounds__(F8B_K_THREADS, row_pf<NCH, S>::on ? 4 : 1)
    row_kernel(S src, struct row_p p)
{
	row_body<NCH, S, LN, row_pf<NCH, S>::on>(src, p);
}

/* The widest rows (NCH = 8: 16384 columns) run with a minimum number of
 * blocks per SM.  Holding the row as fp32 took ~146 registers a thread
 * (one block per SM, ~42% of the copy bandwidth for LayerNorm forward at
 * 16384^2 on an H100); as words, a bf16 row fits three blocks and the
 * sigmoid backward's two inputs two.  The arithmetic is the same, in the
 * same order.  Narrower rows keep the compiler's choice: asking them for
 * a minimum raised their registers and cost them occupancy. */
template <class S> struct row_wide_blocks {
	static constexpr int n = sizeof(typename S::raw_t) <= 16 ? 3 : 2;
};

template <int NCH, class S, bool LN>
static __global__ void __launch_bounds__(F8B_K_THREADS, row_wide_blocks<S>::n)
    row_kernel_wide(S src, struct row_p p)
{
	row_body<NCH, S, LN, false>(src, p);
}

/* Blocks of row_kernel<NCH, S, LN> that can be resident on an SM (queried
 * once per kernel). */
template <int NCH, class S, bool LN> static int resident(int *n)
{
	static int cached = 0;
	if (!cached) {
		cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &cached, row_kernel<NCH, S, LN>, F8B_K_THREADS, 0);
		if (e != cudaSuccess)
			return (int)e;
	}
	*n = cached > 0 ? cached : 1;
	return (int)cudaSuccess;
}

template <int NCH, class S, bool LN>
static int launch_rows_n(S src, const struct row_p &p, int *nblocks, cudaStream_t stream)
{
	unsigned grid;
	int per_sm = 8, e;

	/* A block per row.  A prefetching kernel loops over its rows, so it
	 * gets no more blocks than can be resident at once: a block waiting
	 * for an SM would not prefetch. */
	if constexpr (row_pf<NCH, S>::on) {
		e = resident<NCH, S, LN>(&per_sm);
		if (e != cudaSuccess)
			return e;
	}
	e = f8b_k_grid(p.rows, per_sm, &grid);
	if (e != cudaSuccess)
		return e;
	grid = f8b_k_parts_grid(grid, p.parts, nblocks);
	if constexpr (NCH >= 8)
		row_kernel_wide<NCH, S, LN><<<grid, F8B_K_THREADS, 0, stream>>>(src, p);
	else
		row_kernel<NCH, S, LN><<<grid, F8B_K_THREADS, 0, stream>>>(src, p);
	return (int)cudaGetLastError();
}

/* nblocks: out, the blocks launched (NULL: not wanted). */
template <class S, bool LN>
static int launch_rows(S src, const struct row_p &p, cudaStream_t s, int *nblocks = NULL)
{
	const int64_t per = (int64_t)F8B_K_THREADS * 8; /* columns per chunk sweep */

	if (p.mode == ROW_AXIS && p.amax_all) { /* rows atomicMax into it */
		cudaError_t e = cudaMemsetAsync(p.amax_all, 0, sizeof(float), s);
		if (e != cudaSuccess)
			return (int)e;
	}
	if (p.cols <= per)
		return launch_rows_n<1, S, LN>(src, p, nblocks, s);
	if (p.cols <= 2 * per)
		return launch_rows_n<2, S, LN>(src, p, nblocks, s);
	if (p.cols <= 4 * per)
		return launch_rows_n<4, S, LN>(src, p, nblocks, s);
	if (p.cols <= 8 * per)
		return launch_rows_n<8, S, LN>(src, p, nblocks, s);
	return (int)cudaErrorInvalidValue;
}

/* ------------------------------------------------------------ launchers */

static bool qspec_ok(const struct f8b_k_qspec *qs)
{
	if (!qs)
		return true;
	if ((qs->dtype != F8B_E4M3 && qs->dtype != F8B_E5M2) || !qs->amax || !qs->scale_inv ||
	    (!qs->q && !qs->q_t))
		return false;
	if (qs->amax_all && qs->gran != F8B_GRAN_AXISWISE)
		return false;
	if (qs->gran == F8B_GRAN_TENSORWISE)
		return !(qs->amax_given && qs->scale);
	/* row-scaled: dynamic, no transposed copy (backend.h) */
	return (qs->gran == F8B_GRAN_AXISWISE || qs->gran == F8B_GRAN_BLOCK1X128) && qs->q &&
	       !qs->q_t && !qs->scale && !qs->amax_given;
}

static struct row_p row_params(int64_t rows, int64_t cols, void *y, const struct f8b_k_qspec *qs)
{
	struct row_p p;

	memset(&p, 0, sizeof p);
	p.rows = rows;
	p.cols = cols;
	p.y = (uint16_t *)y;
	p.vec_y = y && cols % 8 == 0 && f8b_k_aligned(y, 16);
	p.mode = ROW_NONE;
	if (qs) {
		p.sp = f8b_lls_make_sp(qs->dtype, qs->margin, qs->pow2);
		p.sg = f8b_k_scale_geom(qs->gran, rows, cols);
		p.q = (uint8_t *)qs->q;
		p.vec_q = qs->q && cols % 8 == 0 && f8b_k_aligned(qs->q, 8);
		p.amax = qs->amax;
		p.scale_inv = qs->scale_inv;
		p.amax_all = qs->amax_all;
		p.mode = qs->gran == F8B_GRAN_AXISWISE     ? ROW_AXIS
		         : qs->gran == F8B_GRAN_BLOCK1X128 ? ROW_B1X128
		                                           : ROW_AMAX;
	}
	return p;
}

/* Pass 2 of a tensorwise cast (or the only pass with a given scale):
 * q / q_t of the values of src, scale from the amax (dynamic) or given.
 * It visits the tiles from the last: pass 1 (or, delayed, the sigmoid
 * backward that wrote dz) read the input from the first. */
static int tensorwise_pass(struct f8b_k_tile_args *a, const struct f8b_k_qspec *qs,
                           bool record_amax, int nparts, cudaStream_t stream)
{
	a->gran = F8B_GRAN_TENSORWISE;
	a->reverse = true;
	a->sp = f8b_lls_make_sp(qs->dtype, qs->margin, qs->pow2);
	a->scale = a->scale_t = qs->scale;
	a->dyn_amax = qs->scale ? NULL : qs->amax;
	a->acc_parts = NULL; /* pass 1's, when it was a tile pass too */
	a->nblocks = NULL;
	if (nparts > 0) { /* pass 1 left its block maxima in qs->partial */
		a->dyn_amax = NULL;
		a->dyn_parts = qs->partial;
		a->dyn_nparts = nparts;
		a->amax_out = qs->amax;
	}
	a->scale_inv = qs->scale_inv;
	a->out = qs->q;
	a->out_t = qs->q_t;
	a->out_dtype = qs->dtype;
	a->amax_acc = record_amax ? qs->amax : NULL;
	if (record_amax) {
		cudaError_t e = cudaMemsetAsync(qs->amax, 0, sizeof(float), stream);
		if (e != cudaSuccess)
			return (int)e;
	}
	return f8b_k_tile_pass(a, stream);
}

extern "C" int f8b_k_layernorm_fwd(const void *x, int64_t rows, int64_t cols, float eps, void *y,
                                   float *mean, float *rstd, const struct f8b_k_qspec *qs,
                                   cudaStream_t stream)
{
	if (!x || !mean || !rstd || (!qs && !y) || !qspec_ok(qs) || rows <= 0 || cols <= 0 ||
	    cols > F8B_LLS_ROW_MAX_COLS)
		return (int)cudaErrorInvalidValue;
	struct row_p p = row_params(rows, cols, y, qs);
	struct f8b_src_bf16 src = {(const uint16_t *)x, cols,
	                           f8b_k_aligned(x, 16) && cols % 8 == 0};
	p.eps = eps;
	p.mean = mean;
	p.rstd = rstd;
	int nparts = 0;
	if (p.mode == ROW_AMAX && qs->partial) {
		p.parts = qs->partial;
	} else if (p.mode == ROW_AMAX) {
		cudaError_t e = cudaMemsetAsync(qs->amax, 0, sizeof(float), stream);
		if (e != cudaSuccess)
			return (int)e;
	}
	int rc = launch_rows<struct f8b_src_bf16, true>(src, p, stream, p.parts ? &nparts : NULL);
	if (rc != cudaSuccess || p.mode != ROW_AMAX)
		return rc;
	struct f8b_k_tile_args a;
	memset(&a, 0, sizeof a);
	a.src = F8B_SRC_LN;
	a.x = x;
	a.mean = mean;
	a.rstd = rstd;
	a.rows = rows;
	a.cols = cols;
	return tensorwise_pass(&a, qs, false, nparts, stream);
}

extern "C" int f8b_k_sigmoid_bwd_cast(const void *y, const void *dy, void *dz, int64_t rows,
                                      int64_t cols, const struct f8b_k_qspec *qs,
                                      cudaStream_t stream)
{
	if (!y || !dy || !qs || !qspec_ok(qs) || rows <= 0 || cols <= 0)
		return (int)cudaErrorInvalidValue;
	struct f8b_k_tile_args a;
	memset(&a, 0, sizeof a);
	a.src = F8B_SRC_SIGBWD;
	a.x = y;
	a.x2 = dy;
	a.rows = rows;
	a.cols = cols;
	if (qs->gran != F8B_GRAN_TENSORWISE) {
		if (cols > F8B_LLS_ROW_MAX_COLS)
			return (int)cudaErrorInvalidValue;
		bool al = f8b_k_aligned(y, 16) && f8b_k_aligned(dy, 16) && cols % 8 == 0;
		struct f8b_src_sigbwd src = {(const uint16_t *)y, (const uint16_t *)dy, cols, al};
		return launch_rows<struct f8b_src_sigbwd, false>(
		    src, row_params(rows, cols, dz, qs), stream);
	}
	if (qs->scale) { /* delayed: dz (if wanted) first, then one pass */
		if (dz) {
			int rc = f8b_k_sigmoid_bwd(y, dy, dz, rows * cols, stream);
			if (rc != cudaSuccess)
				return rc;
		}
		return tensorwise_pass(&a, qs, true, 0, stream);
	}
	/* dynamic: pass 1 = amax (and dz), pass 2 = the cast */
	int nparts = 0;
	if (qs->partial) {
		a.acc_parts = qs->partial;
		a.nblocks = &nparts;
	} else {
		cudaError_t e = cudaMemsetAsync(qs->amax, 0, sizeof(float), stream);
		if (e != cudaSuccess)
			return (int)e;
		a.amax_acc = qs->amax;
	}
	a.out = dz;
	a.out_dtype = F8B_BF16;
	int rc = f8b_k_tile_pass(&a, stream);
	if (rc != cudaSuccess)
		return rc;
	a.out = NULL;
	return tensorwise_pass(&a, qs, false, nparts, stream);
}

extern "C" int f8b_k_cast_fused(const void *x, int64_t rows, int64_t cols,
                                const struct f8b_k_qspec *qs, cudaStream_t stream)
{
	if (!x || !qs || !qspec_ok(qs) || rows <= 0 || cols <= 0)
		return (int)cudaErrorInvalidValue;
	bool al = f8b_k_aligned(x, 16) && cols % 8 == 0;
	if (qs->gran != F8B_GRAN_TENSORWISE) {
		if (cols > F8B_LLS_ROW_MAX_COLS)
			return (int)cudaErrorInvalidValue;
		struct f8b_src_bf16 src = {(const uint16_t *)x, cols, al};
		return launch_rows<struct f8b_src_bf16, false>(
		    src, row_params(rows, cols, NULL, qs), stream);
	}
	struct f8b_k_tile_args a;
	memset(&a, 0, sizeof a);
	a.src = F8B_SRC_BF16;
	a.x = x;
	a.rows = rows;
	a.cols = cols;
	int nparts = 0, rc = cudaSuccess;
	if (!qs->scale && !qs->amax_given && qs->partial)
		rc = f8b_k_amax_parts(x, rows * cols, qs->partial, &nparts, stream);
	else if (!qs->scale && !qs->amax_given)
		rc = f8b_k_amax(x, F8B_BF16, rows, cols, F8B_GRAN_TENSORWISE, qs->amax, stream);
	if (rc != cudaSuccess)
		return rc;
	/* amax_given: the scale comes from amax[0] as it is, in one pass */
	return tensorwise_pass(&a, qs, qs->scale != NULL, nparts, stream);
}
