/* cast_transpose.cu - cast and/or transpose in one pass over 64x64 tiles,
 * and the tile pass the fused casts of lls_fused.cu reuse.
 *
 * A 256-thread block takes a 64 x 64 tile of the value tensor (grid-stride
 * over tiles, tiles in row-major order so neighbouring blocks read
 * neighbouring memory).  Phase 1: each thread takes 2 of the tile's 512
 * chunks (8 consecutive columns of one row: one 16-byte bf16 load), forms
 * the values (value sources of lls_internal.cuh: plain, LayerNorm,
 * sigmoid backward), writes the row-major output directly (8 bytes of fp8
 * per chunk, 8 threads per 64-byte row segment) and parks the transposed
 * output's elements in shared memory.  Phase 2: each thread gathers 8
 * consecutive rows of one column from shared memory and writes them as one
 * 8-element store into out_t's row.
 *
 * Bytes: bf16 -> fp8 + fp8^T reads 2 B and writes 2 B per element.  The
 * shared tile rows are padded by one element (65 B for fp8, 130 B for
 * bf16) so the column gathers of a warp (4 columns x 8 row groups, 8 rows
 * apart) land in distinct banks: with a pitch of P bytes, row groups are
 * 2P words apart, 130 = 2 (mod 32) words for fp8 and 260 = 4 for bf16.  (A
 * 16-byte pad made the stride 0 mod 32 words: 8-way conflicts on every
 * gather, which held the pass to ~40% of the copy bandwidth on an H100.)
 *
 * Bit-exactness: v * s is one __fmul_rn and the conversion is
 * cvt.rn.satfinite (as cast.cu), on the value the host twin computes with
 * the same fp32 operations (lls_internal.cuh's sources).
 */
#include "lls_internal.cuh"

#include <string.h>

#define TT 64 /* tile edge */

struct tile_p {
	int64_t rows, cols;
	struct f8b_k_sgeom sg, sgt; /* scales of x and of x^T */
	const float *scale, *scale_t, *dyn_amax;
	struct f8b_lls_sp sp;
	float *scale_inv, *amax_acc;
	void *out, *out_t;
	bool fp8;
	bool vec_o, vec_t; /* whole aligned 8-element stores possible */
};

template <typename TO> static __device__ __forceinline__ TO conv(float v, float s, int e5m2);

template <> __device__ __forceinline__ uint8_t conv<uint8_t>(float v, float s, int e5m2)
{
	return f8b_lls_q(v, s, e5m2);
}

template <> __device__ __forceinline__ uint16_t conv<uint16_t>(float v, float s, int e5m2)
{
	(void)s;
	(void)e5m2;
	return f8b_d_f32_to_bf16(v);
}

