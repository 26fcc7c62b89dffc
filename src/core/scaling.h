/* scaling.h - scaling granularity, amax -> scale, delayed-scaling history.
 *
 * Terms.  A tensor X is row-major [rows, cols] and is scaled along its cols
 * (the GEMM's contraction dimension K): for a GEMM operand A[M,K] rows=M,
 * for B[N,K] (the weight, output = A @ B^T) rows=N.
 *
 *   granularity   scale tensor shape (row-major)          used for
 *   tensorwise    1 x 1                                   A or B
 *   axiswise      rows x 1   (one scale per row)          A or B (cuBLASLt OUTER_VEC_32F)
 *   block1x128    rows x ceil(cols/128)                   A    (cuBLASLt VEC128_32F)
 *   block128x128  ceil(rows/128) x ceil(cols/128)         B    (cuBLASLt BLK128x128_32F)
 *
 * A block's amax covers exactly its elements (a ragged last block covers
 * what is left).  The quantisation scale multiplies before the cast
 * (q = sat_cast(x * scale)); the GEMM receives scale_inv = 1/scale per block
 * and computes D = sum over K-blocks of scale_inv_a * scale_inv_b * (qa . qb)
 * as cuBLASLt does.
 *
 * scale = fp8_max / max(amax, F8B_AMAX_EPS) / 2^margin, in fp32; with
 * pow2 the scale is rounded down to a power of two (so scale_inv is exact).
 * Formulas are stated in doc/formulas.md.
 */
#ifndef F8B_SCALING_H
#define F8B_SCALING_H

#ifdef __cplusplus
extern "C" {
#endif

#include "core/common.h"

#define F8B_AMAX_EPS 1e-12f
#define F8B_BLOCK    128

enum f8b_granularity {
	F8B_GRAN_TENSORWISE = 0,
	F8B_GRAN_AXISWISE,
	F8B_GRAN_BLOCK1X128,
	F8B_GRAN_BLOCK128X128,
	F8B_GRAN_COUNT
};

enum f8b_scaling_type {
	F8B_SCALING_DYNAMIC = 0, /* amax of the tensor being cast */
	F8B_SCALING_DELAYED,     /* amax from a history of earlier iterations */
	F8B_SCALING_DISABLED,    /* no cast: the argument stays bf16 */
	F8B_SCALING_TYPE_COUNT
};

/* "tensorwise", "axiswise", "block1x128", "block128x128" */
const char *f8b_granularity_name(enum f8b_granularity g);
/* Also accepts "rowwise" for axiswise, "1x128", "128x128". */
int f8b_granularity_parse(const char *s, enum f8b_granularity *out);
/* "dynamic", "delayed", "disabled" */
const char *f8b_scaling_type_name(enum f8b_scaling_type t);
int f8b_scaling_type_parse(const char *s, enum f8b_scaling_type *out);

/* Logical shape of the scale (and amax) tensor of a rows x cols tensor:
 * srows x scols blocks as in the table above. */
void f8b_scale_shape(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t *srows,
                     int64_t *scols);
/* Storage: element (block row br, block col bc) lives at
 * f8b_scale_index(); every backend and the GEMM use this one mapping, which
 * is the layout cuBLASLt reads for that granularity (doc/gemm-layout.md):
 *   tensorwise   0
 *   axiswise     br
 *   block1x128   bc * srows + br     (column-major: rows contiguous)
 *   block128x128 br * ld + bc        (row-major, ld = scols rounded up to a
 *                                     multiple of 4: 16-byte rows)
 * f8b_scale_count() is the number of floats to allocate (>= srows*scols);
 * padding entries hold amax 0. */
int64_t f8b_scale_index(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t br, int64_t bc);
int64_t f8b_scale_count(enum f8b_granularity g, int64_t rows, int64_t cols);

struct f8b_scale_opts {
	float margin; /* scale divided by 2^margin; 0 by default */
	bool pow2;    /* round scale down to a power of two */
};

/* One scale from one amax, exactly as every backend must compute it. */
float f8b_amax_to_scale(float amax, enum f8b_dtype target, const struct f8b_scale_opts *o);

/* amax per block of x (fp32 values, row-major rows x cols) into amax[]
 * of f8b_scale_count() entries at f8b_scale_index() positions (padding
 * entries, if any, are set to 0).  NaN inputs propagate to the amax. */
void f8b_amax_f32(const float *x, int64_t rows, int64_t cols, enum f8b_granularity g, float *amax);

/* Delayed scaling: a ring buffer of the last `len` amaxes. */
struct f8b_amax_history {
	float *buf;
	int len;   /* capacity (>= 1) */
	int count; /* valid entries (<= len) */
	int pos;   /* next slot to write */
};
int f8b_history_init(struct f8b_amax_history *h, int len);
void f8b_history_free(struct f8b_amax_history *h);
void f8b_history_push(struct f8b_amax_history *h, float amax);
/* Max over the history; 0 when empty (which gives the eps scale). */
float f8b_history_amax(const struct f8b_amax_history *h);

#ifdef __cplusplus
}
#endif

#endif
