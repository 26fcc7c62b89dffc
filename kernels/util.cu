/* util.cu - a kernel of known duration for the timing harness self-test,
 * and the launch helpers the other kernels share. */
#include "kernels_internal.cuh"

/* %globaltimer: the GPU's nanosecond wall clock (PTX ISA, "Special
 * Registers"); its update granularity is about a microsecond on recent GPUs,
 * far below the milliseconds the self-test spins for. */
static __device__ __forceinline__ uint64_t globaltimer_ns(void)
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* One thread busy-waits: the kernel lasts ns plus launch overhead
 * (microseconds), whatever the clocks do, which is what makes it a ruler
 * for event timing. */
static __global__ void spin_kernel(uint64_t ns)
{
	uint64_t t0 = globaltimer_ns();

	while (globaltimer_ns() - t0 < ns) {
	}
}

extern "C" int f8b_k_spin(uint64_t ns, cudaStream_t stream)
{
	spin_kernel<<<1, 1, 0, stream>>>(ns);
	return (int)cudaGetLastError();
}

/* Reads n16 16-byte words at p (grid-stride), so that the L2 ends up
 * holding these clean lines and nothing else: what was dirty is written
 * back now, not by the next kernel.  The XOR of everything read goes to
 * *sink only if it equals key, which the caller makes impossible: the
 * loads cannot be dropped, and nothing is written. */
static __global__ void __launch_bounds__(F8B_K_THREADS)
    read_flush_kernel(const uint4 *p, int64_t n16, unsigned key, unsigned *sink)
{
	unsigned acc = 0;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
	     i += (int64_t)gridDim.x * blockDim.x) {
		const uint4 w = p[i];
		acc ^= w.x ^ w.y ^ w.z ^ w.w;
	}
	if (acc == key)
		*sink = acc;
}

extern "C" int f8b_k_read_flush(const void *buf, size_t bytes, unsigned key, unsigned *sink,
                                cudaStream_t stream)
{
	unsigned grid;
	int64_t n16 = (int64_t)(bytes / 16);
	int e = f8b_k_grid((n16 + F8B_K_THREADS - 1) / F8B_K_THREADS, 8, &grid);

	if (e != cudaSuccess)
		return e;
	read_flush_kernel<<<grid, F8B_K_THREADS, 0, stream>>>((const uint4 *)buf, n16, key, sink);
	return (int)cudaGetLastError();
}

unsigned f8b_k_parts_grid(unsigned grid, const float *parts, int *nblocks)
{
	if (parts && grid > F8B_CAST_PARTIALS)
		grid = F8B_CAST_PARTIALS;
	if (nblocks)
		*nblocks = (int)grid;
	return grid;
}

int f8b_k_grid(int64_t want, int per_sm, unsigned *grid)
{
	int dev = 0, sms = 0;
	cudaError_t e = cudaGetDevice(&dev);

	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (e != cudaSuccess)
		return (int)e;
	int64_t cap = (int64_t)(sms > 0 ? sms : 1) * per_sm;
	int64_t g = want < cap ? want : cap;
	*grid = (unsigned)(g > 0 ? g : 1);
	return (int)cudaSuccess;
}

struct f8b_k_sgeom f8b_k_scale_geom(int gran, int64_t rows, int64_t cols)
{
	struct f8b_k_sgeom g;

	g.gran = gran;
	g.rows = rows;
	g.cols = cols;
	f8b_scale_shape((enum f8b_granularity)gran, rows, cols, &g.srows, &g.scols);
	return g;
}

/* The stream gate of collective samples (src/backend/cuda_gate.c): one
 * thread waits until the host has written `gen` (or more) into *flag,
 * through mapped pinned memory, so that the work queued behind it starts
 * when the host says rather than when the host finished queueing it.  It
 * gives up after timeout_ns and writes gen into *timed_out, which the host
 * reads when it releases: a gate never holds a GPU for good. */
static __global__ void hold_kernel(const volatile unsigned *flag, unsigned gen, uint64_t timeout_ns,
                                   volatile unsigned *timed_out)
{
	uint64_t t0 = globaltimer_ns();

	/* Wrapping comparison: generations count up and may wrap. */
	while ((int)(*flag - gen) < 0) {
		if (globaltimer_ns() - t0 > timeout_ns) {
			*timed_out = gen;
			return;
		}
		/* A poll every few hundred ns crosses PCIe a few million times
		 * a second at most, and the release is seen within ~1 us. */
		__nanosleep(256);
	}
}

extern "C" int f8b_k_hold(const volatile unsigned *flag, unsigned gen, uint64_t timeout_ns,
                          volatile unsigned *timed_out, cudaStream_t stream)
{
	hold_kernel<<<1, 1, 0, stream>>>(flag, gen, timeout_ns, timed_out);
	return (int)cudaGetLastError();
}
