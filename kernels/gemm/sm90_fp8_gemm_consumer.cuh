/* sm90_fp8_gemm_consumer.cuh - a consumer warpgroup of the fp8 GEMM
 * (sm90_fp8_gemm_kernel.cuh): the main loop over one tile's K-blocks in
 * either accumulation mode, the promotion, the epilogue; the block scales
 * it reads: f8b_kg_scales, its base (sm90_fp8_gemm_scales.cuh).
 *
 * Thread t of the warpgroup (warp w, lane l) holds, in the m64nBNk32
 * accumulator fragment (ptx/wgmma.cuh), element 4j + 2h + e at row
 * 16 w + l/4 + 8 h of its 64 and column 8 j + 2 (l % 4) + e, j < BN/8:
 * two rows, BN/4 columns.  Scales follow the host reference
 * (src/backend/host_gemm.c): s = sa * sb rounded to fp32, then s times the
 * sum; FAST and PROMOTE apply s once to the whole sum in the epilogue,
 * the block modes to each K-block's partial sum, added into the fp32
 * accumulator (a fused multiply-add: one rounding where the host has two).
 */
#ifndef F8B_GEMM_SM90_FP8_GEMM_CONSUMER_CUH
#define F8B_GEMM_SM90_FP8_GEMM_CONSUMER_CUH

template <int BN, int STAGES, int CL, int MODE, int EPI_BUFS, int AT, int BT, typename OutT>
struct f8b_kg_consumer : f8b_kg_scales<BN, MODE> {
	using scales = f8b_kg_scales<BN, MODE>;
	/* The base's, as this struct's own: BLOCKS (a block mode), COLSC and
	 * ROWSC (B's column or A's row scales from the producer's ring in
	 * shared memory), SCRING (either), the kernel's arguments p, the scale ring scl, the
	 * warpgroup cw, the thread's warp and lane, and the scales' types and
	 * functions. */
	using scales::BLOCKS;
	using scales::COLSC;
	using scales::cw;
	using scales::lane;
	using scales::load_scales;
	using scales::p;
	using scales::ROWSC;
	using scales::scale_pos;
	using scales::scl;
	using scales::SCRING;
	using scales::warp;
	using scales::with_rows;
	using typename scales::kscales;
	using typename scales::spos;
	static constexpr bool PROMO = MODE != F8B_KGEMM_FAST;
	static constexpr uint32_t STAGE = f8b_kg_stage_bytes(BN), A_BYTES = F8B_KG_BM * F8B_KG_BK;
	/* Promotion with two wgmma groups in flight: 3 x BN/2 accumulators a
	 * thread, so BN = 128 only, and not BLOCK_1X128 (BN/4 more scales). */
	static constexpr bool OVERLAP = F8B_KGEMM_OVERLAPS(BN, MODE);
	/* Promotion on the 128x256 tile: each K-block as two n128 groups,
	 * one after the other, into one partial of BN/4 registers (the
	 * halves form): 128 + 64 accumulators a thread, as 128x192's 2 x 96. */
	static constexpr bool HALVES = F8B_KGEMM_HALVES(BN, MODE);
	static constexpr int PART = HALVES ? BN / 4 : BN / 2;
	static_assert(!PROMO || BN <= 192 || HALVES,
	              "promotion holds BN/2 accumulators and a partial a thread");
	static_assert(!SCRING || HALVES, "the scale ring: the halves form");
	/* BLOCK: a block of B's scales starts at octet 8 or 16 of a tile, or
	 * not at all (promote) */
	static_assert(MODE != F8B_KGEMM_BLOCK || BN % 64 == 0, "BLOCK tiles: BN % 64 == 0");
	/* An e4m3 D: its amax flushed after the CTA's last tile (end_cta). */
	static constexpr bool OUT8 = sizeof(OutT) == 1;
	/* The epilogue overlapped with the next tile (the variants the kernel
	 * builds as f8b_kg_consumer_ov, sm90_fp8_gemm_overlap.cuh): the halves
	 * form of PROMOTE, BLOCK and BLOCK_1X128 (COLSC), one CTA a tile (no
	 * peer reads the ring), any D. */
	static constexpr bool EPIOV = F8B_KG_EPIOV && HALVES && CL == 1;

