/* cases.c - shape validation, shape specs and files, named shape sets,
 * comma lists, sweep cross products and the split of cases over ranks.
 * File format and spec grammar: cases.h and doc/shapes.md. */
#define _POSIX_C_SOURCE 200809L
#include "core/cases.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SHAPE_FORM "'M K N [LABEL]' or 'MxKxN [LABEL]'"
#define DIM_RULE   "positive multiples of 16 up to 1048576"

/* ---- one shape ---------------------------------------------------------- */

int f8b_shape_validate(const struct f8b_shape *s, const char *origin)
{
	const int64_t d[3] = {s->m, s->k, s->n};
	static const char *const names[3] = {"M", "K", "N"};
	const char *from = origin ? origin : "?";

	for (int i = 0; i < 3; i++) {
		const char *why = NULL;
		if (d[i] <= 0)
			why = "is not positive";
		else if (d[i] % 16 != 0)
			/* fp8 tensor-core GEMMs need 16-byte aligned rows and
			 * leading dimensions (cuBLASLt, torch._scaled_mm). */
			why = "is not a multiple of 16";
		else if (d[i] > F8B_MAX_DIM)
			why = "exceeds the largest dimension accepted (1048576)";
		if (why)
			return F8B_ERR(F8B_EINVAL,
			               "shape %" PRId64 "x%" PRId64 "x%" PRId64
			               " (from %s): %s=%" PRId64 " %s (accepted: " DIM_RULE ")",
			               s->m, s->k, s->n, from, names[i], d[i], why);
	}
	/* With F8B_MAX_DIM = 2^20 every product is <= 2^40; the check keeps
	 * the promise of cases.h should the limit ever grow. */
	int64_t p;
	if (f8b_mul_overflows(s->m, s->k, &p) || f8b_mul_overflows(s->k, s->n, &p) ||
	    f8b_mul_overflows(s->m, s->n, &p))
		return F8B_ERR(F8B_EINVAL,
		               "shape %" PRId64 "x%" PRId64 "x%" PRId64
		               " (from %s): an element count overflows int64",
		               s->m, s->k, s->n, from);
	return F8B_OK;
}

enum dim_err { DIM_OK, DIM_EMPTY, DIM_NOT_INT, DIM_RANGE };

/* A decimal dimension, nothing else in the token. */
static enum dim_err parse_dim(const char *t, int64_t *out)
{
	char *end;
	if (*t == '\0')
		return DIM_EMPTY;
	if (isspace((unsigned char)*t))
		return DIM_NOT_INT;
	errno = 0;
	long long v = strtoll(t, &end, 10);
	if (end == t || *end != '\0')
		return DIM_NOT_INT;
	if (errno == ERANGE)
		return DIM_RANGE;
	*out = v;
	return DIM_OK;
}

/* "MxKxN" (also "X") into s; on failure *why says what is wrong. */
static bool parse_mkn(const char *t, struct f8b_shape *s, const char **why)
{
	static const char *const whys[] = {
	    [DIM_EMPTY] = "has an empty dimension",
	    [DIM_NOT_INT] = "has a dimension that is not an integer",
	    [DIM_RANGE] = "has a dimension that is out of range",
	};
	char buf[3][32];
	const char *p = t;
	for (int i = 0; i < 3; i++) {
		size_t len = strcspn(p, "xX");
		if ((i < 2 && p[len] == '\0') || (i == 2 && p[len] != '\0')) {
			*why = "does not have three dimensions";
			return false;
		}
		if (len >= sizeof buf[i]) {
			*why = whys[DIM_RANGE];
			return false;
		}
		memcpy(buf[i], p, len);
		buf[i][len] = '\0';
		p += len + (i < 2);
	}
	int64_t *dst[3] = {&s->m, &s->k, &s->n};
	for (int i = 0; i < 3; i++) {
		enum dim_err e = parse_dim(buf[i], dst[i]);
		if (e != DIM_OK) {
			*why = whys[e];
			return false;
		}
	}
	return true;
}

/* ---- shape lists -------------------------------------------------------- */

static int shapes_push(struct f8b_shapes *v, const struct f8b_shape *s)
{
	/* One realloc per shape: lists hold tens to hundreds of shapes, and
	 * the struct has no capacity field, so a caller-built list stays safe
	 * to append to. */
	struct f8b_shape *nv = realloc(v->v, (v->n + 1) * sizeof *nv);
	if (!nv)
		return F8B_ERR(F8B_ENOMEM, "out of memory for %zu shapes", v->n + 1);
	v->v = nv;
	v->v[v->n++] = *s;
	return F8B_OK;
}

