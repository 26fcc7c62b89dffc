/* common/smem.cuh - shared-memory addresses and the wgmma matrix
 * descriptor of a 128-byte-swizzled K-major tile.
 *
 * Layout of a tile as TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B: rows
 * of 128 bytes (128 fp8 values of K) one after another, the 16-byte chunk c
 * of row r stored at chunk c ^ (r % 8).  The pattern repeats every 8 rows
 * (1024 bytes), so every tile starts on a 1024-byte boundary.
 *
 * Descriptor (PTX ISA, wgmma "Matrix Descriptor Format"):
 *   bits  0-13  start address >> 4
 *   bits 16-29  leading dimension byte offset >> 4: unused for a swizzled
 *               K-major operand whose K step (32 bytes) lies inside one
 *               128-byte swizzle row; set to 1 as the ISA's examples do
 *   bits 32-45  stride dimension byte offset >> 4: from one group of 8 rows
 *               to the next, 8 x 128 = 1024 bytes
 *   bits 49-51  base offset: 0, the tiles being 1024-byte aligned
 *   bits 62-63  swizzle mode: 1 = 128-byte swizzle
 * The k-th 32-byte step of K inside the 128-byte row is the same
 * descriptor with the start address advanced by 32 k bytes: the swizzle is
 * a function of the address bits, which the hardware applies to the
 * advanced address exactly as TMA did when it stored the tile.
 */
#ifndef F8B_GEMM_COMMON_SMEM_CUH
#define F8B_GEMM_COMMON_SMEM_CUH

#include <stdint.h>

__device__ __forceinline__ uint32_t f8b_smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

/* One float into shared memory, one or two out of it (two: 8-byte
 * aligned), at shared-window addresses.  volatile: kept in order with the barrier
 * waits and arrivals around them. */
__device__ __forceinline__ void f8b_st_shared_f32(uint32_t addr, float v)
{
	asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr), "f"(v) : "memory");
}

__device__ __forceinline__ float f8b_ld_shared_f32(uint32_t addr)
{
	float v;
	asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr));
	return v;
}

__device__ __forceinline__ float2 f8b_ld_shared_v2_f32(uint32_t addr)
{
	float2 v;
	asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(addr));
	return v;
}

#define F8B_SW128_ROW_BYTES   128u
#define F8B_SW128_GROUP_BYTES 1024u /* 8 rows: the swizzle's period and the SBO */

__device__ __forceinline__ uint64_t f8b_desc_sw128_kmajor(uint32_t smem_addr)
{
	uint64_t d = 0;
	d |= (uint64_t)((smem_addr & 0x3FFFFu) >> 4);
	d |= (uint64_t)1 << 16;                            /* LBO (unused) */
	d |= (uint64_t)(F8B_SW128_GROUP_BYTES >> 4) << 32; /* SBO */
	d |= (uint64_t)1 << 62;                            /* 128B swizzle */
	return d;
}

#endif
