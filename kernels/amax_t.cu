/* amax_t.cu - amax per block of x^T, read from x [R,C] without forming the
 * transpose (the scales of grad_weight's operands, and of the weight for
 * grad_input, run along x's columns); and the 128x128 amax of x itself,
 * which is the same tile walk with the block index the other way round.
 *
 * A 256-thread block takes a tile of 128 rows x 256 columns: thread (tx,
 * ty) = (t % 32, t / 32) reads the chunk of 8 columns at 8 * tx on rows
 * ty, ty + 8, ... (a warp reads 512 contiguous bytes of one row: coalesced
 * 16-byte loads), keeping a running max per column: for bf16 the loads of
 * 4 rows are issued before any is used and the max is taken two columns
 * at a time on the sign-cleared bits (__vmaxu2); fp32 in 8 registers.  The 8
 * row lanes meet in shared memory, after which thread t owns column t of
 * the tile:
 *   axiswise (one amax per column of x): atomicMax into amax[c];
 *   block1x128 (128x1 strips of x, [C, ceil(R/128)] of x^T): the tile's
 *     128 rows are exactly one strip, so the column max is written once;
 *   block128x128: the tile's 128 rows are one block row and its columns
 *     two whole blocks, so the 4 warps of a block meet in shared memory
 *     and one thread stores the block's amax (no atomics); the tiles of
 *     the first row (x^T: of the first column) also write the zeros of the
 *     layout's row padding.
 * Only axiswise combines tiles, with atomics on an output a
 * cudaMemsetAsync clears first (0 = the amax of nothing), as in amax.cu.
 * (A cooperative launch that cleared it in the kernel, behind a grid
 * barrier overlapping the first tile's loads, timed 12% faster alone at
 * 4096^2 on an H100, but made the axiswise step's CUDA graph 5-10%
 * slower at 4096^2 and 8192^2: doc/kernels.md, results/README.md.)  Tensorwise is
 * amax.cu's own kernel (x and x^T have one amax).  Integer maxima of |x|
 * bits: exact, order-independent, NaN-propagating (kernels_internal.cuh).
 *
 * Bytes: reads x once (2 B per bf16 element), writes the amax tensor.
 */
#include "lls_internal.cuh"

#define TR 128 /* tile rows: one 128-row strip */
#define TC 256 /* tile columns: 32 lanes x 8 */

/* p = max(p, |w|) on the bits of 8 bf16, two per word: clearing the sign
 * leaves an unsigned order equal to |x|'s, NaN above infinity, so the
 * result is the same as the max of f8b_d_abs_bits over the 8 values. */
static __device__ __forceinline__ void absmax2(uint32_t p[4], uint4 w)
{
	p[0] = __vmaxu2(p[0], w.x & 0x7FFF7FFFu);
	p[1] = __vmaxu2(p[1], w.y & 0x7FFF7FFFu);
	p[2] = __vmaxu2(p[2], w.z & 0x7FFF7FFFu);
	p[3] = __vmaxu2(p[3], w.w & 0x7FFF7FFFu);
}

/* What a thread's chunk of 8 columns reads: f32 or bf16 x, or the
 * LayerNorm output formed from bf16 x and its row statistics. */
enum { AT_F32, AT_BF16, AT_LN };

template <int MODE>
static __global__ void __launch_bounds__(F8B_K_THREADS)
    amax_t_kernel(const void *x, const float *mean, const float *rstd, int64_t R, int64_t C,
                  struct f8b_k_sgeom sgt, bool tr, bool vec, float *amax)
{
	__shared__ uint32_t cm[8][TC];
	__shared__ uint32_t wm[F8B_K_THREADS / 32];
	const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
	const int64_t ntc = (C + TC - 1) / TC, nt = (R + TR - 1) / TR * ntc;

