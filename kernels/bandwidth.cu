/* bandwidth.cu - the memory-bandwidth kernels of `f8bench ceilings` (read,
 * write, copy) and the empty kernel whose launch cost is the roofline's
 * launch term.
 *
 * Access pattern: 16-byte vectors (ld/st .v2.u64), grid-stride, with four
 * independent accesses in flight per thread per iteration: with 2048
 * resident threads per SM that is 128 KiB in flight per SM, far above what
 * Little's law asks of HBM (3.35 TB/s x ~0.7 us latency ~ 2.3 MB over 132
 * SMs, ~18 KiB per SM).
 *
 * Passes: one launch sweeps the buffer `passes` times so a working set that
 * fits in L2 is timed from L2 and the ~2-4 us launch cost is spread over at
 * least the driver's per-launch byte count (ERT sweeps its working sets the
 * same way).  The passes are flattened into one index space of
 * passes * n vectors, so every thread keeps four accesses in flight even
 * when the buffer is smaller than the grid (1 MiB = 64 Ki vectors against
 * 132 x 2048 = 270 Ki threads on an H100); vector g of that space is
 * vector g mod n of the buffer, so each vector is touched exactly `passes`
 * times.
 *
 * Loads are ld.global.cg (cache in L2, not L1): a thread sees the same
 * addresses on every pass, and L1 hits would measure L1, not L2.  Loads
 * and stores are volatile asm so the compiler can neither merge the passes'
 * repeated loads nor drop the earlier passes' stores as dead.
 */
#include "kernels_internal.cuh"

#define UNROLL 4

static __device__ __forceinline__ ulonglong2 ld_cg(const ulonglong2 *p)
{
	ulonglong2 v;

	asm volatile("ld.global.cg.v2.u64 {%0, %1}, [%2];" : "=l"(v.x), "=l"(v.y) : "l"(p));
	return v;
}

