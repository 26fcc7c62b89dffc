/* test_recipe.c - short recipe names, the long form, overrides and the
 * validity rules (src/core/recipe.c).
 *
 * The expected expansions below are written out by hand from torchao's
 * torchao/float8/config.py (Float8LinearConfig defaults; recipes
 * TENSORWISE, ROWWISE, ROWWISE_WITH_GW_HP) and the DeepSeek-V3 report, as
 * tabulated in doc/recipes.md - not computed by the code under test. */
#define _POSIX_C_SOURCE 200809L
#include "core/recipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define DYN  F8B_SCALING_DYNAMIC
#define DEL  F8B_SCALING_DELAYED
#define OFF  F8B_SCALING_DISABLED
#define TW   F8B_GRAN_TENSORWISE
#define AX   F8B_GRAN_AXISWISE
#define B1   F8B_GRAN_BLOCK1X128
#define B128 F8B_GRAN_BLOCK128X128
#define E4   F8B_E4M3
#define E5   F8B_E5M2
#define BF   F8B_BF16

struct exp_cast {
	enum f8b_scaling_type t;
	enum f8b_granularity g;
	enum f8b_dtype d;
};

/* Casts in the order input, weight, grad_output, input_for_grad_weight,
 * weight_for_grad_input, grad_output_for_grad_weight; GEMMs output,
 * grad_input, grad_weight. */
static const struct expected {
	const char *name;
	struct exp_cast c[6];
	bool fast[3];
	bool pow2;
} expected[] = {
    {"bf16",
     {{OFF, TW, BF}, {OFF, TW, BF}, {OFF, TW, BF}, {OFF, TW, BF}, {OFF, TW, BF}, {OFF, TW, BF}},
     {false, false, false},
     false},
    {"tensorwise",
     {{DYN, TW, E4}, {DYN, TW, E4}, {DYN, TW, E5}, {DYN, TW, E4}, {DYN, TW, E4}, {DYN, TW, E5}},
     {true, false, false},
     false},
    {"tensorwise-delayed",
     {{DEL, TW, E4}, {DEL, TW, E4}, {DEL, TW, E5}, {DEL, TW, E4}, {DEL, TW, E4}, {DEL, TW, E5}},
     {true, false, false},
     false},
    {"axiswise",
     {{DYN, AX, E4}, {DYN, AX, E4}, {DYN, AX, E4}, {DYN, AX, E4}, {DYN, AX, E4}, {DYN, AX, E4}},
     {true, false, false},
     true},
    {"lw-axiswise-gw-hp",
     {{DYN, AX, E4}, {DYN, AX, E4}, {DYN, AX, E4}, {OFF, TW, BF}, {DYN, TW, E4}, {OFF, TW, BF}},
     {true, false, false},
     true},
    {"blockwise",
     {{DYN, B1, E4}, {DYN, B128, E4}, {DYN, B1, E4}, {DYN, B1, E4}, {DYN, B128, E4}, {DYN, B1, E4}},
     {false, false, false},
     false},
};
#define NEXP (sizeof expected / sizeof expected[0])

static const char *const cast_names[6] = {
    "input",
    "weight",
    "grad_output",
    "input_for_grad_weight",
    "weight_for_grad_input",
    "grad_output_for_grad_weight",
};
static const char *const gemm_names[3] = {"output", "grad_input", "grad_weight"};

static const struct f8b_cast_config *cast_at(const struct f8b_recipe *r, int i)
{
	const struct f8b_cast_config *c[6] = {
	    &r->input,
	    &r->weight,
	    &r->grad_output,
	    &r->input_for_grad_weight,
	    &r->weight_for_grad_input,
	    &r->grad_output_for_grad_weight,
	};
	return c[i];
}

static bool fast_at(const struct f8b_recipe *r, int i)
{
	return i == 0   ? r->output.fast_accum
	       : i == 1 ? r->grad_input.fast_accum
	                : r->grad_weight.fast_accum;
}

static bool cast_eq(const struct f8b_cast_config *c, const struct exp_cast *e)
{
	return c->type == e->t && c->gran == e->g && c->dtype == e->d;
}

static bool same_recipe(const struct f8b_recipe *a, const struct f8b_recipe *b)
{
	for (int i = 0; i < 6; i++) {
		const struct f8b_cast_config *x = cast_at(a, i), *y = cast_at(b, i);
		if (x->type != y->type || x->gran != y->gran || x->dtype != y->dtype)
			return false;
	}
	for (int i = 0; i < 3; i++)
		if (fast_at(a, i) != fast_at(b, i))
			return false;
	return a->pow2_scales == b->pow2_scales && strcmp(a->name, b->name) == 0;
}

