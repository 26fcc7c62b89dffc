/* recipe.h - how each argument of each GEMM of a linear layer is cast.
 *
 * A linear layer has three GEMMs (row-major, input x [M,K], weight w [N,K]):
 *   output      = input @ weight^T          [M,N]
 *   grad_input  = grad_output @ weight      [M,K]
 *   grad_weight = grad_output^T @ input     [N,K]
 * A recipe is nine fields: a cast config for each GEMM argument - input,
 * weight, grad_output as used by `output`/`grad_input`, and their copies
 * for `grad_input`'s weight and `grad_weight`'s grad_output and input - and
 * a GEMM config (fast_accum) for each GEMM.  Short names expand to the long
 * form; the expansions follow torchao's float8 recipes (doc/recipes.md).
 */
#ifndef F8B_RECIPE_H
#define F8B_RECIPE_H

#include "core/common.h"
#include "core/scaling.h"

struct f8b_cast_config {
	enum f8b_scaling_type type;
	enum f8b_granularity gran;
	enum f8b_dtype dtype; /* target fp8 dtype; F8B_BF16 when disabled */
};

struct f8b_gemm_config {
	bool fast_accum;
};

struct f8b_recipe {
	char name[32]; /* short name it came from, or "custom" */
	struct f8b_cast_config input;
	struct f8b_cast_config weight;
	struct f8b_cast_config grad_output;
	struct f8b_cast_config input_for_grad_weight;
	struct f8b_cast_config weight_for_grad_input;
	struct f8b_cast_config grad_output_for_grad_weight;
	struct f8b_gemm_config output;
	struct f8b_gemm_config grad_input;
	struct f8b_gemm_config grad_weight;
	bool pow2_scales; /* round scales to powers of two */
};

/* NULL-terminated list of short names:
 * bf16, tensorwise, tensorwise-delayed, axiswise, lw-axiswise-gw-hp, blockwise */
const char *const *f8b_recipe_names(void);

/* Parse "NAME" or "NAME,FIELD=VALUE,..." where FIELD is one of the nine
 * field names above (e.g. grad_output=axiswise:e5m2:dynamic,
 * output=fast_accum|no_fast_accum) or pow2=on|off.  Cast values are
 * GRAN[:DTYPE[:TYPE]] or "disabled".  Unknown names and fields give
 * F8B_EINVAL with a message listing what is accepted. */
int f8b_recipe_parse(const char *spec, struct f8b_recipe *out);

/* Long form, one "field: value" per line, into buf; returns chars needed. */
int f8b_recipe_format(const struct f8b_recipe *r, char *buf, size_t n);

/* Checks a recipe against what the GEMMs accept (e.g. e5m2 x e5m2 is not a
 * valid fp8 GEMM, block128x128 only for weights); F8B_EINVAL with a reason. */
int f8b_recipe_validate(const struct f8b_recipe *r);

#endif
