/* optim_elem.cuh - the element and block level of kernels/optim.cu (the
 * optim step, doc/optim.md "The launch"): what one lane loads, updates
 * and stores for its four elements of a block, the fp8 states' block
 * scales, and the prefetch of a warp's next span.  Included by optim.cu
 * alone (everything is in its anonymous namespace).
 */
#ifndef F8B_OPTIM_ELEM_CUH
#define F8B_OPTIM_ELEM_CUH

#include "kernels_internal.cuh"

#include <cuda_fp16.h>

#include <type_traits>

namespace
{

/* The fp8 states (e4m3 m, e5m2 sqrt(v), block factors). */
__host__ __device__ constexpr bool is_fp8(int v)
{
	return v == F8B_OPTIM_FP8 || v == F8B_OPTIM_FP8_MASTER16;
}

/* Blocks per span and CTAs per SM (registers), by variant: a lane has
 * 56 bytes in flight with fp32 states (1 block, 4 CTAs: 96% of the copy
 * bandwidth so), 80 with bf16 (2 blocks, 4 CTAs), 64 with fp8 states (2
 * blocks, 3 CTAs), 96 with a bf16 master (4 blocks, 2 CTAs: with 3 ptxas
 * would spill).  fp8 states took 4 blocks (2 CTAs) until an A/B on an
 * H100 timed 2 faster at both layer scales
 * (results/h100/experiments/optim-span2/).  For an A/B:
 * NVCCFLAGS=-DF8B_OPTIM_FP8_SPAN=1, 2 or 4 (fp8 states; 3 CTAs an SM below
 * 4) or -DF8B_OPTIM_FP8M16_SPAN=... (fp8-master16). */
#ifndef F8B_OPTIM_FP8_SPAN
#define F8B_OPTIM_FP8_SPAN 2
#endif
#ifndef F8B_OPTIM_FP8M16_SPAN
#define F8B_OPTIM_FP8M16_SPAN 4
#endif
template <int V> struct span_of {
	enum {
		NB = V == F8B_OPTIM_FP32   ? 1
		     : V == F8B_OPTIM_BF16 ? 2
		     : V == F8B_OPTIM_FP8  ? F8B_OPTIM_FP8_SPAN
		                           : F8B_OPTIM_FP8M16_SPAN,
		MINB = !is_fp8(V) ? 4
		       : NB < 4   ? 3
		                  : 2
	};
};

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

/* The element types as stored: the m and v states, the master. */
template <int V>
using state_t = typename std::conditional<
    V == F8B_OPTIM_FP32, float,
    typename std::conditional<V == F8B_OPTIM_BF16, uint16_t, uint8_t>::type>::type;
template <int V>
using master_t = typename std::conditional<V == F8B_OPTIM_FP8_MASTER16, uint16_t, float>::type;

/* A lane's four elements of one block as loaded, before any arithmetic. */
template <int V> struct raw4 {
	uint16_t g[4];
	state_t<V> m[4], v[4];
	master_t<V> w[4];
	float msi, ssi; /* fp8 states: the block's dequantising factors */
};

/* The loads of a lane's n elements at buffer element i (block blk). */
template <int V, bool UPD>
__device__ __forceinline__ void load_raw(const f8b_optim_args &a, int64_t i, int64_t blk, int n,
                                         raw4<V> &r)
{
	typedef state_t<V> S;
	if (UPD) {
		load4(a.grad, i, n, r.g);
		load4(static_cast<const S *>(a.m), i, n, r.m);
		load4(static_cast<const S *>(a.v), i, n, r.v);
		if constexpr (is_fp8(V)) {
			r.msi = a.m_sinv[blk];
			r.ssi = a.v_sinv[blk];
		}
	}
	load4(static_cast<const master_t<V> *>(a.master), i, n, r.w);
}

__device__ __forceinline__ float widen(float x)
{
	return x;
}

__device__ __forceinline__ float widen(uint16_t b)
{
	return f8b_d_bf16_to_f32(b);
}

/* Four fp8 bytes (e4m3, or e5m2 with E5M2) times their block factor:
 * two bytes per cvt.rn.f16x2, the instruction the one-byte conversion
 * also runs, then exact widenings. */
template <bool E5M2>
__device__ __forceinline__ void dec_fp8x4(const uint8_t *q, float f, float *out)
{
#pragma unroll
	for (int p = 0; p < 2; p++) {
		const __half2_raw h2 = __nv_cvt_fp8x2_to_halfraw2(
		    (__nv_fp8x2_storage_t)(q[2 * p] | (unsigned)q[2 * p + 1] << 8),
		    E5M2 ? __NV_E5M2 : __NV_E4M3);
		__half_raw lo, hi;
		lo.x = h2.x;
		hi.x = h2.y;
		out[2 * p] = __fmul_rn(__half2float(__half(lo)), f);
		out[2 * p + 1] = __fmul_rn(__half2float(__half(hi)), f);
	}
}

/* What a lane counts over its spans. */
struct lane_acc {
	uint32_t tmax; /* tensorwise: max |w| bits */
	unsigned nonfin, sat, clip;
};

/* The AdamW update of a lane's n elements of one block from their loaded
 * values: the new m and sqrt(v) (fp8 states) or v into m, s, v; the new
 * master, unrounded, into w.  A non-finite gradient keeps the element's
 * old values. */
template <int V>
__device__ __forceinline__ void update_elems(const f8b_optim_hyper &h, const raw4<V> &r, int n,
                                             float *m, float *v, float *s, float *w, lane_acc &acc)
{
	if constexpr (is_fp8(V)) {
		dec_fp8x4<false>(r.m, r.msi, m);
		dec_fp8x4<true>(r.v, r.ssi, s);
	}
#pragma unroll
	for (int j = 0; j < 4; j++) {
		if constexpr (is_fp8(V)) {
			v[j] = __fmul_rn(s[j], s[j]);
		} else {
			m[j] = widen(r.m[j]);
			v[j] = widen(r.v[j]);
			s[j] = 0.0f;
		}
		w[j] = widen(r.w[j]);
	}
	if constexpr (!is_fp8(V)) {
		/* fp32, bf16 states: a branch an element (the selects below
		 * would not fit 64 registers; these run at the copy bandwidth) */
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const float g = f8b_d_bf16_to_f32(r.g[j]);
			if (j < n && f8b_om_finite(g))
				acc.clip +=
				    (unsigned)f8b_optim_adamw(&h, g, &m[j], &v[j], &s[j], &w[j]);
			else if (j < n)
				acc.nonfin++;
		}
	} else {
		/* fp8 states: without a branch.  Every element is updated, and
		 * one with a non-finite gradient takes its old values back by
		 * selects, so a span's 4 NB elements are one basic block (but
		 * for the division's and sqrt's own rare slow paths) that the
		 * compiler interleaves. */
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const float g = f8b_d_bf16_to_f32(r.g[j]);
			float mj = m[j], vj = v[j], sj = s[j], wj = w[j];
			const int c = f8b_optim_adamw(&h, g, &mj, &vj, &sj, &wj);
			const bool ok = (j < n) & (f8b_om_finite(g) != 0);
			m[j] = ok ? mj : m[j];
			v[j] = ok ? vj : v[j];
			s[j] = ok ? sj : s[j];
			w[j] = ok ? wj : w[j];
			acc.clip += ok ? (unsigned)c : 0u;
			acc.nonfin += (j < n) & !ok;
		}
	}
}

