/* cast_transpose.cu - cast and/or transpose in one pass over 128 x 64
 * tiles, and the tile pass the fused casts of lls_fused.cu reuse.
 *
 * A 256-thread block takes a 128-row x 64-column tile of the value tensor
 * (grid-stride over tiles in row-major order).  Each thread owns 4 of the
 * tile's 1024 chunks (8 consecutive columns of one row: one 16-byte bf16
 * load), and issues the loads of all 4 before it uses any; the loads of
 * the block's next tile go out as soon as this tile's values are formed,
 * so they are in flight while the transposed half is written.
 *
 * Phase 1: each chunk's values (the value sources of lls_internal.cuh:
 * plain, LayerNorm, sigmoid backward) are converted two per instruction,
 * the row-major output is written directly (8 bytes of fp8 per chunk) and
 * the transposed output's bytes go to shared memory as two words with one
 * 8-byte store.  Phase 2: each thread reads one word (4 columns) from each
 * of 8 rows, transposes the 8 x 4 bytes with byte permutes, and writes
 * 8 bytes to each of 4 out_t rows; 16 threads fill 128 contiguous bytes of
 * an out_t row.  Shared words are swizzled (swz()) so that both phases
 * use distinct banks up to 2-way.  bf16 outputs (the transpose without a
 * cast) keep a plain padded tile and element-wise copies.
 *
 * Bytes: bf16 -> fp8 + fp8^T reads 2 B and writes 2 B per element.  On an
 * H100 at 8192^2 this took the delayed-scaling W cast +T from 139 to
 * 109 us and the axiswise cast_transpose from 126 to 87 us
 * (results/h100/lls-tile-{before,after}.h5).  The previous 64 x 64
 * version converted, parked and gathered one byte at a time, and was bound
 * by instructions (Nsight Compute: SMs 64% busy at 43% of DRAM throughput).
 *
 * Bit-exactness: v * s is one __fmul_rn and the conversion is
 * cvt.rn.satfinite (as cast.cu), on the value the host twin computes with
 * the same fp32 operations (lls_internal.cuh's sources).
 */
#include "lls_internal.cuh"

#include <string.h>

#define TR  128                           /* tile rows: out_t's rows get 128-element pieces */
#define TC  64                            /* tile columns */
#define CPT (TR * TC / 8 / F8B_K_THREADS) /* chunks per thread: 4 */

/* Blocks per SM for a source: each thread holds the raw words of CPT
 * chunks while the loads are in flight, and more blocks cover more of the
 * load latency until registers run out (measured on an H100 at 8192^2,
 * doc/kernels.md): 5 for one bf16 input (16 B per chunk, <= 48
 * registers), 4 for LayerNorm's (24 B) and the sigmoid backward's two
 * inputs or fp32 (32 B), where 5 would spill. */
template <class S> struct tile_blocks {
	static constexpr int n = sizeof(typename S::raw_t) <= 16 ? 5 : 4;
};

/* Blocks per SM when the loads are staged in shared memory (tile_stage()):
 * no raw words are held across the loads, and two stages plus the fp8
 * tile (41 KiB) fit 5 blocks, at 48 registers for bf16 and LayerNorm. */
#define STAGED_BLOCKS 5

struct tile_p {
	int64_t rows, cols;
	struct f8b_k_sgeom sg, sgt; /* scales of x and of x^T */
	const float *scale, *scale_t, *dyn_amax, *dyn_parts;
	int dyn_nparts;
	struct f8b_lls_sp sp;
	float *scale_inv, *amax_acc, *acc_parts, *amax_out;
	void *out, *out_t;
	bool fp8;
	bool vec_o, vec_t; /* whole aligned 8-element stores possible */
	bool rev;          /* visit the tiles last to first (f8b_k_tile_args) */
};

/* The tile the block's t-th visit takes: t itself, or counted from the
 * end, so that a second pass starts where a first one left off. */
static __device__ __forceinline__ int64_t tile_at(const struct tile_p &p, int64_t t, int64_t nt)
{
	return p.rev ? nt - 1 - t : t;
}

/* 8 fp8 of v[j] * s[j] (one rounded product each, then cvt.rn.satfinite,
 * two elements per instruction), element j in byte j % 4 of word j / 4. */
template <bool E5M2>
static __device__ __forceinline__ uint2 pack8(const float v[8], const float s[8])
{
	uint32_t w[4];
#pragma unroll
	for (int j = 0; j < 4; j++)
		w[j] = f8b_d_cvt_fp8x2<E5M2>(__fmul_rn(v[2 * j], s[2 * j]),
		                             __fmul_rn(v[2 * j + 1], s[2 * j + 1]));
	return make_uint2(w[0] | w[1] << 16, w[2] | w[3] << 16);
}

