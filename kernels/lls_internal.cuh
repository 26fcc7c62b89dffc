/* lls_internal.cuh - what the lls kernels (layernorm.cu, sigmoid.cu,
 * amax_t.cu, cast_transpose.cu, lls_fused.cu) share: the value sources
 * ("where v comes from": plain bf16/f32, LayerNorm, sigmoid backward), the
 * in-kernel amax -> scale, block sums, and chunked loads.  Include after
 * kernels_internal.cuh.
 */
#ifndef F8B_LLS_INTERNAL_CUH
#define F8B_LLS_INTERNAL_CUH

#include "kernels_internal.cuh"

#define F8B_LLS_CHUNK 8

/* amax -> scale inside a kernel: the steps of f8b_amax_to_scale()
 * (src/core/scaling.c), as kernels/scale.cu does them, each one rounded
 * fp32 operation; the host fills div with the same exp2f(margin) call. */
struct f8b_lls_sp {
	float fp8_max; /* f8b_dtype_max(target) */
	float div;     /* exp2f(margin) */
	int use_div;   /* margin != 0 */
	int pow2;
	int e5m2; /* target format */
};

static __device__ __forceinline__ float f8b_lls_nan(void)
{
	return __uint_as_float(0x7FFFFFFFu);
}

static __device__ __forceinline__ float f8b_lls_scale(float amax, const struct f8b_lls_sp &p)
{
	float a = amax < F8B_AMAX_EPS ? F8B_AMAX_EPS : amax;
	float s = isnan(a) ? f8b_lls_nan() : __fdiv_rn(p.fp8_max, a);

	if (p.use_div)
		s = isnan(s) || isnan(p.div) ? f8b_lls_nan() : __fdiv_rn(s, p.div);
	if (p.pow2 && !isnan(s))
		s = __uint_as_float(__float_as_uint(s) & 0xFF800000u);
	return s;
}

static __device__ __forceinline__ float f8b_lls_inv(float s)
{
	return isnan(s) ? f8b_lls_nan() : __fdiv_rn(1.0f, s);
}

/* Eight saturating fp8 of v[j] * s (one rounded product each, then
 * cvt.rn.satfinite two per instruction), element j in byte j % 4 of word
 * j / 4; the format is uniform across the grid, so the branch costs no
 * divergence. */
static __device__ __forceinline__ uint2 f8b_lls_q8(const float v[8], float s, int e5m2)
{
	uint32_t w[4];
#pragma unroll
	for (int j = 0; j < 4; j++) {
		const float a = __fmul_rn(v[2 * j], s), b = __fmul_rn(v[2 * j + 1], s);
		w[j] = e5m2 ? f8b_d_cvt_fp8x2<true>(a, b) : f8b_d_cvt_fp8x2<false>(a, b);
	}
	return make_uint2(w[0] | w[1] << 16, w[2] | w[3] << 16);
}

/* Two fp32 -> two bf16 (RNE, NaN -> 0x7FFF) in one word, lo in the low
 * half: cvt.rn.bf16x2.f32, one conversion instruction for two values
 * where f8b_d_f32_to_bf16() takes one each (conversions issue at a
 * quarter of the fp32 rate on sm_90, and the fused casts run several per
 * element: done one at a time they, not DRAM, set the pace). */
static __device__ __forceinline__ uint32_t f8b_lls_bf16x2(float lo, float hi)
{
	uint32_t d;
	asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
	return d;
}

/* The eight values packed as bf16 words (the layout of a 16-byte load). */
static __device__ __forceinline__ uint4 f8b_lls_pack8(const float v[8])
{
	return make_uint4(f8b_lls_bf16x2(v[0], v[1]), f8b_lls_bf16x2(v[2], v[3]),
	                  f8b_lls_bf16x2(v[4], v[5]), f8b_lls_bf16x2(v[6], v[7]));
}

/* Eight bf16 at p as fp32: one 16-byte load when vec, else len (<= 8)
 * scalar loads, the rest 0. */
