/* fill.cu - the seeded fill of core/fill.h on the GPU, bit-identical to the
 * host backend's.
 *
 * Bit-exactness: the hash is integer arithmetic (uint64 wraps the same
 * everywhere); u(c) = (h >> 40) * 2^-24 is exact; every fp32 operation of
 * the formula goes through an explicitly rounded intrinsic (__fadd_rn,
 * __fsub_rn, __fmul_rn), which nvcc never contracts into an FMA, in the
 * order core/fill.h states; bf16 rounding is cvt.rn.bf16.f32, which
 * f8b_f32_to_bf16() mirrors.
 *
 * Cost: ~5 splitmix64 hashes per element (2 64-bit multiplies each, a
 * handful of 32-bit IMADs apiece) against 2 or 4 bytes written, so the fill
 * is integer-bound, not bandwidth-bound; it is setup, never timed.
 */
#include "kernels_internal.cuh"

struct fill_params {
	uint64_t seed;
	float mean, std, outlier_frac, outlier_scale;
	uint64_t offset;
};

static __device__ __forceinline__ uint64_t splitmix_finalise(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xBF58476D1CE4E5B9ull;
	z ^= z >> 27;
	z *= 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z;
}

/* u(c) in [0, 1): the top 24 bits of h(c), exactly representable. */
static __device__ __forceinline__ float unit(uint64_t seed, uint64_t c)
{
	uint64_t h = splitmix_finalise(seed + (c + 1) * 0x9E3779B97F4A7C15ull);

	return __fmul_rn((float)(h >> 40), 0x1p-24f);
}

static __device__ __forceinline__ float fill_value(const struct fill_params &p, uint64_t i)
{
	uint64_t c = 5 * i;
	float u0 = unit(p.seed, c), u1 = unit(p.seed, c + 1);
	float u2 = unit(p.seed, c + 2), u3 = unit(p.seed, c + 3);
	float u4 = unit(p.seed, c + 4);
	float t, z, x;

	t = __fadd_rn(u0, u1);
	t = __fadd_rn(t, u2);
	t = __fadd_rn(t, u3);
	t = __fsub_rn(t, 2.0f);
	z = __fmul_rn(t, 1.7320508f); /* sqrt(3): Irwin-Hall(4) has variance 4/12 */
	x = __fmul_rn(z, p.std);
	x = __fadd_rn(x, p.mean);
	if (u4 < p.outlier_frac)
		x = __fmul_rn(x, p.outlier_scale);
	return x;
}

/* Grid-stride over 64-bit element indices: element i depends only on
 * (seed, i), so any grid gives the same tensor. */
static __global__ void __launch_bounds__(F8B_K_THREADS)
    fill_kernel(void *x, int bf16, int64_t n, struct fill_params p)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float v = fill_value(p, p.offset + (uint64_t)i);

		if (bf16)
			((uint16_t *)x)[i] = f8b_d_f32_to_bf16(v);
		else
			((float *)x)[i] = v;
	}
}

extern "C" int f8b_k_fill(void *x, int dtype, int64_t n, const struct f8b_fill_spec *spec,
                          cudaStream_t stream)
{
	if ((dtype != F8B_F32 && dtype != F8B_BF16) || !spec || n < 0 || (n > 0 && !x))
		return (int)cudaErrorInvalidValue;
	if (n == 0)
		return (int)cudaSuccess;

	struct fill_params p = {spec->seed,         spec->mean,          spec->std,
	                        spec->outlier_frac, spec->outlier_scale, spec->offset};
	unsigned grid;
	/* 8 resident 256-thread blocks per SM fill it (2048 threads); the
	 * compute-bound hash gains nothing from more. */
	int e = f8b_k_grid((n + F8B_K_THREADS - 1) / F8B_K_THREADS, 8, &grid);

	if (e != cudaSuccess)
		return e;
	fill_kernel<<<grid, F8B_K_THREADS, 0, stream>>>(x, dtype == F8B_BF16, n, p);
	return (int)cudaGetLastError();
}
