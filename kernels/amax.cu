/* amax.cu - max |x| per scaling block, one pass over x.
 *
 * Every granularity reads each element once, 8 at a time ("a chunk": one
 * 16-byte load of bf16, two of f32) where alignment allows, and reduces
 * |x| as fp32 bit patterns with an unsigned max (kernels_internal.cuh says
 * why that is the numeric max and keeps NaN).  Integer maxima are exact and
 * order-independent, so any split of the work gives the host's bits.
 *
 *   tensorwise    grid-stride over the flat tensor, block reduction, one
 *                 atomicMax per block on the output's bits (zeroed first by
 *                 a cudaMemsetAsync in the same stream: no host sync).
 *   axiswise      one warp per row (cols <= 1024) or one 256-thread block
 *                 per row (longer rows need more loads in flight).
 *   block1x128    16 threads per (row, 128-column block): 16 x 8 = 128.
 *   block128x128  amax_t.cu's tile walk (128 rows x 256 columns a tile,
 *                 grid-stride, 4 rows' loads in flight), storing the
 *                 block at (br, bc) rather than x^T's (bc, br).  The
 *                 tiles kernel below, with one block per 128x128 tile,
 *                 read W of 8192^2 at 78% of the copy bandwidth on an
 *                 H100; the tile walk at 84%.
 *
 * Axiswise and block1x128 are one kernel, "tiles": a tile is one row's
 * run of tw columns (the row, or 128 of it), reduced by a group of G
 * threads, each taking every G-th chunk.
 */
#include "kernels_internal.cuh"

/* Chunks are 8 elements, 16 B of bf16: one ld.global.v4.u32. */
#define CHUNK 8

/* max |x| bits over len <= CHUNK elements at p; vec: p is 16-byte aligned
 * and len == CHUNK, so the chunk is read with vector loads. */
static __device__ __forceinline__ uint32_t chunk_amax(const uint16_t *p, int64_t len, bool vec)
{
	uint32_t m = 0;

	if (vec) {
		uint4 v = *(const uint4 *)p;
		/* per-halfword unsigned max of the sign-cleared bf16 pairs */
		uint32_t h = __vmaxu2(__vmaxu2(v.x & 0x7FFF7FFFu, v.y & 0x7FFF7FFFu),
		                      __vmaxu2(v.z & 0x7FFF7FFFu, v.w & 0x7FFF7FFFu));
		return max(h & 0xFFFFu, h >> 16) << 16;
	}
	for (int64_t j = 0; j < len; j++)
		m = max(m, f8b_d_abs_bits(p[j]));
	return m;
}

static __device__ __forceinline__ uint32_t chunk_amax(const float *p, int64_t len, bool vec)
{
	uint32_t m = 0;

	if (vec) {
		uint4 a = *(const uint4 *)p, b = *(const uint4 *)(p + 4);
		m = max(max(a.x & 0x7FFFFFFFu, a.y & 0x7FFFFFFFu),
		        max(a.z & 0x7FFFFFFFu, a.w & 0x7FFFFFFFu));
		return max(m, max(max(b.x & 0x7FFFFFFFu, b.y & 0x7FFFFFFFu),
		                  max(b.z & 0x7FFFFFFFu, b.w & 0x7FFFFFFFu)));
	}
	for (int64_t j = 0; j < len; j++)
		m = max(m, f8b_d_abs_bits(p[j]));
	return m;
}

/* Tensorwise: vec means x is 16-byte aligned, so every flat chunk (starting
 * at a multiple of 8 elements) is too; only the last may be short. */
template <typename T>
static __global__ void __launch_bounds__(F8B_K_THREADS)
    amax_flat_kernel(const T *x, int64_t n, bool vec, float *amax, float *parts)
{
	__shared__ uint32_t smem[F8B_K_THREADS / 32];
	int64_t nch = (n + CHUNK - 1) / CHUNK;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	uint32_t m = 0;

	for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nch; k += stride) {
		int64_t len = min((int64_t)CHUNK, n - k * CHUNK);
		m = max(m, chunk_amax(x + k * CHUNK, len, vec && len == CHUNK));
	}
	m = f8b_d_group_max(m, F8B_K_THREADS, smem);
	if (threadIdx.x == 0)
		f8b_d_put_block_max(m, amax, parts);
}

struct tile_shape {
	int64_t tw; /* tile width: 128 or cols (a tile is one row's run) */
	int g;      /* threads per tile */
};

/* One tile per group of ts.g threads, F8B_K_THREADS / ts.g groups per block.
 * vec: x is 16-byte aligned and a row is a multiple of 16 bytes, so every
 * chunk starting at a multiple of 8 columns is aligned; a chunk cut short
 * by the tile's (ragged) end falls back to scalar loads. */
template <typename T>
static __global__ void __launch_bounds__(F8B_K_THREADS)
    amax_tiles_kernel(const T *x, struct f8b_k_sgeom sg, struct tile_shape ts, bool vec,
                      float *amax)
{
	__shared__ uint32_t smem[F8B_K_THREADS / 32];
	int64_t tile = (int64_t)blockIdx.x * (F8B_K_THREADS / ts.g) + threadIdx.x / ts.g;
	int lane = threadIdx.x % ts.g;
	bool valid = tile < sg.srows * sg.scols;
	int64_t br = 0, bc = 0, tw = 0;
	uint32_t m = 0;

	if (valid) {
		/* Tiles in row-major order: neighbouring groups read
		 * neighbouring memory. */
		br = tile / sg.scols;
		bc = tile % sg.scols;
		tw = min(ts.tw, sg.cols - bc * ts.tw);
	}
	/* An invalid tile has tw = 0: its threads skip the loads but still
	 * take part in the group reduction below, which needs every thread. */
	const T *row = x + br * sg.cols + bc * ts.tw;
	for (int64_t cc = (int64_t)lane * CHUNK; cc < tw; cc += (int64_t)ts.g * CHUNK) {
		int64_t len = min((int64_t)CHUNK, tw - cc);
		m = max(m, chunk_amax(row + cc, len, vec && len == CHUNK));
	}
	m = f8b_d_group_max(m, ts.g, smem);
	if (valid && lane == 0)
		amax[f8b_d_scale_index(sg, br, bc)] = __uint_as_float(m);
}