	const uint32_t base, bars, epi; /* epi: this warpgroup's epilogue boxes */
	const void *const tmap_d;
	const void *const tmap_t; /* D^T's (p.tma_t) */
	uint32_t boxes = 0;       /* epilogue boxes stored so far (TMA) */
	/* FAST, PROMOTE with two tensorwise operands: sa * sb, read once */
	float tw_scale = 1.0f;
	uint32_t it = 0; /* K-blocks consumed so far: ring stage and phase */
	/* 1: a test during K-block it - 1's last group found K-block it's
	 * stage full (test_next), so its issue need not wait */
	uint32_t ahead = 0;
	float acc[BN / 2];                 /* FAST: the wgmma accumulator; else the fp32 sums */
	float part[PROMO ? PART : 1];      /* the wgmma partial of one K-block (or half) */
	float part2[OVERLAP ? BN / 2 : 1]; /* OVERLAP: the next K-block's partial */
	f8b_kg_out8 out8;                  /* OUT8: d_scale, this thread's amax */

	__device__ __forceinline__ f8b_kg_consumer(const f8b_kgemm_args &args, uint32_t b,
	                                           uint32_t br, uint32_t e, uint32_t sc,
	                                           const void *td, const void *tt, int which)
	    : scales(args, sc, which), base(b), bars(br), epi(e), tmap_d(td), tmap_t(tt)
	{
		if (!BLOCKS && !p.a_vec && !p.b_vec)
			tw_scale = __ldg(p.a_scale_inv) * __ldg(p.b_scale_inv);
		if constexpr (OUT8)
			out8.d_scale = __ldg(p.d_scale);
	}

	/* Free a stage: one arrival per consumer warp on the stage's empty
	 * barrier of every CTA of the cluster.  The stage was read by wgmma
	 * only, whose completion the preceding wait_group established; COLSC,
	 * ROWSC: one per thread, each after its own reads of the stage's
	 * scales. */
	__device__ __forceinline__ void release(uint32_t empty) const
	{
		if constexpr (SCRING) {
			f8b_mbarrier_arrive(empty);
			return;
		}
		if (lane != 0)
			return;
		if constexpr (CL == 1)
			f8b_mbarrier_arrive(empty);
		else
			for (uint32_t r = 0; r < (uint32_t)CL; r++)
				f8b_mbarrier_arrive_cluster(f8b_mapa_shared(empty, r));
	}

	/* Issues four m64nNk32 wgmma of stage s's K-block into d (N/2
	 * registers) on B's rows R0 to R0 + N - 1 (R0 a multiple of 8: the
	 * swizzle's 1024-byte period is kept), after waiting for the stage
	 * when WAIT: accumulating onto d from the start when `accumulate`,
	 * else the first of them overwrites it (scale-d = 0). */
	template <int N, int R0, bool WAIT>
	__device__ __forceinline__ void issue_cols(float *d, uint32_t s, uint32_t phase,
	                                           bool accumulate)
	{
		const uint32_t sa = base + s * STAGE + cw * (64 * F8B_KG_BK),
		               sb = base + s * STAGE + A_BYTES + R0 * F8B_KG_BK;
		if constexpr (WAIT) {
			if (!ahead)
				f8b_mbarrier_wait(bars + 8 * s, phase);
			ahead = 0;
		}
#pragma unroll
		for (int i = 0; i < N / 2; i++)
			f8b_reg_fence(d[i]);
		f8b_wgmma_fence();
		const uint64_t da = f8b_desc_sw128_kmajor(sa), db = f8b_desc_sw128_kmajor(sb);
#pragma unroll
		for (int kk = 0; kk < F8B_KG_BK / 32; kk++) {
			/* 32 bytes of K further along the swizzled rows: +2 in
			 * the descriptor's address field (bytes >> 4). */
			f8b_wgmma<N, AT, BT>::mma(d, da + 2 * kk, db + 2 * kk,
			                          (accumulate || kk > 0) ? 1u : 0u);
		}
		f8b_wgmma_commit_group();
#pragma unroll
		for (int i = 0; i < N / 2; i++)
			f8b_reg_fence(d[i]);
	}

