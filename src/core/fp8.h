/* fp8.h - host encode/decode of float8_e4m3fn, float8_e5m2 and bfloat16.
 *
 * This is the golden reference every GPU cast is checked against, so its
 * rules are those of the CUDA conversion intrinsics with saturation
 * (__nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...), PTX cvt.rn.satfinite):
 *   - round to nearest, ties to even, on the fp32 input;
 *   - finite values beyond the largest finite fp8 value, and +-inf, saturate
 *     to +-max (448 for e4m3, 57344 for e5m2);
 *   - NaN becomes the canonical NaN 0x7F (both formats);
 *   - subnormals of the fp8 format are produced and decoded exactly;
 *   - -0.0 encodes as 0x80.
 * bf16 <- fp32 rounds to nearest even; every NaN becomes the canonical
 * bf16 NaN 0x7FFF (sign dropped), as cvt.rn.bf16.f32 does on the GPU.
 * Decoding an fp8 NaN gives the canonical fp32 NaN 0x7FFFFFFF (the GPU's
 * fp8 -> half -> float result).
 */
#ifndef F8B_FP8_H
#define F8B_FP8_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/common.h"

uint8_t f8b_f32_to_e4m3(float x);
uint8_t f8b_f32_to_e5m2(float x);
float f8b_e4m3_to_f32(uint8_t v);
float f8b_e5m2_to_f32(uint8_t v);

uint16_t f8b_f32_to_bf16(float x);
float f8b_bf16_to_f32(uint16_t v);

/* Encode/decode by dtype (F8B_E4M3 or F8B_E5M2). */
uint8_t f8b_f32_to_fp8(float x, enum f8b_dtype t);
float f8b_fp8_to_f32(uint8_t v, enum f8b_dtype t);

/* Convert n elements of any dtype to fp32 (src of dtype t). */
void f8b_to_f32(const void *src, enum f8b_dtype t, float *dst, size_t n);
/* Convert n fp32 values into dtype t (RNE, saturating for fp8). */
void f8b_from_f32(const float *src, void *dst, enum f8b_dtype t, size_t n);

#ifdef __cplusplus
}
#endif

#endif
