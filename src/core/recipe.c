/* recipe.c - short recipe names, the nine-field long form, its parser
 * and formatter; the validity rules are in recipe_rules.c.
 *
 * The expansions follow torchao's float8 training recipes
 * (torchao/float8/config.py: Float8LinearConfig defaults and
 * Float8LinearRecipeName TENSORWISE / ROWWISE / ROWWISE_WITH_GW_HP) and the
 * DeepSeek-V3 technical report (arXiv:2412.19437, section 3.3) for
 * `blockwise`; doc/recipes.md gives the table, the sources and, per GEMM,
 * the axis each argument's scales run along.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/recipe.h"
#include "core/recipe_int.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The nine fields in the order they are formatted.  default_dtype is the
 * target torchao picks for an operand when none is given (e4m3 for input
 * and weight, e5m2 for grad_output: Float8LinearConfig.__post_init__). */
static const struct f8b_recipe_field fields[] = {
    {"input", FIELD_CAST, offsetof(struct f8b_recipe, input), F8B_E4M3, false},
    {"weight", FIELD_CAST, offsetof(struct f8b_recipe, weight), F8B_E4M3, true},
    {"grad_output", FIELD_CAST, offsetof(struct f8b_recipe, grad_output), F8B_E5M2, false},
    {"input_for_grad_weight", FIELD_CAST, offsetof(struct f8b_recipe, input_for_grad_weight),
     F8B_E4M3, false},
    {"weight_for_grad_input", FIELD_CAST, offsetof(struct f8b_recipe, weight_for_grad_input),
     F8B_E4M3, true},
    {"grad_output_for_grad_weight", FIELD_CAST,
     offsetof(struct f8b_recipe, grad_output_for_grad_weight), F8B_E5M2, false},
    {"output", FIELD_GEMM, offsetof(struct f8b_recipe, output), F8B_BF16, false},
    {"grad_input", FIELD_GEMM, offsetof(struct f8b_recipe, grad_input), F8B_BF16, false},
    {"grad_weight", FIELD_GEMM, offsetof(struct f8b_recipe, grad_weight), F8B_BF16, false},
};
#define NFIELDS (sizeof fields / sizeof fields[0])
_Static_assert(NFIELDS == F8B_RECIPE_NFIELDS, "recipe_int.h counts the fields");
const struct f8b_recipe_field *const f8b_recipe_fields = fields;
#define FIELD_LIST                                                                                 \
	"input, weight, grad_output, input_for_grad_weight, "                                      \
	"weight_for_grad_input, grad_output_for_grad_weight, output, "                             \
	"grad_input, grad_weight, pow2"

static struct f8b_cast_config *cast_of(struct f8b_recipe *r, int i)
{
	return (struct f8b_cast_config *)((char *)r + fields[i].off);
}

const struct f8b_cast_config *f8b_recipe_cast_at(const struct f8b_recipe *r, int i)
{
	return (const struct f8b_cast_config *)((const char *)r + fields[i].off);
}

static struct f8b_gemm_config *gemm_of(struct f8b_recipe *r, int i)
{
	return (struct f8b_gemm_config *)((char *)r + fields[i].off);
}

const struct f8b_gemm_config *f8b_recipe_gemm_at(const struct f8b_recipe *r, size_t off)
{
	return (const struct f8b_gemm_config *)((const char *)r + off);
}

/* ---- short names ------------------------------------------------------ */

static const char *const recipe_names[] = {
    "bf16", "tensorwise", "tensorwise-delayed", "axiswise", "lw-axiswise-gw-hp", "blockwise", NULL,
};
#define NAME_LIST "bf16, tensorwise, tensorwise-delayed, axiswise, lw-axiswise-gw-hp, blockwise"

