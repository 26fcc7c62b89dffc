/* sm90_fp8_gemm_scales.cuh - the block scales a consumer warpgroup of the
 * fp8 GEMM reads (f8b_kg_scales, which f8b_kg_consumer of
 * sm90_fp8_gemm_consumer.cuh derives from): where a thread's scales lie
 * for a tile, their loads from global memory, and A's row scales from the
 * producer's ring in shared memory (ROWSC).
 *
 * A thread's scales are those of its rows and columns of the m64nBNk32
 * accumulator fragment (sm90_fp8_gemm_consumer.cuh): rows 16 w + l/4 and
 * 16 w + l/4 + 8 of its warpgroup's 64 (warp w, lane l), which are rows
 * 64 cw to 64 cw + 63 of the 128-row tile (consumer warpgroup cw), and
 * columns 8 j + 2 (l % 4) + e.  The scale tensors' layouts: gemm.h
 * (f8b_kgemm_args).
 */
#ifndef F8B_GEMM_SM90_FP8_GEMM_SCALES_CUH
#define F8B_GEMM_SM90_FP8_GEMM_SCALES_CUH

/* The part of a consumer warpgroup that finds and reads the block scales:
 * the kernel's arguments, the scale ring and the thread's place in the
 * tile, which f8b_kg_consumer uses as its own (using-declarations). */
template <int BN, int MODE> struct f8b_kg_scales {
	static constexpr bool BLOCKS = MODE == F8B_KGEMM_BLOCK || MODE == F8B_KGEMM_BLOCK_1X128;
	/* BLOCK_1X128 in halves: B's column scales from the producer's ring in
	 * shared memory (scl), BN floats a stage, read as each half is added. */
	static constexpr bool COLSC = F8B_KGEMM_SMEM_SCALES(BN, MODE);
	static_assert(MODE != F8B_KGEMM_BLOCK_1X128 || BN <= 128 || COLSC,
	              "BN/4 column scales a thread");
	/* BLOCK in halves: A's row scales from the producer's ring in shared
	 * memory (scl), 128 floats a stage, read after the stage's wait. */
	static constexpr bool ROWSC = F8B_KGEMM_SMEM_ROWSCALES(BN, MODE);
	/* Either ring: every consumer thread reads the stage's scales with
	 * plain loads, so each arrives on its empty barrier (the kernel's
	 * count of arrivals). */
	static constexpr bool SCRING = COLSC || ROWSC;

	const f8b_kgemm_args p;
	const uint32_t scl;       /* COLSC, ROWSC: the scale ring */
	const int cw, warp, lane; /* consumer warpgroup (0 or 1), its warp, the lane */

	__device__ __forceinline__ f8b_kg_scales(const f8b_kgemm_args &args, uint32_t sc, int which)
	    : p(args), scl(sc), cw(which), warp((threadIdx.x % 128) / 32), lane(threadIdx.x % 32)
	{
	}

	__device__ __forceinline__ int clamp(int i, int n) const
	{
		return f8b_kg_clamp(i, n);
	}

	/* One K-block's block scales: 2 of A (this thread's two rows), 2 of
	 * B (BLOCK: the 128-row blocks the tile's columns fall in) or BN/4 of
	 * B (BLOCK_1X128: this thread's columns). */
	struct kscales {
		float sa0 = 1.0f, sa1 = 1.0f, sb0 = 1.0f, sb1 = 1.0f;
		float sbc[MODE == F8B_KGEMM_BLOCK_1X128 && !COLSC ? BN / 4 : 1];
	};

	/* Where this thread's scales lie, for the tile (tm, tn). */
	struct spos {
		int r0, r1, c0, jsplit;
		const float *sb_p0, *sb_p1;
	};

	__device__ __forceinline__ spos scale_pos(int tm, int tn) const
	{
		spos q;
		q.r0 = clamp(tm * F8B_KG_BM + cw * 64 + warp * 16 + lane / 4, p.m);
		q.r1 = clamp(tm * F8B_KG_BM + cw * 64 + warp * 16 + lane / 4 + 8, p.m);
		q.c0 = tn * BN;
		/* BLOCK: a tile spans at most two 128-row blocks of B (c0 % 128 +
		 * BN <= 256 for the tiles of the table); columns from octet
		 * jsplit on lie in the second. */
		const int nblk = (p.n + F8B_KG_SBLK - 1) / F8B_KG_SBLK;
		q.sb_p0 = p.b_scale_inv + (size_t)clamp(q.c0 / F8B_KG_SBLK, nblk) * p.b_scale_ld;
		q.sb_p1 =
		    p.b_scale_inv + (size_t)clamp(q.c0 / F8B_KG_SBLK + 1, nblk) * p.b_scale_ld;
		q.jsplit = (F8B_KG_SBLK - q.c0 % F8B_KG_SBLK) / 8;
		return q;
	}

	/* The scales of K-block kb (block modes; kb < kblocks): read one
	 * K-block ahead of their use, so that an L2 round trip is off the
	 * path between a wgmma group's end and the promotion. */
	__device__ __forceinline__ void load_scales(kscales &sc, const spos &q, int kb) const
	{
		if constexpr (BLOCKS && !ROWSC) {
			const float *sa = p.a_scale_inv + (size_t)kb * (size_t)p.m;
			sc.sa0 = __ldg(sa + q.r0);
			sc.sa1 = __ldg(sa + q.r1);
		}
		if constexpr (MODE == F8B_KGEMM_BLOCK) {
			sc.sb0 = __ldg(q.sb_p0 + kb);
			if constexpr (BN > 128) /* else the tile lies in one block */
				sc.sb1 = __ldg(q.sb_p1 + kb);
		}
		if constexpr (MODE == F8B_KGEMM_BLOCK_1X128 && !COLSC) {
			const float *sb = p.b_scale_inv + (size_t)kb * (size_t)p.n;
#pragma unroll
			for (int j = 0; j < BN / 8; j++) {
				const int col = q.c0 + 8 * j + 2 * (lane % 4);
				sc.sbc[2 * j] = __ldg(sb + clamp(col, p.n));
				sc.sbc[2 * j + 1] = __ldg(sb + clamp(col + 1, p.n));
			}
		}
	}

	/* ROWSC: `sc` with A's two row scales of the K-block in stage s, from
	 * the ring (the stage waited for; rows past M read a zero or an
	 * earlier stage's scale, and their sums are never stored). */
	__device__ __forceinline__ kscales with_rows(const kscales &sc, uint32_t s) const
	{
		kscales u = sc;
		if constexpr (ROWSC) {
			const uint32_t r = scl + s * (F8B_KG_BM * 4) +
			                   4 * ((uint32_t)threadIdx.x % 128 / 4 % 8 +
			                        (uint32_t)(threadIdx.x - 128) / 32 * 16);
			u.sa0 = f8b_ld_shared_f32(r);
			u.sa1 = f8b_ld_shared_f32(r + 4 * 8);
		}
		return u;
	}
};

#endif
