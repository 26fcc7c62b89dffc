/* sm90_fp8_gemm_epilogue.cuh - the fp8 GEMM's epilogue from registers
 * (doc/gemm-kernels.md, "Epilogue"), shared by the cooperative consumer
 * (sm90_fp8_gemm_consumer.cuh: 64 rows a warpgroup) and the ping-pong one
 * (sm90_fp8_gemm_pingpong.cuh: 128 rows a warpgroup, two m64 fragments).
 *
 * A fragment is the m64nBNk32 accumulator of ptx/wgmma.cuh: thread t of
 * the warpgroup (warp w, lane l) holds element 4j + 2h + e at row
 * 16 w + l/4 + 8 h and column 8 j + 2 (l % 4) + e, j < BN/8.  HALVES
 * fragments lie one after the other in acc (BN/2 floats each), fragment f
 * 64 f rows below the first.  SCALED: multiply by the FAST / PROMOTE
 * scales, (sa * sb) * acc (tensorwise x tensorwise: tw_scale, read once by
 * the caller), else store acc as it is (the block modes, scaled at each
 * promotion).  Rounded once to the output type.
 *
 * Two ways to D:
 *   TMA (p.tma_store: D's rows a multiple of 16 bytes): the warpgroup
 *     writes a box of 64 rows x 128 bytes (128 e4m3, 64 bf16 or 32 f32
 *     columns) into shared memory, 128-byte swizzled as the tensor map of
 *     D reads it (16-byte chunk c of row r at chunk c ^ (r % 8): the eight
 *     rows a warp writes at once fall in eight different chunks, no bank
 *     conflict), and its first thread stores the box with one TMA copy,
 *     which runs on while the warpgroup fills the next box, or goes on to
 *     the next tile's main loop.  The warpgroup's BUFS boxes are used in
 *     turn (a count that runs on across tiles); before a box is written
 *     again, the first thread waits until its last store has read it
 *     (cp.async.bulk.wait_group.read BUFS - 1), and a named barrier of the
 *     warpgroup's 128 threads passes that on.  TMA clips what lies past
 *     M and N.
 *   direct (any N): each thread stores its pairs of columns to global
 *     memory, guarded at M and N.
 * An e4m3 D (OutT __nv_fp8_e4m3: doc/gemm-kernels.md "fp8 output"), either
 * way: each value v, scaled and in fp32, is stored as e4m3(v * d_scale)
 * (RNE, saturating: cvt.rn.satfinite), two bytes a pair, and |v| of each
 * element inside D goes into the thread's running amax (f8b_kg_out8),
 * which the consumer reduces over its warp and adds to amax_d with one
 * atomic max after its CTA's last tile.
 */
#ifndef F8B_GEMM_SM90_FP8_GEMM_EPILOGUE_CUH
#define F8B_GEMM_SM90_FP8_GEMM_EPILOGUE_CUH

__device__ __forceinline__ int f8b_kg_clamp(int i, int n)
{
	return i < n ? i : n - 1;
}

/* The fused activation (p.sigmoid): y = 1 / (1 + exp(-v)) in fp32 on the
 * scaled fp32 sum, before the one rounding to the output type, with the
 * fast intrinsics (ex2.approx and rcp.approx: a few instructions; within a
 * few fp32 ulps of the accurate form, below bf16's rounding).  The first
 * try used kernels/sigmoid.cu's accurate expf and IEEE division, and held
 * the tensor cores for twice the time of the pass it replaced
 * (results/h100/experiments/lls-fused-sigmoid/).  v < -87: exp(-v) >
 * 2^126 and __fdividef gives 0, the limit; v = NaN gives NaN. */
__device__ __forceinline__ float f8b_kg_sigmoid(float v)
{
	return __fdividef(1.0f, 1.0f + __expf(-v));
}