	/* Tests, without blocking, whether the next K-block's stage (it + 1:
	 * this tile's or the next tile's first) is full, while a group of
	 * this K-block runs: the test's latency is then off the path from
	 * the group's end, through the adds, to the next issue, which in the
	 * promoting forms is the tensor cores' idle time (a full wait there,
	 * even on a full stage, cost promotion 10% in
	 * results/h100/experiments/f8b-gemm-bisect/).  Past the CTA's last
	 * K-block the phase never completes and the test says no. */
	__device__ __forceinline__ void test_next()
	{
		const uint32_t n = it + 1;
		ahead = f8b_mbarrier_test_wait(bars + 8 * (n % STAGES), (n / STAGES) & 1);
	}

	/* Waits for stage `s` and issues its whole K-block into d. */
	__device__ __forceinline__ void issue(float *d, uint32_t s, uint32_t phase, bool accumulate)
	{
		issue_cols<BN, 0, true>(d, s, phase, accumulate);
	}

	/* HALVES: half H of stage s's K-block, B's rows 128 H to 128 H + 127,
	 * into d (BN/4 registers) from zero.  Half 0 waits for the stage;
	 * half 1 finds it full. */
	template <int H>
	__device__ __forceinline__ void issue_half(float *d, uint32_t s, uint32_t phase)
	{
		issue_cols<128, 128 * H, H == 0>(d, s, phase, false);
	}

	/* fast_accum: the wgmma accumulator runs on over all of K, one group
	 * in flight behind the one just issued. */
	__device__ __forceinline__ void mainloop_fast(int kblocks)
	{
		uint32_t prev_empty = 0;
		for (int kb = 0; kb < kblocks; kb++, it++) {
			const uint32_t s = it % STAGES;
			issue(acc, s, (it / STAGES) & 1, kb > 0);
			if (kb > 0) {
				/* The previous K-block's group is done: its stage is free. */
				f8b_wgmma_wait_group<1>();
				release(prev_empty);
			}
			prev_empty = bars + 8 * (STAGES + s);
		}
		f8b_wgmma_wait_group<0>();
#pragma unroll
		for (int i = 0; i < BN / 2; i++)
			f8b_reg_fence(acc[i]);
		release(prev_empty);
	}

	/* BLOCK: NJ octets of the fragment from octet J0 on, into a (the
	 * accumulators of octet J0 on), times sa and B's scale of the block
	 * each octet lies in: sb0 below octet JS of the tile, sb1 from it. */
	template <int J0, int NJ, int JS>
	__device__ __forceinline__ void promote_octets(float *a, const float *pt,
	                                               const kscales &sc) const
	{
		const float s00 = sc.sa0 * sc.sb0, s10 = sc.sa1 * sc.sb0;
		const float s01 = sc.sa0 * sc.sb1, s11 = sc.sa1 * sc.sb1;
#pragma unroll
		for (int j = 0; j < NJ; j++) {
			const float t0 = J0 + j < JS ? s00 : s01, t1 = J0 + j < JS ? s10 : s11;
			a[4 * j] = fmaf(t0, pt[4 * j], a[4 * j]);
			a[4 * j + 1] = fmaf(t0, pt[4 * j + 1], a[4 * j + 1]);
			a[4 * j + 2] = fmaf(t1, pt[4 * j + 2], a[4 * j + 2]);
			a[4 * j + 3] = fmaf(t1, pt[4 * j + 3], a[4 * j + 3]);
		}
	}