static __device__ __forceinline__ void f8b_lls_ld(const uint16_t *p, int len, bool vec,
                                                  float v[F8B_LLS_CHUNK])
{
	if (vec) {
		uint4 w = *(const uint4 *)p;
		uint32_t u[4] = {w.x, w.y, w.z, w.w};
		for (int j = 0; j < 4; j++) {
			v[2 * j] = f8b_d_bf16_to_f32((uint16_t)(u[j] & 0xFFFFu));
			v[2 * j + 1] = f8b_d_bf16_to_f32((uint16_t)(u[j] >> 16));
		}
		return;
	}
	for (int j = 0; j < F8B_LLS_CHUNK; j++)
		v[j] = j < len ? f8b_d_bf16_to_f32(p[j]) : 0.0f;
}

static __device__ __forceinline__ void f8b_lls_ld(const float *p, int len, bool vec,
                                                  float v[F8B_LLS_CHUNK])
{
	if (vec) {
		float4 a = *(const float4 *)p, b = *(const float4 *)(p + 4);
		v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
		v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
		return;
	}
	for (int j = 0; j < F8B_LLS_CHUNK; j++)
		v[j] = j < len ? p[j] : 0.0f;
}

/* Eight bf16 at p as their bits: one 16-byte non-coherent load when vec
 * (the tile pass issues the loads of a tile before it uses them), else len
 * (<= 8) scalar loads, the rest 0. */
static __device__ __forceinline__ uint4 f8b_lls_ld_raw(const uint16_t *p, int len, bool vec)
{
	if (vec)
		return __ldg((const uint4 *)p);
	uint32_t u[4] = {0, 0, 0, 0};
	for (int j = 0; j < F8B_LLS_CHUNK; j++)
		if (j < len)
			u[j / 2] |= (uint32_t)p[j] << (j % 2 * 16);
	return make_uint4(u[0], u[1], u[2], u[3]);
}

/* The eight bf16 of f8b_lls_ld_raw() as fp32 (exact). */
static __device__ __forceinline__ void f8b_lls_unpack(uint4 w, float v[F8B_LLS_CHUNK])
{
	uint32_t u[4] = {w.x, w.y, w.z, w.w};
	for (int j = 0; j < 4; j++) {
		v[2 * j] = f8b_d_bf16_to_f32((uint16_t)(u[j] & 0xFFFFu));
		v[2 * j + 1] = f8b_d_bf16_to_f32((uint16_t)(u[j] >> 16));
	}
}

/* Eight fp32 stored as bf16 at p (16-byte store when vec). */
static __device__ __forceinline__ void f8b_lls_st(uint16_t *p, int len, bool vec,
                                                  const float v[F8B_LLS_CHUNK])
{
	if (vec) {
		uint32_t u[4];
		for (int j = 0; j < 4; j++)
			u[j] = (uint32_t)f8b_d_f32_to_bf16(v[2 * j]) |
			       (uint32_t)f8b_d_f32_to_bf16(v[2 * j + 1]) << 16;
		*(uint4 *)p = make_uint4(u[0], u[1], u[2], u[3]);
		return;
	}
	for (int j = 0; j < 8; j++)
		if (j < len)
			p[j] = f8b_d_f32_to_bf16(v[j]);
}

/* Value sources: v for a chunk of 8 elements of row r from column c
 * (len valid).  Each gives the bf16-rounded value as fp32 (plain f32
 * input excepted: its value is the input), the v backend.h quantises.
 * load() fetches the chunk's words (raw_t) and val() forms the values from
 * them, so that a kernel can issue the loads of several chunks before it
 * waits for any.  The row kernel's sources (bf16, sigmoid backward) also
 * give words(): the values as packed bf16, which the row kernel keeps in
 * place of the loaded words. */
