/* layernorm.cu - LayerNorm backward (the forward is the row kernel of
 * lls_fused.cu, which it shares with the fused casts).
 *
 * With xh = (x - mean) * rstd, a = mean_k(dy), b = mean_k(dy * xh):
 *   dx = bf16(rstd * ((dy - a) - xh * b))
 * One 256-thread block per row, the row of x and dy in registers (NCH
 * chunks of 8 per thread, as the forward, kept as bf16 words), two block
 * sums; reads x and dy (4 B per element) and the row's mean/rstd, writes
 * dx (2 B).
 */
#include "lls_internal.cuh"

/* The rows of x and dy stay in registers as their bf16 words (NCH x 8
 * registers each); xh and dy are formed from them twice, for the sums and
 * for dx, with the same fp32 operations, so dx is bit-identical to keeping
 * them in fp32.  Holding the fp32 copies took 205 registers at NCH = 8
 * (one block per SM); the words fit two blocks of 256 threads per SM. */
template <int NCH>
static __global__ void __launch_bounds__(F8B_K_THREADS, NCH >= 8 ? 2 : 1)
    ln_bwd_kernel(const uint16_t *dy, const uint16_t *x, const float *mean, const float *rstd,
                  uint16_t *dx, int64_t rows, int64_t C, bool vec)
{
	__shared__ float fsm[F8B_K_THREADS / 32];
	const float n = (float)C;

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		uint4 gw[NCH], hw[NCH];
		int len[NCH];
		const float mu = mean[r], rs = rstd[r];
		float s1 = 0.0f, s2 = 0.0f;
#pragma unroll
		for (int j = 0; j < NCH; j++) {
			int64_t c = ((int64_t)threadIdx.x + j * F8B_K_THREADS) * 8;
			len[j] = c < C ? (int)min((int64_t)8, C - c) : 0;
			gw[j] = hw[j] = make_uint4(0, 0, 0, 0);
			if (len[j] > 0) {
				gw[j] = f8b_lls_ld_raw(dy + r * C + c, len[j], vec);
				hw[j] = f8b_lls_ld_raw(x + r * C + c, len[j], vec);
			}
		}
#pragma unroll
		for (int j = 0; j < NCH; j++) {
			float g[8], h[8];
			f8b_lls_unpack(gw[j], g);
			f8b_lls_unpack(hw[j], h);
			for (int e = 0; e < 8; e++) {
				bool ok = e < len[j];
				float xh = ok ? __fmul_rn(__fsub_rn(h[e], mu), rs) : 0.0f;
				float dg = ok ? g[e] : 0.0f;
				s1 += dg;
				s2 += __fmul_rn(dg, xh);
			}
		}
		const float a = __fdiv_rn(f8b_lls_block_sum(s1, fsm), n);
		const float b = __fdiv_rn(f8b_lls_block_sum(s2, fsm), n);
#pragma unroll
		for (int j = 0; j < NCH; j++) {
			if (len[j] == 0)
				continue;
			float g[8], h[8], o[8];
			f8b_lls_unpack(gw[j], g);
			f8b_lls_unpack(hw[j], h);
			for (int e = 0; e < 8; e++) {
				float xh = __fmul_rn(__fsub_rn(h[e], mu), rs);
				o[e] =
				    __fmul_rn(rs, __fsub_rn(__fsub_rn(g[e], a), __fmul_rn(xh, b)));
			}
			int64_t c = ((int64_t)threadIdx.x + j * F8B_K_THREADS) * 8;
			f8b_lls_st(dx + r * C + c, len[j], vec, o);
		}
	}
}

template <int NCH>
static int launch(const uint16_t *dy, const uint16_t *x, const float *mean, const float *rstd,
                  uint16_t *dx, int64_t rows, int64_t cols, bool vec, cudaStream_t stream)
{
	unsigned grid;
	int e = f8b_k_grid(rows, 8, &grid);

	if (e != cudaSuccess)
		return e;
	ln_bwd_kernel<NCH>
	    <<<grid, F8B_K_THREADS, 0, stream>>>(dy, x, mean, rstd, dx, rows, cols, vec);
	return (int)cudaGetLastError();
}

extern "C" int f8b_k_layernorm_bwd(const void *dy, const void *x, const float *mean,
                                   const float *rstd, void *dx, int64_t rows, int64_t cols,
                                   cudaStream_t stream)
{
	const int64_t per = (int64_t)F8B_K_THREADS * 8;
	const uint16_t *g = (const uint16_t *)dy, *h = (const uint16_t *)x;
	uint16_t *o = (uint16_t *)dx;

	if (!dy || !x || !mean || !rstd || !dx || rows <= 0 || cols <= 0 ||
	    cols > F8B_LLS_ROW_MAX_COLS)
		return (int)cudaErrorInvalidValue;
	bool vec =
	    cols % 8 == 0 && f8b_k_aligned(dy, 16) && f8b_k_aligned(x, 16) && f8b_k_aligned(dx, 16);
	if (cols <= per)
		return launch<1>(g, h, mean, rstd, o, rows, cols, vec, stream);
	if (cols <= 2 * per)
		return launch<2>(g, h, mean, rstd, o, rows, cols, vec, stream);
	if (cols <= 4 * per)
		return launch<4>(g, h, mean, rstd, o, rows, cols, vec, stream);
	return launch<8>(g, h, mean, rstd, o, rows, cols, vec, stream);
}