	/* acc += part (PROMOTE), acc = fma(sa * sb, part, acc) (block modes). */
	__device__ __forceinline__ void promote(const float *pt, const kscales &sc, const spos &q)
	{
		if constexpr (!BLOCKS) {
#pragma unroll
			for (int i = 0; i < BN / 2; i++)
				acc[i] += pt[i];
		} else if constexpr (MODE == F8B_KGEMM_BLOCK) {
			/* The tile's columns start at a multiple of 64 (BN % 64 == 0):
			 * the second block of B begins at octet 16 or 8, or (BN <=
			 * 128) never.  One code path per case, so that no column
			 * selects its scale at run time. */
			if constexpr (BN <= 128) {
				promote_octets<0, BN / 8, BN / 8>(acc, pt, sc);
			} else {
				if (q.jsplit == 16)
					promote_octets<0, BN / 8, 16>(acc, pt, sc);
				else
					promote_octets<0, BN / 8, 8>(acc, pt, sc);
			}
		} else {
#pragma unroll
			for (int j = 0; j < BN / 8; j++)
#pragma unroll
				for (int e = 0; e < 4; e++) {
					const float t =
					    (e < 2 ? sc.sa0 : sc.sa1) * sc.sbc[2 * j + e % 2];
					acc[4 * j + e] = fmaf(t, pt[4 * j + e], acc[4 * j + e]);
				}
		}
	}

	/* Waits for the oldest of the wgmma groups in flight (all but N newer
	 * ones), frees its stage and promotes its partial sum pt. */
	template <int N>
	__device__ __forceinline__ void retire(float *pt, uint32_t s, const kscales &sc,
	                                       const spos &q)
	{
		f8b_wgmma_wait_group<N>();
#pragma unroll
		for (int i = 0; i < BN / 2; i++)
			f8b_reg_fence(pt[i]);
		release(bars + 8 * (STAGES + s));
		promote(pt, sc, q);
	}

	/* Promotion, one group in flight: issue K-block kb into part, wait
	 * for it, promote it.  The tensor cores idle for this warpgroup
	 * during the adds; the other consumer warpgroup may fill the gap. */
	__device__ __forceinline__ void mainloop_promote1(const spos &q, int kblocks)
	{
		/* BLOCK_1X128 has no registers for a second set of BN/4 column
		 * scales (it spilled): its scales are read in their own K-block,
		 * in flight while its group runs. */
		constexpr bool AHEAD = MODE != F8B_KGEMM_BLOCK_1X128;
		kscales cur, nxt;
		if constexpr (AHEAD)
			load_scales(cur, q, 0);
		for (int kb = 0; kb < kblocks; kb++, it++) {
			const uint32_t s = it % STAGES;
			issue(part, s, (it / STAGES) & 1, false);
			test_next();
			if constexpr (AHEAD) {
				load_scales(nxt, q, kb + 1 < kblocks ? kb + 1 : kb);
				retire<0>(part, s, cur, q);
				cur = nxt;
			} else {
				load_scales(cur, q, kb);
				retire<0>(part, s, cur, q);
			}
		}
	}

