/* test_cases.c - shapes, shape specs and files, named sets, comma lists,
 * cross products and the rank split (src/core/cases.c).
 *
 * Test data lives in $srcdir/tests/data; the named sets are read from
 * $srcdir/inputs through F8B_INPUTS ($srcdir defaults to ".", the
 * repository root, as automake sets it for tests). */
#define _POSIX_C_SOURCE 200809L
#include "core/cases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"

static const char *srcdir;

static const char *data(const char *name)
{
	static char buf[4][1024];
	static int k;
	char *b = buf[k++ & 3];
	snprintf(b, sizeof buf[0], "%s/tests/data/%s", srcdir, name);
	return b;
}

static bool has(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

#if defined(F8B_PKGDATADIR) || defined(F8B_SRCDIR)
static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
#endif

static bool one_line(const char *s)
{
	return s && *s && !strchr(s, '\n');
}

static bool shape_is(const struct f8b_shape *s, int64_t m, int64_t k, int64_t n, const char *label)
{
	return s->m == m && s->k == k && s->n == n && strcmp(s->label, label) == 0;
}

/* ---- f8b_shape_validate -------------------------------------------------- */

static void test_validate(void)
{
	struct f8b_shape s = {256, 512, 1024, ""};
	tap_ok(f8b_shape_validate(&s, "test") == F8B_OK, "validate: 256x512x1024 is valid");
	s = (struct f8b_shape){16, 16, 16, ""};
	tap_ok(f8b_shape_validate(&s, "test") == F8B_OK, "validate: 16x16x16 (smallest) is valid");
	s = (struct f8b_shape){F8B_MAX_DIM, F8B_MAX_DIM, F8B_MAX_DIM, ""};
	tap_ok(f8b_shape_validate(&s, "test") == F8B_OK, "validate: F8B_MAX_DIM cubed is valid");

	s = (struct f8b_shape){100, 256, 256, ""};
	int rc = f8b_shape_validate(&s, "--shapes");
	const char *e = f8b_last_error();
	tap_ok(rc == F8B_EINVAL, "validate: M=100 rejected with EINVAL");
	tap_ok(has(e, "shape 100x256x256") && has(e, "from --shapes") && has(e, "M=100") &&
	           has(e, "not a multiple of 16"),
	       "validate: message names shape, origin, dimension and rule: %s", e);
	tap_ok(one_line(e), "validate: message is one line");

	s = (struct f8b_shape){256, 264, 256, ""};
	f8b_shape_validate(&s, "x");
	tap_ok(has(f8b_last_error(), "K=264"), "validate: K named when K is wrong");
	s = (struct f8b_shape){256, 256, 8, ""};
	f8b_shape_validate(&s, "x");
	tap_ok(has(f8b_last_error(), "N=8"), "validate: N named when N is wrong");

	s = (struct f8b_shape){0, 256, 256, ""};
	rc = f8b_shape_validate(&s, "x");
	tap_ok(rc == F8B_EINVAL && has(f8b_last_error(), "M=0 is not positive"),
	       "validate: zero rejected: %s", f8b_last_error());
	s = (struct f8b_shape){256, -16, 256, ""};
	rc = f8b_shape_validate(&s, "x");
	tap_ok(rc == F8B_EINVAL && has(f8b_last_error(), "K=-16 is not positive"),
	       "validate: negative rejected (even though a multiple of 16)");
	s = (struct f8b_shape){256, 256, F8B_MAX_DIM + 16, ""};
	rc = f8b_shape_validate(&s, "x");
	tap_ok(rc == F8B_EINVAL && has(f8b_last_error(), "exceeds"),
	       "validate: F8B_MAX_DIM + 16 rejected: %s", f8b_last_error());
	s = (struct f8b_shape){INT64_MAX - 15, 16, 16, ""};
	rc = f8b_shape_validate(&s, "x");
	tap_ok(rc == F8B_EINVAL, "validate: huge M (would overflow M*K) rejected");
	rc = f8b_shape_validate(&(struct f8b_shape){100, 16, 16, ""}, NULL);
	tap_ok(rc == F8B_EINVAL && one_line(f8b_last_error()), "validate: NULL origin is fine");
}

/* ---- shape files --------------------------------------------------------- */

static void test_load_good(void)
{
	struct f8b_shapes v = {NULL, 0};
	int rc = f8b_shapes_load_file(data("good.txt"), &v);
	tap_ok(rc == F8B_OK, "load good.txt: ok (%s)", f8b_last_error());
	tap_ok(v.n == 5, "load good.txt: 5 shapes (got %zu)", v.n);
	if (v.n == 5) {
		tap_ok(shape_is(&v.v[0], 256, 512, 1024, ""), "good.txt: plain line, no label");
		tap_ok(shape_is(&v.v[1], 1024, 2048, 4096, "mlp.up"),
		       "good.txt: tabs, label and trailing comment");
		tap_ok(shape_is(&v.v[2], 2048, 1024, 512, ""), "good.txt: MxKxN form");
		tap_ok(shape_is(&v.v[3], 16, 32, 48, "tiny.upper-x"), "good.txt: 'X' and a label");
		tap_ok(shape_is(&v.v[4], 8192, 4096, 6144, "crlf.line"),
		       "good.txt: CRLF line end is whitespace");
	}
	rc = f8b_shapes_load_file(data("good.txt"), &v);
	tap_ok(rc == F8B_OK && v.n == 10, "load appends: second load gives 10 shapes");
	tap_ok(v.n == 10 && shape_is(&v.v[5], 256, 512, 1024, "") &&
	           shape_is(&v.v[1], 1024, 2048, 4096, "mlp.up"),
	       "load appends after what was there, in file order");

	/* A failed load leaves the list as it was. */
	rc = f8b_shapes_load_file(data("not16.txt"), &v);
	tap_ok(rc == F8B_EINVAL && v.n == 10, "failed load appends nothing (n stays 10)");
	f8b_shapes_free(&v);
	tap_ok(v.v == NULL && v.n == 0, "f8b_shapes_free empties the list");
}

struct bad_file {
	const char *file;
	int status;
	const char *where; /* file:line the message must name */
	const char *what;  /* and a phrase saying what is wrong */
};

static void test_load_bad(void)
{
	static const struct bad_file cases[] = {
	    {"not16.txt", F8B_EINVAL, "not16.txt:3", "not a multiple of 16"},
	    {"zero.txt", F8B_EINVAL, "zero.txt:2", "K=0 is not positive"},
	    {"negative.txt", F8B_EINVAL, "negative.txt:2", "N=-16 is not positive"},
	    {"overflow.txt", F8B_EINVAL, "overflow.txt:3", "out of range"},
	    {"toobig.txt", F8B_EINVAL, "toobig.txt:1", "exceeds"},
	    {"garbage.txt", F8B_EINVAL, "garbage.txt:2", "'abc' is not an integer"},
	    {"toomany.txt", F8B_EINVAL, "toomany.txt:1", "'extra'"},
	    {"toofew.txt", F8B_EINVAL, "toofew.txt:1", "fewer than three"},
	    {"badmkn.txt", F8B_EINVAL, "badmkn.txt:1", "three dimensions"},
	    {"longlabel.txt", F8B_EINVAL, "longlabel.txt:1", "longer than 47"},
	    {"comments_only.txt", F8B_EINVAL, "comments_only.txt", "no shapes"},
	    {"empty.txt", F8B_EINVAL, "empty.txt", "no shapes"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct bad_file *c = &cases[i];
		struct f8b_shapes v = {NULL, 0};
		f8b_clear_error();
		int rc = f8b_shapes_load_file(data(c->file), &v);
		const char *e = f8b_last_error();
		tap_ok(rc == c->status, "%s: status %s (got %s)", c->file,
		       f8b_status_name(c->status), f8b_status_name(rc));
		tap_ok(has(e, c->where) && has(e, c->what) && one_line(e),
		       "%s: message names '%s' and '%s': %s", c->file, c->where, c->what, e);
		tap_ok(v.n == 0, "%s: nothing appended", c->file);
		f8b_shapes_free(&v);
	}
	/* The malformed-line messages show the expected format. */
	struct f8b_shapes v = {NULL, 0};
	f8b_shapes_load_file(data("garbage.txt"), &v);
	tap_ok(has(f8b_last_error(), "expected 'M K N [LABEL]'"),
	       "malformed line: message gives the expected format");

	int rc = f8b_shapes_load_file(data("no-such-file.txt"), &v);
	const char *e = f8b_last_error();
	tap_ok(rc == F8B_EIO, "unreadable file: F8B_EIO");
	tap_ok(has(e, "no-such-file.txt") && has(e, strerror(ENOENT)),
	       "unreadable file: message names path and strerror: %s", e);

	/* A directory opens but cannot be read: still F8B_EIO. */
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/tests/data", srcdir);
	rc = f8b_shapes_load_file(dir, &v);
	tap_ok(rc == F8B_EIO && has(f8b_last_error(), "tests/data"),
	       "directory as shape file: F8B_EIO naming it: %s", f8b_last_error());
	tap_ok(v.n == 0, "directory as shape file: nothing appended");
	f8b_shapes_free(&v);
}

/* ---- shape specs --------------------------------------------------------- */

static void expect_spec_error(const char *spec, const char *phrase, const char *why)
{
	struct f8b_shapes v = {NULL, 0};
	f8b_clear_error();
	int rc = f8b_shapes_parse(spec, &v);
	const char *e = f8b_last_error();
	tap_ok(rc == F8B_EINVAL && v.n == 0 && v.v == NULL && has(e, phrase) && one_line(e),
	       "spec '%s' rejected (%s): %s", spec ? spec : "(null)", why, e);
	f8b_shapes_free(&v);
}

static void test_spec_inline(void)
{
	struct f8b_shapes v;
	int rc = f8b_shapes_parse("256x512x1024", &v);
	tap_ok(rc == F8B_OK && v.n == 1 && shape_is(&v.v[0], 256, 512, 1024, ""),
	       "spec: one MxKxN");
	f8b_shapes_free(&v);

	rc = f8b_shapes_parse(" 256x256x256 , 4096X8192X1024,16x16x16 ", &v);
	tap_ok(rc == F8B_OK && v.n == 3, "spec: three items with spaces and 'X'");
	tap_ok(v.n == 3 && shape_is(&v.v[1], 4096, 8192, 1024, "") &&
	           shape_is(&v.v[2], 16, 16, 16, ""),
	       "spec: items kept in order");
	f8b_shapes_free(&v);

	expect_spec_error("100x256x256", "M=100 is not a multiple of 16", "not multiple of 16");
	expect_spec_error("100x256x256", "from --shapes", "origin named");
	expect_spec_error("256x0x256", "K=0 is not positive", "zero");
	expect_spec_error("-16x256x256", "M=-16 is not positive", "negative");
	expect_spec_error("256x256x-32", "N=-32", "negative N");
	expect_spec_error("99999999999999999999x16x16", "out of range", "overflows int64");
	expect_spec_error("2097152x16x16", "exceeds", "above F8B_MAX_DIM");
	expect_spec_error("256x256", "three dimensions", "two dimensions");
	expect_spec_error("256x256x256x256", "three dimensions", "four dimensions");
	expect_spec_error("256xabcx256", "not an integer", "garbage dimension");
	expect_spec_error("256x256x256abc", "not an integer", "trailing garbage");
	expect_spec_error("256x x256", "not an integer", "embedded space");
	expect_spec_error("what?", "neither MxKxN", "garbage token");
	expect_spec_error("", "empty", "empty spec");
	expect_spec_error("  ", "empty", "blank spec");
	expect_spec_error(NULL, "empty", "NULL spec");
	expect_spec_error("256x256x256,,512x512x512", "empty item", "empty item");
	expect_spec_error("256x256x256,", "empty item", "trailing comma");
	expect_spec_error("256x256x256,100x16x16", "M=100", "second item bad, first good");
}

static void test_spec_files_and_sets(void)
{
	char inputs[1024];
	snprintf(inputs, sizeof inputs, "%s/inputs", srcdir);
	setenv("F8B_INPUTS", inputs, 1);
	tap_ok(strcmp(f8b_inputs_dir(), inputs) == 0, "f8b_inputs_dir follows $F8B_INPUTS");

	struct f8b_shapes v;
	int rc = f8b_shapes_parse(data("good.txt"), &v);
	tap_ok(rc == F8B_OK && v.n == 5, "spec: a path (contains '/') loads the file");
	f8b_shapes_free(&v);

	/* The five shipped sets, with their sizes and a line checked by hand
	 * against the model dimensions in doc/shapes.md. */
	rc = f8b_shapes_parse("quick", &v);
	tap_ok(rc == F8B_OK && v.n == 4, "set quick: 4 shapes (%s)", f8b_last_error());
	tap_ok(v.n >= 1 && shape_is(&v.v[0], 256, 256, 256, "quick.square256"),
	       "set quick: first is 256x256x256");
	f8b_shapes_free(&v);

	rc = f8b_shapes_parse("pow2", &v);
	tap_ok(rc == F8B_OK && v.n == 5, "set pow2: 5 shapes");
	bool sq = v.n == 5;
	for (size_t i = 0; sq && i < v.n; i++)
		sq = v.v[i].m == (int64_t)1024 << i && v.v[i].k == v.v[i].m && v.v[i].n == v.v[i].m;
	tap_ok(sq, "set pow2: square 1024 .. 16384");
	f8b_shapes_free(&v);

	rc = f8b_shapes_parse("square", &v);
	bool has3072 = false, has12288 = false;
	for (size_t i = 0; i < v.n; i++) {
		has3072 |= shape_is(&v.v[i], 3072, 3072, 3072, "square.3072");
		has12288 |= shape_is(&v.v[i], 12288, 12288, 12288, "square.12288");
	}
	tap_ok(rc == F8B_OK && v.n >= 10 && has3072 && has12288,
	       "set square: >= 10 shapes incl. 3072 and 12288 (%zu)", v.n);
	f8b_shapes_free(&v);

	rc = f8b_shapes_parse("llama2-70b", &v);
	tap_ok(rc == F8B_OK && v.n == 8, "set llama2-70b: 8 shapes (4 layers x 2 M)");
	tap_ok(v.n == 8 && shape_is(&v.v[0], 8192, 8192, 10240, "llama2-70b.attn.wqkv") &&
	           shape_is(&v.v[1], 8192, 8192, 8192, "llama2-70b.attn.wo") &&
	           shape_is(&v.v[2], 8192, 8192, 57344, "llama2-70b.mlp.w13") &&
	           shape_is(&v.v[3], 8192, 28672, 8192, "llama2-70b.mlp.w2") &&
	           shape_is(&v.v[7], 16384, 28672, 8192, "llama2-70b.mlp.w2"),
	       "set llama2-70b: wqkv N=10240, wo 8192, w13 N=57344, w2 K=28672, M 8192/16384");
	f8b_shapes_free(&v);

	rc = f8b_shapes_parse("llama3-8b", &v);
	tap_ok(rc == F8B_OK && v.n == 8, "set llama3-8b: 8 shapes");
	tap_ok(v.n == 8 && shape_is(&v.v[0], 8192, 4096, 6144, "llama3-8b.attn.wqkv") &&
	           shape_is(&v.v[1], 8192, 4096, 4096, "llama3-8b.attn.wo") &&
	           shape_is(&v.v[2], 8192, 4096, 28672, "llama3-8b.mlp.w13") &&
	           shape_is(&v.v[3], 8192, 14336, 4096, "llama3-8b.mlp.w2") &&
	           shape_is(&v.v[4], 16384, 4096, 6144, "llama3-8b.attn.wqkv"),
	       "set llama3-8b: wqkv N=6144, wo 4096, w13 N=28672, w2 K=14336, M 8192/16384");
	f8b_shapes_free(&v);

	/* A mixed list keeps the order of its items. */
	char spec[2048];
	snprintf(spec, sizeof spec, "quick, %s ,32x48x64,pow2", data("good.txt"));
	rc = f8b_shapes_parse(spec, &v);
	tap_ok(rc == F8B_OK && v.n == 4 + 5 + 1 + 5, "mixed spec: 15 shapes (%zu)", v.n);
	tap_ok(v.n == 15 && shape_is(&v.v[4], 256, 512, 1024, "") &&
	           shape_is(&v.v[9], 32, 48, 64, "") && v.v[10].m == 1024,
	       "mixed spec: set, file, inline, set in that order");
	f8b_shapes_free(&v);

	/* A path that does not contain '/' but ends in .txt is a file too. */
	rc = f8b_shapes_parse("no-such-file.txt", &v);
	tap_ok(rc == F8B_EIO && has(f8b_last_error(), "no-such-file.txt"),
	       "spec: NAME.txt is a path (F8B_EIO when missing)");
	f8b_shapes_free(&v);

	/* A bad file in a spec: file:line reaches the user, nothing kept. */
	snprintf(spec, sizeof spec, "quick,%s", data("garbage.txt"));
	rc = f8b_shapes_parse(spec, &v);
	tap_ok(rc == F8B_EINVAL && v.n == 0 && has(f8b_last_error(), "garbage.txt:2"),
	       "spec with a malformed file: EINVAL naming file:line, list emptied");

	rc = f8b_shapes_parse("llama-9000", &v);
	const char *e = f8b_last_error();
	tap_ok(rc == F8B_EINVAL && v.n == 0, "unknown set name: EINVAL");
	tap_ok(has(e, "llama-9000") && has(e, "llama2-70b, llama3-8b, pow2, quick, square"),
	       "unknown set name: message lists the available sets: %s", e);
	tap_ok(one_line(e), "unknown set name: one line");

	setenv("F8B_INPUTS", "/nonexistent-f8b-inputs", 1);
	tap_ok(strcmp(f8b_inputs_dir(), "/nonexistent-f8b-inputs") == 0,
	       "$F8B_INPUTS is used even when it does not exist");
	rc = f8b_shapes_parse("quick", &v);
	tap_ok(rc == F8B_EINVAL && has(f8b_last_error(), "/nonexistent-f8b-inputs"),
	       "set name under a missing $F8B_INPUTS: message names the directory: %s",
	       f8b_last_error());

	unsetenv("F8B_INPUTS");
	/* Without $F8B_INPUTS: the installed directory if there is one, then
	 * the source tree. */
	const char *want = "";
#ifdef F8B_SRCDIR
	if (is_dir(F8B_SRCDIR "/inputs"))
		want = F8B_SRCDIR "/inputs";
#endif
#ifdef F8B_PKGDATADIR
	if (is_dir(F8B_PKGDATADIR "/inputs"))
		want = F8B_PKGDATADIR "/inputs";
#endif
	tap_ok(strcmp(f8b_inputs_dir(), want) == 0,
	       "without $F8B_INPUTS: PKGDATADIR, then SRCDIR, else \"\" (got '%s', want '%s')",
	       f8b_inputs_dir(), want);
	if (*want) {
		rc = f8b_shapes_parse("quick", &v);
		tap_ok(rc == F8B_OK && v.n == 4, "set quick found without $F8B_INPUTS");
		f8b_shapes_free(&v);
	} else {
		rc = f8b_shapes_parse("quick", &v);
		tap_ok(rc == F8B_EINVAL && has(f8b_last_error(), "F8B_INPUTS"),
		       "no inputs directory: the message says to set F8B_INPUTS");
	}
	setenv("F8B_INPUTS", inputs, 1);
}

/* ---- f8b_parse_list ------------------------------------------------------ */

static int parse_int(const char *item, void *out)
{
	char *end;
	long v = strtol(item, &end, 10);
	if (end == item || *end)
		return F8B_ERR(F8B_EINVAL, "'%s' is not an integer (accepted: integers)", item);
	*(int *)out = (int)v;
	return F8B_OK;
}

static int parse_fail_io(const char *item, void *out)
{
	(void)out;
	return F8B_ERR(F8B_EIO, "cannot read '%s'", item);
}

static void test_parse_list(void)
{
	void *items = NULL;
	size_t n = 99;
	int rc = f8b_parse_list("1, 2 ,3", "--reps", sizeof(int), parse_int, &items, &n);
	int *iv = items;
	tap_ok(rc == F8B_OK && n == 3 && iv[0] == 1 && iv[1] == 2 && iv[2] == 3,
	       "parse_list: '1, 2 ,3' -> 1 2 3 (items trimmed)");
	free(items);

	rc = f8b_parse_list("42", "--reps", sizeof(int), parse_int, &items, &n);
	tap_ok(rc == F8B_OK && n == 1 && *(int *)items == 42, "parse_list: single item");
	free(items);

	rc = f8b_parse_list("1,x,3", "--reps", sizeof(int), parse_int, &items, &n);
	const char *e = f8b_last_error();
	tap_ok(rc == F8B_EINVAL && items == NULL && n == 0,
	       "parse_list: bad item -> EINVAL, no items");
	tap_ok(strncmp(e, "--reps: ", 8) == 0 && has(e, "'x' is not an integer"),
	       "parse_list: message = option name + item's own message: %s", e);

	rc = f8b_parse_list("1,,3", "--reps", sizeof(int), parse_int, &items, &n);
	tap_ok(rc == F8B_EINVAL && has(f8b_last_error(), "--reps") &&
	           has(f8b_last_error(), "empty item"),
	       "parse_list: empty item named");
	rc = f8b_parse_list("", "--reps", sizeof(int), parse_int, &items, &n);
	tap_ok(rc == F8B_EINVAL && items == NULL, "parse_list: empty spec rejected");
	rc = f8b_parse_list(NULL, "--reps", sizeof(int), parse_int, &items, &n);
	tap_ok(rc == F8B_EINVAL && has(f8b_last_error(), "--reps"), "parse_list: NULL spec");
	rc = f8b_parse_list("a", "--x", sizeof(int), parse_fail_io, &items, &n);
	tap_ok(rc == F8B_EIO && !has(f8b_last_error(), "--x: "),
	       "parse_list: non-EINVAL status passed on unchanged");
}

/* ---- cross products and the rank split ----------------------------------- */

static void test_cross(void)
{
	const size_t dims[3] = {2, 3, 4};
	tap_ok(f8b_cross_count(dims, 3) == 24, "cross_count 2x3x4 = 24");
	tap_ok(f8b_cross_count(dims, 0) == 1, "cross_count of no axes = 1");
	const size_t with0[2] = {5, 0};
	tap_ok(f8b_cross_count(with0, 2) == 0, "cross_count with an empty axis = 0");
	const size_t huge[3] = {SIZE_MAX / 2, 3, 1};
	tap_ok(f8b_cross_count(huge, 3) == 0, "cross_count overflow = 0");

	/* Last axis fastest: the index order of three nested loops. */
	size_t i = 0;
	bool ok = true;
	for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 3; b++)
			for (size_t c = 0; c < 4; c++, i++) {
				size_t idx[3];
				f8b_cross_index(i, dims, 3, idx);
				ok &= idx[0] == a && idx[1] == b && idx[2] == c;
			}
	tap_ok(ok, "cross_index decodes all 24 cases like nested loops, last axis fastest");
	size_t idx1[1];
	f8b_cross_index(6, (const size_t[]){7}, 1, idx1);
	tap_ok(idx1[0] == 6, "cross_index on one axis is the identity");
}

static void test_split(void)
{
	static const size_t ns[] = {0, 1, 5, 7, 13, 100};
	for (int nranks = 1; nranks <= 7; nranks++) {
		bool exactly_once = true, counts_match = true, balanced = true, in_range = true;
		for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
			size_t n = ns[t];
			size_t count[7] = {0};
			for (size_t i = 0; i < n; i++) {
				int owner = f8b_case_owner(i, nranks);
				if (owner < 0 || owner >= nranks) {
					in_range = false;
					continue;
				}
				count[owner]++;
			}
			/* Each case has one owner by construction; "exactly once"
			 * means the per-rank counts add up to n with none lost. */
			size_t sum = 0, lo = SIZE_MAX, hi = 0;
			for (int r = 0; r < nranks; r++) {
				sum += count[r];
				counts_match &= count[r] == f8b_cases_of_rank(n, r, nranks);
				lo = count[r] < lo ? count[r] : lo;
				hi = count[r] > hi ? count[r] : hi;
			}
			exactly_once &= sum == n;
			balanced &= hi - lo <= 1;
		}
		tap_ok(in_range, "%d ranks: every owner is in [0, %d)", nranks, nranks);
		tap_ok(exactly_once, "%d ranks: every case run exactly once (n = 0,1,5,7,13,100)",
		       nranks);
		tap_ok(counts_match, "%d ranks: f8b_cases_of_rank matches the owners", nranks);
		tap_ok(balanced, "%d ranks: counts differ by at most one", nranks);
	}
	tap_ok(f8b_case_owner(10, 4) == 2, "owner of case 10 over 4 ranks is 2 (round robin)");
	tap_ok(f8b_cases_of_rank(10, 4, 4) == 0 && f8b_cases_of_rank(10, -1, 4) == 0,
	       "cases_of_rank of a rank out of range is 0");
}