static __device__ __forceinline__ uint8_t byte_of(uint2 q, int j)
{
	return (uint8_t)((j < 4 ? q.x : q.y) >> (j % 4 * 8));
}

/* Eight bf16 at p: one 16-byte store. */
static __device__ __forceinline__ void st8(uint16_t *p, const uint16_t w[8])
{
	*(uint4 *)p = make_uint4(
	    (uint32_t)w[0] | (uint32_t)w[1] << 16, (uint32_t)w[2] | (uint32_t)w[3] << 16,
	    (uint32_t)w[4] | (uint32_t)w[5] << 16, (uint32_t)w[6] | (uint32_t)w[7] << 16);
}

/* Bytes i of w0..w3, in that order, for i = 0..3: a 4x4 byte transpose. */
static __device__ __forceinline__ void transpose4(uint32_t w0, uint32_t w1, uint32_t w2,
                                                  uint32_t w3, uint32_t o[4])
{
	const uint32_t a = __byte_perm(w0, w1, 0x5140), b = __byte_perm(w0, w1, 0x7362);
	const uint32_t c = __byte_perm(w2, w3, 0x5140), d = __byte_perm(w2, w3, 0x7362);
	o[0] = __byte_perm(a, c, 0x5410);
	o[1] = __byte_perm(a, c, 0x7632);
	o[2] = __byte_perm(b, d, 0x5410);
	o[3] = __byte_perm(b, d, 0x7632);
}

/* The fp8 tile in shared memory: row lr holds its 64 bytes as 16 words,
 * word w (columns 4w..4w+3) at position w ^ ((lr / 8) % 16).  Phase 1 puts
 * a chunk's two words with one 8-byte store (w even: the pair stays
 * adjacent, swapped when the swizzle is odd); phase 2's column reads of 8
 * rows of one row group then fall on 16 distinct positions. */
static __device__ __forceinline__ int swz(int lr)
{
	return lr / 8 % 16;
}

static __device__ __forceinline__ float scale_at(const struct f8b_k_sgeom &g, const float *s,
                                                 int64_t r, int64_t c)
{
	int64_t br, bc;
	f8b_d_block_of(g.gran, r, c, &br, &bc);
	return __ldg(s + f8b_d_scale_index(g, br, bc));
}

/* The scales of a chunk's 8 elements in x^T: rows c..c+7 of x^T in column
 * r, so consecutive (axiswise, block1x128: one per row of x^T) or one
 * (128x128: c is a multiple of 8, so c..c+7 share a block). */
static __device__ __forceinline__ void scales_t(const struct tile_p &p, int64_t r, int64_t c,
                                                int len, float st[8])
{
	int64_t br, bc;
	f8b_d_block_of(p.sgt.gran, c, r, &br, &bc);
	const float *ps = p.scale_t + f8b_d_scale_index(p.sgt, br, bc);
	if (p.sgt.gran == F8B_GRAN_BLOCK128X128) {
		const float s = __ldg(ps);
		for (int j = 0; j < 8; j++)
			st[j] = s;
	} else if (len == 8 && ((uintptr_t)ps & 15) == 0) {
		const float4 a = __ldg((const float4 *)ps), b = __ldg((const float4 *)ps + 1);
		st[0] = a.x, st[1] = a.y, st[2] = a.z, st[3] = a.w;
		st[4] = b.x, st[5] = b.y, st[6] = b.z, st[7] = b.w;
	} else {
		for (int j = 0; j < 8; j++)
			st[j] = j < len ? __ldg(ps + j) : 0.0f;
	}
}

/* The loads of tile t's chunks: CPT per thread, issued together. */
template <class S>
static __device__ __forceinline__ void tile_load(const S &src, const struct tile_p &p, int64_t t,
                                                 int64_t ntc, typename S::raw_t (&raw)[CPT])
{
	const int64_t r0 = t / ntc * TR, c = t % ntc * TC + threadIdx.x % 8 * 8;
#pragma unroll
	for (int k = 0; k < CPT; k++) {
		const int64_t r = r0 + threadIdx.x / 8 + k * (F8B_K_THREADS / 8);
		if (r < p.rows && c < p.cols)
			src.load(r, c, (int)min((int64_t)8, p.cols - c), raw[k]);
	}
}