static bool has(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

static bool one_line(const char *s)
{
	return s && *s && !strchr(s, '\n');
}

static void test_names(void)
{
	const char *const *n = f8b_recipe_names();
	static const char *const want[] = {"bf16",     "tensorwise",        "tensorwise-delayed",
	                                   "axiswise", "lw-axiswise-gw-hp", "blockwise"};
	int k = 0;
	bool ok = true;
	while (n[k] && k < 6) {
		ok &= strcmp(n[k], want[k]) == 0;
		k++;
	}
	tap_ok(ok && k == 6 && n[6] == NULL, "f8b_recipe_names: the six names, NULL-terminated");
}

static void test_expansions(void)
{
	for (size_t i = 0; i < NEXP; i++) {
		const struct expected *e = &expected[i];
		struct f8b_recipe r;
		int rc = f8b_recipe_parse(e->name, &r);
		tap_ok(rc == F8B_OK, "%s: parses (%s)", e->name, f8b_last_error());
		if (rc != F8B_OK)
			continue;
		tap_ok(strcmp(r.name, e->name) == 0, "%s: name kept (%s)", e->name, r.name);
		for (int c = 0; c < 6; c++)
			tap_ok(cast_eq(cast_at(&r, c), &e->c[c]), "%s: %s = %s:%s:%s", e->name,
			       cast_names[c], f8b_granularity_name(e->c[c].g),
			       f8b_dtype_name(e->c[c].d), f8b_scaling_type_name(e->c[c].t));
		for (int g = 0; g < 3; g++)
			tap_ok(fast_at(&r, g) == e->fast[g], "%s: GEMM %s %s", e->name,
			       gemm_names[g], e->fast[g] ? "fast_accum" : "no_fast_accum");
		tap_ok(r.pow2_scales == e->pow2, "%s: pow2 %s", e->name, e->pow2 ? "on" : "off");
		tap_ok(f8b_recipe_validate(&r) == F8B_OK, "%s: validates", e->name);
	}
}

static void test_aliases(void)
{
	static const struct {
		const char *spec, *name;
	} a[] = {
	    {"rowwise", "axiswise"},
	    {"ROWWISE", "axiswise"},
	    {"rowwise_with_gw_hp", "lw-axiswise-gw-hp"},
	    {"lw_axiswise_with_gw_hp", "lw-axiswise-gw-hp"},
	    {"TensorWise", "tensorwise"},
	    {"  blockwise  ", "blockwise"},
	};
	for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
		struct f8b_recipe r;
		int rc = f8b_recipe_parse(a[i].spec, &r);
		tap_ok(rc == F8B_OK && strcmp(r.name, a[i].name) == 0, "alias '%s' -> %s",
		       a[i].spec, a[i].name);
	}
}

static void test_format(void)
{
	struct f8b_recipe r;
	char buf[1024];
	f8b_recipe_parse("tensorwise", &r);
	int len = f8b_recipe_format(&r, buf, sizeof buf);
	static const char want[] = "recipe: tensorwise\n"
	                           "input: tensorwise:e4m3:dynamic\n"
	                           "weight: tensorwise:e4m3:dynamic\n"
	                           "grad_output: tensorwise:e5m2:dynamic\n"
	                           "input_for_grad_weight: tensorwise:e4m3:dynamic\n"
	                           "weight_for_grad_input: tensorwise:e4m3:dynamic\n"
	                           "grad_output_for_grad_weight: tensorwise:e5m2:dynamic\n"
	                           "output: fast_accum\n"
	                           "grad_input: no_fast_accum\n"
	                           "grad_weight: no_fast_accum\n"
	                           "pow2: off\n";
	tap_ok(strcmp(buf, want) == 0, "format tensorwise: exact long form");
	tap_ok(len == (int)strlen(want), "format returns the length written (%d)", len);

	f8b_recipe_parse("lw-axiswise-gw-hp", &r);
	f8b_recipe_format(&r, buf, sizeof buf);
	tap_ok(has(buf, "\ninput_for_grad_weight: disabled\n") &&
	           has(buf, "\nweight_for_grad_input: tensorwise:e4m3:dynamic\n") &&
	           has(buf, "\npow2: on\n"),
	       "format lw-axiswise-gw-hp: disabled, tensorwise weight for grad_input, pow2 on");
	f8b_recipe_parse("blockwise", &r);
	f8b_recipe_format(&r, buf, sizeof buf);
	tap_ok(has(buf, "\nweight: block128x128:e4m3:dynamic\n") &&
	           has(buf, "\ninput: block1x128:e4m3:dynamic\n"),
	       "format blockwise: block granularities by name");

	/* snprintf contract: the needed length whatever fits. */
	char small[16];
	int need = f8b_recipe_format(&r, small, sizeof small);
	tap_ok(need == (int)strlen(buf), "format into a small buffer returns the full length");
	tap_ok(strlen(small) == sizeof small - 1 && strncmp(small, buf, sizeof small - 1) == 0,
	       "format into a small buffer writes a terminated prefix");
	tap_ok(f8b_recipe_format(&r, NULL, 0) == need, "format(NULL, 0) measures");
}

