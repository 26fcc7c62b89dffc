/* scale.cu - scale and scale_inv from amax, elementwise.
 *
 * The operation sequence is f8b_amax_to_scale()'s (src/core/scaling.c, steps
 * 1-4 in its comment), each step one correctly rounded fp32 operation:
 *   a = amax < eps ? eps : amax        (NaN fails the test and stays NaN)
 *   s = fp8_max / a                    (__fdiv_rn)
 *   s = s / d, d = exp2f(margin)       (only if margin != 0; d computed on
 *                                       the host by the same libm call as
 *                                       scaling.c, so it has the same bits)
 *   pow2: s = bits(bits(s) & 0xFF800000) unless s is NaN
 *   scale_inv = 1 / s                  (__fdiv_rn, never the fast rcp)
 *
 * NaN: a NaN amax (or margin) gives the canonical NaN 0x7FFFFFFF for scale
 * and scale_inv, on the host as here (payloads carry no meaning, and
 * propagating them bit-exactly across host and GPU arithmetic proved
 * fragile: the H100 returned 0x7FFFFFFF where the host kept the payload).
 *
 * Bytes: 4 read + 8 written per scale; a few hundred thousand scales at
 * most (block1x128 of a 16k x 16k tensor: 2M), a few microseconds.
 */
#include "kernels_internal.cuh"

struct scale_params {
	float fp8_max; /* f8b_dtype_max(target) */
	float div;     /* exp2f(margin) */
	int use_div;   /* margin != 0 */
	int pow2;
};

static __device__ __forceinline__ float canonical_nan(void)
{
	return __uint_as_float(0x7FFFFFFFu);
}

static __device__ __forceinline__ float amax_to_scale(float amax, const struct scale_params &p)
{
	float a = amax < F8B_AMAX_EPS ? F8B_AMAX_EPS : amax;
	float s = isnan(a) ? canonical_nan() : __fdiv_rn(p.fp8_max, a);

	if (p.use_div)
		s = isnan(s) || isnan(p.div) ? canonical_nan() : __fdiv_rn(s, p.div);
	if (p.pow2 && !isnan(s))
		s = __uint_as_float(__float_as_uint(s) & 0xFF800000u);
	return s;
}

static __global__ void __launch_bounds__(F8B_K_THREADS)
    scales_kernel(const float *amax, int64_t n, struct scale_params p, float *scale,
                  float *scale_inv)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float s = amax_to_scale(amax[i], p);

		if (scale)
			scale[i] = s;
		if (scale_inv)
			scale_inv[i] = isnan(s) ? canonical_nan() : __fdiv_rn(1.0f, s);
	}
}

extern "C" int f8b_k_scales(const float *amax, int64_t n, int target_dtype, float margin, int pow2,
                            float *scale, float *scale_inv, cudaStream_t stream)
{
	if ((target_dtype != F8B_E4M3 && target_dtype != F8B_E5M2) || n < 0 || (n > 0 && !amax))
		return (int)cudaErrorInvalidValue;
	if (n == 0 || (!scale && !scale_inv))
		return (int)cudaSuccess;

	struct scale_params p;
	p.fp8_max = f8b_dtype_max((enum f8b_dtype)target_dtype);
	p.use_div = margin != 0.0f;
	p.div = p.use_div ? exp2f(margin) : 1.0f;
	p.pow2 = pow2 != 0;

	unsigned grid;
	int e = f8b_k_grid((n + F8B_K_THREADS - 1) / F8B_K_THREADS, 8, &grid);

	if (e != cudaSuccess)
		return e;
	scales_kernel<<<grid, F8B_K_THREADS, 0, stream>>>(amax, n, p, scale, scale_inv);
	return (int)cudaGetLastError();
}

/* Delayed scaling's history step (backend.h history_scale): one thread,
 * len <= 1024 floats.  The max is taken newest first with a NaN sticking,
 * as the host twin does, so both give the same scale bit for bit. */
static __global__ void history_kernel(float *hist, int len, const float *amax,
                                      struct scale_params p, float *scale)
{
	if (threadIdx.x != 0 || blockIdx.x != 0)
		return;
	for (int i = len - 1; i > 0; i--)
		hist[i] = hist[i - 1];
	hist[0] = amax[0];
	float m = 0.0f;
	for (int i = 0; i < len; i++) {
		float h = hist[i];
		if (isnan(h) || isnan(m))
			m = canonical_nan();
		else if (h > m)
			m = h;
	}
	scale[0] = amax_to_scale(m, p);
}

extern "C" int f8b_k_history_scale(float *hist, int len, const float *amax, int target_dtype,
                                   float margin, int pow2, float *scale, cudaStream_t stream)
{
	if ((target_dtype != F8B_E4M3 && target_dtype != F8B_E5M2) || len < 1 || len > 1024 ||
	    !hist || !amax || !scale)
		return (int)cudaErrorInvalidValue;
	struct scale_params p;
	p.fp8_max = f8b_dtype_max((enum f8b_dtype)target_dtype);
	p.use_div = margin != 0.0f;
	p.div = p.use_div ? exp2f(margin) : 1.0f;
	p.pow2 = pow2 != 0;
	history_kernel<<<1, 32, 0, stream>>>(hist, len, amax, p, scale);
	return (int)cudaGetLastError();
}

/* dst[i] = src[0] for i < n: a tensorwise scale as an outer vector, for a
 * GEMM whose other operand is axiswise (cuda_gemm.c). */
static __global__ void broadcast_kernel(const float *src, float *dst, int64_t n)
{
	float v = src[0];
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		dst[i] = v;
}

extern "C" int f8b_k_broadcast(const float *src, float *dst, int64_t n, cudaStream_t stream)
{
	if (!src || !dst || n < 1)
		return (int)cudaErrorInvalidValue;
	unsigned grid;
	int e = f8b_k_grid((n + F8B_K_THREADS - 1) / F8B_K_THREADS, 8, &grid);
	if (e != cudaSuccess)
		return e;
	broadcast_kernel<<<grid, F8B_K_THREADS, 0, stream>>>(src, dst, n);
	return (int)cudaGetLastError();
}