/* torchao's own names, accepted so a torchao config can be pasted. */
static const struct {
	const char *alias, *name;
} name_aliases[] = {
    {"rowwise", "axiswise"},
    {"rowwise_with_gw_hp", "lw-axiswise-gw-hp"},
    {"rowwise-with-gw-hp", "lw-axiswise-gw-hp"},
    {"lw_axiswise_with_gw_hp", "lw-axiswise-gw-hp"},
    {"tensorwise_delayed", "tensorwise-delayed"},
};

const char *const *f8b_recipe_names(void)
{
	return recipe_names;
}

static struct f8b_cast_config cast(enum f8b_scaling_type t, enum f8b_granularity g,
                                   enum f8b_dtype d)
{
	return (struct f8b_cast_config){.type = t, .gran = g, .dtype = d};
}

static const struct f8b_cast_config disabled = {
    .type = F8B_SCALING_DISABLED,
    .gran = F8B_GRAN_TENSORWISE,
    .dtype = F8B_BF16,
};

/* Fills r with the expansion of a canonical short name, or "custom" (which
 * starts from bf16: the formatted long form names every field). */
static void expand(const char *name, struct f8b_recipe *r)
{
	const enum f8b_scaling_type dyn = F8B_SCALING_DYNAMIC;

	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->input = r->weight = r->grad_output = disabled;
	r->input_for_grad_weight = r->weight_for_grad_input = disabled;
	r->grad_output_for_grad_weight = disabled;

	if (strcmp(name, "tensorwise") == 0 || strcmp(name, "tensorwise-delayed") == 0) {
		/* torchao Float8LinearConfig() defaults: every argument
		 * tensorwise, e4m3 forward, e5m2 grad_output; fast accumulation
		 * for the forward GEMM only.  The delayed variant is the same
		 * with amax histories (torchao <= 0.9 ScalingType.DELAYED). */
		enum f8b_scaling_type t =
		    strcmp(name, "tensorwise") == 0 ? F8B_SCALING_DYNAMIC : F8B_SCALING_DELAYED;
		r->input = r->input_for_grad_weight = cast(t, F8B_GRAN_TENSORWISE, F8B_E4M3);
		r->weight = r->weight_for_grad_input = cast(t, F8B_GRAN_TENSORWISE, F8B_E4M3);
		r->grad_output = r->grad_output_for_grad_weight =
		    cast(t, F8B_GRAN_TENSORWISE, F8B_E5M2);
		r->output.fast_accum = true;
	} else if (strcmp(name, "axiswise") == 0) {
		/* torchao ROWWISE: axiswise e4m3 everywhere (gradients too),
		 * power-of-2 scales, default GEMM configs. */
		struct f8b_cast_config c = cast(dyn, F8B_GRAN_AXISWISE, F8B_E4M3);
		r->input = r->weight = r->grad_output = c;
		r->input_for_grad_weight = r->weight_for_grad_input = c;
		r->grad_output_for_grad_weight = c;
		r->output.fast_accum = true;
		r->pow2_scales = true;
	} else if (strcmp(name, "lw-axiswise-gw-hp") == 0) {
		/* torchao ROWWISE_WITH_GW_HP: output and grad_input in fp8
		 * (the weight tensorwise for grad_input, so its scale does not
		 * have to run along the other axis), grad_weight in bf16. */
		struct f8b_cast_config c = cast(dyn, F8B_GRAN_AXISWISE, F8B_E4M3);
		r->input = r->weight = r->grad_output = c;
		r->weight_for_grad_input = cast(dyn, F8B_GRAN_TENSORWISE, F8B_E4M3);
		r->output.fast_accum = true;
		r->pow2_scales = true;
	} else if (strcmp(name, "blockwise") == 0) {
		/* DeepSeek-V3 section 3.3: activations and gradients in 1x128
		 * tiles, weights in 128x128 blocks, e4m3 on all tensors; partial
		 * sums promoted to fp32 every 128 K elements, i.e. no fast
		 * accumulation.  Scales are plain fp32 (no power-of-2). */
		struct f8b_cast_config act = cast(dyn, F8B_GRAN_BLOCK1X128, F8B_E4M3);
		struct f8b_cast_config w = cast(dyn, F8B_GRAN_BLOCK128X128, F8B_E4M3);
		r->input = r->grad_output = act;
		r->input_for_grad_weight = r->grad_output_for_grad_weight = act;
		r->weight = r->weight_for_grad_input = w;
	}
	/* bf16 and custom: everything disabled, no fast accumulation. */
}

