/* sm90_fp8_gemm_pingpong.cuh - a consumer warpgroup of the fp8 GEMM's
 * ping-pong schedule (FAST only; doc/gemm-kernels.md, "Ping-pong"): the
 * two consumer warpgroups take turns, each owning whole 128 x BN tiles,
 * so that one warpgroup's epilogue runs while the other's wgmma keep the
 * tensor cores busy.
 *
 * CTA b's tiles are t_j = b + j * grid, j = 0, 1, ... (scheduler.cuh);
 * consumer c (0 or 1) takes the tiles with j % 2 == c.  The producer
 * loads every K-block of t_0, then of t_1, ..., so K-block kb of tile j
 * is ring position it = j * kblocks + kb (stage it % STAGES, phase
 * (it / STAGES) & 1), which each consumer computes without counting the
 * other's.  The main loops run strictly in turn, t_0 (consumer 0), t_1
 * (consumer 1), t_2 (consumer 0), ..., ordered by two named barriers
 * (ptx/barrier.cuh): consumer c waits at ORDER + c (bar.sync, 256
 * threads) before tile j > 0, and the other consumer arrives there
 * (bar.arrive, its 128 threads) once it has issued the last wgmma group
 * of tile j - 1, and only when tile j exists, so each arrival meets
 * exactly one wait.  The turn also keeps the ring's parity waits exact:
 * when consumer c waits on stage s for fill n, every earlier fill of
 * the ring has been waited for (by c, or by the other consumer before it
 * handed over), and fill n + 1 cannot start before c frees the stage.
 *
 * Per tile (consumer c, m64nBNk32 wgmma into two fragments: rows 0-63 of
 * the tile into acc[0, BN/2), rows 64-127 into acc[BN/2, BN)):
 *   [j > 0] bar.sync ORDER + c
 *   per K-block: wait full[s]; wgmma.fence; 4 x (wgmma rows 0-63,
 *     wgmma rows 64-127); commit; wait_group 1 -> free the previous stage
 *     (empty[s]: 4 arrivals, lane 0 of each of this warpgroup's warps)
 *   [tile j + 1 exists] bar.arrive ORDER + (1 - c)
 *   wait_group 0, free the last stage; epilogue (scales, bf16 / f32
 *     stores) while the other consumer's main loop runs.
 */
#ifndef F8B_GEMM_SM90_FP8_GEMM_PINGPONG_CUH
#define F8B_GEMM_SM90_FP8_GEMM_PINGPONG_CUH

/* Named barriers ORDER and ORDER + 1: consumer 0's and consumer 1's turn
 * (barrier 0 is __syncthreads', used once before the roles split). */
constexpr int F8B_KG_PP_ORDER = 1;
constexpr int F8B_KG_PP_ORDER_THREADS = 256; /* both consumer warpgroups */

template <int BN, int STAGES, int EPI_BUFS, int AT, int BT, typename OutT>
struct f8b_kg_pp_consumer {
	static constexpr uint32_t STAGE = f8b_kg_stage_bytes(BN), A_BYTES = F8B_KG_BM * F8B_KG_BK;
	static_assert(BN <= 128, "2 x BN/2 accumulators a thread");

	const f8b_kgemm_args p;
	const uint32_t base, bars, epi; /* epi: this warpgroup's epilogue boxes */
	const void *const tmap_d;
	const int cw, warp, lane;
	uint32_t boxes = 0;    /* epilogue boxes stored so far (TMA) */
	float tw_scale = 1.0f; /* tensorwise x tensorwise: sa * sb, read once */
	float acc[BN];         /* two m64nBN fragments: rows 0-63, rows 64-127 */

	__device__ __forceinline__ f8b_kg_pp_consumer(const f8b_kgemm_args &args, uint32_t b,
	                                              uint32_t br, uint32_t e, const void *td,
	                                              int which)
	    : p(args), base(b), bars(br), epi(e), tmap_d(td), cw(which),
	      warp((threadIdx.x % 128) / 32), lane(threadIdx.x % 32)
	{
		if (!p.a_vec && !p.b_vec)
			tw_scale = __ldg(p.a_scale_inv) * __ldg(p.b_scale_inv);
	}

	/* Frees a stage: one arrival per warp of this warpgroup, after the
	 * wait_group that showed its wgmma done. */
	__device__ __forceinline__ void release(uint32_t empty) const
	{
		if (lane == 0)
			f8b_mbarrier_arrive(empty);
	}

