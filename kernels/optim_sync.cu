/* optim_sync.cu - dynamic-sync's fused pass (doc/optim.md "One launch
 * with a grid barrier"): dynamic scaling's exact amax and its cast in one
 * cooperative launch, where `dynamic` takes two launches.
 *
 * The grid is as many CTAs as are resident at once (the occupancy of this
 * kernel times the SMs; at most the chunks), each taking chunks
 * blockIdx.x, + gridDim.x, + 2 gridDim.x, ... of the same list as the
 * other passes, in three phases:
 *
 *   1. the update and the exact amax of its chunks (optim_span.cuh, the
 *      fused pass's code without the cast);
 *   2. after a grid barrier (every amax atomic is in), the fold: each
 *      slot by one thread of the grid (f8b_optim_fold, as the last CTA
 *      of the two-pass kernel does it), so the new scales are written;
 *   3. after a second barrier, the cast of its chunks from the master
 *      weight just written, last chunk first (the most recently written
 *      lines are the likeliest still in L2).  A chunk goes to the same
 *      CTA, warp and lane as in phase 1, so a thread reads back what it
 *      wrote itself.
 *
 * Then the ticket of every pass: the last CTA closes the step's counters.
 * The bytes are those of dynamic's two passes (the master is read again);
 * the difference is one launch against two, and the grid barriers
 * against a kernel boundary.  The same operations on the same values as
 * dynamic's two passes, so the same bits (host_optim.c runs exactly
 * those two passes as its reference).
 *
 * No CTA leaves before a barrier: a CTA with fewer chunks (or none) walks
 * fewer and still arrives.  The barriers cannot deadlock because a
 * cooperative launch starts only when every CTA can be resident
 * (cudaErrorCooperativeLaunchTooLarge otherwise), and the grid is sized
 * so that they are.
 */
#include "optim_span.cuh"

namespace
{

/* The k-th grid barrier of a pass: thread 0 of every CTA, after the CTA's
 * own barrier, adds one to the op's barrier count with release semantics
 * and waits, by acquire loads, until the count reaches target = k *
 * gridDim.x.  Every write and atomic a CTA made before the barrier is
 * then visible to every thread of every CTA after it: the CTA barrier
 * orders its threads before thread 0's release and after thread 0's
 * acquire (the pattern of cooperative groups' grid sync on sm_70+).  The
 * count only grows within a pass, so no CTA can miss a barrier's end by
 * a reset; the pass's last CTA puts it back to 0 (pass_close) once every
 * CTA has left its last barrier (it took its ticket after). */
__device__ __forceinline__ void grid_barrier(unsigned long long *count, unsigned long long target)
{
	/* each thread's own writes and atomics ordered at GPU scope first:
	 * the release below would cover them through the CTA barrier, but
	 * this costs one fence a thread a barrier and leans on nothing */
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("red.release.gpu.add.u64 [%0], 1;" ::"l"(count) : "memory");
		unsigned long long seen;
		do {
			asm volatile("ld.acquire.gpu.u64 %0, [%1];"
			             : "=l"(seen)
			             : "l"(count)
			             : "memory");
		} while (seen < target);
	}
	__syncthreads();
}

template <int V, bool AX>
__global__ void __launch_bounds__(F8B_K_THREADS, span_of<V>::MINB)
    optim_sync_kernel(const f8b_optim_args a)
{
	__shared__ uint32_t smem[8];
	__shared__ unsigned long long counts[3]; /* nonfinite, saturated, clipped */
	__shared__ int last;
	if (threadIdx.x < 3)
		counts[threadIdx.x] = 0;
	__syncthreads();

	const uint64_t t = a.ctr[F8B_OPTIM_CTR_STEP];
	const f8b_optim_hyper h = a.hyper[f8b_optim_hyper_index(t, a.nhyper)];
	const int64_t G = gridDim.x, first = blockIdx.x;
	lane_acc acc = {0, 0, 0, 0};

	/* 1. the update and the exact amax of this CTA's chunks */
	for (int64_t c = first; c < a.nchunks; c += G) {
		const f8b_optim_chunk ch = a.chunks[c];
		const f8b_optim_tensor T = a.tensors[ch.tensor];
		chunk_walk<V, true, true, false, AX>(a, h, t, ch, T, 0.0f, acc);
		if (!AX)
			cta_amax(a, T, acc, smem);
	}
	grid_barrier(ctr_at(a, F8B_OPTIM_CTR_BARRIER), (unsigned long long)G);

	/* 2. the fold of every slot, spread over the grid: amax_last, the
	 * scale this step's cast uses and the next (the same for dynamic),
	 * amax_acc back to 0; from L2, where the atomics went */
	/* the step read again: nothing writes it before the pass's end, and
	 * t kept in a register through phase 1 made fp32's axiswise kernel
	 * spill (64 registers, 4 CTAs an SM) */
	const uint64_t tn = a.ctr[F8B_OPTIM_CTR_STEP] + 1;
	const f8b_optim_hyper *hn = &a.hyper[f8b_optim_hyper_index(tn, a.nhyper)];
	const int p = f8b_optim_ring(&a, tn);
	for (int64_t s = first * F8B_K_THREADS + threadIdx.x; s < a.nslots;
	     s += G * F8B_K_THREADS) {
		const float am =
		    __uint_as_float(atomicExch(reinterpret_cast<unsigned *>(a.amax_acc) + s, 0u));
		f8b_optim_fold(&a, hn, s, am, a.scale[s], p);
	}
	grid_barrier(ctr_at(a, F8B_OPTIM_CTR_BARRIER), 2ull * (unsigned long long)G);

	/* 3. the cast of the same chunks, the last first */
	const int64_t lastc = first < a.nchunks ? first + (a.nchunks - 1 - first) / G * G : -1;
	for (int64_t c = lastc; c >= first; c -= G) {
		const f8b_optim_chunk ch = a.chunks[c];
		const f8b_optim_tensor T = a.tensors[ch.tensor];
		const float ts = AX ? 0.0f : a.scale[T.slot];
		chunk_walk<V, false, false, true, AX>(a, h, t, ch, T, ts, acc);
	}
	if (pass_ticket(a, acc, counts, &last))
		pass_close(a, tn);
}