static bool same_cast(const struct f8b_cast_config *a, const struct f8b_cast_config *b)
{
	if (a->type == F8B_SCALING_DISABLED || b->type == F8B_SCALING_DISABLED)
		return a->type == b->type;
	return a->type == b->type && a->gran == b->gran && a->dtype == b->dtype;
}

static bool same_fields(const struct f8b_recipe *a, const struct f8b_recipe *b)
{
	for (int i = 0; i < (int)NFIELDS; i++) {
		if (fields[i].kind == FIELD_CAST) {
			if (!same_cast(f8b_recipe_cast_at(a, i), f8b_recipe_cast_at(b, i)))
				return false;
		} else if (f8b_recipe_gemm_at(a, fields[i].off)->fast_accum !=
		           f8b_recipe_gemm_at(b, fields[i].off)->fast_accum) {
			return false;
		}
	}
	return a->pow2_scales == b->pow2_scales;
}

/* ---- parsing ------------------------------------------------------------ */

static const char *canonical_name(const char *s)
{
	for (int i = 0; recipe_names[i]; i++)
		if (strcasecmp(s, recipe_names[i]) == 0)
			return recipe_names[i];
	for (size_t i = 0; i < sizeof name_aliases / sizeof name_aliases[0]; i++)
		if (strcasecmp(s, name_aliases[i].alias) == 0)
			return name_aliases[i].name;
	if (strcasecmp(s, "custom") == 0)
		return "custom";
	return NULL;
}

#define CAST_FORM                                                                                  \
	"GRAN[:DTYPE[:TYPE]] with GRAN tensorwise|axiswise|block1x128|"                            \
	"block128x128, DTYPE e4m3|e5m2, TYPE dynamic|delayed; or disabled"

/* "GRAN[:DTYPE[:TYPE]]" or "disabled".  Parts left out keep the base
 * recipe's value for this field; where the base has it disabled they are
 * the operand's torchao default dtype and dynamic scaling. */
static int parse_cast(int fi, char *val, struct f8b_cast_config *c)
{
	const char *fname = fields[fi].name;

	if (strcasecmp(val, "disabled") == 0 || strcasecmp(val, "bf16") == 0) {
		*c = disabled;
		return F8B_OK;
	}
	if (c->type == F8B_SCALING_DISABLED)
		*c = cast(F8B_SCALING_DYNAMIC, F8B_GRAN_TENSORWISE, fields[fi].default_dtype);

	int colons = 0;
	for (const char *p = val; *p; p++)
		colons += *p == ':';
	if (colons > 2)
		return F8B_ERR(F8B_EINVAL,
		               "recipe field %s: too many ':' parts in '%s' (accepted: %s)", fname,
		               val, CAST_FORM);
	char *parts[3] = {val, NULL, NULL};
	int np = 1;
	for (char *p = strchr(val, ':'); p; p = strchr(p, ':')) {
		*p++ = '\0';
		parts[np++] = p;
	}

	enum f8b_granularity g;
	if (f8b_granularity_parse(parts[0], &g) != F8B_OK)
		return F8B_ERR(F8B_EINVAL,
		               "recipe field %s: unknown granularity '%s' (accepted: %s)", fname,
		               parts[0], CAST_FORM);
	c->gran = g;

	if (np >= 2) {
		enum f8b_dtype d;
		if (f8b_dtype_parse(parts[1], &d) != F8B_OK || !f8b_dtype_is_fp8(d))
			return F8B_ERR(F8B_EINVAL,
			               "recipe field %s: '%s' is not an fp8 target dtype "
			               "(accepted: e4m3, e5m2; use 'disabled' to keep bf16)",
			               fname, parts[1]);
		c->dtype = d;
	}
	if (np >= 3) {
		enum f8b_scaling_type t;
		if (f8b_scaling_type_parse(parts[2], &t) != F8B_OK || t == F8B_SCALING_DISABLED)
			return F8B_ERR(
			    F8B_EINVAL,
			    "recipe field %s: scaling type '%s' not accepted here "
			    "(accepted: dynamic, delayed; 'disabled' stands alone as the "
			    "whole value)",
			    fname, parts[2]);
		c->type = t;
	}
	return F8B_OK;
}

