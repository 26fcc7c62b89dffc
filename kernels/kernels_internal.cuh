/* kernels_internal.cuh - what the .cu files of kernels/ share: the scale
 * storage mapping (the one device copy of it), the block of an element,
 * bf16 / fp8 conversions, |x| as ordered bits, group reductions, and two
 * host helpers defined in util.cu.  Include this first in every .cu file,
 * instead of kernels.h: the src/ headers carry no extern "C" guards, so
 * they are included here inside extern "C" before kernels.h pulls them in,
 * which gives f8b_scale_shape() & co. their C linkage when called from the
 * launchers (host code compiled as C++).
 */
#ifndef F8B_KERNELS_INTERNAL_CUH
#define F8B_KERNELS_INTERNAL_CUH

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "core/common.h"
#include "core/scaling.h"
}
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

/* Every kernel here runs 256-thread blocks unless it says otherwise: 8 warps
 * is enough to cover load latency with 8 blocks per SM (2048 threads), and
 * the block-wide reductions below assume it. */
#define F8B_K_THREADS   256
#define F8B_K_FULL_MASK 0xFFFFFFFFu

/* Geometry of a scale (or amax) tensor, computed once on the host by
 * f8b_k_scale_geom() from scaling.c's f8b_scale_shape(). */
struct f8b_k_sgeom {
	int gran;             /* enum f8b_granularity */
	int64_t rows, cols;   /* the data tensor */
	int64_t srows, scols; /* the scale tensor (scaling.h table) */
};

/* THE device copy of f8b_scale_index() (src/core/scaling.c, layout documented in
 * src/core/scaling.h): where block (br, bc) of the scale/amax tensor is stored.
 * Every kernel goes through this one function, so a layout change (e.g. to
 * whatever padded or swizzled form cuBLASLt wants) is made here and in
 * f8b_scale_index() and nowhere else.  tests/gpu/test_kernels checks every
 * granularity against the host backend, which indexes with f8b_scale_index(). */
__device__ __forceinline__ int64_t f8b_d_scale_index(const struct f8b_k_sgeom &g, int64_t br,
                                                     int64_t bc)
{
	switch (g.gran) {
	case F8B_GRAN_AXISWISE: return br;
	case F8B_GRAN_BLOCK1X128:
		return bc * g.srows + br; /* column-major */
	/* row-major, rows padded to 4 floats (16 bytes) as cuBLASLt reads it */
	case F8B_GRAN_BLOCK128X128: return br * ((g.scols + 3) / 4 * 4) + bc;
	default: return 0; /* tensorwise */
	}
}

/* Block coordinates of element (r, c): the granularity table of scaling.h.
 * Blocks are F8B_BLOCK (128) wide, so 8 consecutive columns starting at a
 * multiple of 8 always share one block; the cast relies on that. */
__device__ __forceinline__ void f8b_d_block_of(int gran, int64_t r, int64_t c, int64_t *br,
                                               int64_t *bc)
{
	switch (gran) {
	case F8B_GRAN_AXISWISE:
		*br = r;
		*bc = 0;
		break;
	case F8B_GRAN_BLOCK1X128:
		*br = r;
		*bc = c / F8B_BLOCK;
		break;
	case F8B_GRAN_BLOCK128X128:
		*br = r / F8B_BLOCK;
		*bc = c / F8B_BLOCK;
		break;
	default:
		*br = 0;
		*bc = 0;
		break;
	}
}

/* bf16 bits -> fp32: exact (the bf16 is the top half of the fp32). */
__device__ __forceinline__ float f8b_d_bf16_to_f32(uint16_t b)
{
	return __bfloat162float(__ushort_as_bfloat16(b));
}

/* fp32 -> bf16 bits, RNE (PTX cvt.rn.bf16.f32; NaN -> 0x7FFF), which is
 * what src/fp8.c's f8b_f32_to_bf16() reproduces on the host. */
__device__ __forceinline__ uint16_t f8b_d_f32_to_bf16(float x)
{
	return __bfloat16_as_ushort(__float2bfloat16_rn(x));
}

/* Two fp32 -> two saturating fp8 (cvt.rn.satfinite.{e4m3,e5m2}x2.f32, the
 * instruction behind __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...) on
 * sm_89+); lo lands in the low byte (cuda_fp8.hpp).  E5M2 is a template
 * argument so the kernels carry no per-element format branch. */
template <bool E5M2> __device__ __forceinline__ uint32_t f8b_d_cvt_fp8x2(float lo, float hi)
{
	return __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE,
	                                E5M2 ? __NV_E5M2 : __NV_E4M3);
}

template <bool E5M2> __device__ __forceinline__ uint8_t f8b_d_cvt_fp8(float x)
{
	return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, E5M2 ? __NV_E5M2 : __NV_E4M3);
}