static void test_round_trip(void)
{
	const char *const *names = f8b_recipe_names();
	for (int i = 0; names[i]; i++) {
		struct f8b_recipe a, b;
		char t1[1024], t2[1024];
		f8b_recipe_parse(names[i], &a);
		f8b_recipe_format(&a, t1, sizeof t1);
		int rc = f8b_recipe_parse(t1, &b);
		f8b_recipe_format(&b, t2, sizeof t2);
		tap_ok(rc == F8B_OK && same_recipe(&a, &b), "%s: parse(format(r)) == r", names[i]);
		tap_ok(strcmp(t1, t2) == 0, "%s: format is stable", names[i]);
	}
	/* A custom recipe round-trips too ("recipe: custom" then every field). */
	struct f8b_recipe a, b;
	char t[1024];
	int rc = f8b_recipe_parse("axiswise,pow2=off,grad_weight=fast_accum", &a);
	tap_ok(rc == F8B_OK && strcmp(a.name, "custom") == 0, "overridden axiswise is custom");
	f8b_recipe_format(&a, t, sizeof t);
	tap_ok(has(t, "recipe: custom\n"), "custom recipe formats as 'recipe: custom'");
	rc = f8b_recipe_parse(t, &b);
	tap_ok(rc == F8B_OK && same_recipe(&a, &b), "custom: parse(format(r)) == r (%s)",
	       f8b_last_error());
}