	for (int64_t t = blockIdx.x; t < nt; t += gridDim.x) {
		const int64_t rb = t / ntc, r0 = rb * TR, c0 = t % ntc * TC;
		const int64_t c = c0 + tx * 8, th = min((int64_t)TR, R - r0);
		const int len = c < C ? (int)min((int64_t)8, C - c) : 0;
		int64_t rr = len > 0 ? ty : th; /* rows ty, ty + 8, ... of the tile */
		uint32_t m[8] = {0, 0, 0, 0, 0, 0, 0, 0};

		if constexpr (MODE == AT_BF16) {
			/* |x| bits, two columns per word, 4 rows' loads in flight */
			const uint16_t *xs = (const uint16_t *)x + r0 * C + c;
			uint32_t p[4] = {0, 0, 0, 0};
			for (; rr + 24 < th; rr += 32) {
				uint4 w[4];
#pragma unroll
				for (int u = 0; u < 4; u++)
					w[u] = f8b_lls_ld_raw(xs + (rr + 8 * u) * C, len, vec);
#pragma unroll
				for (int u = 0; u < 4; u++)
					absmax2(p, w[u]);
			}
			for (; rr < th; rr += 8)
				absmax2(p, f8b_lls_ld_raw(xs + rr * C, len, vec));
			for (int j = 0; j < 4; j++) { /* the widened bf16 bits */
				m[2 * j] = (p[j] & 0xFFFFu) << 16;
				m[2 * j + 1] = p[j] & 0xFFFF0000u;
			}
		} else if constexpr (MODE == AT_LN) {
			/* the values layernorm_fwd's y holds, 4 rows' loads in flight;
			 * columns past len are not values (their words load as 0) */
			const struct f8b_src_ln src = {(const uint16_t *)x, mean, rstd, C, vec};
			for (; rr + 24 < th; rr += 32) {
				f8b_src_ln::raw_t w[4];
#pragma unroll
				for (int u = 0; u < 4; u++)
					src.load(r0 + rr + 8 * u, c, len, w[u]);
#pragma unroll
				for (int u = 0; u < 4; u++) {
					float v[8];
					src.val(w[u], v);
					for (int j = 0; j < 8; j++)
						m[j] =
						    max(m[j], j < len ? f8b_d_abs_bits(v[j]) : 0u);
				}
			}
			for (; rr < th; rr += 8) {
				f8b_src_ln::raw_t w;
				float v[8];
				src.load(r0 + rr, c, len, w);
				src.val(w, v);
				for (int j = 0; j < 8; j++)
					m[j] = max(m[j], j < len ? f8b_d_abs_bits(v[j]) : 0u);
			}
		} else {
			for (; rr < th; rr += 8) {
				float v[8];
				f8b_lls_ld((const float *)x + (r0 + rr) * C + c, len, vec, v);
				for (int j = 0; j < 8; j++)
					m[j] = max(m[j], f8b_d_abs_bits(v[j]));
			}
		}
		for (int j = 0; j < 8; j++)
			cm[ty][tx * 8 + j] = m[j];
		__syncthreads();
		uint32_t col = 0;
		for (int k = 0; k < 8; k++)
			col = max(col, cm[k][threadIdx.x]);
		const int64_t cc = c0 + threadIdx.x; /* this thread's column */
		if (sgt.gran == F8B_GRAN_AXISWISE) {
			if (cc < C && col)
				atomicMax((unsigned int *)amax + f8b_d_scale_index(sgt, cc, 0),
				          col);
		} else if (sgt.gran == F8B_GRAN_BLOCK1X128) {
			if (cc < C)
				amax[f8b_d_scale_index(sgt, cc, rb)] = __uint_as_float(col);
		} else {
			/* 32 consecutive columns never straddle a 128 block: a
			 * warp max, then the block's 4 warps */
			col = __reduce_max_sync(F8B_K_FULL_MASK, col);
			if ((threadIdx.x & 31) == 0)
				wm[threadIdx.x / 32] = col;
			__syncthreads();
			const int k = threadIdx.x; /* block k of the tile */
			const int64_t kb = c0 / F8B_BLOCK + k;
			if (k < TC / F8B_BLOCK && kb * F8B_BLOCK < C) {
				const uint32_t b = max(max(wm[4 * k], wm[4 * k + 1]),
				                       max(wm[4 * k + 2], wm[4 * k + 3]));
				/* x^T's block (kb, rb), or x's (rb, kb) */
				const int64_t br = tr ? kb : rb, bc = tr ? rb : kb;
				amax[f8b_d_scale_index(sgt, br, bc)] = __uint_as_float(b);
				if (bc == 0) /* the row's padding entries */
					for (int64_t j = sgt.scols; j % 4; j++)
						amax[f8b_d_scale_index(sgt, br, j)] = 0.0f;
			}
		}
		__syncthreads(); /* cm is rewritten by the next tile */
	}
}