	/* Promotion, two groups in flight (OVERLAP): K-block kb + 1 is issued
	 * into the other partial accumulator before K-block kb is waited for
	 * (wait_group 1) and promoted, so the tensor cores have this
	 * warpgroup's next group queued while it adds.  Unrolled by two so
	 * that part and part2 stay registers. */
	__device__ __forceinline__ void mainloop_promote2(const spos &q, int kblocks)
	{
		/* Nothing is in flight when the loop is entered, and part2 only
		 * at its back edge: no copies of registers a wgmma is writing
		 * (ptxas serialises every wgmma when it meets one). */
		kscales sc0, sc1; /* the scales of K-blocks kb and kb + 1 */
		int kb = 0;
		for (; kb + 1 < kblocks; kb += 2) {
			load_scales(sc0, q, kb);
			issue(part, it % STAGES, (it / STAGES) & 1, false);
			if (kb > 0)
				retire<1>(part2, (it - 1) % STAGES, sc1, q); /* K-block kb - 1 */
			load_scales(sc1, q, kb + 1);
			issue(part2, (it + 1) % STAGES, ((it + 1) / STAGES) & 1, false);
			retire<1>(part, it % STAGES, sc0, q); /* K-block kb */
			it += 2;
		}
		if (kb == 0) { /* kblocks == 1 */
			load_scales(sc0, q, 0);
			issue(part, it % STAGES, (it / STAGES) & 1, false);
			retire<0>(part, it % STAGES, sc0, q);
			it++;
		} else if (kb < kblocks) { /* kblocks odd: the last one into part */
			load_scales(sc0, q, kb);
			issue(part, it % STAGES, (it / STAGES) & 1, false);
			retire<1>(part2, (it - 1) % STAGES, sc1, q);
			retire<0>(part, it % STAGES, sc0, q);
			it++;
		} else {
			retire<0>(part2, (it - 1) % STAGES, sc1, q);
		}
	}

	/* HALVES: the partial of half H (columns 128 H to 128 H + 127 of the
	 * tile: octets 16 H to 16 H + 15 of the m64n256 fragment, acc[64 H]
	 * on) into acc; BLOCK: times sa and B's scale of that 128-row block
	 * (sb0, sb1: the tile starts at a multiple of 256); BLOCK_1X128: times
	 * sa and each column's scale, from stage s's slot of the scale ring
	 * (two adjacent columns in one 8-byte load). */
	template <int H>
	__device__ __forceinline__ void promote_half(const float *pt, const kscales &sc, uint32_t s)
	{
		float *a = acc + H * (BN / 4);
		if constexpr (!BLOCKS) {
#pragma unroll
			for (int i = 0; i < BN / 4; i++)
				a[i] += pt[i];
		} else if constexpr (COLSC) {
			const uint32_t col = scl + s * (BN * 4) + 4 * (128 * H + 2 * (lane % 4));
			/* The half's BN/16 pairs read first, all in flight at once,
			 * then the multiplies: read beside each use, a quarter of the
			 * FMUL/FFMA stall samples waited for its load (ncu at 16384^3),
			 * and this form is 1.5-8% faster at 4096^3 to 16384^3
			 * (results/h100/experiments/f8b-gemm-colsc-loads/). */
			float2 bs[BN / 16];
#pragma unroll
			for (int j = 0; j < BN / 16; j++)
				bs[j] = f8b_ld_shared_v2_f32(col + 4 * 8 * j);
#pragma unroll
			for (int j = 0; j < BN / 16; j++) {
				const float2 b = bs[j];
				a[4 * j] = fmaf(sc.sa0 * b.x, pt[4 * j], a[4 * j]);
				a[4 * j + 1] = fmaf(sc.sa0 * b.y, pt[4 * j + 1], a[4 * j + 1]);
				a[4 * j + 2] = fmaf(sc.sa1 * b.x, pt[4 * j + 2], a[4 * j + 2]);
				a[4 * j + 3] = fmaf(sc.sa1 * b.y, pt[4 * j + 3], a[4 * j + 3]);
			}
		} else { /* the half's 16 octets, all in B's block H */
			promote_octets<BN / 16 * H, BN / 16, 16>(a, pt, sc);
		}
	}

	/* One K-block in halves (HALVES) with its scales `use`, loading those
	 * of K-block kn into `next` while half 0 runs: half 0's group, its
	 * adds, half 1's group, its adds; the stage is freed after half 1's
	 * group (COLSC: after its adds, which read the stage's scales).  One
	 * group in flight, as in mainloop_promote1, but each wait covers half
	 * the K-block's wgmma and half its adds. */
	__device__ __forceinline__ void halves_kblock(const spos &q, const kscales &use,
	                                              kscales &next, int kn)
	{
		const uint32_t s = it % STAGES, phase = (it / STAGES) & 1;
		issue_half<0>(part, s, phase);
		load_scales(next, q, kn);
		const kscales u = with_rows(use, s);
		wait_part();
		promote_half<0>(part, u, s);
		second_half(use, s, phase);
	}