static __device__ __forceinline__ void st_wb(ulonglong2 *p, ulonglong2 v)
{
	asm volatile("st.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.x), "l"(v.y) : "memory");
}

/* Walk of one thread over the flattened space [0, total): position g and
 * its buffer index i = g mod n, advanced by the grid stride without a
 * 64-bit division per step (smod = stride mod n < n, so one subtraction
 * wraps it). */
struct walk {
	int64_t g, i, stride, smod, n, total;
};

static __device__ __forceinline__ struct walk walk_start(int64_t n, int passes)
{
	struct walk w;

	w.stride = (int64_t)gridDim.x * blockDim.x;
	w.g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	w.n = n;
	w.total = n * passes;
	w.i = w.g % n;
	w.smod = w.stride % n;
	return w;
}

static __device__ __forceinline__ int64_t walk_next(struct walk &w)
{
	int64_t i = w.i;

	w.g += w.stride;
	w.i += w.smod;
	if (w.i >= w.n)
		w.i -= w.n;
	return i;
}

static __global__ void __launch_bounds__(F8B_K_THREADS)
    bw_read_kernel(const ulonglong2 *src, int64_t n, int passes, uint64_t *partial)
{
	__shared__ uint64_t warp_sum[F8B_K_THREADS / 32];
	struct walk w = walk_start(n, passes);
	uint64_t s0 = 0, s1 = 0;

	while (w.g + (UNROLL - 1) * w.stride < w.total) {
		int64_t i0 = walk_next(w), i1 = walk_next(w), i2 = walk_next(w), i3 = walk_next(w);
		ulonglong2 a = ld_cg(src + i0), b = ld_cg(src + i1);
		ulonglong2 c = ld_cg(src + i2), d = ld_cg(src + i3);

		s0 += a.x + b.x + c.x + d.x;
		s1 += a.y + b.y + c.y + d.y;
	}
	while (w.g < w.total) {
		ulonglong2 a = ld_cg(src + walk_next(w));

		s0 += a.x;
		s1 += a.y;
	}

	/* Integer sums wrap mod 2^64 in any order, so the block's partial is
	 * exact and the host can check it against its own sum of the words. */
	uint64_t s = s0 + s1;
	for (int o = 16; o > 0; o /= 2)
		s += __shfl_xor_sync(F8B_K_FULL_MASK, s, o);
	if ((threadIdx.x & 31) == 0)
		warp_sum[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		uint64_t t = 0;
		for (int k = 0; k < F8B_K_THREADS / 32; k++)
			t += warp_sum[k];
		partial[blockIdx.x] = t;
	}
	/* Slots of blocks this grid does not have read as zero. */
	if (blockIdx.x == 0)
		for (int j = gridDim.x + threadIdx.x; j < F8B_BW_PARTIALS; j += blockDim.x)
			partial[j] = 0;
}

static __global__ void __launch_bounds__(F8B_K_THREADS)
    bw_write_kernel(ulonglong2 *dst, int64_t n, int passes, uint64_t value)
{
	struct walk w = walk_start(n, passes);
	ulonglong2 v = make_ulonglong2(value, value);

	while (w.g + (UNROLL - 1) * w.stride < w.total) {
		int64_t i0 = walk_next(w), i1 = walk_next(w), i2 = walk_next(w), i3 = walk_next(w);

		st_wb(dst + i0, v);
		st_wb(dst + i1, v);
		st_wb(dst + i2, v);
		st_wb(dst + i3, v);
	}
	while (w.g < w.total)
		st_wb(dst + walk_next(w), v);
}

static __global__ void __launch_bounds__(F8B_K_THREADS)
    bw_copy_kernel(ulonglong2 *dst, const ulonglong2 *src, int64_t n, int passes)
{
	struct walk w = walk_start(n, passes);

	while (w.g + (UNROLL - 1) * w.stride < w.total) {
		int64_t i0 = walk_next(w), i1 = walk_next(w), i2 = walk_next(w), i3 = walk_next(w);
		ulonglong2 a = ld_cg(src + i0), b = ld_cg(src + i1);
		ulonglong2 c = ld_cg(src + i2), d = ld_cg(src + i3);

		st_wb(dst + i0, a);
		st_wb(dst + i1, b);
		st_wb(dst + i2, c);
		st_wb(dst + i3, d);
	}
	while (w.g < w.total) {
		int64_t i = walk_next(w);

		st_wb(dst + i, ld_cg(src + i));
	}
}

static __global__ void empty_kernel(void)
{
}

/* Grid for `vectors` 16-byte accesses: 8 resident 256-thread blocks per SM
 * (2048 threads, the SM's limit on sm_80..sm_90), fewer when there is less
 * work, never more than the read kernel has partial-sum slots. */
static int bw_grid(int64_t vectors, unsigned *grid)
{
	int e = f8b_k_grid((vectors + F8B_K_THREADS - 1) / F8B_K_THREADS, 8, grid);

	if (e == cudaSuccess && *grid > F8B_BW_PARTIALS)
		*grid = F8B_BW_PARTIALS;
	return e;
}

/* Arguments every bandwidth launcher takes: sizes in whole vectors, the
 * flattened space within int64, 16-byte aligned pointers. */
static bool bw_args_ok(const void *a, const void *b, int64_t bytes, int passes)
{
	int64_t total;

	if (bytes <= 0 || bytes % 16 || passes < 1 || !a || !f8b_k_aligned(a, 16) ||
	    (b && !f8b_k_aligned(b, 16)))
		return false;
	return !f8b_mul_overflows(bytes / 16, passes, &total);
}

extern "C" int f8b_k_bw_read(const void *src, int64_t bytes, int passes, uint64_t *partial,
                             cudaStream_t stream)
{
	unsigned grid;
	int e;

	if (!bw_args_ok(src, NULL, bytes, passes) || !partial)
		return (int)cudaErrorInvalidValue;
	e = bw_grid(bytes / 16 * passes, &grid);
	if (e != cudaSuccess)
		return e;
	bw_read_kernel<<<grid, F8B_K_THREADS, 0, stream>>>((const ulonglong2 *)src, bytes / 16,
	                                                   passes, partial);
	return (int)cudaGetLastError();
}

extern "C" int f8b_k_bw_write(void *dst, int64_t bytes, int passes, uint64_t value,
                              cudaStream_t stream)
{
	unsigned grid;
	int e;

	if (!bw_args_ok(dst, NULL, bytes, passes))
		return (int)cudaErrorInvalidValue;
	e = bw_grid(bytes / 16 * passes, &grid);
	if (e != cudaSuccess)
		return e;
	bw_write_kernel<<<grid, F8B_K_THREADS, 0, stream>>>((ulonglong2 *)dst, bytes / 16, passes,
	                                                    value);
	return (int)cudaGetLastError();
}

extern "C" int f8b_k_bw_copy(void *dst, const void *src, int64_t bytes, int passes,
                             cudaStream_t stream)
{
	unsigned grid;
	int e;

	if (!bw_args_ok(dst, src, bytes, passes) || !src)
		return (int)cudaErrorInvalidValue;
	e = bw_grid(bytes / 16 * passes, &grid);
	if (e != cudaSuccess)
		return e;
	bw_copy_kernel<<<grid, F8B_K_THREADS, 0, stream>>>(
	    (ulonglong2 *)dst, (const ulonglong2 *)src, bytes / 16, passes);
	return (int)cudaGetLastError();
}

extern "C" int f8b_k_empty(cudaStream_t stream)
{
	empty_kernel<<<1, 1, 0, stream>>>();
	return (int)cudaGetLastError();
}