static int parse_gemm(int fi, const char *val, struct f8b_gemm_config *g)
{
	if (strcasecmp(val, "fast_accum") == 0) {
		g->fast_accum = true;
	} else if (strcasecmp(val, "no_fast_accum") == 0) {
		g->fast_accum = false;
	} else {
		return F8B_ERR(F8B_EINVAL,
		               "recipe field %s: unknown GEMM config '%s' (accepted: fast_accum, "
		               "no_fast_accum)",
		               fields[fi].name, val);
	}
	return F8B_OK;
}

static int parse_onoff(const char *field, const char *val, bool *out)
{
	if (strcasecmp(val, "on") == 0) {
		*out = true;
	} else if (strcasecmp(val, "off") == 0) {
		*out = false;
	} else {
		return F8B_ERR(F8B_EINVAL, "recipe field %s: '%s' is not on or off", field, val);
	}
	return F8B_OK;
}

/* One "field=value" or "field: value" item (the second is what
 * f8b_recipe_format writes). */
static int parse_item(char *item, struct f8b_recipe *r, unsigned *seen)
{
	char *sep = item + strcspn(item, "=:");
	if (*sep == '\0')
		return F8B_ERR(
		    F8B_EINVAL,
		    "recipe override '%s' has no value (accepted: FIELD=VALUE with FIELD "
		    "one of " FIELD_LIST ")",
		    item);
	*sep = '\0';
	char *key = f8b_trim(item), *val = f8b_trim(sep + 1);

	int fi = -1;
	for (int i = 0; i < (int)NFIELDS; i++)
		if (strcmp(key, fields[i].name) == 0)
			fi = i;
	if (fi < 0 && strcmp(key, "pow2") != 0)
		return F8B_ERR(F8B_EINVAL, "unknown recipe field '%s' (accepted: " FIELD_LIST ")",
		               key);
	unsigned bit = 1u << (fi < 0 ? NFIELDS : (unsigned)fi);
	if (*seen & bit)
		return F8B_ERR(F8B_EINVAL, "recipe field '%s' given twice", key);
	*seen |= bit;

	if (*val == '\0')
		return F8B_ERR(F8B_EINVAL, "recipe field %s has an empty value (accepted: %s)", key,
		               fi < 0                          ? "on, off"
		               : fields[fi].kind == FIELD_GEMM ? "fast_accum, no_fast_accum"
		                                               : CAST_FORM);
	if (fi < 0)
		return parse_onoff("pow2", val, &r->pow2_scales);
	if (fields[fi].kind == FIELD_GEMM)
		return parse_gemm(fi, val, gemm_of(r, fi));
	return parse_cast(fi, val, cast_of(r, fi));
}

/* First item: NAME, or "recipe: NAME" / "recipe=NAME" as formatted. */
static int parse_base(char *item, struct f8b_recipe *r)
{
	char *name = item;
	size_t kl = strcspn(item, "=:");
	if (item[kl] != '\0') {
		item[kl] = '\0';
		if (strcmp(f8b_trim(item), "recipe") != 0)
			return F8B_ERR(F8B_EINVAL,
			               "recipe spec must start with a recipe name, not '%s' "
			               "(accepted: " NAME_LIST ")",
			               f8b_trim(item));
		name = f8b_trim(item + kl + 1);
	}
	const char *canon = canonical_name(name);
	if (!canon)
		return F8B_ERR(F8B_EINVAL,
		               "unknown recipe '%s' (accepted: " NAME_LIST
		               ", or custom; then optional ,FIELD=VALUE overrides)",
		               name);
	expand(canon, r);
	return F8B_OK;
}

