/* cost_lls.h - flops and bytes of the lls kernels (backend.h's lls ops), in
 * the style of roofline.h's f8b_cost_*: bytes are what each op moves to
 * and from device memory as implemented (every pass counted; scale and
 * statistics tensors included), so a measured time gives the achieved
 * bandwidth directly.  The formulas are written out in doc/roofline.md
 * ("lls kernels"); per-recipe sums in doc/kernels.md.
 */
#ifndef F8B_COST_LLS_H
#define F8B_COST_LLS_H

#include "backend/backend.h"
#include "model/roofline.h"

/* What a fused cast writes (mirrors struct f8b_cast_spec). */
struct f8b_lls_cast_cost {
	enum f8b_granularity gran; /* tensorwise, axiswise, block1x128 */
	enum f8b_dtype dtype;      /* fp8 target */
	bool q, q_t;               /* which fp8 outputs are written */
	bool hp_out;               /* the bf16 intermediate (y / dz) is written too */
	bool delayed;              /* tensorwise with a given scale */
	bool amax_given;           /* tensorwise with its amax made by another cast */
};

/* LayerNorm over the K columns of an M x K bf16 tensor. */
void f8b_cost_layernorm_fwd(int64_t m, int64_t k, struct f8b_cost *c);
void f8b_cost_layernorm_bwd(int64_t m, int64_t k, struct f8b_cost *c);
/* Elementwise sigmoid on rows x cols bf16. */
void f8b_cost_sigmoid_fwd(int64_t rows, int64_t cols, struct f8b_cost *c);
void f8b_cost_sigmoid_bwd(int64_t rows, int64_t cols, struct f8b_cost *c);
/* amax of x^T per granularity g (x of dtype `in`, rows x cols). */
void f8b_cost_amax_t(enum f8b_dtype in, enum f8b_granularity g, int64_t rows, int64_t cols,
                     struct f8b_cost *c);
/* cast_transpose writing out and/or out_t of dtype `out` (fp8 or bf16). */
void f8b_cost_lls_cast_transpose(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g,
                                 int64_t rows, int64_t cols, bool has_out, bool has_out_t,
                                 struct f8b_cost *c);
/* The fused casts: LayerNorm + cast of an M x K input, sigmoid backward +
 * cast and the plain fused cast of a rows x cols bf16 tensor. */
void f8b_cost_layernorm_fwd_cast(int64_t m, int64_t k, const struct f8b_lls_cast_cost *q,
                                 struct f8b_cost *c);
void f8b_cost_sigmoid_bwd_cast(int64_t rows, int64_t cols, const struct f8b_lls_cast_cost *q,
                               struct f8b_cost *c);
void f8b_cost_cast_fused(int64_t rows, int64_t cols, const struct f8b_lls_cast_cost *q,
                         struct f8b_cost *c);
/* Passes over the bf16 input a fused cast makes (1 or 2), as implemented. */
int f8b_lls_cast_passes(const struct f8b_lls_cast_cost *q);

#endif