static void test_overrides(void)
{
	struct f8b_recipe r;
	int rc = f8b_recipe_parse("tensorwise,grad_output=tensorwise:e4m3", &r);
	tap_ok(rc == F8B_OK && r.grad_output.dtype == E4 && r.grad_output.type == DYN,
	       "override grad_output dtype to e4m3");
	tap_ok(r.grad_output_for_grad_weight.dtype == E5,
	       "override touches only its field (grad_output_for_grad_weight stays e5m2)");
	tap_ok(strcmp(r.name, "custom") == 0, "a changed recipe is named custom");

	rc = f8b_recipe_parse("tensorwise, output = no_fast_accum ,grad_weight=fast_accum", &r);
	tap_ok(rc == F8B_OK && !r.output.fast_accum && r.grad_weight.fast_accum,
	       "GEMM overrides, spaces around items and '='");

	rc = f8b_recipe_parse("tensorwise,input=axiswise", &r);
	tap_ok(rc == F8B_OK && cast_eq(&r.input, &(struct exp_cast){DYN, AX, E4}),
	       "GRAN alone keeps the field's dtype and type");
	rc = f8b_recipe_parse("tensorwise,input=rowwise:e5m2", &r);
	tap_ok(rc == F8B_OK && cast_eq(&r.input, &(struct exp_cast){DYN, AX, E5}),
	       "GRAN:DTYPE with granularity alias");
	rc = f8b_recipe_parse("tensorwise-delayed,input=tensorwise:e4m3:dynamic", &r);
	tap_ok(rc == F8B_OK && r.input.type == DYN && r.weight.type == DEL,
	       "GRAN:DTYPE:TYPE overrides the scaling type");
	rc = f8b_recipe_parse("tensorwise,pow2=on", &r);
	tap_ok(rc == F8B_OK && r.pow2_scales, "pow2=on");
	rc = f8b_recipe_parse("axiswise,pow2=OFF", &r);
	tap_ok(rc == F8B_OK && !r.pow2_scales, "pow2=OFF (case-insensitive)");

	/* Fields a disabled base gives no dtype for take torchao's default per
	 * operand: e4m3 for input/weight, e5m2 for grad_output. */
	rc = f8b_recipe_parse("lw-axiswise-gw-hp,input_for_grad_weight=axiswise,"
	                      "grad_output_for_grad_weight=axiswise",
	                      &r);
	tap_ok(rc == F8B_OK && cast_eq(&r.input_for_grad_weight, &(struct exp_cast){DYN, AX, E4}) &&
	           cast_eq(&r.grad_output_for_grad_weight, &(struct exp_cast){DYN, AX, E5}),
	       "enabling a disabled field: defaults e4m3 (input) / e5m2 (grad_output), dynamic");

	/* Rebuilding a short name from parts gives that name back. */
	rc = f8b_recipe_parse("bf16,input=tensorwise,weight=tensorwise,grad_output=tensorwise,"
	                      "input_for_grad_weight=tensorwise,weight_for_grad_input=tensorwise,"
	                      "grad_output_for_grad_weight=tensorwise,output=fast_accum",
	                      &r);
	tap_ok(rc == F8B_OK && strcmp(r.name, "tensorwise") == 0,
	       "bf16 + overrides equal to tensorwise is named tensorwise (%s)", r.name);
	rc = f8b_recipe_parse("tensorwise,input_for_grad_weight=disabled,"
	                      "grad_output_for_grad_weight=bf16",
	                      &r);
	tap_ok(rc == F8B_OK && r.input_for_grad_weight.type == OFF &&
	           r.grad_output_for_grad_weight.dtype == BF,
	       "disabled (or bf16) turns a GEMM's pair to bf16");
	rc = f8b_recipe_parse("blockwise,input=1x128:e4m3:dynamic", &r);
	tap_ok(rc == F8B_OK && strcmp(r.name, "blockwise") == 0,
	       "an override equal to the base keeps the base name");
	rc = f8b_recipe_parse("recipe=axiswise", &r);
	tap_ok(rc == F8B_OK && strcmp(r.name, "axiswise") == 0, "'recipe=NAME' first item");
	rc = f8b_recipe_parse("recipe: axiswise\noutput: no_fast_accum\n\n", &r);
	tap_ok(rc == F8B_OK && !r.output.fast_accum, "long-form lines with a blank tail");
}

static void expect_error(const char *spec, const char *phrase, const char *why)
{
	struct f8b_recipe r, before;
	memset(&r, 0x5a, sizeof r);
	before = r;
	f8b_clear_error();
	int rc = f8b_recipe_parse(spec, &r);
	const char *e = f8b_last_error();
	tap_ok(rc == F8B_EINVAL && has(e, phrase) && one_line(e) &&
	           memcmp(&r, &before, sizeof r) == 0,
	       "'%s' rejected (%s), output untouched: %s", spec ? spec : "(null)", why, e);
}

static void test_parse_errors(void)
{
	expect_error("tensorwize", "unknown recipe 'tensorwize'", "unknown name");
	expect_error("tensorwize",
	             "bf16, tensorwise, tensorwise-delayed, axiswise, "
	             "lw-axiswise-gw-hp, blockwise",
	             "message lists every name");
	expect_error("", "empty recipe", "empty spec");
	expect_error(" , ", "empty recipe", "only separators");
	expect_error(NULL, "missing recipe", "NULL spec");
	expect_error("tensorwise,inptu=axiswise", "unknown recipe field 'inptu'", "unknown field");
	expect_error("tensorwise,inptu=axiswise", "grad_output_for_grad_weight, output",
	             "message lists the fields");
	expect_error("tensorwise,input", "has no value", "field without value");
	expect_error("tensorwise,input=", "empty value", "empty value");
	expect_error("tensorwise,input=axiswise,input=tensorwise", "given twice", "duplicate");
	expect_error("tensorwise,input=rowwize", "unknown granularity 'rowwize'",
	             "bad granularity");
	expect_error("tensorwise,input=rowwize", "block128x128", "message lists granularities");
	expect_error("tensorwise,input=axiswise:e3m4", "'e3m4' is not an fp8 target dtype",
	             "bad dtype");
	expect_error("tensorwise,input=axiswise:bf16", "'bf16' is not an fp8 target dtype",
	             "bf16 as target");
	expect_error("tensorwise,input=axiswise:e4m3:sometimes",
	             "scaling type 'sometimes' not accepted", "bad scaling type");
	expect_error("tensorwise,input=axiswise:e4m3:disabled", "stands alone", "disabled as TYPE");
	expect_error("tensorwise,input=axiswise:e4m3:dynamic:x", "too many ':' parts",
	             "too many parts");
	expect_error("tensorwise,output=fast", "unknown GEMM config 'fast'", "bad GEMM value");
	expect_error("tensorwise,output=fast", "no_fast_accum", "message lists GEMM values");
	expect_error("tensorwise,pow2=yes", "'yes' is not on or off", "bad pow2 value");
	expect_error("input=axiswise", "must start with a recipe name", "no name first");
	expect_error("recipe: nope", "unknown recipe 'nope'", "bad name in long form");
}