/* This kernel's resident CTAs per SM and the SMs of the current device,
 * queried once per device (the timed steps, and a graph capture, need
 * not pay for it). */
template <int V, bool AX> cudaError_t resident(int *per_sm, int *sms)
{
	static int dev_of = -1, per_sm_of = 0, sms_of = 0;
	int dev = 0, coop = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e != cudaSuccess || dev == dev_of) {
		*per_sm = per_sm_of;
		*sms = sms_of;
		return e;
	}
	e = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
	if (e == cudaSuccess && !coop)
		return cudaErrorNotSupported;
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sms_of, cudaDevAttrMultiProcessorCount, dev);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &per_sm_of, optim_sync_kernel<V, AX>, F8B_K_THREADS, 0);
	if (e == cudaSuccess && (per_sm_of < 1 || sms_of < 1))
		e = cudaErrorCooperativeLaunchTooLarge;
	if (e != cudaSuccess)
		return e;
	dev_of = dev;
	*per_sm = per_sm_of;
	*sms = sms_of;
	return cudaSuccess;
}

template <int V, bool AX>
int launch_sync(const f8b_optim_args &a, cudaStream_t stream, unsigned *grid)
{
	int per_sm = 0, sms = 0;
	cudaError_t e = resident<V, AX>(&per_sm, &sms);
	if (e != cudaSuccess)
		return (int)e;
	int64_t g = (int64_t)per_sm * sms;
	if (g > a.nchunks)
		g = a.nchunks;
	if (a.sync_ctas > 0 && g > a.sync_ctas)
		g = a.sync_ctas;
	if (grid)
		*grid = (unsigned)g;
	void *args[] = {const_cast<f8b_optim_args *>(&a)};
	e = cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(&optim_sync_kernel<V, AX>),
	                                dim3((unsigned)g), dim3(F8B_K_THREADS), args, 0, stream);
	/* a refused launch is also the runtime's last error: clear it here */
	const cudaError_t last = cudaGetLastError();
	return (int)(e != cudaSuccess ? e : last);
}

template <int V> int launch(const f8b_optim_args &a, cudaStream_t stream, unsigned *grid)
{
	if (a.gran == F8B_GRAN_AXISWISE)
		return launch_sync<V, true>(a, stream, grid);
	return launch_sync<V, false>(a, stream, grid);
}

} // namespace

extern "C" int f8b_k_optim_sync_pass(const struct f8b_optim_args *a, cudaStream_t stream,
                                     unsigned *grid)
{
	if (!a || a->nchunks < 1 || a->nchunks > 0x7FFFFFFF || a->sync_ctas < 0 ||
	    a->scaling != F8B_OPTIM_DYNAMIC_SYNC)
		return (int)cudaErrorInvalidValue;
	switch (a->variant) {
	case F8B_OPTIM_FP32: return launch<F8B_OPTIM_FP32>(*a, stream, grid);
	case F8B_OPTIM_BF16: return launch<F8B_OPTIM_BF16>(*a, stream, grid);
	case F8B_OPTIM_FP8: return launch<F8B_OPTIM_FP8>(*a, stream, grid);
	case F8B_OPTIM_FP8_MASTER16: return launch<F8B_OPTIM_FP8_MASTER16>(*a, stream, grid);
	default: return (int)cudaErrorInvalidValue;
	}
}
