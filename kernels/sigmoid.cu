/* sigmoid.cu - sigmoid forward and backward, elementwise over the flat
 * tensor, 8 elements (16 bytes of bf16) per thread step, grid-stride.
 *
 *   forward:  y  = bf16(1 / (1 + expf(-z)))   2 B read + 2 B written
 *   backward: dz = bf16(dy * (y * (1 - y)))   4 B read + 2 B written
 * The backward is bit-exact with the host (three rounded fp32 operations
 * in one order); the forward uses the accurate expf (not __expf) and
 * IEEE division, within an ulp of glibc's expf, so y may differ from the
 * host by one bf16 ulp where the fp32 value sits on a rounding boundary.
 */
#include "lls_internal.cuh"

template <bool BWD>
static __global__ void __launch_bounds__(F8B_K_THREADS)
    sig_kernel(const uint16_t *a, const uint16_t *b, uint16_t *o, int64_t n, bool vec)
{
	const int64_t nch = (n + 7) / 8, stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nch; k += stride) {
		const int len = (int)min((int64_t)8, n - k * 8);
		const bool v8 = vec && len == 8;
		float u[8], w[8];
		f8b_lls_ld(a + k * 8, len, v8, u);
		if (BWD) {
			f8b_lls_ld(b + k * 8, len, v8, w);
			for (int j = 0; j < 8; j++)
				u[j] = f8b_lls_sig_grad(u[j], w[j]);
		} else {
			for (int j = 0; j < 8; j++)
				u[j] = __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(-u[j])));
		}
		f8b_lls_st(o + k * 8, len, v8, u);
	}
}

static int launch(bool bwd, const void *a, const void *b, void *o, int64_t n, cudaStream_t stream)
{
	unsigned grid;

	if (n <= 0)
		return (int)cudaSuccess;
	if (!a || !o || (bwd && !b))
		return (int)cudaErrorInvalidValue;
	int e = f8b_k_grid((n + 8 * F8B_K_THREADS - 1) / (8 * F8B_K_THREADS), 8, &grid);
	if (e != cudaSuccess)
		return e;
	bool vec = f8b_k_aligned(a, 16) && f8b_k_aligned(o, 16) && (!b || f8b_k_aligned(b, 16));
	if (bwd)
		sig_kernel<true><<<grid, F8B_K_THREADS, 0, stream>>>(
		    (const uint16_t *)a, (const uint16_t *)b, (uint16_t *)o, n, vec);
	else
		sig_kernel<false><<<grid, F8B_K_THREADS, 0, stream>>>((const uint16_t *)a, NULL,
		                                                      (uint16_t *)o, n, vec);
	return (int)cudaGetLastError();
}

extern "C" int f8b_k_sigmoid_fwd(const void *z, void *y, int64_t n, cudaStream_t stream)
{
	return launch(false, z, NULL, y, n, stream);
}

extern "C" int f8b_k_sigmoid_bwd(const void *y, const void *dy, void *dz, int64_t n,
                                 cudaStream_t stream)
{
	return launch(true, y, dy, dz, n, stream);
}
