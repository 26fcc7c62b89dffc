/* optim.cu - the optim benchmark's step (backend.h optim_pass,
 * doc/optim.md "The launch"): one multi-tensor launch per pass over a
 * device-side list of chunks, each chunk one CTA.
 *
 * A warp takes a span of NB blocks of F8B_OPTIM_BLOCK (128) elements at a
 * time (span_of), four elements of each block per lane, and issues all
 * of the span's loads before any arithmetic: with fp8 states one block is
 * only 32 bytes a lane, too few to keep HBM busy.  Each fp8 block scale
 * is one warp reduction; lane 2b computes block b's m scale, 2b + 1 its
 * sqrt(v) scale, then shuffles share them.  A chunk's last, short span
 * goes block by block through the same code with NB = 1.
 *
 * The fused pass reads the bf16 gradient, the states and the master
 * weight once and writes the states, the master, the e4m3 weight and its
 * exact amax (tensorwise: the CTA's max, one atomicMax on the float bits;
 * axiswise: one per row run).  The last CTA to finish (a ticket counter)
 * folds the amax and computes the next scales (core/optim.h
 * f8b_optim_fold), so a step needs no other launch: nothing to zero,
 * nothing to copy.
 *
 * The element and block level (loads, the update, the fp8 block scales,
 * stores, the prefetch of the next span) is in optim_elem.cuh; the span
 * and chunk level and the end of a pass in optim_span.cuh, which
 * dynamic-sync's cooperative kernel (optim_sync.cu) shares.
 *
 * Bit-exact with src/backend/host_optim.c: the element math is
 * core/optim.h's, where every operation is an __f*_rn intrinsic (never
 * contracted into an FMA), done per element and per block exactly as the
 * host does it (which lane or warp does it changes no bit); conversions
 * are the cvt instructions the host codec reproduces (core/fp8.h).
 */
#include "optim_span.cuh"

namespace
{

/* Slots each thread of the last CTA folds at a time (see the fold). */
#define FOLD_BATCH 8

template <int V, bool UPD, bool AMX, bool CST, bool AX>
__global__ void __launch_bounds__(F8B_K_THREADS, span_of<V>::MINB)
    optim_kernel(const f8b_optim_args a)
{
	__shared__ uint32_t smem[8];
	__shared__ unsigned long long counts[3]; /* nonfinite, saturated, clipped */
	__shared__ int last;
	if (threadIdx.x < 3)
		counts[threadIdx.x] = 0;
	__syncthreads();

	const f8b_optim_chunk ch = a.chunks[blockIdx.x];
	const f8b_optim_tensor T = a.tensors[ch.tensor];
	const uint64_t t = a.ctr[F8B_OPTIM_CTR_STEP];
	const f8b_optim_hyper h = a.hyper[f8b_optim_hyper_index(t, a.nhyper)];
	/* tensorwise: the cast's scale, read once (only the last CTA's fold,
	 * after every CTA's loop, writes it) */
	const float ts = CST && !AX ? a.scale[T.slot] : 0.0f;
	lane_acc acc = {0, 0, 0, 0};
	chunk_walk<V, UPD, AMX, CST, AX>(a, h, t, ch, T, ts, acc);
	if (AMX && !AX)
		cta_amax(a, T, acc, smem);
	if (!pass_ticket(a, acc, counts, &last))
		return;

	const uint64_t tn = UPD ? t + 1 : t;
	if (AMX) {
		const f8b_optim_hyper *hn = &a.hyper[f8b_optim_hyper_index(tn, a.nhyper)];
		const int p = f8b_optim_ring(&a, tn);
		/* FOLD_BATCH slots per thread at a time: their loads are
		 * independent, so an axiswise fold (a slot per row) waits for
		 * L2 once per batch, not once per slot */
		for (int64_t s0 = threadIdx.x; s0 < a.nslots; s0 += FOLD_BATCH * F8B_K_THREADS) {
			float am[FOLD_BATCH], cur[FOLD_BATCH];
#pragma unroll
			for (int j = 0; j < FOLD_BATCH; j++) {
				const int64_t s = s0 + (int64_t)j * F8B_K_THREADS;
				am[j] = cur[j] = 0.0f;
				if (s < a.nslots) {
					/* from L2, where the other CTAs' atomics went */
					am[j] = __uint_as_float(atomicExch(
					    reinterpret_cast<unsigned *>(a.amax_acc) + s, 0u));
					cur[j] = a.scale[s];
				}
			}
#pragma unroll
			for (int j = 0; j < FOLD_BATCH; j++) {
				const int64_t s = s0 + (int64_t)j * F8B_K_THREADS;
				if (s < a.nslots)
					f8b_optim_fold(&a, hn, s, am[j], cur[j], p);
			}
		}
	}
	__syncthreads();
	pass_close(a, tn);
}

template <int V, bool AX> void launch_gran(const f8b_optim_args &a, int pass, cudaStream_t stream)
{
	const dim3 grid((unsigned)a.nchunks), block(F8B_K_THREADS);
	switch (pass) {
	case F8B_OPTIM_FUSED:
		if (a.scaling == F8B_OPTIM_DYNAMIC)
			optim_kernel<V, true, true, false, AX><<<grid, block, 0, stream>>>(a);
		else
			optim_kernel<V, true, true, true, AX><<<grid, block, 0, stream>>>(a);
		break;
	case F8B_OPTIM_UPDATE:
		/* no weight amax or cast: one kernel for both granularities */
		optim_kernel<V, true, false, false, false><<<grid, block, 0, stream>>>(a);
		break;
	case F8B_OPTIM_AMAX:
		optim_kernel<V, false, true, false, AX><<<grid, block, 0, stream>>>(a);
		break;
	default: optim_kernel<V, false, false, true, AX><<<grid, block, 0, stream>>>(a); break;
	}
}

template <int V> int launch(const f8b_optim_args &a, int pass, cudaStream_t stream)
{
	if (a.gran == F8B_GRAN_AXISWISE)
		launch_gran<V, true>(a, pass, stream);
	else
		launch_gran<V, false>(a, pass, stream);
	return (int)cudaGetLastError();
}

} // namespace

extern "C" int f8b_k_optim_pass(const struct f8b_optim_args *a, int pass, cudaStream_t stream)
{
	if (!a || a->nchunks < 1 || a->nchunks > 0x7FFFFFFF || pass < 0 ||
	    pass >= F8B_OPTIM_PASS_COUNT)
		return (int)cudaErrorInvalidValue;
	/* one cooperative launch with a grid barrier (optim_sync.cu) */
	if (pass == F8B_OPTIM_FUSED && a->scaling == F8B_OPTIM_DYNAMIC_SYNC)
		return f8b_k_optim_sync_pass(a, stream, NULL);
	switch (a->variant) {
	case F8B_OPTIM_FP32: return launch<F8B_OPTIM_FP32>(*a, pass, stream);
	case F8B_OPTIM_BF16: return launch<F8B_OPTIM_BF16>(*a, pass, stream);
	case F8B_OPTIM_FP8: return launch<F8B_OPTIM_FP8>(*a, pass, stream);
	case F8B_OPTIM_FP8_MASTER16: return launch<F8B_OPTIM_FP8_MASTER16>(*a, pass, stream);
	default: return (int)cudaErrorInvalidValue;
	}
}