/* The fp8 states of a span's NB blocks (first block blk0, a lane's
 * elements at buffer element i + b * F8B_OPTIM_BLOCK): each block's
 * scales from its new values (a warp reduction each), the bytes, and the
 * stored factors 1 / scale.  Lane 2b computes block b's m scale, lane
 * 2b + 1 its sqrt(v) scale (core/optim.h f8b_optim_scale: the host's
 * division, so the same bits); the others' results are unused. */
template <int NB>
__device__ __forceinline__ void put_fp8_states(const f8b_optim_args &a, int64_t i, int64_t blk0,
                                               int n, float (*m)[4], float (*s)[4])
{
	const int lane = threadIdx.x & 31;
	uint32_t mine = 0;
#pragma unroll
	for (int b = 0; b < NB; b++) {
		uint32_t am = 0, as = 0;
#pragma unroll
		for (int j = 0; j < 4; j++) {
			am = max(am, j < n ? f8b_d_abs_bits(m[b][j]) : 0u);
			as = max(as, j < n ? f8b_d_abs_bits(s[b][j]) : 0u);
		}
		am = __reduce_max_sync(F8B_K_FULL_MASK, am);
		as = __reduce_max_sync(F8B_K_FULL_MASK, as);
		mine = lane == 2 * b ? am : lane == 2 * b + 1 ? as : mine;
	}
	const float sc = f8b_optim_scale(__uint_as_float(mine), (lane & 1) ? 57344.0f : 448.0f);
	const float inv = __fdiv_rn(1.0f, sc);
	if (lane < 2 * NB)
		((lane & 1) ? a.v_sinv : a.m_sinv)[blk0 + (lane >> 1)] = inv;
#pragma unroll
	for (int b = 0; b < NB; b++) {
		const float sm = __shfl_sync(F8B_K_FULL_MASK, sc, 2 * b);
		const float ss = __shfl_sync(F8B_K_FULL_MASK, sc, 2 * b + 1);
		uint32_t mq = 0, sq = 0;
#pragma unroll
		for (int p = 0; p < 2; p++) {
			mq |= f8b_d_cvt_fp8x2<false>(__fmul_rn(m[b][2 * p], sm),
			                             __fmul_rn(m[b][2 * p + 1], sm))
			      << (16 * p);
			sq |= f8b_d_cvt_fp8x2<true>(__fmul_rn(s[b][2 * p], ss),
			                            __fmul_rn(s[b][2 * p + 1], ss))
			      << (16 * p);
		}
		uint8_t mb[4], sb[4];
		memcpy(mb, &mq, sizeof mq);
		memcpy(sb, &sq, sizeof sq);
		store4(static_cast<uint8_t *>(a.m), i + b * F8B_OPTIM_BLOCK, n, mb);
		store4(static_cast<uint8_t *>(a.v), i + b * F8B_OPTIM_BLOCK, n, sb);
	}
}

