/* optim_span.cuh - the chunk level of the optim step (doc/optim.md "The
 * launch"), shared by the kernel of each pass (optim.cu) and
 * dynamic-sync's cooperative kernel (optim_sync.cu): a warp's span of NB
 * blocks (loads first, then the update, the states, the master, the
 * exact amax and the cast), a CTA's walk over one chunk span by span, its
 * tensorwise amax, and the end of a pass (the counts, the ticket that
 * finds the last CTA, the counters it closes).  Included by those two
 * files alone (everything is in their anonymous namespace).
 */
#ifndef F8B_OPTIM_SPAN_CUH
#define F8B_OPTIM_SPAN_CUH

#include "optim_elem.cuh"

namespace
{

/* Row of tensor element e (axiswise), by a 32-bit division where both
 * fit (a 64-bit one is a long subroutine). */
__device__ __forceinline__ int64_t row_of(int64_t e, int64_t cols)
{
	if (((uint64_t)e | (uint64_t)cols) <= 0xFFFFFFFFull)
		return (int64_t)((uint32_t)e / (uint32_t)cols);
	return e / cols;
}

/* Where a block starting at tensor element e0 sits in its rows (axiswise;
 * nothing to compute otherwise): row r0, offset off0 in it.  Element k of
 * the block is in row r0 or r0 + 1 when rows are at least a block long,
 * else a division away. */
struct rowpos {
	int64_t e0, cols, r0 = 0, off0 = 0;
	__device__ __forceinline__ rowpos(bool axis, int64_t e0_, int64_t cols_)
	    : e0(e0_), cols(cols_)
	{
		if (axis) {
			r0 = row_of(e0, cols);
			off0 = e0 - r0 * cols;
		}
	}
	__device__ __forceinline__ int64_t row(int k) const
	{
		return cols >= F8B_OPTIM_BLOCK ? r0 + (off0 + k >= cols) : row_of(e0 + k, cols);
	}
};

/* The exact amax of a lane's n new master values w at element k = 4 lane
 * of the block at rp with cnt elements (the block's cnt decides whether
 * it lies in one row).  Every lane of the warp calls it. */
__device__ __forceinline__ void amax_block(const f8b_optim_args &a, const f8b_optim_tensor &T,
                                           bool axis, const rowpos &rp, int cnt, int n,
                                           const float *w, lane_acc &acc)
{
	uint32_t mx = 0;
#pragma unroll
	for (int j = 0; j < 4; j++)
		mx = max(mx, j < n ? f8b_d_abs_bits(w[j]) : 0u);
	if (!axis) {
		acc.tmax = max(acc.tmax, mx);
		return;
	}
	unsigned *acc_bits = reinterpret_cast<unsigned *>(a.amax_acc) + T.slot;
	if (rp.off0 + cnt <= T.cols) {
		/* the block lies in one row: one atomic per block */
		mx = __reduce_max_sync(F8B_K_FULL_MASK, mx);
		if ((threadIdx.x & 31) == 0 && mx)
			atomicMax(acc_bits + rp.r0, mx);
		return;
	}
	const int k = 4 * (threadIdx.x & 31);
#pragma unroll
	for (int j = 0; j < 4; j++) {
		const uint32_t b = j < n ? f8b_d_abs_bits(w[j]) : 0u;
		if (b)
			atomicMax(acc_bits + rp.row(k + j), b);
	}
}

/* The e4m3 cast of a lane's n master values w at element k = 4 lane of
 * the block at rp (buffer element i of the lane's first): tensorwise with
 * the CTA's scale ts, axiswise with each row's. */
__device__ __forceinline__ void cast_block(const f8b_optim_args &a, const f8b_optim_tensor &T,
                                           bool axis, float ts, const rowpos &rp, int64_t i, int n,
                                           const float *w, lane_acc &acc)
{
	float x[4];
	if (axis) {
		const int k = 4 * (threadIdx.x & 31);
#pragma unroll
		for (int j = 0; j < 4; j++)
			x[j] = __fmul_rn(w[j], j < n ? a.scale[T.slot + rp.row(k + j)] : 0.0f);
	} else {
#pragma unroll
		for (int j = 0; j < 4; j++)
			x[j] = __fmul_rn(w[j], ts);
	}
#pragma unroll
	for (int j = 0; j < 4; j++)
		acc.sat += j < n && fabsf(x[j]) >= F8B_OPTIM_SAT_E4M3;
	const uint32_t q = f8b_d_cvt_fp8x2<false>(x[0], x[1]) | f8b_d_cvt_fp8x2<false>(x[2], x[3])
	                                                            << 16;
	uint8_t qb[4];
	memcpy(qb, &q, sizeof q);
	store4(a.w8, i, n, qb);
}

/* One span of a warp: NB blocks from tensor element e0, the last with cnt
 * elements (FULL: every block whole, cnt = F8B_OPTIM_BLOCK; else NB = 1).
 * Loads first, for all NB blocks; then the update, the states, the
 * master, the amax and the cast. */
template <int V, bool UPD, bool AMX, bool CST, int NB, bool FULL>
__device__ __forceinline__ void span(const f8b_optim_args &a, const f8b_optim_hyper &h, uint64_t t,
                                     const f8b_optim_tensor &T, bool axis, float ts, int64_t e0,
                                     int cnt, lane_acc &acc)
{
	const int lane = threadIdx.x & 31;
	const int n = FULL ? 4 : max(0, min(4, cnt - 4 * lane));
	const int64_t e = e0 + 4 * lane; /* block b: e + b * F8B_OPTIM_BLOCK */
	const int64_t i = T.off + e;     /* the same in the buffers */
	const int64_t blk0 = (T.off + e0) / F8B_OPTIM_BLOCK;
	raw4<V> r[NB];
#pragma unroll
	for (int b = 0; b < NB; b++)
		load_raw<V, UPD>(a, i + b * F8B_OPTIM_BLOCK, blk0 + b, n, r[b]);
	float w[NB][4], m[NB][4], s[NB][4];
#pragma unroll
	for (int b = 0; b < NB; b++) {
		if (UPD) {
			float v[4];
			update_elems<V>(h, r[b], n, m[b], v, s[b], w[b], acc);
			if constexpr (!is_fp8(V))
				put_states<V>(a, i + b * F8B_OPTIM_BLOCK, n, m[b], v);
		} else {
#pragma unroll
			for (int j = 0; j < 4; j++)
				w[b][j] = widen(r[b].w[j]);
		}
	}
	if constexpr (UPD && is_fp8(V))
		put_fp8_states<NB>(a, i, blk0, n, m, s);
#pragma unroll
	for (int b = 0; b < NB; b++) {
		const int64_t ib = i + b * F8B_OPTIM_BLOCK;
		if (UPD)
			put_master<V>(a, t, T, e + b * F8B_OPTIM_BLOCK, ib, n, w[b]);
		const rowpos rp(axis, e0 + b * F8B_OPTIM_BLOCK, T.cols);
		if (AMX)
			amax_block(a, T, axis, rp, FULL ? F8B_OPTIM_BLOCK : cnt, n, w[b], acc);
		if (CST)
			cast_block(a, T, axis, ts, rp, ib, n, w[b], acc);
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

/* A CTA's walk over chunk ch (of tensor T): each warp takes a span of NB
 * blocks at a time, 8 warps apart; the chunk's last, short span goes
 * block by block with NB = 1.  ts: the tensorwise cast scale (CST). */
template <int V, bool UPD, bool AMX, bool CST, bool AX>
__device__ __forceinline__ void chunk_walk(const f8b_optim_args &a, const f8b_optim_hyper &h,
                                           uint64_t t, const f8b_optim_chunk &ch,
                                           const f8b_optim_tensor &T, float ts, lane_acc &acc)
{
	const int warp = threadIdx.x >> 5;
	/* a constant: the tensorwise kernels carry no axiswise code */
	constexpr bool axis = AX;
	const int64_t end = ch.start + ch.count;
	constexpr int NB = span_of<V>::NB;
	constexpr int64_t SPAN = (int64_t)NB * F8B_OPTIM_BLOCK;
	for (int64_t e0 = ch.start + (int64_t)warp * SPAN; e0 < end;
	     e0 += (F8B_K_THREADS / 32) * SPAN) {
		if (e0 + SPAN <= end) {
			constexpr int64_t NEXT = (F8B_K_THREADS / 32) * SPAN;
			if (UPD && is_fp8(V) && F8B_OPTIM_PREFETCH && e0 + NEXT + SPAN <= end)
				prefetch_span<V, NB>(a, T.off + e0 + NEXT);
			span<V, UPD, AMX, CST, NB, true>(a, h, t, T, axis, ts, e0, F8B_OPTIM_BLOCK,
			                                 acc);
		} else {
			/* the chunk's last, short span: block by block */
			for (int64_t eb = e0; eb < end; eb += F8B_OPTIM_BLOCK)
				span<V, UPD, AMX, CST, 1, false>(
				    a, h, t, T, axis, ts, eb,
				    (int)min((int64_t)F8B_OPTIM_BLOCK, end - eb), acc);
		}
	}
}

/* Tensorwise: the CTA's max |w| over what it walked since the last call
 * (a chunk lies in one tensor, T), one atomicMax on the float bits into
 * T's slot; acc.tmax starts again from 0.  Every thread of the CTA calls
 * it (a CTA reduction); the __syncthreads at the end lets the shared
 * words be used again by the next call. */
__device__ __forceinline__ void cta_amax(const f8b_optim_args &a, const f8b_optim_tensor &T,
                                         lane_acc &acc, uint32_t *smem)
{
	const uint32_t tmax = f8b_d_group_max(acc.tmax, F8B_K_THREADS, smem);
	if (threadIdx.x == 0 && tmax)
		atomicMax(reinterpret_cast<unsigned *>(a.amax_acc) + T.slot, tmax);
	acc.tmax = 0;
	__syncthreads();
}

/* The end of a pass in every CTA: its counts (counts: shared, zeroed at
 * the kernel's start) into the op's counters, then a ticket.  Returns
 * true in the last CTA to take one, to which every other CTA's atomics
 * are then visible.  Every thread of the CTA calls it. */
__device__ __forceinline__ bool pass_ticket(const f8b_optim_args &a, const lane_acc &acc,
                                            unsigned long long *counts, int *last)
{
	cta_add(acc.nonfin, &counts[0]);
	cta_add(acc.sat, &counts[1]);
	cta_add(acc.clip, &counts[2]);
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
		*last = prev == (unsigned long long)gridDim.x - 1;
	}
	__syncthreads();
	if (!*last)
		return false;
	/* The last CTA: every other CTA's atomics are done and visible. */
	__threadfence();
	return true;
}

/* The last CTA closes the pass (thread 0): the step's saturation into
 * the totals, the step counter to tn, the ticket (and dynamic-sync's
 * barrier count) back to 0 for the next pass. */
__device__ __forceinline__ void pass_close(const f8b_optim_args &a, uint64_t tn)
{
	if (threadIdx.x != 0)
		return;
	const unsigned long long st = atomicExch(ctr_at(a, F8B_OPTIM_CTR_SAT_STEP), 0ull);
	if (st) {
		a.ctr[F8B_OPTIM_CTR_SAT] += st;
		a.ctr[F8B_OPTIM_CTR_SAT_STEPS] += 1;
	}
	a.ctr[F8B_OPTIM_CTR_STEP] = tn;
	a.ctr[F8B_OPTIM_CTR_TICKET] = 0;
	a.ctr[F8B_OPTIM_CTR_BARRIER] = 0;
}

} // namespace

#endif
