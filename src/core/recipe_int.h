/* recipe_int.h - what recipe.c (names, long form, parser, formatter) and
 * recipe_rules.c (validity rules) share: the table of the nine fields. */
#ifndef F8B_RECIPE_INT_H
#define F8B_RECIPE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/recipe.h"

enum field_kind { FIELD_CAST, FIELD_GEMM };

struct f8b_recipe_field {
	const char *name;
	enum field_kind kind;
	size_t off; /* of its f8b_cast_config / f8b_gemm_config in struct f8b_recipe */
	enum f8b_dtype default_dtype;
	bool weight; /* a weight argument: the only one that may be block128x128 */
};

/* input, weight, grad_output, input_for_grad_weight, weight_for_grad_input,
 * grad_output_for_grad_weight (casts), then output, grad_input, grad_weight
 * (GEMMs): the order they are formatted in (recipe.c). */
#define F8B_RECIPE_NFIELDS 9
extern const struct f8b_recipe_field *const f8b_recipe_fields;

/* Field i of r as a cast config; the GEMM config at byte offset off. */
const struct f8b_cast_config *f8b_recipe_cast_at(const struct f8b_recipe *r, int i);
const struct f8b_gemm_config *f8b_recipe_gemm_at(const struct f8b_recipe *r, size_t off);
/* "GRAN:DTYPE:TYPE" or "disabled", as the long form writes a cast. */
void f8b_recipe_cast_str(const struct f8b_cast_config *c, char *buf, size_t n);

#endif