void f8b_shapes_free(struct f8b_shapes *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* One line of a shape file, comment already cut off.  Returns F8B_OK with
 * *got = false for a blank line. */
static int parse_line(char *line, const char *origin, struct f8b_shape *s, bool *got)
{
	char *tok[5];
	int nt = 0;
	char *save = NULL;
	for (char *t = strtok_r(line, " \t\r\n\v\f", &save); t;
	     t = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (nt == 5)
			break;
		tok[nt++] = t;
	}
	*got = false;
	if (nt == 0)
		return F8B_OK;

	memset(s, 0, sizeof *s);
	const char *bad = NULL, *why = NULL;
	int ndims;
	if (strpbrk(tok[0], "xX")) {
		ndims = 1;
		bad = tok[0];
		if (!parse_mkn(tok[0], s, &why))
			goto malformed;
	} else {
		ndims = 3;
		if (nt < 3) {
			bad = tok[0];
			why = "starts a line with fewer than three dimensions";
			goto malformed;
		}
		int64_t *dst[3] = {&s->m, &s->k, &s->n};
		for (int i = 0; i < 3; i++) {
			enum dim_err e = parse_dim(tok[i], dst[i]);
			if (e != DIM_OK) {
				bad = tok[i];
				why = e == DIM_RANGE ? "is out of range" : "is not an integer";
				goto malformed;
			}
		}
	}
	if (nt > ndims + 1) {
		bad = tok[ndims + 1];
		why = "follows the label (one label token at most)";
		goto malformed;
	}
	if (nt == ndims + 1) {
		if (strlen(tok[ndims]) >= sizeof s->label)
			return F8B_ERR(F8B_EINVAL, "%s: label '%s' is longer than %zu characters",
			               origin, tok[ndims], sizeof s->label - 1);
		strcpy(s->label, tok[ndims]);
	}
	F8B_TRY(f8b_shape_validate(s, origin));
	*got = true;
	return F8B_OK;

malformed:
	return F8B_ERR(F8B_EINVAL, "%s: '%s' %s (expected " SHAPE_FORM ", '#' comments)", origin,
	               bad, why);
}

int f8b_shapes_load_file(const char *path, struct f8b_shapes *out)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return F8B_ERR(F8B_EIO, "cannot open shape file '%s': %s", path, strerror(errno));

	/* On any error the list is restored to what it held on entry, so a
	 * failed load appends nothing. */
	const size_t n0 = out->n;
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	size_t added = 0;
	int rc = F8B_OK;
	char origin[512];

	errno = 0;
	while (rc == F8B_OK && getline(&line, &cap, f) >= 0) {
		lineno++;
		line[strcspn(line, "#")] = '\0';
		snprintf(origin, sizeof origin, "%s:%ld", path, lineno);
		struct f8b_shape s;
		bool got;
		rc = parse_line(line, origin, &s, &got);
		if (rc == F8B_OK && got) {
			rc = shapes_push(out, &s);
			added++;
		}
	}
	if (rc == F8B_OK && ferror(f))
		rc = F8B_ERR(F8B_EIO, "error reading shape file '%s': %s", path,
		             strerror(errno ? errno : EIO));
	free(line);
	fclose(f);
	if (rc == F8B_OK && added == 0)
		rc = F8B_ERR(F8B_EINVAL,
		             "shape file '%s' holds no shapes (expected lines " SHAPE_FORM
		             ", '#' comments)",
		             path);
	if (rc != F8B_OK)
		out->n = n0;
	return rc;
}

/* ---- named sets --------------------------------------------------------- */

#if defined(F8B_PKGDATADIR) || defined(F8B_SRCDIR)
static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
#endif