/* Staged loads (AS): tile t's chunks copied into shared memory with
 * cp.async (16 bytes each, L1 bypassed), the same CPT chunks per thread as
 * tile_load(), so each thread later reads back only what it copied itself
 * (cp.async.wait_group makes them visible to it; no barrier needed). */
static __device__ __forceinline__ void cp16(void *dst, const void *src)
{
	const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}

template <class S>
static __device__ __forceinline__ void tile_stage(const S &src, const struct tile_p &p, int64_t t,
                                                  int64_t ntc, uint4 *buf)
{
	const int64_t r0 = t / ntc * TR, c = t % ntc * TC + threadIdx.x % 8 * 8;
#pragma unroll
	for (int k = 0; k < CPT; k++) {
		const int64_t r = r0 + threadIdx.x / 8 + k * (F8B_K_THREADS / 8);
		if (r < p.rows && c < p.cols)
			cp16(buf + k * F8B_K_THREADS + threadIdx.x, src.at(r, c));
	}
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most N of this thread's staged groups are in flight. */
template <int N> static __device__ __forceinline__ void stage_wait(void)
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* TO = uint8_t: fp8 (E5M2 picks the format); uint16_t: bf16 (E5M2 unused).
 * AS: the source's chunks are staged in shared memory, two tiles deep
 * (tile_stage()): the next tile's copies are issued when a tile starts,
 * so they are in flight through both of its phases, where the register
 * path can issue them only after phase 1.  For sources that read one
 * aligned bf16 tensor (S::stageable) and fp8 outputs (the shared tile of
 * a bf16 transpose leaves no room for the two stages), where a block takes
 * several tiles (launch()). */
template <class S, typename TO, bool E5M2, bool AS>
static __global__ void __launch_bounds__(F8B_K_THREADS, AS ? STAGED_BLOCKS : tile_blocks<S>::n)
    tile_kernel(S src, struct tile_p p)
{
	constexpr bool F8 = sizeof(TO) == 1;
	__shared__ __align__(16) unsigned char smem[TR * (TC + 1) * sizeof(TO)];
	__shared__ uint32_t red[F8B_K_THREADS / 32], red_parts[F8B_K_THREADS / 32];
	__shared__ __align__(16) uint4 stage[AS ? 2 : 1][AS ? CPT * F8B_K_THREADS : 1];
	int sb = 0;                                         /* AS: the stage holding this tile */
	uint32_t(*tw)[TC / 4] = (uint32_t(*)[TC / 4]) smem; /* fp8: swizzled words */
	TO(*tile)[TC + 1] = (TO(*)[TC + 1]) smem;           /* bf16: padded rows */
	const int64_t R = p.rows, C = p.cols;
	const int64_t ntc = (C + TC - 1) / TC, nt = (R + TR - 1) / TR * ntc;
	const bool dyn = p.dyn_amax != NULL || p.dyn_parts != NULL;
	TO *out = (TO *)p.out, *out_t = (TO *)p.out_t;
	uint32_t m = 0;
	typename S::raw_t raw[CPT];

	if (blockIdx.x < nt) {
		if constexpr (AS)
			tile_stage(src, p, tile_at(p, blockIdx.x, nt), ntc, stage[0]);
		else
			tile_load(src, p, tile_at(p, blockIdx.x, nt), ntc, raw);
	}
	/* The dynamic scale: from the amax, or from pass 1's block maxima
	 * (reduced while the first tile's loads are in flight). */
	float sdyn = 0.0f;
	if (p.dyn_parts) {
		const uint32_t a = f8b_d_parts_max(p.dyn_parts, p.dyn_nparts, red_parts);
		sdyn = f8b_lls_scale(__uint_as_float(a), p.sp);
		if (blockIdx.x == 0 && threadIdx.x == 0)
			p.amax_out[0] = __uint_as_float(a);
	} else if (p.dyn_amax) {
		sdyn = f8b_lls_scale(*p.dyn_amax, p.sp);
	}
	/* One scale for the whole tensor (dynamic, or a given tensorwise
	 * scale such as delayed scaling's): read once, not per element. */
	const bool one_s = !p.fp8 || dyn || p.sg.gran == F8B_GRAN_TENSORWISE;
	const bool one_st = !p.fp8 || dyn || p.sgt.gran == F8B_GRAN_TENSORWISE;
	/* (an output not written has no scale: out_t alone may pass scale NULL) */
	const float s_all = !p.fp8 ? 1.0f : dyn ? sdyn : one_s && p.out ? __ldg(p.scale) : 0.0f;
	const float st_all = !p.fp8              ? 1.0f
	                     : dyn               ? sdyn
	                     : one_st && p.out_t ? __ldg(p.scale_t)
	                                         : 0.0f;
	for (int64_t i = blockIdx.x; i < nt; i += gridDim.x) {
		const int64_t t = tile_at(p, i, nt);
		const int64_t r0 = t / ntc * TR, c0 = t % ntc * TC;
		const int lc = threadIdx.x % 8 * 8;
		const int64_t c = c0 + lc;
		const int len = c < C ? (int)min((int64_t)8, C - c) : 0;

		if constexpr (AS) {
			/* the rows' side inputs (LayerNorm's statistics) first, so
			 * their loads are in flight through the wait; then the next
			 * tile's copies, and the wait for this one's */
#pragma unroll
			for (int k = 0; k < CPT; k++) {
				const int64_t r = r0 + threadIdx.x / 8 + k * (F8B_K_THREADS / 8);
				if (r < R && len > 0)
					src.row_inputs(r, raw[k]);
			}
			if (i + gridDim.x < nt) {
				tile_stage(src, p, tile_at(p, i + gridDim.x, nt), ntc,
				           stage[sb ^ 1]);
				stage_wait<1>();
			} else {
				stage_wait<0>();
			}
		}
#pragma unroll
		for (int k = 0; k < CPT; k++) {
			const int lr = threadIdx.x / 8 + k * (F8B_K_THREADS / 8);
			const int64_t r = r0 + lr;
			if (r >= R || len == 0)
				continue;
			if constexpr (AS)
				src.from_words(stage[sb][k * F8B_K_THREADS + threadIdx.x], raw[k]);
			float v[8];
			src.val(raw[k], v);
			if (p.amax_acc || p.acc_parts)
				for (int j = 0; j < 8; j++)
					if (j < len)
						m = max(m, f8b_d_abs_bits(v[j]));
			if constexpr (F8) {
				if (out) {
					float s[8];
					const float s1 =
					    one_s ? s_all : scale_at(p.sg, p.scale, r, c);
					for (int j = 0; j < 8; j++)
						s[j] = s1;
					const uint2 q = pack8<E5M2>(v, s);
					if (p.vec_o)
						*(uint2 *)(out + r * C + c) = q;
					else
						for (int j = 0; j < 8; j++)
							if (j < len)
								out[r * C + c + j] = byte_of(q, j);
				}
				if (out_t) {
					float st[8];
					if (one_st)
						for (int j = 0; j < 8; j++)
							st[j] = st_all;
					else
						scales_t(p, r, c, len, st);
					const uint2 q = pack8<E5M2>(v, st);
					const int sw = swz(lr), w = lc / 4; /* w even */
					*(uint2 *)&tw[lr][w ^ (sw & ~1)] =
					    sw & 1 ? make_uint2(q.y, q.x) : q;
				}
			} else {
				TO w[8];
				for (int j = 0; j < 8; j++)
					w[j] = f8b_d_f32_to_bf16(v[j]);
				if (out) {
					if (p.vec_o)
						st8(out + r * C + c, w);
					else
						for (int j = 0; j < 8; j++)
							if (j < len)
								out[r * C + c + j] = w[j];
				}
				if (out_t)
					for (int j = 0; j < 8; j++)
						if (j < len)
							tile[lr][lc + j] = w[j];
			}
		}
		/* The next tile's loads go out now, behind this tile's
		 * transposed half: the registers of raw are free again. */
		if constexpr (AS)
			sb ^= 1;
		else if (i + gridDim.x < nt)
			tile_load(src, p, tile_at(p, i + gridDim.x, nt), ntc, raw);
		if (!out_t)
			continue; /* no shared tile used: no barrier needed (a thread
			           * re-stages only the chunks it read itself) */
		__syncthreads();
		if constexpr (F8) {
			/* One 8 x 4 piece per thread: rows 8g..8g+7, columns
			 * 4w..4w+3 of the tile, i.e. 8 bytes of 4 out_t rows;
			 * 16 consecutive threads write 128 contiguous bytes of
			 * one out_t row. */
			const int g = threadIdx.x % 16, w = threadIdx.x / 16;
			const int64_t rr = r0 + 8 * g, cc = c0 + 4 * w;
			uint32_t W[8];
			for (int j = 0; j < 8; j++)
				W[j] = tw[8 * g + j][w ^ g]; /* swz(8g + j) == g */
			if (p.vec_t && rr + 8 <= R && cc + 4 <= C) {
				uint32_t lo[4], hi[4];
				transpose4(W[0], W[1], W[2], W[3], lo);
				transpose4(W[4], W[5], W[6], W[7], hi);
				for (int i = 0; i < 4; i++)
					*(uint2 *)(out_t + (cc + i) * R + rr) =
					    make_uint2(lo[i], hi[i]);
			} else {
				for (int i = 0; i < 4; i++)
					for (int j = 0; j < 8; j++)
						if (cc + i < C && rr + j < R)
							out_t[(cc + i) * R + rr + j] =
							    (uint8_t)(W[j] >> (8 * i));
			}
		} else {
#pragma unroll
			for (int k = 0; k < CPT; k++) {
				/* 16 consecutive threads: one out_t row's 128
				 * elements of this tile, 8 each */
				const int i = threadIdx.x + k * F8B_K_THREADS;
				const int tc = i / (TR / 8), tr = i % (TR / 8) * 8;
				const int64_t cc = c0 + tc, rr = r0 + tr;
				if (cc >= C || rr >= R)
					continue;
				const int n = (int)min((int64_t)8, R - rr);
				TO *dst = out_t + cc * R + rr;
				if (p.vec_t) {
					TO w[8];
					for (int j = 0; j < 8; j++)
						w[j] = tile[tr + j][tc];
					st8(dst, w);
				} else {
					for (int j = 0; j < 8; j++)
						if (j < n)
							dst[j] = tile[tr + j][tc];
				}
			}
		}
		__syncthreads(); /* the next tile reuses the shared tile */
	}
	if (p.amax_acc || p.acc_parts) {
		m = f8b_d_group_max(m, F8B_K_THREADS, red);
		if (threadIdx.x == 0)
			f8b_d_put_block_max(m, p.amax_acc, p.acc_parts);
	}
	if (p.scale_inv && blockIdx.x == 0 && threadIdx.x == 0)
		p.scale_inv[0] = f8b_lls_inv(dyn ? sdyn : __ldg(p.scale));
}

template <class S, typename TO, bool E5M2>
static int launch(S src, const struct tile_p &p, int *nblocks, cudaStream_t stream)
{
	unsigned grid;
	int64_t tiles = (p.rows + TR - 1) / TR * ((p.cols + TC - 1) / TC);
	int e = f8b_k_grid(tiles, STAGED_BLOCKS, &grid);

	if (e != cudaSuccess)
		return e;
	/* Staging pays where a block takes several tiles; with one tile a
	 * block (2048^2 and below on an H100) it only adds a shared-memory
	 * round trip (LayerNorm's cast_transpose at 1024^2: 7.1 -> 8.4 us) */
	const bool as = S::stageable && sizeof(TO) == 1 && src.vec && tiles > (int64_t)grid;
	if (!as && (e = f8b_k_grid(tiles, tile_blocks<S>::n, &grid)) != cudaSuccess)
		return e;
	grid = f8b_k_parts_grid(grid, p.acc_parts, nblocks);
	if constexpr (S::stageable && sizeof(TO) == 1) {
		if (as) {
			tile_kernel<S, TO, E5M2, true><<<grid, F8B_K_THREADS, 0, stream>>>(src, p);
			return (int)cudaGetLastError();
		}
	}
	tile_kernel<S, TO, E5M2, false><<<grid, F8B_K_THREADS, 0, stream>>>(src, p);
	return (int)cudaGetLastError();
}

template <class S>
static int launch_to(S src, const struct tile_p &p, int out_dtype, int *nblocks,
                     cudaStream_t stream)
{
	if (out_dtype == F8B_BF16)
		return launch<S, uint16_t, false>(src, p, nblocks, stream);
	if (out_dtype == F8B_E5M2)
		return launch<S, uint8_t, true>(src, p, nblocks, stream);
	return launch<S, uint8_t, false>(src, p, nblocks, stream);
}

int f8b_k_tile_pass(const struct f8b_k_tile_args *a, cudaStream_t stream)
{
	struct tile_p p;
	const int64_t R = a->rows, C = a->cols;
	const bool has_out = a->out || a->out_t;
	const size_t es = a->out_dtype == F8B_BF16 ? 2 : 1;

	if (R <= 0 || C <= 0)
		return (int)cudaSuccess;
	if ((unsigned)a->gran >= F8B_GRAN_COUNT ||
	    (has_out && a->out_dtype != F8B_BF16 && a->out_dtype != F8B_E4M3 &&
	     a->out_dtype != F8B_E5M2))
		return (int)cudaErrorInvalidValue;
	p.rows = R;
	p.cols = C;
	p.sg = f8b_k_scale_geom(a->gran, R, C);
	p.sgt = f8b_k_scale_geom(a->gran, C, R);
	p.scale = a->scale;
	p.scale_t = a->scale_t;
	p.dyn_amax = a->dyn_amax;
	p.dyn_parts = a->dyn_parts;
	p.dyn_nparts = a->dyn_nparts;
	p.amax_out = a->amax_out;
	p.acc_parts = a->acc_parts;
	p.sp = a->sp;
	p.sp.e5m2 = a->out_dtype == F8B_E5M2;
	p.scale_inv = a->scale_inv;
	p.amax_acc = a->amax_acc;
	p.out = a->out;
	p.out_t = a->out_t;
	p.fp8 = has_out && a->out_dtype != F8B_BF16;
	p.rev = a->reverse;
	const bool dyn = a->dyn_amax || a->dyn_parts;
	if (p.fp8 && !dyn && ((a->out && !a->scale) || (a->out_t && !a->scale_t)))
		return (int)cudaErrorInvalidValue;
	if (a->scale_inv && !dyn && !a->scale)
		return (int)cudaErrorInvalidValue;
	if (a->dyn_parts && (a->dyn_nparts <= 0 || !a->amax_out))
		return (int)cudaErrorInvalidValue;
	p.vec_o = a->out && C % 8 == 0 && f8b_k_aligned(a->out, 8 * es);
	p.vec_t = a->out_t && R % 8 == 0 && f8b_k_aligned(a->out_t, 8 * es);

	const bool al = f8b_k_aligned(a->x, 16) && (!a->x2 || f8b_k_aligned(a->x2, 16));
	switch (a->src) {
	case F8B_SRC_BF16: {
		struct f8b_src_bf16 s = {(const uint16_t *)a->x, C, al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, a->nblocks, stream);
	}
	case F8B_SRC_F32: {
		struct f8b_src_f32 s = {(const float *)a->x, C, al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, a->nblocks, stream);
	}
	case F8B_SRC_LN: {
		struct f8b_src_ln s = {(const uint16_t *)a->x, a->mean, a->rstd, C,
		                       al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, a->nblocks, stream);
	}
	case F8B_SRC_SIGBWD: {
		struct f8b_src_sigbwd s = {(const uint16_t *)a->x, (const uint16_t *)a->x2, C,
		                           al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, a->nblocks, stream);
	}
	default: return (int)cudaErrorInvalidValue;
	}
}

extern "C" int f8b_k_cast_transpose(const void *x, int dtype, int64_t rows, int64_t cols, int gran,
                                    const float *scale, const float *scale_t, void *out,
                                    void *out_t, int out_dtype, cudaStream_t stream)
{
	struct f8b_k_tile_args a;

	if ((dtype != F8B_BF16 && dtype != F8B_F32) || (!out && !out_t) ||
	    (rows > 0 && cols > 0 && !x))
		return (int)cudaErrorInvalidValue;
	memset(&a, 0, sizeof a);
	a.src = dtype == F8B_F32 ? F8B_SRC_F32 : F8B_SRC_BF16;
	a.x = x;
	a.rows = rows;
	a.cols = cols;
	a.gran = gran;
	a.scale = scale;
	a.scale_t = scale_t;
	a.out = out;
	a.out_t = out_t;
	a.out_dtype = out_dtype;
	a.reverse = true; /* after amax_t's forward pass over x */
	return f8b_k_tile_pass(&a, stream);
}

extern "C" int f8b_k_cast_transpose_ln(const void *x, const float *mean, const float *rstd,
                                       int64_t rows, int64_t cols, int gran, const float *scale_t,
                                       void *out_t, int out_dtype, cudaStream_t stream)
{
	struct f8b_k_tile_args a;

	if (!out_t || (rows > 0 && cols > 0 && (!x || !mean || !rstd)))
		return (int)cudaErrorInvalidValue;
	memset(&a, 0, sizeof a);
	a.src = F8B_SRC_LN;
	a.x = x;
	a.mean = mean;
	a.rstd = rstd;
	a.rows = rows;
	a.cols = cols;
	a.gran = gran;
	a.scale_t = scale_t;
	a.out_t = out_t;
	a.out_dtype = out_dtype;
	a.reverse = true; /* after amax_t's forward pass over x */
	return f8b_k_tile_pass(&a, stream);
}