/* An e4m3 output's state in a consumer thread: D's scale, read once, and
 * the amax of the values this thread stored, as the bits of |v|
 * (f8b_d_abs_bits: an unsigned max of them is the float max, NaN above
 * +inf above every finite value, so a NaN propagates).  flush(): the
 * warp's max, one atomic max on amax_d's bits from lane 0 (amax_d zeroed
 * before the launch; every value is >= +0.0, whose bits are 0).  Every
 * lane of the warp must call it. */
struct f8b_kg_out8 {
	float d_scale = 1.0f;
	uint32_t amax_bits = 0;

	/* A pair of scaled values as two e4m3 codes (the first in the low
	 * byte): times d_scale in fp32, one RNE saturating conversion each. */
	__device__ __forceinline__ uint32_t codes(float v0, float v1) const
	{
		return f8b_d_cvt_fp8x2<false>(v0 * d_scale, v1 * d_scale);
	}

	__device__ __forceinline__ void flush(float *amax_d, int lane) const
	{
		const uint32_t m = __reduce_max_sync(0xFFFFFFFFu, amax_bits);
		if (lane == 0)
			atomicMax(reinterpret_cast<unsigned int *>(amax_d), m);
	}
};

template <int BN, typename OutT, bool SCALED, int HALVES> struct f8b_kg_store {
	/* e4m3 output */
	static constexpr bool OUT8 = sizeof(OutT) == 1;

	template <bool SIG>
	static __device__ __forceinline__ void store2(const f8b_kgemm_args &p, OutT *d, int row,
	                                              int col, float v0, float v1, f8b_kg_out8 *o8)
	{
		if (row >= p.m || col >= p.n)
			return;
		if constexpr (OUT8) {
			/* amax before d_scale (cuBLASLt's AMAX_D), of the elements
			 * inside D only; then one fp32 product and one RNE
			 * saturating conversion each (host_gemm.c's order). */
			const bool two = col + 1 < p.n;
			o8->amax_bits = max(o8->amax_bits, f8b_d_abs_bits(v0));
			if (two)
				o8->amax_bits = max(o8->amax_bits, f8b_d_abs_bits(v1));
			const float y0 = v0 * o8->d_scale, y1 = v1 * o8->d_scale;
			uint8_t *q =
			    reinterpret_cast<uint8_t *>(d) + (size_t)row * (size_t)p.n + col;
			if (two && (p.n & 1) == 0) /* the pair is 2-byte aligned */
				*reinterpret_cast<uint16_t *>(q) = (uint16_t)o8->codes(v0, v1);
			else {
				q[0] = f8b_d_cvt_fp8<false>(y0);
				if (two)
					q[1] = f8b_d_cvt_fp8<false>(y1);
			}
		} else {
			(void)o8;
			if constexpr (SIG) {
				v0 = f8b_kg_sigmoid(v0);
				v1 = f8b_kg_sigmoid(v1);
			}
			OutT *q = d + (size_t)row * (size_t)p.n + col;
			if (col + 1 < p.n && (p.n & 1) == 0) { /* 2-element aligned pair */
				if constexpr (sizeof(OutT) == 2)
					*reinterpret_cast<__nv_bfloat162 *>(q) =
					    __floats2bfloat162_rn(v0, v1);
				else
					*reinterpret_cast<float2 *>(q) = make_float2(v0, v1);
			} else {
				q[0] = static_cast<OutT>(v0);
				if (col + 1 < p.n)
					q[1] = static_cast<OutT>(v1);
			}
		}
	}

	/* One scale for every element (tensorwise x tensorwise), or none. */
	template <bool SIG>
	static __device__ __forceinline__ void uniform(const f8b_kgemm_args &p, const float *acc,
	                                               int row0, int colb, float scale,
	                                               f8b_kg_out8 *o8)
	{
		OutT *d = static_cast<OutT *>(p.d);
#pragma unroll
		for (int f = 0; f < HALVES; f++)
#pragma unroll
			for (int j = 0; j < BN / 8; j++)
#pragma unroll
				for (int h = 0; h < 2; h++) {
					const float *a = acc + f * (BN / 2) + 4 * j + 2 * h;
					store2<SIG>(p, d, row0 + 64 * f + 8 * h, colb + 8 * j,
					            SCALED ? a[0] * scale : a[0],
					            SCALED ? a[1] * scale : a[1], o8);
				}
	}

	/* row0, colb: this thread's first row and column of the tile in D;
	 * o8: the e4m3 output's state (NULL for bf16 and f32).  The fused
	 * sigmoid is a branch here, outside the stores' loops, not one a pair
	 * inside them: that one cost FAST 4-9% with the sigmoid off (an H100
	 * A/B, doc/gemm-kernels.md "Epilogue"). */
	static __device__ __forceinline__ void run(const f8b_kgemm_args &p, const float *acc,
	                                           int row0, int colb, float tw_scale,
	                                           f8b_kg_out8 *o8 = nullptr)
	{
		if (!OUT8 && p.sigmoid)
			run_as<true>(p, acc, row0, colb, tw_scale, o8);
		else
			run_as<false>(p, acc, row0, colb, tw_scale, o8);
	}

	template <bool SIG>
	static __device__ __forceinline__ void run_as(const f8b_kgemm_args &p, const float *acc,
	                                              int row0, int colb, float tw_scale,
	                                              f8b_kg_out8 *o8)
	{
		if constexpr (SCALED) {
			if (p.a_vec || p.b_vec) {
				axiswise<SIG>(p, acc, row0, colb, o8);
				return;
			}
		}
		uniform<SIG>(p, acc, row0, colb, tw_scale, o8);
	}

	template <bool SIG>
	static __device__ __forceinline__ void axiswise(const f8b_kgemm_args &p, const float *acc,
	                                                int row0, int colb, f8b_kg_out8 *o8)
	{
		OutT *d = static_cast<OutT *>(p.d);
		/* Axiswise (either operand): one scale per row of A, per row of B.
		 * The column scales of 8 octets are read before their stores
		 * (which could alias them for all the compiler knows, and would
		 * serialise the loads), 16 registers at a time, and serve every
		 * fragment. */
		float sa[2 * HALVES];
#pragma unroll
		for (int f = 0; f < HALVES; f++)
#pragma unroll
			for (int h = 0; h < 2; h++)
				sa[2 * f + h] =
				    __ldg(p.a_scale_inv +
				          (p.a_vec ? f8b_kg_clamp(row0 + 64 * f + 8 * h, p.m) : 0));
		constexpr int CHUNK = BN / 8 < 8 ? BN / 8 : 8;
#pragma unroll
		for (int j0 = 0; j0 < BN / 8; j0 += CHUNK) {
			float sb[2 * CHUNK];
			col_scales<CHUNK>(p, true, colb + 8 * j0, sb);
#pragma unroll
			for (int f = 0; f < HALVES; f++)
#pragma unroll
				for (int j = 0; j < CHUNK; j++)
#pragma unroll
					for (int h = 0; h < 2; h++) {
						const float *a =
						    acc + f * (BN / 2) + 4 * (j0 + j) + 2 * h;
						const float s = sa[2 * f + h];
						store2<SIG>(p, d, row0 + 64 * f + 8 * h,
						            colb + 8 * (j0 + j),
						            a[0] * (s * sb[2 * j]),
						            a[1] * (s * sb[2 * j + 1]), o8);
					}
		}
	}

	/* The TMA way (see the top of the file): fragment f's columns [cb BOXC,
	 * (cb + 1) BOXC) as box n % BUFS of the warpgroup's staging memory
	 * `epi`, stored to D at (col_d + cb BOXC, row_d + 64 f); n counts the
	 * warpgroup's boxes.  leader: the warpgroup's first thread, the one
	 * that issues, commits and waits for the stores.  BAR: the
	 * warpgroup's named barrier.  Boxes CB0 to CB1 - 1 of each fragment's
	 * row (CB1 = -1: to its end): the overlapped epilogue stores a tile's
	 * two 128-column halves with a wgmma group issued between them
	 * (f8b_kg_consumer_ov::tile_overlapped). */
	template <int BUFS, int BAR, int CB0 = 0, int CB1 = -1>
	static __device__ __forceinline__ void tma(const f8b_kgemm_args &p, const float *acc,
	                                           const void *tmap_d, uint32_t epi, uint32_t &n,
	                                           int row_d, int col_d, int warp, int lane,
	                                           float tw_scale, f8b_kg_out8 *o8 = nullptr)
	{
		/* the sigmoid's branch outside the loops, as in run(), and the
		 * axiswise one beside it (VM, tma_as): the tensorwise and block
		 * modes' code has no scale loads at all.  An e4m3 D keeps one
		 * path for both (VM 2): the two side by side spilled 128 bytes
		 * (FAST, 128x256). */
		const bool vec = SCALED && (p.a_vec || p.b_vec);
		if (OUT8)
			tma_as<BUFS, BAR, false, 2, CB0, CB1>(p, acc, tmap_d, epi, n, row_d, col_d,
			                                      warp, lane, tw_scale, o8);
		else if (p.sigmoid && vec)
			tma_as<BUFS, BAR, true, 1, CB0, CB1>(p, acc, tmap_d, epi, n, row_d, col_d,
			                                     warp, lane, tw_scale, o8);
		else if (p.sigmoid)
			tma_as<BUFS, BAR, true, 0, CB0, CB1>(p, acc, tmap_d, epi, n, row_d, col_d,
			                                     warp, lane, tw_scale, o8);
		else if (vec)
			tma_as<BUFS, BAR, false, 1, CB0, CB1>(p, acc, tmap_d, epi, n, row_d, col_d,
			                                      warp, lane, tw_scale, o8);
		else
			tma_as<BUFS, BAR, false, 0, CB0, CB1>(p, acc, tmap_d, epi, n, row_d, col_d,
			                                      warp, lane, tw_scale, o8);
	}

	/* The scales of a TMA epilogue's boxes (tma_as, tma_t_as): vec, the
	 * axiswise path (SCALED and either operand axiswise: one scale per row
	 * of A, per row of B), else tw_scale for every element (1 in the
	 * block modes, which store acc as it is).  row_scales: this thread's
	 * two rows of fragment f, from D's row row_d of the warpgroup's first;
	 * col_scales: this thread's pairs of the OCT octets from D's column
	 * col0 (its lane's offset included); also the direct way's axiswise().
	 * pairs: the box lies inside N and B's scales are 8-byte aligned, so
	 * each pair of columns is one unclamped 8-byte load (col0 is even):
	 * the 16 clamped loads of a box were most of the axiswise epilogue's
	 * cost (results/h100/experiments/f8b-gemm-ax-epilogue/). */
	static __device__ __forceinline__ void row_scales(const f8b_kgemm_args &p, bool vec,
	                                                  float tw_scale, int row_d, int f,
	                                                  int warp, int lane, float sa[2])
	{
		sa[0] = sa[1] = tw_scale;
		if (vec)
#pragma unroll
			for (int h = 0; h < 2; h++)
				sa[h] = __ldg(p.a_scale_inv +
				              (p.a_vec ? f8b_kg_clamp(row_d + 64 * f + warp * 16 +
				                                          lane / 4 + 8 * h,
				                                      p.m)
				                       : 0));
	}

	template <int OCT>
	static __device__ __forceinline__ void col_scales(const f8b_kgemm_args &p, bool vec,
	                                                  int col0, float sb[2 * OCT],
	                                                  bool pairs = false)
	{
#pragma unroll
		for (int i = 0; i < 2 * OCT; i++)
			sb[i] = 1.0f;
		if (vec && pairs && p.b_vec) {
			/* a pair of columns a load, unclamped */
			const float2 *b2 = reinterpret_cast<const float2 *>(p.b_scale_inv + col0);
#pragma unroll
			for (int jj = 0; jj < OCT; jj++) {
				const float2 v = __ldg(b2 + 4 * jj);
				sb[2 * jj] = v.x;
				sb[2 * jj + 1] = v.y;
			}
		} else if (vec)
#pragma unroll
			for (int jj = 0; jj < OCT; jj++)
#pragma unroll
				for (int e = 0; e < 2; e++)
					sb[2 * jj + e] = __ldg(
					    p.b_scale_inv +
					    (p.b_vec ? f8b_kg_clamp(col0 + 8 * jj + e, p.n) : 0));
	}

	/* One pair of a box, as store2() computes it: scaled (SCALED: by sa x
	 * sb), then the sigmoid (SIG), in fp32. */
	template <bool SIG>
	static __device__ __forceinline__ float2 pair(const float *a, float sa, float sb0,
	                                              float sb1)
	{
		float v0 = a[0], v1 = a[1];
		if constexpr (SCALED) {
			v0 *= sa * sb0;
			v1 *= sa * sb1;
		}
		if constexpr (SIG) {
			v0 = f8b_kg_sigmoid(v0);
			v1 = f8b_kg_sigmoid(v1);
		}
		return make_float2(v0, v1);
	}

	/* The box protocol of both TMA ways: box n % BUFS of the warpgroup's
	 * staging memory epi is taken once its last store has read it (the
	 * leader waits, the named barrier passes it on); given back by
	 * box_store(), which publishes the warpgroup's writes to the async
	 * proxy and has the leader store the box at (c0, c1) of tmap. */
	template <int BUFS, int BAR>
	static __device__ __forceinline__ uint32_t box_take(uint32_t epi, uint32_t n, bool leader)
	{
		const uint32_t box = epi + (n % BUFS) * (uint32_t)F8B_KG_EPI_BOX_BYTES;
		if (leader)
			f8b_bulk_wait_group_read<BUFS - 1>();
		f8b_named_bar_sync<BAR, 128>();
		return box;
	}

	template <int BAR>
	static __device__ __forceinline__ void box_store(const void *tmap, uint32_t box, int c0,
	                                                 int c1, bool leader)
	{
		f8b_fence_proxy_async_smem();
		f8b_named_bar_sync<BAR, 128>();
		if (leader) {
			f8b_tma_store_2d(tmap, box, c0, c1);
			f8b_bulk_commit_group();
		}
	}

	/* VM: which scales, a template parameter so that the tensorwise path
	 * has no scale loads: 0 tw_scale (or none, !SCALED), 1 axiswise
	 * (SCALED and either operand axiswise), 2 either, as p says (e4m3) */
	template <int BUFS, int BAR, bool SIG, int VM, int CB0 = 0, int CB1 = -1>
	static __device__ __forceinline__ void tma_as(const f8b_kgemm_args &p, const float *acc,
	                                              const void *tmap_d, uint32_t epi, uint32_t &n,
	                                              int row_d, int col_d, int warp, int lane,
	                                              float tw_scale, f8b_kg_out8 *o8)
	{
		constexpr int BOXC = 128 / (int)sizeof(OutT); /* columns of a box */
		constexpr int OCT = BOXC / 8;                 /* octets of a box */
		static_assert(BN % BOXC == 0, "whole boxes across the tile");
		constexpr int CBE = CB1 < 0 ? BN / BOXC : CB1;
		static_assert(0 <= CB0 && CB0 < CBE && CBE <= BN / BOXC, "boxes of the tile");
		const bool leader = warp == 0 && lane == 0;
		const bool vec = VM == 2 ? SCALED && (p.a_vec || p.b_vec) : VM == 1;
		const bool al8 = (reinterpret_cast<uintptr_t>(p.b_scale_inv) & 7u) == 0;
		const int colb = col_d + 2 * (lane % 4);
#pragma unroll
		for (int f = 0; f < HALVES; f++) {
			float sa[2];
			row_scales(p, vec, tw_scale, row_d, f, warp, lane, sa);
#pragma unroll
			for (int cb = CB0; cb < CBE; cb++, n++) {
				float sb[2 * OCT];
				col_scales<OCT>(p, vec, colb + BOXC * cb, sb,
				                VM == 1 && al8 && col_d + BOXC * (cb + 1) <= p.n);
				const uint32_t box = box_take<BUFS, BAR>(epi, n, leader);
#pragma unroll
				for (int jj = 0; jj < OCT; jj++)
#pragma unroll
					for (int h = 0; h < 2; h++) {
						const int r = warp * 16 + lane / 4 + 8 * h;
						const float2 v =
						    pair<SIG>(acc + f * (BN / 2) +
						                  4 * (cb * OCT + jj) + 2 * h,
						              sa[h], sb[2 * jj], sb[2 * jj + 1]);
						if constexpr (OUT8) {
							/* the amax of D's elements (TMA
							 * clips the rest; N is a multiple
							 * of 16 here, so a pair is in or
							 * out whole), then store2()'s
							 * conversion; octet jj is half of
							 * 16-byte chunk jj / 2 */
							if (row_d + 64 * f + r < p.m &&
							    col_d + BOXC * cb + 8 * jj +
							            2 * (lane % 4) <
							        p.n)
								o8->amax_bits =
								    max(o8->amax_bits,
								        max(f8b_d_abs_bits(v.x),
								            f8b_d_abs_bits(v.y)));
							const uint32_t q = o8->codes(v.x, v.y);
							const uint32_t at =
							    box + r * 128 +
							    ((((uint32_t)jj >> 1) ^ (r & 7)) << 4) +
							    8 * (jj & 1) + 2 * (lane % 4);
							asm volatile(
							    "st.shared.b16 [%0], %1;\n" ::"r"(at),
							    "h"((uint16_t)q)
							    : "memory");
						} else if constexpr (sizeof(OutT) == 2) {
							const uint32_t at =
							    box + r * 128 +
							    (((uint32_t)jj ^ (r & 7)) << 4) +
							    4 * (lane % 4);
							__nv_bfloat162 b =
							    __floats2bfloat162_rn(v.x, v.y);
							asm volatile(
							    "st.shared.b32 [%0], %1;\n" ::"r"(at),
							    "r"(*reinterpret_cast<uint32_t *>(&b))
							    : "memory");
						} else {
							const uint32_t at =
							    box + r * 128 +
							    (((uint32_t)(2 * jj + (lane % 4) / 2) ^
							      (r & 7))
							     << 4) +
							    8 * (lane & 1);
							asm volatile(
							    "st.shared.v2.f32 [%0], {%1, %2};\n" ::
							        "r"(at),
							    "f"(v.x), "f"(v.y)
							    : "memory");
						}
					}
				box_store<BAR>(tmap_d, box, col_d + BOXC * cb, row_d + 64 * f,
				               leader);
			}
		}
	}

	/* The transposed write (p.tma_t; doc/gemm-kernels.md "Transposed
	 * write"): the warpgroup's 64 rows x BN columns of D, as BN / 64 boxes
	 * of D^T, each 64 of D's columns (D^T's rows) x the 64 rows (D^T's
	 * columns), stored at (row_d + 64 f, col_d + 64 cb) of D^T through
	 * tmap_t.  The values are those of tma_as() and store2(), computed
	 * the same way (the same products, the same sigmoid, the same
	 * conversion): D^T is D transposed bit for bit.  A box row is 64
	 * elements, the swizzle's span: 128 bytes of bf16 (128-byte swizzle:
	 * 16-byte chunk c of row r at chunk c ^ (r % 8)) or 64 bytes of e4m3
	 * (64-byte swizzle: chunk c of row r at c ^ ((r / 2) % 4)).  A thread
	 * writes its elements one at a time: in one store the warp's 32 lanes
	 * fall in four rows and, through the swizzle, in four different
	 * chunks, so no two lanes' words share a bank.  The boxes go in turn
	 * with D's (the same count n, the same waits).  d_scale: the e4m3
	 * output's (unused for bf16); the amax is D's, already taken. */
	template <int BUFS, int BAR>
	static __device__ __forceinline__ void
	tma_t(const f8b_kgemm_args &p, const float *acc, const void *tmap_t, uint32_t epi,
	      uint32_t &n, int row_d, int col_d, int warp, int lane, float tw_scale, float d_scale)
	{
		if (!OUT8 && p.sigmoid)
			tma_t_as<BUFS, BAR, true>(p, acc, tmap_t, epi, n, row_d, col_d, warp, lane,
			                          tw_scale, d_scale);
		else
			tma_t_as<BUFS, BAR, false>(p, acc, tmap_t, epi, n, row_d, col_d, warp, lane,
			                           tw_scale, d_scale);
	}

	template <int BUFS, int BAR, bool SIG>
	static __device__ __forceinline__ void tma_t_as(const f8b_kgemm_args &p, const float *acc,
	                                                const void *tmap_t, uint32_t epi,
	                                                uint32_t &n, int row_d, int col_d, int warp,
	                                                int lane, float tw_scale, float d_scale)
	{
		static_assert(sizeof(OutT) <= 2, "a transposed D: bf16 or e4m3");
		static_assert(BN % 64 == 0, "whole 64-column boxes across the tile");
		constexpr int OCT = 8; /* octets of D's columns in a box */
		const bool leader = warp == 0 && lane == 0;
		const bool vec = SCALED && (p.a_vec || p.b_vec);
		const int colb = col_d + 2 * (lane % 4);
#pragma unroll
		for (int f = 0; f < HALVES; f++) {
			float sa[2];
			row_scales(p, vec, tw_scale, row_d, f, warp, lane, sa);
#pragma unroll
			for (int cb = 0; cb < BN / 64; cb++, n++) {
				float sb[2 * OCT];
				col_scales<OCT>(p, vec, colb + 64 * cb, sb);
				const uint32_t box = box_take<BUFS, BAR>(epi, n, leader);
#pragma unroll
				for (int jj = 0; jj < OCT; jj++)
#pragma unroll
					for (int h = 0; h < 2; h++) {
						/* D's row r of the 64 (D^T's column), D's
						 * columns c, c + 1 of the box (D^T's rows) */
						const uint32_t r = warp * 16 + lane / 4 + 8 * h;
						const uint32_t c = 8 * jj + 2 * (lane % 4);
						const float2 v =
						    pair<SIG>(acc + f * (BN / 2) +
						                  4 * (cb * OCT + jj) + 2 * h,
						              sa[h], sb[2 * jj], sb[2 * jj + 1]);
						if constexpr (OUT8) {
							const uint32_t q = f8b_d_cvt_fp8x2<false>(
							    v.x * d_scale, v.y * d_scale);
#pragma unroll
							for (uint32_t e = 0; e < 2; e++) {
								const uint32_t at =
								    box + (c + e) * 64 +
								    (((r >> 4) ^
								      (((c + e) >> 1) & 3))
								     << 4) +
								    (r & 15);
								asm volatile(
								    "st.shared.b8 [%0], %1;\n" ::
								        "r"(at),
								    "r"((q >> (8 * e)) & 0xFFu)
								    : "memory");
							}
						} else {
							__nv_bfloat162 b =
							    __floats2bfloat162_rn(v.x, v.y);
							const uint32_t w =
							    *reinterpret_cast<uint32_t *>(&b);
#pragma unroll
							for (uint32_t e = 0; e < 2; e++) {
								const uint32_t at =
								    box + (c + e) * 128 +
								    (((r >> 3) ^ ((c + e) & 7))
								     << 4) +
								    2 * (r & 7);
								const uint16_t hw =
								    (uint16_t)(w >> (16 * e));
								asm volatile(
								    "st.shared.b16 [%0], %1;\n" ::
								        "r"(at),
								    "h"(hw)
								    : "memory");
							}
						}
					}
				box_store<BAR>(tmap_t, box, row_d + 64 * f, col_d + 64 * cb,
				               leader);
			}
		}
	}
};

#endif