	/* The group in `part` done, its registers fenced. */
	__device__ __forceinline__ void wait_part()
	{
		f8b_wgmma_wait_group<0>();
#pragma unroll
		for (int i = 0; i < BN / 4; i++)
			f8b_reg_fence(part[i]);
	}

	/* Half 1 of K-block `it` (stage s), half 0 promoted: issue, wait, free
	 * the stage and promote (BLOCK_1X128: free it after the adds that
	 * read its column scales), and on to the next K-block. */
	__device__ __forceinline__ void second_half(const kscales &use, uint32_t s, uint32_t phase)
	{
		issue_half<1>(part, s, phase);
		test_next();
		/* ROWSC: the row scales read again for this half, before the
		 * stage is freed (held across both halves, they spilled) */
		const kscales u = with_rows(use, s);
		wait_part();
		if constexpr (!COLSC)
			release(bars + 8 * (STAGES + s));
		promote_half<1>(part, u, s);
		if constexpr (COLSC)
			release(bars + 8 * (STAGES + s));
		it++;
	}

	/* Promotion in halves.  BLOCK: K-blocks in pairs, the two scale sets
	 * taking turns, so that no register copy (the `cur = nxt` of a one-set
	 * loop) makes the warp wait in this K-block for the next one's scale
	 * loads: ncu put 29% of BLOCK's stall samples on that copy
	 * (results/h100/experiments/f8b-gemm-ncu-halves/).  PROMOTE loads no
	 * scales; PROMOTE and BLOCK_1X128 spilled in the paired form (480 and
	 * 16 bytes) and keep the one-set loop. */
	__device__ __forceinline__ void mainloop_promote_halves(const spos &q, int kblocks)
	{
		kscales sc0, sc1;
		load_scales(sc0, q, 0);
		halves_from(q, sc0, sc1, 0, kblocks);
	}

	/* K-blocks kb0 to kblocks - 1 in halves, sc0 holding K-block kb0's
	 * scales (the loop of mainloop_promote_halves, and of
	 * mainloop_first_ready after its first K-block). */
	__device__ __forceinline__ void halves_from(const spos &q, kscales &sc0, kscales &sc1,
	                                            int kb0, int kblocks)
	{
		if constexpr (MODE == F8B_KGEMM_BLOCK) {
			int kb = kb0;
			for (; kb + 1 < kblocks; kb += 2) {
				halves_kblock(q, sc0, sc1, kb + 1);
				halves_kblock(q, sc1, sc0, kb + 2 < kblocks ? kb + 2 : kb + 1);
			}
			if (kb < kblocks) /* an odd count: the last one */
				halves_kblock(q, sc0, sc1, kb);
		} else {
			for (int kb = kb0; kb < kblocks; kb++) {
				halves_kblock(q, sc0, sc1, kb + 1 < kblocks ? kb + 1 : kb);
				sc0 = sc1;
			}
		}
	}

	/* Promotion: each K-block's partial sum into the fp32 accumulator,
	 * times its block scales in the block modes. */
	__device__ __forceinline__ void mainloop_promote(int tm, int tn, int kblocks)
	{
		const spos q = scale_pos(tm, tn);
#pragma unroll
		for (int i = 0; i < BN / 2; i++)
			acc[i] = 0.0f;
		if constexpr (HALVES)
			mainloop_promote_halves(q, kblocks);
		else if constexpr (OVERLAP)
			mainloop_promote2(q, kblocks);
		else
			mainloop_promote1(q, kblocks);
	}

