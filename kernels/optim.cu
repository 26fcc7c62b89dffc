/* optim.cu - the optim benchmark's step (backend.h optim_pass,
 * doc/optim.md): one multi-tensor launch per pass over a device-side list
 * of chunks, each chunk one CTA.
 *
 * A warp takes one block of F8B_OPTIM_BLOCK (128) elements at a time, four
 * per lane, so the fp8 states' per-block scales are one warp reduction
 * away; the CTA's 8 warps stride through the chunk.  The fused pass reads
 * the bf16 gradient, the states and the master weight once and writes the
 * states, the master, the e4m3 weight and its exact amax (tensorwise: the
 * CTA's max, one atomicMax on the float bits; axiswise: one per row run).
 * The last CTA to finish (a ticket counter) folds the amax and computes
 * the next scales (core/optim.h f8b_optim_fold), so a step needs no
 * other launch: nothing to zero, nothing to copy.
 *
 * Bit-exact with src/backend/host_optim.c: the element math is
 * core/optim.h's, where every operation is an __f*_rn intrinsic (never
 * contracted into an FMA); conversions are the cvt instructions the host
 * codec reproduces (core/fp8.h).
 */
#include "kernels_internal.cuh"

#include <cuda_fp16.h>

namespace
{

/* Slots each thread of the last CTA folds at a time (see the fold). */
#define FOLD_BATCH 8

__device__ __forceinline__ float dec_e4m3(uint8_t b)
{
	return __half2float(__half(__nv_cvt_fp8_to_halfraw(b, __NV_E4M3)));
}

__device__ __forceinline__ float dec_e5m2(uint8_t b)
{
	return __half2float(__half(__nv_cvt_fp8_to_halfraw(b, __NV_E5M2)));
}

/* Four consecutive elements of a buffer of dtype T at element i, all
 * four present (n == 4: one vector access) or the first n. */
template <typename T> struct vec4;
template <> struct vec4<float> {
	typedef float4 type;
};
template <> struct vec4<uint16_t> {
	typedef uint2 type;
};
template <> struct vec4<uint8_t> {
	typedef uint32_t type;
};

template <typename T> __device__ __forceinline__ void load4(const T *p, int64_t i, int n, T *out)
{
	if (n == 4) {
		typename vec4<T>::type v = *reinterpret_cast<const typename vec4<T>::type *>(p + i);
		memcpy(out, &v, sizeof v);
	} else {
#pragma unroll
		for (int j = 0; j < 4; j++)
			out[j] = j < n ? p[i + j] : T(0);
	}
}

template <typename T> __device__ __forceinline__ void store4(T *p, int64_t i, int n, const T *in)
{
	if (n == 4) {
		typename vec4<T>::type v;
		memcpy(&v, in, sizeof v);
		*reinterpret_cast<typename vec4<T>::type *>(p + i) = v;
	} else {
#pragma unroll
		for (int j = 0; j < 4; j++)
			if (j < n)
				p[i + j] = in[j];
	}
}

template <int V>
__device__ __forceinline__ void load_master(const f8b_optim_args &a, int64_t i, int n, float *w)
{
	if (V == F8B_OPTIM_FP8_MASTER16) {
		uint16_t b[4];
		load4(static_cast<const uint16_t *>(a.master), i, n, b);
#pragma unroll
		for (int j = 0; j < 4; j++)
			w[j] = f8b_d_bf16_to_f32(b[j]);
	} else {
		load4(static_cast<const float *>(a.master), i, n, w);
	}
}

/* The update of this lane's n (<= 4) elements at tensor element e of a
 * block starting at element e0 (block index blk in the state buffers); w
 * gets the master as stored.  Every lane of the warp calls it (the fp8
 * block scales are warp reductions). */
template <int V>
__device__ __forceinline__ void update4(const f8b_optim_args &a, const f8b_optim_hyper &h,
                                        uint64_t t, const f8b_optim_tensor &T, int64_t e, int n,
                                        int64_t blk, float *w, unsigned *nonfin, unsigned *clip)
{
	const int64_t i = T.off + e;
	float g[4], m[4], v[4], s[4] = {0, 0, 0, 0};
	{
		uint16_t gb[4];
		load4(a.grad, i, n, gb);
#pragma unroll
		for (int j = 0; j < 4; j++)
			g[j] = f8b_d_bf16_to_f32(gb[j]);
	}
	if (V == F8B_OPTIM_FP32) {
		load4(static_cast<const float *>(a.m), i, n, m);
		load4(static_cast<const float *>(a.v), i, n, v);
	} else if (V == F8B_OPTIM_BF16) {
		uint16_t mb[4], vb[4];
		load4(static_cast<const uint16_t *>(a.m), i, n, mb);
		load4(static_cast<const uint16_t *>(a.v), i, n, vb);
#pragma unroll
		for (int j = 0; j < 4; j++) {
			m[j] = f8b_d_bf16_to_f32(mb[j]);
			v[j] = f8b_d_bf16_to_f32(vb[j]);
		}
	} else {
		uint8_t mq[4], sq[4];
		load4(static_cast<const uint8_t *>(a.m), i, n, mq);
		load4(static_cast<const uint8_t *>(a.v), i, n, sq);
		const float msi = a.m_sinv[blk], ssi = a.v_sinv[blk];
#pragma unroll
		for (int j = 0; j < 4; j++) {
			m[j] = __fmul_rn(dec_e4m3(mq[j]), msi);
			s[j] = __fmul_rn(dec_e5m2(sq[j]), ssi);
			v[j] = __fmul_rn(s[j], s[j]);
		}
	}
	load_master<V>(a, i, n, w);
#pragma unroll
	for (int j = 0; j < 4; j++) {
		if (j >= n)
			continue;
		if (f8b_om_finite(g[j]))
			*clip += (unsigned)f8b_optim_adamw(&h, g[j], &m[j], &v[j], &s[j], &w[j]);
		else
			(*nonfin)++;
	}
	if (V == F8B_OPTIM_FP32) {
		store4(static_cast<float *>(a.m), i, n, m);
		store4(static_cast<float *>(a.v), i, n, v);
	} else if (V == F8B_OPTIM_BF16) {
		uint16_t mb[4], vb[4];
#pragma unroll
		for (int j = 0; j < 4; j++) {
			mb[j] = f8b_d_f32_to_bf16(m[j]);
			vb[j] = f8b_d_f32_to_bf16(v[j]);
		}
		store4(static_cast<uint16_t *>(a.m), i, n, mb);
		store4(static_cast<uint16_t *>(a.v), i, n, vb);
	} else {
		uint32_t am = 0, as = 0;
#pragma unroll
		for (int j = 0; j < 4; j++) {
			am = max(am, j < n ? f8b_d_abs_bits(m[j]) : 0u);
			as = max(as, j < n ? f8b_d_abs_bits(s[j]) : 0u);
		}
		am = __reduce_max_sync(F8B_K_FULL_MASK, am);
		as = __reduce_max_sync(F8B_K_FULL_MASK, as);
		const float sm = f8b_optim_scale(__uint_as_float(am), 448.0f);
		const float ss = f8b_optim_scale(__uint_as_float(as), 57344.0f);
		if ((threadIdx.x & 31) == 0) {
			a.m_sinv[blk] = __fdiv_rn(1.0f, sm);
			a.v_sinv[blk] = __fdiv_rn(1.0f, ss);
		}
		uint8_t mq[4], sq[4];
#pragma unroll
		for (int j = 0; j < 4; j++) {
			mq[j] = f8b_d_cvt_fp8<false>(__fmul_rn(m[j], sm));
			sq[j] = f8b_d_cvt_fp8<true>(__fmul_rn(s[j], ss));
		}
		store4(static_cast<uint8_t *>(a.m), i, n, mq);
		store4(static_cast<uint8_t *>(a.v), i, n, sq);
	}
	if (V == F8B_OPTIM_FP8_MASTER16) {
		uint16_t b[4];
#pragma unroll
		for (int j = 0; j < 4; j++) {
			b[j] = a.stochastic && f8b_om_finite(w[j])
			           ? f8b_optim_bf16_sr(w[j],
			                               f8b_optim_sr_bits(a.seed, t, (uint64_t)T.id,
			                                                 (uint64_t)(e + j)))
			           : f8b_d_f32_to_bf16(w[j]);
			w[j] = f8b_d_bf16_to_f32(b[j]);
		}
		store4(static_cast<uint16_t *>(a.master), i, n, b);
	} else {
		store4(static_cast<float *>(a.master), i, n, w);
	}
}

/* Counter i of the op (uint64_t is unsigned long here, which CUDA's
 * 64-bit atomics do not take). */
__device__ __forceinline__ unsigned long long *ctr_at(const f8b_optim_args &a, int i)
{
	return reinterpret_cast<unsigned long long *>(a.ctr + i);
}

/* The sum of v over the CTA, into *acc (shared, zeroed) by each warp's lane 0. */
__device__ __forceinline__ void cta_add(unsigned v, unsigned long long *acc)
{
	v = __reduce_add_sync(F8B_K_FULL_MASK, v);
	if ((threadIdx.x & 31) == 0 && v)
		atomicAdd(acc, (unsigned long long)v);
}

template <int V, bool UPD, bool AMX, bool CST>
__global__ void __launch_bounds__(F8B_K_THREADS, 4) optim_kernel(const f8b_optim_args a)
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
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	const bool axis = a.gran == F8B_GRAN_AXISWISE;
	const int64_t end = ch.start + ch.count;
	uint32_t tmax = 0; /* tensorwise: this lane's max |w| bits */
	unsigned nonfin = 0, sat = 0, clip = 0;