/* The fp32 or bf16 states of a lane's n elements at buffer element i. */
template <int V>
__device__ __forceinline__ void put_states(const f8b_optim_args &a, int64_t i, int n,
                                           const float *m, const float *v)
{
	if constexpr (V == F8B_OPTIM_FP32) {
		store4(static_cast<float *>(a.m), i, n, m);
		store4(static_cast<float *>(a.v), i, n, v);
	} else {
		uint16_t mb[4], vb[4];
#pragma unroll
		for (int j = 0; j < 4; j++) {
			mb[j] = f8b_d_f32_to_bf16(m[j]);
			vb[j] = f8b_d_f32_to_bf16(v[j]);
		}
		store4(static_cast<uint16_t *>(a.m), i, n, mb);
		store4(static_cast<uint16_t *>(a.v), i, n, vb);
	}
}

/* The new master of a lane's n elements at tensor element e (buffer
 * element i): stored, and w becomes the value stored, widened (what the
 * amax and the cast see, as on the host). */
template <int V>
__device__ __forceinline__ void put_master(const f8b_optim_args &a, uint64_t t,
                                           const f8b_optim_tensor &T, int64_t e, int64_t i, int n,
                                           float *w)
{
	if constexpr (V == F8B_OPTIM_FP8_MASTER16) {
		uint16_t b[4];
		/* one uniform branch a block, none an element */
		if (a.stochastic) {
#pragma unroll
			for (int j = 0; j < 4; j++) {
				const uint16_t sr = f8b_optim_bf16_sr(
				    w[j], f8b_optim_sr_bits(a.seed, t, (uint64_t)T.id,
				                            (uint64_t)(e + j)));
				b[j] = f8b_om_finite(w[j]) ? sr : f8b_d_f32_to_bf16(w[j]);
			}
		} else {
#pragma unroll
			for (int j = 0; j < 4; j++)
				b[j] = f8b_d_f32_to_bf16(w[j]);
		}
#pragma unroll
		for (int j = 0; j < 4; j++)
			w[j] = f8b_d_bf16_to_f32(b[j]);
		store4(static_cast<uint16_t *>(a.master), i, n, b);
	} else {
		store4(static_cast<float *>(a.master), i, n, w);
	}
}

/* The warp's next span (NB blocks from buffer element i) into L2 while
 * this one computes: one prefetch of 128 bytes a lane (with fp8 states
 * and NB = 4: 8 lines of gradient, 4 of m, 4 of sqrt(v), 16 of fp32
 * master or 8 of bf16, 2 of block factors; the update kernels only).
 * The fp8 update is heavy enough that a warp's loads wait behind its
 * arithmetic; from L2 they wait less, and HBM keeps streaming meanwhile.
 * No effect on any value.  For an A/B: NVCCFLAGS=-DF8B_OPTIM_PREFETCH=0. */
#ifndef F8B_OPTIM_PREFETCH
#define F8B_OPTIM_PREFETCH 1
#endif
template <int V, int NB>
__device__ __forceinline__ void prefetch_span(const f8b_optim_args &a, int64_t i)
{
	constexpr int LINE = 128, SPAN = NB * F8B_OPTIM_BLOCK;
	constexpr int LG = SPAN * 2 / LINE, LS = SPAN * (int)sizeof(state_t<V>) / LINE,
	              LW = SPAN * (int)sizeof(master_t<V>) / LINE, ALL = LG + 2 * LS + LW + 2;
	const int lane = threadIdx.x & 31;
#pragma unroll
	for (int k0 = 0; k0 < ALL; k0 += 32) {
		const int k = k0 + lane;
		const char *p;
		if (k < LG)
			p = reinterpret_cast<const char *>(a.grad + i) + k * LINE;
		else if (k < LG + LS)
			p = static_cast<const char *>(a.m) + i * (int64_t)sizeof(state_t<V>) +
			    (k - LG) * LINE;
		else if (k < LG + 2 * LS)
			p = static_cast<const char *>(a.v) + i * (int64_t)sizeof(state_t<V>) +
			    (k - LG - LS) * LINE;
		else if (k < LG + 2 * LS + LW)
			p = static_cast<const char *>(a.master) + i * (int64_t)sizeof(master_t<V>) +
			    (k - LG - 2 * LS) * LINE;
		else if (k == ALL - 2)
			p = reinterpret_cast<const char *>(a.m_sinv + i / F8B_OPTIM_BLOCK);
		else if (k == ALL - 1)
			p = reinterpret_cast<const char *>(a.v_sinv + i / F8B_OPTIM_BLOCK);
		else
			p = nullptr;
		if (p)
			asm volatile("prefetch.L2 [%0];" ::"l"(p));
	}
}

} // namespace

#endif