static void test_validate_errors(void)
{
	/* Each rule of f8b_recipe_validate, reached through the parser. */
	expect_error("tensorwise,input=tensorwise:e5m2,weight=tensorwise:e5m2",
	             "GEMM output has both input and weight in e5m2", "e5m2 x e5m2 (output)");
	expect_error("tensorwise,weight_for_grad_input=tensorwise:e5m2",
	             "GEMM grad_input has both grad_output and weight_for_grad_input in e5m2",
	             "e5m2 x e5m2 (grad_input)");
	expect_error("tensorwise,input_for_grad_weight=tensorwise:e5m2", "GEMM grad_weight",
	             "e5m2 x e5m2 (grad_weight)");
	expect_error("blockwise,input=block128x128", "input cannot be block128x128",
	             "128x128 on an activation");
	expect_error("blockwise,grad_output_for_grad_weight=128x128",
	             "grad_output_for_grad_weight cannot be block128x128", "128x128 on a gradient");
	expect_error("blockwise,weight=block1x128", "weight cannot be block1x128",
	             "1x128 on a weight");
	expect_error("blockwise,weight_for_grad_input=1x128",
	             "weight_for_grad_input cannot be block1x128",
	             "1x128 on weight for grad_input");
	expect_error("tensorwise,input=disabled", "GEMM output has input disabled but weight",
	             "half-disabled GEMM");
	expect_error("lw-axiswise-gw-hp,input_for_grad_weight=axiswise",
	             "GEMM grad_weight has grad_output_for_grad_weight disabled but "
	             "input_for_grad_weight",
	             "half-disabled grad_weight");
	expect_error("bf16,output=fast_accum", "fp8-only", "fast_accum on a bf16 GEMM");
	expect_error("tensorwise-delayed,input=axiswise", "delayed scaling with axiswise",
	             "delayed + axiswise");
	expect_error("tensorwise,input=block1x128", "mixes block and non-block",
	             "block x tensorwise");
	expect_error("axiswise,weight=block128x128", "mixes block and non-block",
	             "axiswise x block");

	/* Rules on hand-built structs the parser cannot produce. */
	struct f8b_recipe r;
	f8b_recipe_parse("tensorwise", &r);
	r.input.dtype = F8B_F32;
	tap_ok(f8b_recipe_validate(&r) == F8B_EINVAL && has(f8b_last_error(), "f32"),
	       "validate: an enabled argument targeting f32 is rejected: %s", f8b_last_error());
	f8b_recipe_parse("tensorwise", &r);
	r.weight.gran = (enum f8b_granularity)17;
	tap_ok(f8b_recipe_validate(&r) == F8B_EINVAL, "validate: out-of-range granularity");
	f8b_recipe_parse("tensorwise", &r);
	r.grad_output.type = (enum f8b_scaling_type)9;
	tap_ok(f8b_recipe_validate(&r) == F8B_EINVAL, "validate: out-of-range scaling type");

	/* Accepted mixes: e4m3 x e5m2 and axiswise x tensorwise. */
	f8b_recipe_parse("tensorwise", &r);
	r.input.dtype = E5;
	tap_ok(f8b_recipe_validate(&r) == F8B_OK, "validate: e5m2 x e4m3 is accepted");
	f8b_recipe_parse("lw-axiswise-gw-hp", &r);
	tap_ok(r.grad_output.gran == AX && r.weight_for_grad_input.gran == TW &&
	           f8b_recipe_validate(&r) == F8B_OK,
	       "validate: axiswise x tensorwise (lw-axiswise-gw-hp grad_input) is accepted");
}

int main(void)
{
	test_names();
	test_expansions();
	test_aliases();
	test_format();
	test_round_trip();
	test_overrides();
	test_parse_errors();
	test_validate_errors();
	return tap_done();
}