	for (int64_t e0 = ch.start + (int64_t)warp * F8B_OPTIM_BLOCK; e0 < end;
	     e0 += (F8B_K_THREADS / 32) * F8B_OPTIM_BLOCK) {
		const int cnt = (int)min((int64_t)F8B_OPTIM_BLOCK, end - e0);
		const int64_t e = e0 + 4 * lane;
		const int n = max(0, min(4, cnt - 4 * lane));
		float w[4];
		if (UPD)
			update4<V>(a, h, t, T, e, n, (T.off + e0) / F8B_OPTIM_BLOCK, w, &nonfin,
			           &clip);
		else
			load_master<V>(a, T.off + e, n, w);
		if (AMX) {
			uint32_t mx = 0;
#pragma unroll
			for (int j = 0; j < 4; j++)
				mx = max(mx, j < n ? f8b_d_abs_bits(w[j]) : 0u);
			if (!axis) {
				tmax = max(tmax, mx);
			} else if (e0 / T.cols == (e0 + cnt - 1) / T.cols) {
				/* the block lies in one row: one atomic per block */
				mx = __reduce_max_sync(F8B_K_FULL_MASK, mx);
				if (lane == 0 && mx)
					atomicMax(reinterpret_cast<unsigned *>(a.amax_acc) +
					              T.slot + e0 / T.cols,
					          mx);
			} else {
#pragma unroll
				for (int j = 0; j < 4; j++) {
					uint32_t b = j < n ? f8b_d_abs_bits(w[j]) : 0u;
					if (b)
						atomicMax(reinterpret_cast<unsigned *>(a.amax_acc) +
						              T.slot + (e + j) / T.cols,
						          b);
				}
			}
		}
		if (CST) {
			uint8_t q[4] = {0, 0, 0, 0};
#pragma unroll
			for (int j = 0; j < 4; j++) {
				if (j >= n)
					continue;
				const float x = __fmul_rn(
				    w[j], a.scale[axis ? T.slot + (e + j) / T.cols : T.slot]);
				sat += fabsf(x) >= F8B_OPTIM_SAT_E4M3;
				q[j] = f8b_d_cvt_fp8<false>(x);
			}
			store4(a.w8, T.off + e, n, q);
		}
	}