/* |x| as the fp32 bit pattern.  For non-negative floats the unsigned order
 * of the bits is the numeric order, +inf (0x7F800000) sits above every
 * finite value and every NaN (sign cleared: 0x7F800001..0x7FFFFFFF) above
 * +inf, so an unsigned max over these bits is an amax that propagates NaN
 * with no extra branch, and an atomicMax on them combines blocks. */
__device__ __forceinline__ uint32_t f8b_d_abs_bits(float x)
{
	return __float_as_uint(x) & 0x7FFFFFFFu;
}

__device__ __forceinline__ uint32_t f8b_d_abs_bits(uint16_t b)
{
	return (uint32_t)(b & 0x7FFFu) << 16; /* the widened bf16, sign cleared */
}

/* Max of m over a group of G consecutive threads (G = 16, 32 or 256; 256
 * means the whole F8B_K_THREADS block).  Every thread of the block must
 * call it (it shuffles across full warps and, for 256, synchronises);
 * every thread gets the group's result.  smem: 8 words of shared memory. */
__device__ __forceinline__ uint32_t f8b_d_group_max(uint32_t m, int G, uint32_t *smem)
{
	if (G < 32) {
		/* xor partners stay inside an aligned group of G lanes */
		for (int o = G / 2; o > 0; o /= 2)
			m = max(m, __shfl_xor_sync(F8B_K_FULL_MASK, m, o));
		return m;
	}
	m = __reduce_max_sync(F8B_K_FULL_MASK, m); /* redux.sync, sm_80+ */
	if (G == 32)
		return m;
	if ((threadIdx.x & 31) == 0)
		smem[threadIdx.x >> 5] = m;
	__syncthreads();
	m = (threadIdx.x & 31) < F8B_K_THREADS / 32 ? smem[threadIdx.x & 31] : 0u;
	return __reduce_max_sync(F8B_K_FULL_MASK, m);
}

/* A block's max |x| bits m (thread 0 calls): into parts[blockIdx.x] when
 * a later pass reduces the block maxima (f8b_cast_spec.partial: every
 * block writes its entry, so nothing needs zeroing), else atomicMax into
 * acc, which the caller zeroed. */
__device__ __forceinline__ void f8b_d_put_block_max(uint32_t m, float *acc, float *parts)
{
	if (parts)
		parts[blockIdx.x] = __uint_as_float(m);
	else if (m)
		atomicMax((unsigned int *)acc, m);
}

/* The max of the n block maxima at parts (every thread of the block calls
 * and gets it; smem: 8 words). */
__device__ __forceinline__ uint32_t f8b_d_parts_max(const float *parts, int n, uint32_t *smem)
{
	uint32_t m = 0;
	for (int i = threadIdx.x; i < n; i += F8B_K_THREADS)
		m = max(m, __float_as_uint(parts[i]));
	return f8b_d_group_max(m, F8B_K_THREADS, smem);
}

/* ---------------------------------------------------------- host helpers */

/* Blocks to launch for `want` blocks of work: at most `per_sm` resident
 * blocks per SM of the current device (grid-stride kernels loop over the
 * rest), at least 1.  Returns the cudaError_t of the attribute query. */
int f8b_k_grid(int64_t want, int per_sm, unsigned *grid);

/* The grid of a pass 1 that may leave block maxima: with parts, at most
 * F8B_CAST_PARTIALS blocks (grid-stride kernels loop over the rest);
 * *nblocks (when not NULL) gets the grid to launch. */
unsigned f8b_k_parts_grid(unsigned grid, const float *parts, int *nblocks);

/* amax.cu: pass 1 of a dynamic tensorwise cast of n bf16 at x that leaves
 * one max per block in parts (f8b_cast_spec.partial) and the number of
 * blocks in *nparts (<= F8B_CAST_PARTIALS), instead of an atomicMax into a
 * zeroed amax. */
int f8b_k_amax_parts(const void *x, int64_t n, float *parts, int *nparts, cudaStream_t stream);

/* amax_t.cu: the 128x128 amax of x (bf16 or f32, rows, cols > 0) by the
 * tile walk of amax_t, padding entries included; no memset. */
int f8b_k_amax_128(const void *x, int dtype, int64_t rows, int64_t cols, float *amax,
                   cudaStream_t stream);

/* Scale-tensor geometry of a rows x cols tensor (scaling.c's shape). */
struct f8b_k_sgeom f8b_k_scale_geom(int gran, int64_t rows, int64_t cols);

/* Is p aligned to `bytes` (a power of two)? */
static inline bool f8b_k_aligned(const void *p, size_t bytes)
{
	return ((uintptr_t)p & (bytes - 1)) == 0;
}

#endif
