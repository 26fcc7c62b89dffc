/* amax_t.cu - amax per block of x^T, read from x [R,C] without forming the
 * transpose (the scales of grad_weight's operands, and of the weight for
 * grad_input, run along x's columns).
 *
 * A 256-thread block takes a tile of 128 rows x 256 columns: thread (tx,
 * ty) = (t % 32, t / 32) reads the chunk of 8 columns at 8 * tx on rows
 * ty, ty + 8, ... (a warp reads 512 contiguous bytes of one row: coalesced
 * 16-byte loads), keeping a running max per column in 8 registers.  The 8
 * row lanes meet in shared memory, after which thread t owns column t of
 * the tile:
 *   axiswise (one amax per column of x): atomicMax into amax[c];
 *   block1x128 (128x1 strips of x, [C, ceil(R/128)] of x^T): the tile's
 *     128 rows are exactly one strip, so the column max is written once;
 *   block128x128: a warp reduction over 32 columns, then an atomicMax per
 *     warp into the 128x128 block's entry (4 per block and tile).
 * Outputs built with atomics start from a cudaMemsetAsync (0 = amax of
 * nothing), as in amax.cu; tensorwise is amax.cu's own kernel (x and x^T
 * have one amax).  Integer maxima of |x| bits: exact, order-independent,
 * NaN-propagating (kernels_internal.cuh).
 *
 * Bytes: reads x once (2 B per bf16 element), writes the amax tensor.
 */
#include "lls_internal.cuh"

#define TR 128 /* tile rows: one 128-row strip */
#define TC 256 /* tile columns: 32 lanes x 8 */

template <typename T>
static __global__ void __launch_bounds__(F8B_K_THREADS)
    amax_t_kernel(const T *x, int64_t R, int64_t C, struct f8b_k_sgeom sgt, bool vec, float *amax)
{
	__shared__ uint32_t cm[8][TC];
	const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
	const int64_t ntc = (C + TC - 1) / TC, nt = (R + TR - 1) / TR * ntc;

	for (int64_t t = blockIdx.x; t < nt; t += gridDim.x) {
		const int64_t rb = t / ntc, r0 = rb * TR, c0 = t % ntc * TC;
		const int64_t c = c0 + tx * 8, th = min((int64_t)TR, R - r0);
		const int len = c < C ? (int)min((int64_t)8, C - c) : 0;
		uint32_t m[8] = {0, 0, 0, 0, 0, 0, 0, 0};

		if (len > 0) {
			for (int64_t rr = ty; rr < th; rr += 8) {
				float v[8];
				f8b_lls_ld(x + (r0 + rr) * C + c, len, vec, v);
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
			/* 32 consecutive columns never straddle a 128 block */
			col = __reduce_max_sync(F8B_K_FULL_MASK, col);
			if ((threadIdx.x & 31) == 0 && cc < C && col)
				atomicMax((unsigned int *)amax +
				              f8b_d_scale_index(sgt, cc / F8B_BLOCK, rb),
				          col);
		}
		__syncthreads(); /* cm is rewritten by the next tile */
	}
}

template <typename T>
static int launch(const T *x, int64_t R, int64_t C, int gran, float *amax, cudaStream_t stream)
{
	struct f8b_k_sgeom sgt = f8b_k_scale_geom(gran, C, R);
	int64_t count = f8b_scale_count((enum f8b_granularity)gran, C, R);
	unsigned grid;

	if (gran != F8B_GRAN_BLOCK1X128 || count > sgt.srows * sgt.scols) {
		cudaError_t e = cudaMemsetAsync(amax, 0, (size_t)count * sizeof(float), stream);
		if (e != cudaSuccess)
			return (int)e;
	}
	int64_t tiles = (R + TR - 1) / TR * ((C + TC - 1) / TC);
	int e = f8b_k_grid(tiles, 8, &grid);
	if (e != cudaSuccess)
		return e;
	bool vec = f8b_k_aligned(x, 16) && C % 8 == 0;
	amax_t_kernel<T><<<grid, F8B_K_THREADS, 0, stream>>>(x, R, C, sgt, vec, amax);
	return (int)cudaGetLastError();
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
	case F8B_BF16: return launch((const uint16_t *)x, rows, cols, gran, amax, stream);
	case F8B_F32: return launch((const float *)x, rows, cols, gran, amax, stream);
	default: return (int)cudaErrorInvalidValue;
	}
}