	if (AMX && !axis) {
		tmax = f8b_d_group_max(tmax, F8B_K_THREADS, smem);
		if (threadIdx.x == 0 && tmax)
			atomicMax(reinterpret_cast<unsigned *>(a.amax_acc) + T.slot, tmax);
	}
	cta_add(nonfin, &counts[0]);
	cta_add(sat, &counts[1]);
	cta_add(clip, &counts[2]);
	/* Every thread's atomics (axiswise: each warp's lane 0) ordered at
	 * GPU scope before thread 0 takes the ticket below. */
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0) {
		if (counts[0])
			atomicAdd(ctr_at(a, F8B_OPTIM_CTR_NONFINITE), counts[0]);
		if (counts[1])
			atomicAdd(ctr_at(a, F8B_OPTIM_CTR_SAT_STEP), counts[1]);
		if (counts[2])
			atomicAdd(ctr_at(a, F8B_OPTIM_CTR_CLIPPED), counts[2]);
		/* Publish this CTA's results before taking a ticket. */
		__threadfence();
		const unsigned long long prev = atomicAdd(ctr_at(a, F8B_OPTIM_CTR_TICKET), 1ull);
		last = prev == (unsigned long long)gridDim.x - 1;
	}
	__syncthreads();
	if (!last)
		return;

	/* The last CTA: every other CTA's atomics are done and visible. */
	__threadfence();
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
	if (threadIdx.x == 0) {
		const unsigned long long st = atomicExch(ctr_at(a, F8B_OPTIM_CTR_SAT_STEP), 0ull);
		if (st) {
			a.ctr[F8B_OPTIM_CTR_SAT] += st;
			a.ctr[F8B_OPTIM_CTR_SAT_STEPS] += 1;
		}
		a.ctr[F8B_OPTIM_CTR_STEP] = tn;
		a.ctr[F8B_OPTIM_CTR_TICKET] = 0;
	}
}

