/* sm90_fp8_gemm_overlap.cuh - the consumer warpgroup with its epilogue
 * overlapped with the next tile's first wgmma group (doc/gemm-kernels.md,
 * "The overlapped epilogue"): f8b_kg_consumer (sm90_fp8_gemm_consumer.cuh)
 * and tile_overlapped(), which the kernel's tile loop calls in place of
 * tile() for the variants with f8b_kg_consumer::EPIOV.
 */
#ifndef F8B_GEMM_SM90_FP8_GEMM_OVERLAP_CUH
#define F8B_GEMM_SM90_FP8_GEMM_OVERLAP_CUH

template <int BN, int STAGES, int CL, int MODE, int EPI_BUFS, int AT, int BT, typename OutT>
struct f8b_kg_consumer_ov : f8b_kg_consumer<BN, STAGES, CL, MODE, EPI_BUFS, AT, BT, OutT> {
	using base = f8b_kg_consumer<BN, STAGES, CL, MODE, EPI_BUFS, AT, BT, OutT>;
	using base::acc;
	using base::ahead;
	using base::bars;
	using base::base;
	using base::BLOCKS;
	using base::epilogue;
	using base::halves_from;
	using base::it;
	using base::lane;
	using base::load_scales;
	using base::p;
	using base::part;
	using base::scale_pos;
	using base::second_half;
	using base::wait_part;
	using base::warp;
	using typename base::kscales;
	using typename base::spos;
	static_assert(base::EPIOV, "the kernel builds the variants with EPIOV only");

	/* The boxes of D's tile row stored before the next tile's first group
	 * is issued, of 2 (e4m3: 128-column boxes), 4 (bf16: 64-column
	 * boxes) or 8 (f32): half of them in
	 * PROMOTE; three quarters in the block modes (BLOCK spilled 20 bytes
	 * issuing at the half, its bf16 variants; BLOCK_1X128 took BLOCK's
	 * point untried).  F8B_KG_EPIOV_QUARTERS overrides it (a study's knob:
	 * results/h100/experiments/f8b-gemm-bisect/). */
#ifdef F8B_KG_EPIOV_QUARTERS
	static constexpr int EPIOV_QUARTERS = F8B_KG_EPIOV_QUARTERS;
#else
	static constexpr int EPIOV_QUARTERS = BLOCKS ? 3 : 2;
#endif
	static constexpr int EPIOV_BOXES = EPIOV_QUARTERS * BN * (int)sizeof(OutT) / 128 / 4;

	/* EPIOV: the epilogue overlapped with the next tile's first wgmma
	 * group (doc/gemm-kernels.md, "The overlapped epilogue").  In the
	 * halves form a warpgroup's tensor work stops for the whole epilogue:
	 * nothing of its own is queued while it converts and stores the tile.
	 * Here the epilogue stores EPIOV_BOXES of D's boxes, issues half 0 of
	 * the next tile's first K-block into `part`, stores the rest while
	 * that group runs, then waits for it, so that the next tile's main
	 * loop starts with its first half in `part` (with D^T or direct
	 * stores: the whole epilogue, then the issue).  No group is
	 * in flight across the tile loop, and the group is issued on every
	 * path (after the CTA's last tile too, where it reads a stage that no
	 * load fills any more, without waiting for it, and its sums are
	 * dropped): the forms that kept a group in flight across the loop or
	 * issued it on one path only spilled or had ptxas serialise every
	 * wgmma (results/h100/experiments/f8b-gemm-bisect/).  The sums are
	 * those of tile(), bit for bit: the same groups, the same adds in the
	 * same order. */

	/* Half 0 of K-block `it` (the next tile's first) into part; wait: for
	 * its stage (false past the CTA's last tile). */
	__device__ __forceinline__ void first_issue(bool wait)
	{
		const uint32_t s = it % STAGES, phase = (it / STAGES) & 1;
		if (wait && !ahead)
			f8b_mbarrier_wait(bars + 8 * s, phase);
		ahead = 0;
		this->template issue_cols<128, 0, false>(part, s, phase, false);
	}

	/* Before the CTA's first tile; any: the CTA has a tile (the host never
	 * launches more CTAs than tiles). */
	__device__ __forceinline__ void first_prologue(bool any)
	{
		first_issue(any);
		wait_part();
	}

	/* The block modes: K-block kb's scales of the tile at q into L1, for
	 * the load_scales() that follows the epilogue: A's two row scales,
	 * and BLOCK's two of B (BLOCK_1X128's come through the producer's
	 * ring).  Prefetched, not loaded: the scales held in registers from
	 * one tile's epilogue to the next tile's first adds spilled 20 bytes
	 * (BLOCK), whatever form they took (a member, four floats, a
	 * loop-carried local). */
	__device__ __forceinline__ void prefetch_scales(const spos &q, int kb) const
	{
		if constexpr (BLOCKS) {
			if constexpr (!base::ROWSC) {
				const float *sa = p.a_scale_inv + (size_t)kb * (size_t)p.m;
				asm volatile("prefetch.global.L1 [%0];\n" ::"l"(sa + q.r0));
				asm volatile("prefetch.global.L1 [%0];\n" ::"l"(sa + q.r1));
			}
			if constexpr (MODE == F8B_KGEMM_BLOCK) {
				asm volatile("prefetch.global.L1 [%0];\n" ::"l"(q.sb_p0 + kb));
				asm volatile("prefetch.global.L1 [%0];\n" ::"l"(q.sb_p1 + kb));
			}
		}
	}

	/* The tile's K-blocks, half 0 of the first already in part: as
	 * mainloop_promote_halves. */
	__device__ __forceinline__ void mainloop_first_ready(int tm, int tn, int kblocks)
	{
		const spos q = scale_pos(tm, tn);
		kscales first, sc0;
		load_scales(first, q, 0);
		load_scales(sc0, q, kblocks > 1 ? 1 : 0);
#pragma unroll
		for (int i = 0; i < BN / 2; i++)
			acc[i] = 0.0f;
		const uint32_t s = it % STAGES, phase = (it / STAGES) & 1;
		/* ROWSC: the stage was waited for by first_issue */
		const kscales f = this->with_rows(first, s);
		this->template promote_half<0>(part, f, s);
		second_half(first, s, phase);
		kscales sc1;
		halves_from(q, sc0, sc1, 1, kblocks);
	}

	/* One tile, EPIOV (see above); (ntm, ntn): the CTA's next tile, any
	 * tile of D after its last. */
	__device__ __forceinline__ void tile_overlapped(int tm, int tn, int kblocks, bool last,
	                                                int ntm, int ntn)
	{
		mainloop_first_ready(tm, tn, kblocks);
		constexpr int HB = EPIOV_BOXES;
		const bool split = p.tma_store && !p.tma_t;
		if (split)
			this->template epilogue_tma<0, HB>(tm, tn);
		else
			epilogue(tm, tn);
		first_issue(!last);
		prefetch_scales(scale_pos(ntm, ntn), 0);
		if (split)
			this->template epilogue_tma<HB>(tm, tn);
		wait_part();
		this->end_cta(last);
	}
};

#endif
