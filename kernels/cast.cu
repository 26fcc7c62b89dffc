/* cast.cu - out = saturating fp8 cast of x * scale[block], elementwise.
 *
 * Each thread converts chunks of 8 consecutive elements of one row: one
 * 16-byte load of bf16 (two of f32), one scale (8 columns starting at a
 * multiple of 8 never straddle a 128-column block), 8 fp32 multiplies,
 * 4 cvt.rn.satfinite x2 conversions, one 8-byte store.
 *
 * Launch shape: a 2-D grid of 256-thread blocks, x over the chunks of a row,
 * y over rows, both grid-stride.  bx = the row's chunk count rounded up to a
 * power of two (at most 256) and by = 256 / bx, so narrow tensors (16
 * columns: 2 chunks) still use every lane and a warp covers contiguous
 * memory; no integer division per chunk, which at ~8 bytes of traffic per
 * instruction slot would show on H100.
 *
 * Bit-exactness: bf16 -> fp32 is exact; the product is one __fmul_rn, as on
 * the host (v * s in fp32); the conversion is the hardware instruction the
 * host encoder in src/fp8.c mirrors.
 */
#include "kernels_internal.cuh"

#define CHUNK 8

template <bool E5M2> static __device__ __forceinline__ uint2 cvt8(const float v[CHUNK], float s)
{
	uint32_t q[4];

	for (int j = 0; j < 4; j++)
		q[j] = f8b_d_cvt_fp8x2<E5M2>(__fmul_rn(v[2 * j], s), __fmul_rn(v[2 * j + 1], s));
	return make_uint2(q[0] | q[1] << 16, q[2] | q[3] << 16);
}

static __device__ __forceinline__ void load8(const uint16_t *p, float v[CHUNK])
{
	uint4 w = *(const uint4 *)p;
	uint32_t u[4] = {w.x, w.y, w.z, w.w};

	for (int j = 0; j < 4; j++) {
		v[2 * j] = f8b_d_bf16_to_f32((uint16_t)(u[j] & 0xFFFFu));
		v[2 * j + 1] = f8b_d_bf16_to_f32((uint16_t)(u[j] >> 16));
	}
}

static __device__ __forceinline__ void load8(const float *p, float v[CHUNK])
{
	float4 a = *(const float4 *)p, b = *(const float4 *)(p + 4);

	v[0] = a.x;
	v[1] = a.y;
	v[2] = a.z;
	v[3] = a.w;
	v[4] = b.x;
	v[5] = b.y;
	v[6] = b.z;
	v[7] = b.w;
}

static __device__ __forceinline__ float load1(const uint16_t *p)
{
	return f8b_d_bf16_to_f32(*p);
}

static __device__ __forceinline__ float load1(const float *p)
{
	return *p;
}

/* Launch bounds: at least 4 resident blocks (1024 threads, <= 64 registers
 * each).  With the block size alone ptxas 13.0 squeezed the bf16 variant
 * into 32 registers and spilled; 1024 threads x 16 B in flight per SM is
 * still twice what H100's bandwidth-latency product asks for.
 * vec: x is 16-byte aligned, out 8-byte aligned and cols % 8 == 0, so
 * every chunk is whole and aligned; otherwise element by element. */
template <typename T, bool E5M2>
static __global__ void __launch_bounds__(F8B_K_THREADS, 4)
    cast_kernel(const T *x, struct f8b_k_sgeom sg, const float *scale, uint8_t *out, bool vec)
{
	const int64_t cols = sg.cols, cpr = (cols + CHUNK - 1) / CHUNK;
	const int64_t rstride = (int64_t)gridDim.y * blockDim.y;
	const int64_t kstride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < sg.rows;
	     r += rstride) {
		for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < cpr;
		     k += kstride) {
			int64_t c = k * CHUNK, br, bc;

			f8b_d_block_of(sg.gran, r, c, &br, &bc);
			float s = __ldg(scale + f8b_d_scale_index(sg, br, bc));
			const T *p = x + r * cols + c;
			uint8_t *q = out + r * cols + c;

			if (vec) {
				float v[CHUNK];
				load8(p, v);
				*(uint2 *)q = cvt8<E5M2>(v, s);
			} else {
				int64_t len = min((int64_t)CHUNK, cols - c);
				for (int64_t j = 0; j < len; j++)
					q[j] = f8b_d_cvt_fp8<E5M2>(__fmul_rn(load1(p + j), s));
			}
		}
	}
}

template <typename T>
static int launch(const T *x, int64_t rows, int64_t cols, int gran, const float *scale,
                  uint8_t *out, bool e5m2, cudaStream_t stream)
{
	struct f8b_k_sgeom sg = f8b_k_scale_geom(gran, rows, cols);
	int64_t cpr = (cols + CHUNK - 1) / CHUNK;
	unsigned bx = 1;

	while (bx < F8B_K_THREADS && bx < cpr)
		bx *= 2;
	dim3 block(bx, F8B_K_THREADS / bx);
	int64_t gx = (cpr + bx - 1) / bx, gy = (rows + block.y - 1) / block.y;
	/* grid-stride in both directions covers any excess; 65535 is
	 * gridDim.y's limit, 2^31 - 1 gridDim.x's */
	dim3 grid((unsigned)min(gx, (int64_t)INT32_MAX), (unsigned)min(gy, (int64_t)65535));
	bool vec = f8b_k_aligned(x, 16) && f8b_k_aligned(out, 8) && cols % CHUNK == 0;

	if (e5m2)
		cast_kernel<T, true><<<grid, block, 0, stream>>>(x, sg, scale, out, vec);
	else
		cast_kernel<T, false><<<grid, block, 0, stream>>>(x, sg, scale, out, vec);
	return (int)cudaGetLastError();
}

extern "C" int f8b_k_cast(const void *x, int dtype, int64_t rows, int64_t cols, int gran,
                          const float *scale, void *out, int out_dtype, cudaStream_t stream)
{
	if ((unsigned)gran >= F8B_GRAN_COUNT || (out_dtype != F8B_E4M3 && out_dtype != F8B_E5M2))
		return (int)cudaErrorInvalidValue;
	if (rows <= 0 || cols <= 0)
		return (int)cudaSuccess;
	if (!x || !scale || !out)
		return (int)cudaErrorInvalidValue;

	bool e5m2 = out_dtype == F8B_E5M2;
	switch (dtype) {
	case F8B_BF16:
		return launch((const uint16_t *)x, rows, cols, gran, scale, (uint8_t *)out, e5m2,
		              stream);
	case F8B_F32:
		return launch((const float *)x, rows, cols, gran, scale, (uint8_t *)out, e5m2,
		              stream);
	default: return (int)cudaErrorInvalidValue;
	}
}