/* amax of x^T (tr) or, for 128x128 only, of x. */
template <int MODE>
static int launch(const void *x, const float *mean, const float *rstd, int64_t R, int64_t C,
                  int gran, bool tr, float *amax, cudaStream_t stream)
{
	struct f8b_k_sgeom sg = tr ? f8b_k_scale_geom(gran, C, R) : f8b_k_scale_geom(gran, R, C);
	int64_t tiles = (R + TR - 1) / TR * ((C + TC - 1) / TC);
	bool vec = f8b_k_aligned(x, 16) && C % 8 == 0;
	unsigned grid;
	int e;

	if (gran == F8B_GRAN_AXISWISE &&
	    (e = (int)cudaMemsetAsync(amax, 0, (size_t)C * sizeof(float), stream)) != cudaSuccess)
		return e;
	if ((e = f8b_k_grid(tiles, 8, &grid)) != cudaSuccess)
		return e;
	amax_t_kernel<MODE>
	    <<<grid, F8B_K_THREADS, 0, stream>>>(x, mean, rstd, R, C, sg, tr, vec, amax);
	return (int)cudaGetLastError();
}

int f8b_k_amax_128(const void *x, int dtype, int64_t rows, int64_t cols, float *amax,
                   cudaStream_t stream)
{
	const int g = F8B_GRAN_BLOCK128X128;
	switch (dtype) {
	case F8B_BF16: return launch<AT_BF16>(x, NULL, NULL, rows, cols, g, false, amax, stream);
	case F8B_F32: return launch<AT_F32>(x, NULL, NULL, rows, cols, g, false, amax, stream);
	default: return (int)cudaErrorInvalidValue;
	}
}

extern "C" int f8b_k_amax_t(const void *x, int dtype, int64_t rows, int64_t cols, int gran,
                            float *amax, cudaStream_t stream)
{
	if ((unsigned)gran >= F8B_GRAN_COUNT || !amax || (rows > 0 && cols > 0 && !x))
		return (int)cudaErrorInvalidValue;
	if (gran == F8B_GRAN_TENSORWISE) /* one amax for x and x^T */
		return f8b_k_amax(x, dtype, rows, cols, gran, amax, stream);
	if (rows <= 0 || cols <= 0)
		return (int)cudaSuccess;
	switch (dtype) {
	case F8B_BF16: return launch<AT_BF16>(x, NULL, NULL, rows, cols, gran, true, amax, stream);
	case F8B_F32: return launch<AT_F32>(x, NULL, NULL, rows, cols, gran, true, amax, stream);
	default: return (int)cudaErrorInvalidValue;
	}
}

extern "C" int f8b_k_amax_t_ln(const void *x, const float *mean, const float *rstd, int64_t rows,
                               int64_t cols, int gran, float *amax, cudaStream_t stream)
{
	if ((unsigned)gran >= F8B_GRAN_COUNT || !amax ||
	    (rows > 0 && cols > 0 && (!x || !mean || !rstd)))
		return (int)cudaErrorInvalidValue;
	if (rows <= 0 || cols <= 0)
		return (int)cudaSuccess;
	if (gran == F8B_GRAN_TENSORWISE) { /* the tile pass, no outputs, amax only */
		struct f8b_k_tile_args a;
		cudaError_t e = cudaMemsetAsync(amax, 0, sizeof(float), stream);
		if (e != cudaSuccess)
			return (int)e;
		memset(&a, 0, sizeof a);
		a.src = F8B_SRC_LN;
		a.x = x;
		a.mean = mean;
		a.rstd = rstd;
		a.rows = rows;
		a.cols = cols;
		a.gran = gran;
		a.amax_acc = amax;
		return f8b_k_tile_pass(&a, stream);
	}
	return launch<AT_LN>(x, mean, rstd, rows, cols, gran, true, amax, stream);
}