/* --shard I/N: parsing, exactly-once over the shards, balance, and the
 * composition with the rank split (each shard's list split again). */
static void test_shard(void)
{
	struct f8b_shard sh;
	tap_ok(f8b_shard_parse("0/1", &sh) == F8B_OK && sh.index == 0 && sh.count == 1,
	       "shard 0/1 parses");
	tap_ok(f8b_shard_parse("3/4", &sh) == F8B_OK && sh.index == 3 && sh.count == 4,
	       "shard 3/4 parses");
	static const char *const bad[] = {"4/4",  "-1/4", "1/0",  "1",        "1/",   "/4", "a/4",
	                                  "1/4x", " 1/4", "1/-4", "1/100001", "+1/4", ""};
	for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
		int rc = f8b_shard_parse(bad[b], &sh);
		tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "--shard"),
		       "shard '%s' is refused naming --shard", bad[b]);
	}
	static const size_t ns[] = {0, 1, 5, 7, 13, 100};
	bool once = true, sizes = true, balanced = true, composed = true;
	for (int count = 1; count <= 6; count++) {
		for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
			size_t n = ns[t], lo = SIZE_MAX, hi = 0, seen[100] = {0};
			for (int idx = 0; idx < count; idx++) {
				struct f8b_shard s = {idx, count};
				size_t k = 0, per_rank[3] = {0};
				for (size_t i = 0; i < n; i++)
					if (f8b_shard_has(&s, i)) {
						seen[i]++;
						/* the runner splits the shard's list
						 * again: its k-th case to one of 3 ranks */
						per_rank[f8b_case_owner(k++, 3)]++;
					}
				for (int r = 0; r < 3; r++)
					composed &= per_rank[r] == f8b_cases_of_rank(k, r, 3);
				sizes &= k == f8b_shard_size(&s, n);
				lo = k < lo ? k : lo;
				hi = k > hi ? k : hi;
			}
			for (size_t i = 0; i < n; i++)
				once &= seen[i] == 1;
			balanced &= hi - lo <= 1;
		}
	}
	tap_ok(once, "every case in exactly one shard (N = 1..6, n = 0,1,5,7,13,100)");
	tap_ok(sizes, "f8b_shard_size counts the cases f8b_shard_has takes");
	tap_ok(balanced, "shard sizes differ by at most one");
	tap_ok(composed, "each shard's list splits over 3 ranks as a whole list would");
	/* Strided, not blocks: of a list ordered by size, shard 0/4 of 8 cases
	 * takes cases 0 and 4, one small and one large. */
	struct f8b_shard s04 = {0, 4};
	tap_ok(f8b_shard_has(&s04, 0) && f8b_shard_has(&s04, 4) && !f8b_shard_has(&s04, 1),
	       "shard 0/4 takes cases 0 and 4 (strided)");
	tap_ok(f8b_shard_has(NULL, 7) && f8b_shard_size(NULL, 7) == 7, "no shard takes every case");
}

int main(void)
{
	srcdir = getenv("srcdir");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	test_validate();
	test_load_good();
	test_load_bad();
	test_spec_inline();
	test_spec_files_and_sets();
	test_parse_list();
	test_cross();
	test_split();
	test_shard();
	return tap_done();
}