	/* Waits for stage s and issues its eight wgmma (four K steps x two
	 * 64-row fragments), onto acc when `accumulate`, else the first K
	 * step overwrites it (scale-d = 0). */
	__device__ __forceinline__ void issue(uint32_t s, uint32_t phase, bool accumulate)
	{
		const uint32_t sa = base + s * STAGE, sb = sa + A_BYTES;
		f8b_mbarrier_wait(bars + 8 * s, phase);
#pragma unroll
		for (int i = 0; i < BN; i++)
			f8b_reg_fence(acc[i]);
		f8b_wgmma_fence();
		/* Rows 64-127 of A start 64 x 128 = 8192 bytes into the stage
		 * (1024-aligned: the swizzle pattern is the same). */
		const uint64_t da0 = f8b_desc_sw128_kmajor(sa),
		               da1 = f8b_desc_sw128_kmajor(sa + 64 * F8B_KG_BK),
		               db = f8b_desc_sw128_kmajor(sb);
#pragma unroll
		for (int kk = 0; kk < F8B_KG_BK / 32; kk++) {
			const uint32_t sd = (accumulate || kk > 0) ? 1u : 0u;
			f8b_wgmma<BN, AT, BT>::mma(acc, da0 + 2 * kk, db + 2 * kk, sd);
			f8b_wgmma<BN, AT, BT>::mma(acc + BN / 2, da1 + 2 * kk, db + 2 * kk, sd);
		}
		f8b_wgmma_commit_group();
#pragma unroll
		for (int i = 0; i < BN; i++)
			f8b_reg_fence(acc[i]);
	}

	/* Tile j of the CTA's sequence: its K-blocks are ring positions
	 * j * kblocks ... (j + 1) * kblocks - 1.  hand_over: tile j + 1
	 * exists, so the other consumer waits for this one's turn to end. */
	__device__ __forceinline__ void mainloop(uint32_t j, int kblocks, bool hand_over)
	{
		uint32_t it = j * (uint32_t)kblocks, prev_empty = 0;
		for (int kb = 0; kb < kblocks; kb++, it++) {
			const uint32_t s = it % STAGES;
			issue(s, (it / STAGES) & 1, kb > 0);
			if (kb > 0) {
				/* The previous K-block's group is done: its stage is free. */
				f8b_wgmma_wait_group<1>();
				release(prev_empty);
			}
			prev_empty = bars + 8 * (STAGES + s);
		}
		/* Every group of the tile is issued (every full barrier of it
		 * waited for): the other consumer's main loop may start, its
		 * wgmma queued behind these. */
		if (hand_over) {
			if (cw == 0)
				f8b_named_bar_arrive<F8B_KG_PP_ORDER + 1,
				                     F8B_KG_PP_ORDER_THREADS>();
			else
				f8b_named_bar_arrive<F8B_KG_PP_ORDER, F8B_KG_PP_ORDER_THREADS>();
		}
		f8b_wgmma_wait_group<0>();
#pragma unroll
		for (int i = 0; i < BN; i++)
			f8b_reg_fence(acc[i]);
		release(prev_empty);
	}

	/* last: the warpgroup's last tile, after whose TMA stores it waits
	 * until they have read its boxes (the CTA's shared memory goes when it
	 * ends). */
	__device__ __forceinline__ void tile(uint32_t j, int tm, int tn, int kblocks,
	                                     bool hand_over, bool last)
	{
		if (j > 0) { /* wait until the other consumer's tile j - 1 is issued */
			if (cw == 0)
				f8b_named_bar_sync<F8B_KG_PP_ORDER, F8B_KG_PP_ORDER_THREADS>();
			else
				f8b_named_bar_sync<F8B_KG_PP_ORDER + 1, F8B_KG_PP_ORDER_THREADS>();
		}
		mainloop(j, kblocks, hand_over);
		using store = f8b_kg_store<BN, OutT, true, 2>;
		if (!p.tma_store)
			store::run(p, acc, tm * F8B_KG_BM + warp * 16 + lane / 4,
			           tn * BN + 2 * (lane % 4), tw_scale);
		else if (cw == 0)
			store::template tma<EPI_BUFS, F8B_KG_EPI_BAR>(p, acc, tmap_d, epi, boxes,
			                                              tm * F8B_KG_BM, tn * BN, warp,
			                                              lane, tw_scale);
		else
			store::template tma<EPI_BUFS, F8B_KG_EPI_BAR + 1>(
			    p, acc, tmap_d, epi, boxes, tm * F8B_KG_BM, tn * BN, warp, lane,
			    tw_scale);
		if (last && p.tma_store && warp == 0 && lane == 0)
			f8b_bulk_wait_group_read<0>();
	}
};

#endif