struct f8b_src_bf16 {
	const uint16_t *x;
	int64_t cols;
	bool vec;
	struct raw_t {
		uint4 w;
	};
	/* staged by the tile kernel (cast_transpose.cu): at(), row_inputs()
	 * (what a row needs besides its staged words), from_words() */
	static constexpr bool stageable = true;
	__device__ __forceinline__ const uint16_t *at(int64_t r, int64_t c) const
	{
		return x + r * cols + c;
	}
	__device__ __forceinline__ void row_inputs(int64_t, raw_t &) const
	{
	}
	__device__ __forceinline__ void from_words(uint4 w, raw_t &raw) const
	{
		raw.w = w;
	}
	__device__ __forceinline__ void load(int64_t r, int64_t c, int len, raw_t &w) const
	{
		w.w = f8b_lls_ld_raw(x + r * cols + c, len, vec);
	}
	__device__ __forceinline__ void val(const raw_t &w, float v[8]) const
	{
		f8b_lls_unpack(w.w, v);
	}
	__device__ __forceinline__ uint4 words(const raw_t &w) const
	{
		return w.w;
	}
};

struct f8b_src_f32 {
	const float *x;
	int64_t cols;
	bool vec;
	struct raw_t {
		float v[8];
	};
	static constexpr bool stageable = false;
	__device__ __forceinline__ void load(int64_t r, int64_t c, int len, raw_t &w) const
	{
		f8b_lls_ld(x + r * cols + c, len, vec, w.v);
	}
	__device__ __forceinline__ void val(const raw_t &w, float v[8]) const
	{
		for (int j = 0; j < 8; j++)
			v[j] = w.v[j];
	}
};

/* LayerNorm output from stored row statistics: bf16((x - mean) * rstd). */
struct f8b_src_ln {
	const uint16_t *x;
	const float *mean, *rstd;
	int64_t cols;
	bool vec;
	struct raw_t {
		uint4 w;
		float mu, rs;
	};
	static constexpr bool stageable = true;
	__device__ __forceinline__ const uint16_t *at(int64_t r, int64_t c) const
	{
		return x + r * cols + c;
	}
	__device__ __forceinline__ void row_inputs(int64_t r, raw_t &raw) const
	{
		raw.mu = __ldg(mean + r);
		raw.rs = __ldg(rstd + r);
	}
	__device__ __forceinline__ void from_words(uint4 w, raw_t &raw) const
	{
		raw.w = w;
	}
	__device__ __forceinline__ void load(int64_t r, int64_t c, int len, raw_t &w) const
	{
		w.mu = __ldg(mean + r);
		w.rs = __ldg(rstd + r);
		w.w = f8b_lls_ld_raw(x + r * cols + c, len, vec);
	}
	__device__ __forceinline__ void val(const raw_t &w, float v[8]) const
	{
		f8b_lls_unpack(w.w, v);
		for (int j = 0; j < 8; j++)
			v[j] = __fmul_rn(__fsub_rn(v[j], w.mu), w.rs);
		f8b_lls_unpack(f8b_lls_pack8(v), v); /* rounded to bf16 */
	}
};

/* dz = bf16(dy * (y * (1 - y))), the rounding order of backend.h. */
static __device__ __forceinline__ float f8b_lls_sig_grad(float y, float dy)
{
	return __fmul_rn(dy, __fmul_rn(y, __fsub_rn(1.0f, y)));
}

struct f8b_src_sigbwd {
	const uint16_t *y, *dy;
	int64_t cols;
	bool vec;
	struct raw_t {
		uint4 y, dy;
	};
	static constexpr bool stageable = false;
	__device__ __forceinline__ void load(int64_t r, int64_t c, int len, raw_t &w) const
	{
		w.y = f8b_lls_ld_raw(y + r * cols + c, len, vec);
		w.dy = f8b_lls_ld_raw(dy + r * cols + c, len, vec);
	}
	__device__ __forceinline__ void val(const raw_t &w, float v[8]) const
	{
		f8b_lls_unpack(words(w), v);
	}
	/* the eight values as bf16 words (the row kernel keeps these) */
	__device__ __forceinline__ uint4 words(const raw_t &w) const
	{
		float v[8], g[8];
		f8b_lls_unpack(w.y, v);
		f8b_lls_unpack(w.dy, g);
		for (int j = 0; j < 8; j++)
			v[j] = f8b_lls_sig_grad(v[j], g[j]);
		return f8b_lls_pack8(v);
	}
};