/* 8 elements of TO at p: one 8-byte (fp8) or 16-byte (bf16) store. */
static __device__ __forceinline__ void st8(uint8_t *p, const uint8_t w[8])
{
	*(uint2 *)p = make_uint2(
	    (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24,
	    (uint32_t)w[4] | (uint32_t)w[5] << 8 | (uint32_t)w[6] << 16 | (uint32_t)w[7] << 24);
}

static __device__ __forceinline__ void st8(uint16_t *p, const uint16_t w[8])
{
	*(uint4 *)p = make_uint4(
	    (uint32_t)w[0] | (uint32_t)w[1] << 16, (uint32_t)w[2] | (uint32_t)w[3] << 16,
	    (uint32_t)w[4] | (uint32_t)w[5] << 16, (uint32_t)w[6] | (uint32_t)w[7] << 16);
}

static __device__ __forceinline__ float scale_at(const struct f8b_k_sgeom &g, const float *s,
                                                 int64_t r, int64_t c)
{
	int64_t br, bc;
	f8b_d_block_of(g.gran, r, c, &br, &bc);
	return __ldg(s + f8b_d_scale_index(g, br, bc));
}

template <class S, typename TO>
static __global__ void __launch_bounds__(F8B_K_THREADS, 8) tile_kernel(S src, struct tile_p p)
{
	__shared__ TO tile[TT][TT + 1];
	__shared__ uint32_t red[F8B_K_THREADS / 32];
	const int64_t R = p.rows, C = p.cols;
	const int64_t ntc = (C + TT - 1) / TT, nt = (R + TT - 1) / TT * ntc;
	const bool dyn = p.dyn_amax != NULL;
	const float sdyn = dyn ? f8b_lls_scale(*p.dyn_amax, p.sp) : 0.0f;
	/* One scale for the whole tensor (dynamic, or a given tensorwise
	 * scale such as delayed scaling's): read once, not per element. */
	const bool one_s = !p.fp8 || dyn || p.sg.gran == F8B_GRAN_TENSORWISE;
	const bool one_st = !p.fp8 || dyn || p.sgt.gran == F8B_GRAN_TENSORWISE;
	const float s_all = !p.fp8 ? 1.0f : dyn ? sdyn : one_s ? __ldg(p.scale) : 0.0f;
	const float st_all = !p.fp8 ? 1.0f : dyn ? sdyn : one_st ? __ldg(p.scale_t) : 0.0f;
	TO *out = (TO *)p.out, *out_t = (TO *)p.out_t;
	uint32_t m = 0;

	for (int64_t t = blockIdx.x; t < nt; t += gridDim.x) {
		const int64_t r0 = t / ntc * TT, c0 = t % ntc * TT;

		for (int i = threadIdx.x; i < TT * TT / 8; i += F8B_K_THREADS) {
			const int lr = i / 8, lc = i % 8 * 8;
			const int64_t r = r0 + lr, c = c0 + lc;
			if (r >= R || c >= C)
				continue;
			const int len = (int)min((int64_t)8, C - c);
			float v[8];
			src.get(r, c, len, v);
			for (int j = 0; j < 8; j++)
				if (j < len)
					m = max(m, f8b_d_abs_bits(v[j]));
			if (out) {
				float s = one_s ? s_all : scale_at(p.sg, p.scale, r, c);
				TO w[8];
				for (int j = 0; j < 8; j++)
					w[j] = conv<TO>(v[j], s, p.sp.e5m2);
				if (p.vec_o)
					st8(out + r * C + c, w);
				else
					for (int j = 0; j < 8; j++)
						if (j < len)
							out[r * C + c + j] = w[j];
			}
			if (out_t) {
				/* The 8 elements are rows c..c+7 of x^T in one column
				 * r: their scales are consecutive (axiswise,
				 * block1x128: one per row of x^T) or one (128x128:
				 * c is a multiple of 8, so c..c+7 share a block).
				 * One index computation, not eight. */
				int64_t i0 = 0;
				int step = 0;
				if (!one_st) {
					int64_t br, bc;
					f8b_d_block_of(p.sgt.gran, c, r, &br, &bc);
					i0 = f8b_d_scale_index(p.sgt, br, bc);
					step = p.sgt.gran == F8B_GRAN_BLOCK128X128 ? 0 : 1;
				}
				for (int j = 0; j < 8; j++)
					if (j < len) {
						float s = one_st ? st_all
						                 : __ldg(p.scale_t + i0 + step * j);
						tile[lr][lc + j] = conv<TO>(v[j], s, p.sp.e5m2);
					}
			}
		}
		if (!out_t)
			continue; /* no shared memory used: no barrier needed */
		__syncthreads();
		for (int i = threadIdx.x; i < TT * TT / 8; i += F8B_K_THREADS) {
			/* consecutive threads: consecutive 8-row pieces of one
			 * out_t row (8 threads = 64 contiguous elements) */
			const int lc = i / 8, lr = i % 8 * 8;
			const int64_t c = c0 + lc, r = r0 + lr;
			if (c >= C || r >= R)
				continue;
			const int len = (int)min((int64_t)8, R - r);
			TO *dst = out_t + c * R + r;
			if (p.vec_t) {
				TO w[8];
				for (int j = 0; j < 8; j++)
					w[j] = tile[lr + j][lc];
				st8(dst, w);
			} else {
				for (int j = 0; j < 8; j++)
					if (j < len)
						dst[j] = tile[lr + j][lc];
			}
		}
		__syncthreads(); /* the next tile reuses the shared tile */
	}
	if (p.amax_acc) {
		m = f8b_d_group_max(m, F8B_K_THREADS, red);
		if (threadIdx.x == 0 && m)
			atomicMax((unsigned int *)p.amax_acc, m);
	}
	if (p.scale_inv && blockIdx.x == 0 && threadIdx.x == 0)
		p.scale_inv[0] = f8b_lls_inv(dyn ? sdyn : __ldg(p.scale));
}

template <class S, typename TO>
static int launch(S src, const struct tile_p &p, cudaStream_t stream)
{
	unsigned grid;
	int64_t tiles = (p.rows + TT - 1) / TT * ((p.cols + TT - 1) / TT);
	/* 8 blocks of 256 threads fill an SM; each keeps 2 x 16 B loads in
	 * flight per thread, 64 KiB per SM, above Little's law's ~15 KiB */
	int e = f8b_k_grid(tiles, 8, &grid);

	if (e != cudaSuccess)
		return e;
	tile_kernel<S, TO><<<grid, F8B_K_THREADS, 0, stream>>>(src, p);
	return (int)cudaGetLastError();
}

template <class S>
static int launch_to(S src, const struct tile_p &p, int out_dtype, cudaStream_t stream)
{
	if (out_dtype == F8B_BF16)
		return launch<S, uint16_t>(src, p, stream);
	return launch<S, uint8_t>(src, p, stream);
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
	p.sp = a->sp;
	p.sp.e5m2 = a->out_dtype == F8B_E5M2;
	p.scale_inv = a->scale_inv;
	p.amax_acc = a->amax_acc;
	p.out = a->out;
	p.out_t = a->out_t;
	p.fp8 = has_out && a->out_dtype != F8B_BF16;
	if (p.fp8 && !a->dyn_amax && ((a->out && !a->scale) || (a->out_t && !a->scale_t)))
		return (int)cudaErrorInvalidValue;
	if (a->scale_inv && !a->dyn_amax && !a->scale)
		return (int)cudaErrorInvalidValue;
	p.vec_o = a->out && C % 8 == 0 && f8b_k_aligned(a->out, 8 * es);
	p.vec_t = a->out_t && R % 8 == 0 && f8b_k_aligned(a->out_t, 8 * es);

	const bool al = f8b_k_aligned(a->x, 16) && (!a->x2 || f8b_k_aligned(a->x2, 16));
	switch (a->src) {
	case F8B_SRC_BF16: {
		struct f8b_src_bf16 s = {(const uint16_t *)a->x, C, al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, stream);
	}
	case F8B_SRC_F32: {
		struct f8b_src_f32 s = {(const float *)a->x, C, al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, stream);
	}
	case F8B_SRC_LN: {
		struct f8b_src_ln s = {(const uint16_t *)a->x, a->mean, a->rstd, C,
		                       al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, stream);
	}
	case F8B_SRC_SIGBWD: {
		struct f8b_src_sigbwd s = {(const uint16_t *)a->x, (const uint16_t *)a->x2, C,
		                           al && C % 8 == 0};
		return launch_to(s, p, a->out_dtype, stream);
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
	return f8b_k_tile_pass(&a, stream);
}