const char *f8b_inputs_dir(void)
{
	/* $F8B_INPUTS is the user's explicit choice: used even when it does
	 * not exist, so the error that follows names it. */
	const char *env = getenv("F8B_INPUTS");
	if (env && *env)
		return env;
#ifdef F8B_PKGDATADIR
	if (is_dir(F8B_PKGDATADIR "/inputs"))
		return F8B_PKGDATADIR "/inputs";
#endif
#ifdef F8B_SRCDIR
	if (is_dir(F8B_SRCDIR "/inputs"))
		return F8B_SRCDIR "/inputs";
#endif
	return "";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "llama2-70b, llama3-8b, pow2, ...": the *.txt names in dir, sorted;
 * false when the directory cannot be read or holds none. */
static bool list_sets(const char *dir, char *buf, size_t n)
{
	char *names[64];
	int nn = 0;
	DIR *d = opendir(dir);
	buf[0] = '\0';
	if (!d)
		return false;
	for (struct dirent *e; (e = readdir(d)) != NULL && nn < 64;) {
		size_t len = strlen(e->d_name);
		if (len > 4 && e->d_name[0] != '.' && strcmp(e->d_name + len - 4, ".txt") == 0) {
			names[nn] = strndup(e->d_name, len - 4);
			if (names[nn])
				nn++;
		}
	}
	closedir(d);
	qsort(names, (size_t)nn, sizeof names[0], cmp_str);
	size_t len = 0;
	for (int i = 0; i < nn; i++) {
		if (len < n) {
			int k = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", names[i]);
			len += k > 0 ? (size_t)k : 0;
		}
		free(names[i]);
	}
	return nn > 0;
}

static int load_set(const char *name, struct f8b_shapes *out)
{
	const char *dir = f8b_inputs_dir();
	if (*dir == '\0')
		return F8B_ERR(F8B_EINVAL,
		               "shape set '%s': no inputs directory found (set F8B_INPUTS to the "
		               "directory holding shapes/, or give a file path or MxKxN)",
		               name);
	char path[4096], sets[1024], shapes_dir[4096];
	int k1 = snprintf(shapes_dir, sizeof shapes_dir, "%s/shapes", dir);
	int k2 = snprintf(path, sizeof path, "%s/%s.txt", shapes_dir, name);
	if (k1 < 0 || (size_t)k1 >= sizeof shapes_dir || k2 < 0 || (size_t)k2 >= sizeof path)
		return F8B_ERR(F8B_EINVAL, "shape set '%s': path under '%s' is too long", name,
		               dir);
	struct stat st;
	if (stat(path, &st) != 0) {
		if (!list_sets(shapes_dir, sets, sizeof sets))
			return F8B_ERR(F8B_EINVAL,
			               "unknown shape set '%s': %s is missing or holds no NAME.txt "
			               "sets (set F8B_INPUTS, or give a file path or MxKxN)",
			               name, shapes_dir);
		return F8B_ERR(F8B_EINVAL,
		               "unknown shape set '%s' (accepted: %s from %s; or a file path, or "
		               "MxKxN)",
		               name, sets, shapes_dir);
	}
	return f8b_shapes_load_file(path, out);
}

/* ---- specs -------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int parse_spec_item(char *item, struct f8b_shapes *out)
{
	if (strchr(item, '/') || ends_with(item, ".txt"))
		return f8b_shapes_load_file(item, out);

	/* A leading digit or sign means the user meant MxKxN. */
	if (isdigit((unsigned char)item[0]) || item[0] == '-' || item[0] == '+') {
		struct f8b_shape s;
		const char *why;
		memset(&s, 0, sizeof s);
		if (!parse_mkn(item, &s, &why))
			return F8B_ERR(F8B_EINVAL,
			               "shape '%s' in --shapes %s (accepted: MxKxN of " DIM_RULE
			               ", a shape set name, or a file path)",
			               item, why);
		F8B_TRY(f8b_shape_validate(&s, "--shapes"));
		return shapes_push(out, &s);
	}
	for (const char *p = item; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return F8B_ERR(
			    F8B_EINVAL,
			    "--shapes item '%s' is neither MxKxN, a shape set name nor a "
			    "file path (paths contain '/' or end in .txt)",
			    item);
	return load_set(item, out);
}

int f8b_shapes_parse(const char *spec, struct f8b_shapes *out)
{
	out->v = NULL;
	out->n = 0;
	if (!spec || spec[strspn(spec, " \t\r\n")] == '\0')
		return F8B_ERR(F8B_EINVAL, "empty --shapes (accepted: comma list of shape set "
		                           "names, shape files and MxKxN)");
	char *copy = strdup(spec);
	if (!copy)
		return F8B_ERR(F8B_ENOMEM, "out of memory parsing --shapes");

	int rc = F8B_OK;
	char *p = copy;
	for (;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		char *item = f8b_trim(p);
		if (*item == '\0') {
			rc = F8B_ERR(
			    F8B_EINVAL,
			    "empty item in --shapes '%s' (accepted: comma list of shape set "
			    "names, shape files and MxKxN)",
			    spec);
			break;
		}
		rc = parse_spec_item(item, out);
		if (rc != F8B_OK || !comma)
			break;
		p = comma + 1;
	}
	free(copy);
	if (rc != F8B_OK)
		f8b_shapes_free(out);
	return rc;
}

/* ---- generic comma lists ------------------------------------------------ */

int f8b_parse_list(const char *spec, const char *what, size_t elem_size,
                   int (*parse)(const char *item, void *out), void **items, size_t *n)
{
	*items = NULL;
	*n = 0;
	if (!spec)
		return F8B_ERR(F8B_EINVAL, "%s: missing value (accepted: a comma list)", what);
	char *copy = strdup(spec);
	if (!copy)
		return F8B_ERR(F8B_ENOMEM, "%s: out of memory", what);

	/* Items fit in the string, so (commas + 1) bounds the count. */
	size_t max = 1;
	for (const char *c = spec; *c; c++)
		max += *c == ',';
	unsigned char *v = calloc(max, elem_size ? elem_size : 1);
	if (!v) {
		free(copy);
		return F8B_ERR(F8B_ENOMEM, "%s: out of memory for %zu items", what, max);
	}

	int rc = F8B_OK;
	size_t k = 0;
	char *p = copy;
	for (;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		char *item = f8b_trim(p);
		if (*item == '\0') {
			rc = F8B_ERR(F8B_EINVAL, "%s: empty item in '%s' (accepted: a comma list)",
			             what, spec);
			break;
		}
		rc = parse(item, v + k * elem_size);
		if (rc != F8B_OK) {
			/* Put the option's name in front of the item's own
			 * message; other statuses carry source locations and
			 * are passed on as they are. */
			if (rc == F8B_EINVAL) {
				char msg[768];
				snprintf(msg, sizeof msg, "%s", f8b_last_error());
				rc = F8B_ERR(F8B_EINVAL, "%s: %s", what,
				             *msg ? msg : "invalid item");
			}
			break;
		}
		k++;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	if (rc != F8B_OK) {
		free(v);
		return rc;
	}
	*items = v;
	*n = k;
	return F8B_OK;
}

/* ---- cross products and the rank split ---------------------------------- */

size_t f8b_cross_count(const size_t *dims, int ndim)
{
	size_t total = 1;
	for (int a = 0; a < ndim; a++) {
		if (dims[a] != 0 && total > SIZE_MAX / dims[a])
			return 0;
		total *= dims[a];
	}
	return total;
}

void f8b_cross_index(size_t i, const size_t *dims, int ndim, size_t *idx)
{
	for (int a = ndim - 1; a >= 0; a--) {
		if (dims[a] == 0) {
			idx[a] = 0;
			continue;
		}
		idx[a] = i % dims[a];
		i /= dims[a];
	}
}

/* Round robin: neighbouring cases (usually the same shape under another
 * recipe) land on different ranks, which evens out the work when shapes
 * of very different sizes follow each other. */
int f8b_case_owner(size_t i, int nranks)
{
	return nranks > 0 ? (int)(i % (size_t)nranks) : 0;
}

size_t f8b_cases_of_rank(size_t n, int rank, int nranks)
{
	if (nranks <= 0 || rank < 0 || rank >= nranks)
		return 0;
	size_t r = (size_t)rank, nr = (size_t)nranks;
	return n / nr + (r < n % nr ? 1 : 0);
}

int f8b_shard_parse(const char *arg, struct f8b_shard *out)
{
	char *end;
	errno = 0;
	long i = strtol(arg, &end, 10);
	long n = -1;
	if (!errno && end != arg && *end == '/' && end[1] >= '0' && end[1] <= '9') {
		const char *ns = end + 1;
		n = strtol(ns, &end, 10);
		if (errno || *end)
			n = -1;
	}
	if (n < 1 || n > F8B_MAX_SHARDS || arg[0] < '0' || arg[0] > '9' || i < 0 || i >= n)
		return F8B_ERR(
		    F8B_EINVAL,
		    "--shard '%s': expected I/N with 0 <= I < N <= %d (shard I of N, "
		    "e.g. 0/4; Slurm arrays: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)",
		    arg, F8B_MAX_SHARDS);
	out->index = (int)i;
	out->count = (int)n;
	return F8B_OK;
}

bool f8b_shard_has(const struct f8b_shard *s, size_t i)
{
	if (!s || s->count <= 1)
		return true;
	return i % (size_t)s->count == (size_t)s->index;
}

size_t f8b_shard_size(const struct f8b_shard *s, size_t n)
{
	if (!s || s->count <= 1)
		return n;
	return f8b_cases_of_rank(n, s->index, s->count);
}