/* Sum of x over the 256-thread block; every thread gets the result.
 * smem: 8 floats.  The order is fixed by the block shape (warp tree, then
 * the 8 warp sums in order), so a run repeats bit for bit. */
static __device__ __forceinline__ float f8b_lls_block_sum(float x, float *smem)
{
	for (int o = 16; o > 0; o /= 2)
		x += __shfl_xor_sync(F8B_K_FULL_MASK, x, o);
	__syncthreads(); /* smem may still be read by a previous call */
	if ((threadIdx.x & 31) == 0)
		smem[threadIdx.x >> 5] = x;
	__syncthreads();
	float s = 0.0f;
	for (int w = 0; w < F8B_K_THREADS / 32; w++)
		s += smem[w];
	return s;
}

/* Host side: the scale parameters of a target dtype and options. */
static inline struct f8b_lls_sp f8b_lls_make_sp(int dtype, float margin, int pow2)
{
	struct f8b_lls_sp p;
	p.fp8_max = f8b_dtype_max((enum f8b_dtype)dtype);
	p.use_div = margin != 0.0f;
	p.div = p.use_div ? exp2f(margin) : 1.0f;
	p.pow2 = pow2 != 0;
	p.e5m2 = dtype == F8B_E5M2;
	return p;
}

/* ------------------------------------------- tile pass (cast_transpose.cu) */

/* One pass of cast_transpose.cu's tile kernel over the values of `src`:
 * out and/or out_t (fp8 of out_dtype, or bf16 = the value rounded), an
 * optional tensorwise amax (atomicMax into amax_acc, zeroed by the caller),
 * and scale_inv[0] when the scale is tensorwise.  Scales: with dyn_amax,
 * s = f8b_lls_scale(*dyn_amax) for every element (dynamic tensorwise, pass
 * 2); else scale / scale_t per block as cast_transpose (backend.h). */
enum { F8B_SRC_BF16 = 0, F8B_SRC_F32, F8B_SRC_LN, F8B_SRC_SIGBWD };

struct f8b_k_tile_args {
	int src;            /* F8B_SRC_* */
	const void *x;      /* bf16/f32 x; LN: x; sigmoid: y */
	const void *x2;     /* sigmoid: dy */
	const float *mean;  /* LN */
	const float *rstd;  /* LN */
	int64_t rows, cols; /* of x */
	int gran;
	const float *scale, *scale_t;
	const float *dyn_amax;
	struct f8b_lls_sp sp; /* with dyn_amax; sp.e5m2 also picks the fp8 format */
	float *scale_inv;     /* tensorwise: 1 / s into [0]; NULL = none */
	void *out, *out_t;
	int out_dtype; /* e4m3, e5m2 or bf16; ignored when both outputs NULL */
	float *amax_acc;
	/* Block maxima instead of amax_acc (f8b_cast_spec.partial): pass 1
	 * leaves one per block in acc_parts and the block count in *nblocks;
	 * pass 2 takes its scale from the dyn_nparts maxima at dyn_parts
	 * (instead of dyn_amax) and writes their max to amax_out[0]. */
	float *acc_parts;
	int *nblocks; /* out: the blocks launched, or NULL */
	const float *dyn_parts;
	int dyn_nparts;
	float *amax_out;
	/* Visit the tiles from the last: a pass that re-reads what a forward
	 * pass (amax, row statistics) just read then starts on the part of it
	 * still in L2. */
	bool reverse;
};
int f8b_k_tile_pass(const struct f8b_k_tile_args *a, cudaStream_t stream);

#endif