template <int V> int launch(const f8b_optim_args &a, int pass, cudaStream_t stream)
{
	const dim3 grid((unsigned)a.nchunks), block(F8B_K_THREADS);
	switch (pass) {
	case F8B_OPTIM_FUSED:
		if (a.scaling == F8B_OPTIM_DYNAMIC)
			optim_kernel<V, true, true, false><<<grid, block, 0, stream>>>(a);
		else
			optim_kernel<V, true, true, true><<<grid, block, 0, stream>>>(a);
		break;
	case F8B_OPTIM_UPDATE:
		optim_kernel<V, true, false, false><<<grid, block, 0, stream>>>(a);
		break;
	case F8B_OPTIM_AMAX:
		optim_kernel<V, false, true, false><<<grid, block, 0, stream>>>(a);
		break;
	default: optim_kernel<V, false, false, true><<<grid, block, 0, stream>>>(a); break;
	}
	return (int)cudaGetLastError();
}

} // namespace

extern "C" int f8b_k_optim_pass(const struct f8b_optim_args *a, int pass, cudaStream_t stream)
{
	if (!a || a->nchunks < 1 || a->nchunks > 0x7FFFFFFF || pass < 0 ||
	    pass >= F8B_OPTIM_PASS_COUNT)
		return (int)cudaErrorInvalidValue;
	switch (a->variant) {
	case F8B_OPTIM_FP32: return launch<F8B_OPTIM_FP32>(*a, pass, stream);
	case F8B_OPTIM_BF16: return launch<F8B_OPTIM_BF16>(*a, pass, stream);
	case F8B_OPTIM_FP8: return launch<F8B_OPTIM_FP8>(*a, pass, stream);
	case F8B_OPTIM_FP8_MASTER16: return launch<F8B_OPTIM_FP8_MASTER16>(*a, pass, stream);
	default: return (int)cudaErrorInvalidValue;
	}
}