	/* Epilogue from registers (sm90_fp8_gemm_epilogue.cuh): scaled once
	 * as (sa * sb) * acc in FAST and PROMOTE (the block modes scaled at each
	 * promotion), rounded once to the output type, stored through TMA
	 * where D's rows allow it; then D^T, where asked (p.tma_t), from the
	 * same registers through the same boxes. */
	__device__ __forceinline__ void epilogue(int tm, int tn)
	{
		epilogue_d(tm, tn);
		epilogue_t(tm, tn);
	}

	/* D^T, where asked: bf16 or e4m3 (f32 is refused by the host),
	 * 64-column boxes; not in BLOCK_1X128's halves (COLSC), where it
	 * spilled 76 bytes beside the 232 registers that variant has (the
	 * host never asks it). */
	__device__ __forceinline__ void epilogue_t(int tm, int tn)
	{
		if constexpr (sizeof(OutT) <= 2 && BN % 64 == 0 && !COLSC)
			if (p.tma_t) {
				using store = f8b_kg_store<BN, OutT, !BLOCKS, 1>;
				if (cw == 0)
					store::template tma_t<EPI_BUFS, F8B_KG_EPI_BAR>(
					    p, acc, tmap_t, epi, boxes, tm * F8B_KG_BM, tn * BN,
					    warp, lane, tw_scale, out8.d_scale);
				else
					store::template tma_t<EPI_BUFS, F8B_KG_EPI_BAR + 1>(
					    p, acc, tmap_t, epi, boxes, tm * F8B_KG_BM + 64,
					    tn * BN, warp, lane, tw_scale, out8.d_scale);
			}
	}

	/* D through TMA, boxes CB0 to CB1 - 1 of the tile's row (-1: all). */
	template <int CB0 = 0, int CB1 = -1>
	__device__ __forceinline__ void epilogue_tma(int tm, int tn)
	{
		using store = f8b_kg_store<BN, OutT, !BLOCKS, 1>;
		f8b_kg_out8 *const o8 = OUT8 ? &out8 : nullptr;
		if (cw == 0)
			store::template tma<EPI_BUFS, F8B_KG_EPI_BAR, CB0, CB1>(
			    p, acc, tmap_d, epi, boxes, tm * F8B_KG_BM, tn * BN, warp, lane,
			    tw_scale, o8);
		else
			store::template tma<EPI_BUFS, F8B_KG_EPI_BAR + 1, CB0, CB1>(
			    p, acc, tmap_d, epi, boxes, tm * F8B_KG_BM + 64, tn * BN, warp, lane,
			    tw_scale, o8);
	}

	__device__ __forceinline__ void epilogue_d(int tm, int tn)
	{
		if (p.tma_store) {
			epilogue_tma(tm, tn);
			return;
		}
		using store = f8b_kg_store<BN, OutT, !BLOCKS, 1>;
		store::run(p, acc, tm * F8B_KG_BM + cw * 64 + warp * 16 + lane / 4,
		           tn * BN + 2 * (lane % 4), tw_scale, OUT8 ? &out8 : nullptr);
	}

	/* last: the CTA's last tile, after whose TMA stores the warpgroup
	 * waits until they have read its boxes (the CTA's shared memory goes
	 * when it ends). */
	__device__ __forceinline__ void tile(int tm, int tn, int kblocks, bool last)
	{
		if constexpr (PROMO)
			mainloop_promote(tm, tn, kblocks);
		else
			mainloop_fast(kblocks);
		epilogue(tm, tn);
		end_cta(last);
	}

	/* After a tile's epilogue; last: the CTA's last tile (the same for
	 * every thread of the CTA), after which the warpgroup waits until its
	 * TMA stores have read their boxes, and flushes an e4m3 D's amax: one
	 * atomic max per warp for all of the CTA's tiles. */
	__device__ __forceinline__ void end_cta(bool last)
	{
		if (last && (p.tma_store || p.tma_t) && warp == 0 && lane == 0)
			f8b_bulk_wait_group_read<0>();
		if constexpr (OUT8)
			if (last)
				out8.flush(p.amax_d, lane);
	}
};

#endif
