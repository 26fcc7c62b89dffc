/* recipe_rules.c - which recipes are valid: each argument's cast on its
 * own (an fp8 target; delayed scaling only tensorwise; 128x128 blocks for
 * weights, 1x128 tiles for activations and gradients), then each GEMM of
 * the linear layer with its two arguments together (both fp8 or both bf16,
 * never e5m2 x e5m2, block scales only with block scales).
 * doc/recipes.md gives the rules and their sources.
 */
#include <stddef.h>
#include <stdio.h>

#include "core/recipe.h"
#include "core/recipe_int.h"

/* The three GEMMs of a linear layer in the A[M,K] @ B[N,K]^T convention
 * of cases.h; a and b index fields[].
 *   output      = input @ weight^T:        A = input,         B = weight
 *   grad_input  = grad_output @ weight:    A = grad_output,   B = weight^T
 *   grad_weight = grad_output^T @ input:   A = grad_output^T, B = input^T */
static const struct gemm {
	const char *name;
	size_t off;
	int a, b;
} gemms[] = {
    {"output", offsetof(struct f8b_recipe, output), 0, 1},
    {"grad_input", offsetof(struct f8b_recipe, grad_input), 2, 4},
    {"grad_weight", offsetof(struct f8b_recipe, grad_weight), 5, 3},
};

static bool is_block(enum f8b_granularity g)
{
	return g == F8B_GRAN_BLOCK1X128 || g == F8B_GRAN_BLOCK128X128;
}

/* Each argument on its own. */
static int validate_casts(const struct f8b_recipe *r, const char *rn)
{
	const struct f8b_recipe_field *fields = f8b_recipe_fields;

	for (int i = 0; i < F8B_RECIPE_NFIELDS; i++) {
		if (fields[i].kind != FIELD_CAST)
			continue;
		const struct f8b_cast_config *c = f8b_recipe_cast_at(r, i);
		const char *f = fields[i].name;
		if ((unsigned)c->type >= F8B_SCALING_TYPE_COUNT)
			return F8B_ERR(F8B_EINVAL, "recipe %s: %s has no valid scaling type (%d)",
			               rn, f, (int)c->type);
		if (c->type == F8B_SCALING_DISABLED)
			continue;
		if ((unsigned)c->gran >= F8B_GRAN_COUNT)
			return F8B_ERR(F8B_EINVAL, "recipe %s: %s has no valid granularity (%d)",
			               rn, f, (int)c->gran);
		if (!f8b_dtype_is_fp8(c->dtype))
			return F8B_ERR(
			    F8B_EINVAL,
			    "recipe %s: %s targets %s, not an fp8 dtype (accepted: e4m3, "
			    "e5m2, or the argument disabled)",
			    rn, f, f8b_dtype_name(c->dtype));
		/* One amax history per tensor is what delayed scaling keeps
		 * (torchao's CastConfig allows only dynamic for axiswise too). */
		if (c->type == F8B_SCALING_DELAYED && c->gran != F8B_GRAN_TENSORWISE)
			return F8B_ERR(
			    F8B_EINVAL,
			    "recipe %s: %s uses delayed scaling with %s granularity "
			    "(accepted: delayed only with tensorwise; dynamic otherwise)",
			    rn, f, f8b_granularity_name(c->gran));
		/* 128x128 blocks are cuBLASLt's B-operand (weight) mode and
		 * 1x128 tiles its activation mode (scaling.h table). */
		if (c->gran == F8B_GRAN_BLOCK128X128 && !fields[i].weight)
			return F8B_ERR(
			    F8B_EINVAL,
			    "recipe %s: %s cannot be block128x128, which is for weight and "
			    "weight_for_grad_input only (accepted here: tensorwise, "
			    "axiswise, block1x128)",
			    rn, f);
		if (c->gran == F8B_GRAN_BLOCK1X128 && fields[i].weight)
			return F8B_ERR(
			    F8B_EINVAL,
			    "recipe %s: %s cannot be block1x128, which is for activations "
			    "and gradients (accepted here: tensorwise, axiswise, "
			    "block128x128)",
			    rn, f);
	}
	return F8B_OK;
}

/* Each GEMM: its two arguments together. */
static int validate_gemms(const struct f8b_recipe *r, const char *rn)
{
	const struct f8b_recipe_field *fields = f8b_recipe_fields;
	char va[64], vb[64];

	for (size_t g = 0; g < sizeof gemms / sizeof gemms[0]; g++) {
		const struct gemm *gm = &gemms[g];
		const struct f8b_cast_config *a = f8b_recipe_cast_at(r, gm->a),
		                             *b = f8b_recipe_cast_at(r, gm->b);
		const char *an = fields[gm->a].name, *bn = fields[gm->b].name;
		bool ad = a->type == F8B_SCALING_DISABLED, bd = b->type == F8B_SCALING_DISABLED;
		f8b_recipe_cast_str(a, va, sizeof va);
		f8b_recipe_cast_str(b, vb, sizeof vb);

		/* A GEMM is either fp8 x fp8 or bf16 x bf16 (as in torchao);
		 * no kernel here takes one operand of each. */
		if (ad != bd)
			return F8B_ERR(F8B_EINVAL,
			               "recipe %s: GEMM %s has %s %s but %s %s (accepted: both "
			               "arguments fp8, or both disabled to run the GEMM in bf16)",
			               rn, gm->name, an, va, bn, vb);
		if (ad) {
			if (f8b_recipe_gemm_at(r, gm->off)->fast_accum)
				return F8B_ERR(
				    F8B_EINVAL,
				    "recipe %s: GEMM %s runs in bf16 (both arguments "
				    "disabled) but asks for fast_accum, an fp8-only mode "
				    "(accepted: no_fast_accum)",
				    rn, gm->name);
			continue;
		}
		/* cuBLASLt's fp8 matmul takes e4m3 x e4m3, e4m3 x e5m2 and
		 * e5m2 x e4m3, never e5m2 x e5m2 (nor does torch._scaled_mm). */
		if (a->dtype == F8B_E5M2 && b->dtype == F8B_E5M2)
			return F8B_ERR(
			    F8B_EINVAL,
			    "recipe %s: GEMM %s has both %s and %s in e5m2, which the fp8 "
			    "GEMMs (cuBLASLt) do not take (accepted: at least one of them e4m3)",
			    rn, gm->name, an, bn);
		/* Block scales are applied per 128-wide K block inside the
		 * GEMM; cuBLASLt pairs them only with block scales. */
		if (is_block(a->gran) != is_block(b->gran))
			return F8B_ERR(
			    F8B_EINVAL,
			    "recipe %s: GEMM %s mixes block and non-block scaling (%s %s, "
			    "%s %s) (accepted: both block-scaled, or both tensorwise/"
			    "axiswise)",
			    rn, gm->name, an, va, bn, vb);
	}
	return F8B_OK;
}

int f8b_recipe_validate(const struct f8b_recipe *r)
{
	const char *rn = r->name[0] ? r->name : "custom";

	F8B_TRY(validate_casts(r, rn));
	return validate_gemms(r, rn);
}