template <typename T>
static int launch(const T *x, int64_t rows, int64_t cols, int gran, float *amax,
                  cudaStream_t stream)
{
	struct f8b_k_sgeom sg = f8b_k_scale_geom(gran, rows, cols);
	int64_t count = f8b_scale_count((enum f8b_granularity)gran, rows, cols);
	int64_t n = rows > 0 && cols > 0 ? rows * cols : 0;
	cudaError_t e;

	/* Tensorwise accumulates with atomicMax, so its output starts at 0
	 * (the amax of nothing); other granularities write every real entry,
	 * so only padding (none in today's layout) or an empty tensor needs
	 * the memset. */
	if (count > 0 && (gran == F8B_GRAN_TENSORWISE || n == 0 || count > sg.srows * sg.scols)) {
		e = cudaMemsetAsync(amax, 0, (size_t)count * sizeof(float), stream);
		if (e != cudaSuccess)
			return (int)e;
	}
	if (n == 0)
		return (int)cudaSuccess;

	if (gran == F8B_GRAN_TENSORWISE) {
		unsigned grid;
		/* One chunk per thread per sweep; 8 resident blocks per SM
		 * keep 32 KiB (bf16) to 64 KiB (f32) of loads in flight per
		 * SM, more than the ~15 KiB Little's law asks for at 3.35 TB/s
		 * and ~600 ns on H100. */
		int64_t nch = (n + CHUNK - 1) / CHUNK;
		int rc = f8b_k_grid((nch + F8B_K_THREADS - 1) / F8B_K_THREADS, 8, &grid);

		if (rc != cudaSuccess)
			return rc;
		amax_flat_kernel<T>
		    <<<grid, F8B_K_THREADS, 0, stream>>>(x, n, f8b_k_aligned(x, 16), amax, NULL);
		return (int)cudaGetLastError();
	}

	struct tile_shape ts;
	switch (gran) {
	case F8B_GRAN_AXISWISE:
		/* short rows: a warp, 32 chunks (256 bf16) per sweep; long
		 * rows: a block, so one row keeps 256 loads in flight */
		ts.tw = cols;
		ts.g = cols <= 1024 ? 32 : F8B_K_THREADS;
		break;
	case F8B_GRAN_BLOCK1X128:
		ts.tw = F8B_BLOCK;
		ts.g = 16; /* 16 x 8 = 128 columns: one chunk each */
		break;
	default: return (int)cudaErrorInvalidValue;
	}
	int64_t tiles = sg.srows * sg.scols, per_block = F8B_K_THREADS / ts.g;
	int64_t blocks = (tiles + per_block - 1) / per_block;
	bool vec = f8b_k_aligned(x, 16) && (cols * (int64_t)sizeof(T)) % 16 == 0;

	if (blocks > INT32_MAX) /* 2^31 - 1 blocks: gridDim.x's limit */
		return (int)cudaErrorInvalidConfiguration;
	amax_tiles_kernel<T><<<(unsigned)blocks, F8B_K_THREADS, 0, stream>>>(x, sg, ts, vec, amax);
	return (int)cudaGetLastError();
}

extern "C" int f8b_k_amax(const void *x, int dtype, int64_t rows, int64_t cols, int gran,
                          float *amax, cudaStream_t stream)
{
	if ((unsigned)gran >= F8B_GRAN_COUNT || !amax || (rows > 0 && cols > 0 && !x))
		return (int)cudaErrorInvalidValue;
	if (gran == F8B_GRAN_BLOCK128X128 && rows > 0 && cols > 0 &&
	    (dtype == F8B_BF16 || dtype == F8B_F32))
		return f8b_k_amax_128(x, dtype, rows, cols, amax, stream);
	switch (dtype) {
	case F8B_BF16: return launch((const uint16_t *)x, rows, cols, gran, amax, stream);
	case F8B_F32: return launch((const float *)x, rows, cols, gran, amax, stream);
	default: return (int)cudaErrorInvalidValue;
	}
}

/* Pass 1 of a dynamic tensorwise cast of bf16 x with block maxima
 * (f8b_cast_spec.partial): each block's max |x| into parts[block], the
 * number of blocks into *nparts; no memset. */
int f8b_k_amax_parts(const void *x, int64_t n, float *parts, int *nparts, cudaStream_t stream)
{
	unsigned grid;
	int64_t nch = (n + CHUNK - 1) / CHUNK;
	int rc = f8b_k_grid((nch + F8B_K_THREADS - 1) / F8B_K_THREADS, 8, &grid);

	if (rc != cudaSuccess)
		return rc;
	grid = f8b_k_parts_grid(grid, parts, nparts);
	amax_flat_kernel<uint16_t><<<grid, F8B_K_THREADS, 0, stream>>>(
	    (const uint16_t *)x, n, f8b_k_aligned(x, 16), NULL, parts);
	return (int)cudaGetLastError();
}