int f8b_recipe_parse(const char *spec, struct f8b_recipe *out)
{
	if (!spec)
		return F8B_ERR(F8B_EINVAL, "missing recipe (accepted: " NAME_LIST ")");
	char *copy = strdup(spec);
	if (!copy)
		return F8B_ERR(F8B_ENOMEM, "out of memory parsing recipe '%.60s'", spec);

	struct f8b_recipe r;
	unsigned seen = 0;
	bool have_base = false;
	int rc = F8B_OK;
	char *save = NULL;
	/* Items are separated by ',' (command line) or newlines (the long
	 * form); empty items, e.g. a trailing newline, are skipped. */
	for (char *tok = strtok_r(copy, ",\n", &save); tok && rc == F8B_OK;
	     tok = strtok_r(NULL, ",\n", &save)) {
		char *item = f8b_trim(tok);
		if (*item == '\0')
			continue;
		if (!have_base) {
			rc = parse_base(item, &r);
			have_base = true;
		} else {
			rc = parse_item(item, &r, &seen);
		}
	}
	free(copy);
	if (rc != F8B_OK)
		return rc;
	if (!have_base)
		return F8B_ERR(F8B_EINVAL, "empty recipe (accepted: " NAME_LIST ")");

	/* Name the result after the short name it equals, so that
	 * "bf16,..." overrides that rebuild tensorwise are reported as
	 * tensorwise and anything else as custom. */
	struct f8b_recipe ref;
	snprintf(r.name, sizeof r.name, "custom");
	for (int i = 0; recipe_names[i]; i++) {
		expand(recipe_names[i], &ref);
		if (same_fields(&r, &ref)) {
			snprintf(r.name, sizeof r.name, "%s", recipe_names[i]);
			break;
		}
	}
	F8B_TRY(f8b_recipe_validate(&r));
	*out = r;
	return F8B_OK;
}

/* ---- formatting --------------------------------------------------------- */

void f8b_recipe_cast_str(const struct f8b_cast_config *c, char *buf, size_t n)
{
	if (c->type == F8B_SCALING_DISABLED)
		snprintf(buf, n, "disabled");
	else
		snprintf(buf, n, "%s:%s:%s", f8b_granularity_name(c->gran),
		         f8b_dtype_name(c->dtype), f8b_scaling_type_name(c->type));
}

int f8b_recipe_format(const struct f8b_recipe *r, char *buf, size_t n)
{
	size_t len = 0;
	char v[64];

	/* snprintf-style: count everything, write what fits. */
#define EMIT(...)                                                                                  \
	do {                                                                                       \
		int k_ = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, __VA_ARGS__); \
		if (k_ > 0)                                                                        \
			len += (size_t)k_;                                                         \
	} while (0)

	if (n > 0)
		buf[0] = '\0';
	EMIT("recipe: %s\n", r->name[0] ? r->name : "custom");
	for (int i = 0; i < (int)NFIELDS; i++) {
		if (fields[i].kind == FIELD_CAST) {
			f8b_recipe_cast_str(f8b_recipe_cast_at(r, i), v, sizeof v);
			EMIT("%s: %s\n", fields[i].name, v);
		} else {
			EMIT("%s: %s\n", fields[i].name,
			     f8b_recipe_gemm_at(r, fields[i].off)->fast_accum ? "fast_accum"
			                                                      : "no_fast_accum");
		}
	}
	EMIT("pow2: %s\n", r->pow2_scales ? "on" : "off");
#undef EMIT
	return (int)len;
}
