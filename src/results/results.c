/* results.c - HDF5 results files: tables of compound rows, provenance
 * attributes, atomic creation, appends, reading back and CSV export.
 * results.h states the contract; doc/results.md the file layout.
 *
 * Only HDF5 calls whose signatures are the same in 1.10, 1.12 and 1.14 are
 * used (no H5Literate/H5Oget_info/H5Lget_info, whose info structs changed in
 * 1.12), and files are written with the library's default (earliest) format
 * bounds, so a file written on a GPU node with HDF5 1.10 reads anywhere.
 */
#define _POSIX_C_SOURCE 200809L
#include "results/results.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

/* Rows per chunk.  A gemm row is 524 bytes packed, so a chunk is 33.5 KB:
 * inside HDF5's advised 10 KB - 1 MB and its default 1 MB chunk cache, and
 * a sweep of a few hundred cases extends the table a handful of times. */
#define F8B_CHUNK_ROWS 64
/* Rows handed to HDF5 per call when appending or exporting, to bound the
 * scratch memory (137 KB of gemm rows). */
#define F8B_BLOCK_ROWS 256

#define F8B_ATTR_SCHEMA  "schema_version"
#define F8B_ATTR_FORMAT  "format"
#define F8B_FORMAT_VALUE "f8bench results"
#define F8B_RUNS         "/runs"
#define F8B_REASON_LEN   200 /* HDF5's reason inside a 768-byte message */

struct f8b_results {
	hid_t file;
	char *path;
	const struct f8b_table_schema *schema;
	int run_id;
	bool created;           /* this run created the file */
	bool created_table;     /* this run added the table to an existing file */
	size_t appended;        /* rows appended by this run */
	size_t *offsets;        /* row-struct offset and size of each column, */
	size_t *sizes;          /* as H5TBappend_records wants them */
	int run_id_col;         /* index of an I32 column "run_id", -1 if none */
	unsigned char *scratch; /* F8B_BLOCK_ROWS rows */
};

/* ---- HDF5 errors ------------------------------------------------------ */

/* HDF5 keeps a stack of errors from the failing API call down to the
 * innermost routine; the innermost description ("file signature not found",
 * "unable to lock file, errno = 11 ...") is the one a user can act on.
 * Every API call clears the stack on entry, so this must run right after
 * the failing call, before any cleanup call. */
static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data)
{
	char *buf = data;
	(void)n;
	if (buf[0] == '\0' && e->desc && e->desc[0])
		snprintf(buf, F8B_REASON_LEN, "%s", e->desc);
	return 0;
}

/* The advice that fits HDF5's reason, each failure its own ("" when none
 * helps).  The words matched are HDF5's own messages (H5Fsuper.c,
 * H5FD*.c); "sblock" in a truncated file's message is no lock failure. */
static const char *advice(const char *reason)
{
	/* File locking (default since HDF5 1.10) fails on some NFS and Lustre
	 * mounts; HDF5 reads this variable to skip it. */
	if (strstr(reason, "unable to lock") || strstr(reason, "file locking") ||
	    strstr(reason, "lock the file"))
		return "; on a file system without locking set HDF5_USE_FILE_LOCKING=FALSE";
	if (strstr(reason, "signature not found"))
		return "; it is not an HDF5 file: give -o a results file written by f8bench, or a "
		       "new name";
	if (strstr(reason, "truncated file"))
		return "; the file is truncated (a copy or a write that did not finish): restore "
		       "it, or write to a new file";
	return "";
}

static int h5_errorf(const char *file, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* F8B_EIO "results file 'P': cannot WHAT (HDF5: reason)". */
static int h5_errorf(const char *file, int line, const char *path, const char *fmt, ...)
{
	char what[400], reason[F8B_REASON_LEN] = "";
	va_list ap;

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, reason);
	H5Eclear2(H5E_DEFAULT);
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	const char *hint = advice(reason);
	if (reason[0])
		return f8b_errorf(F8B_EIO, file, line, "results file '%s': cannot %s (HDF5: %s%s)",
		                  path, what, reason, hint);
	return f8b_errorf(F8B_EIO, file, line, "results file '%s': cannot %s", path, what);
}
#define H5_ERR(path, ...) h5_errorf(__FILE__, __LINE__, (path), __VA_ARGS__)

/* Library code never prints: HDF5's own printing of its error stack is
 * turned off, and failures become one-line messages (H5_ERR).  Also
 * initialises the library. */
static void h5_quiet(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void close_type(hid_t *t)
{
	if (*t >= 0)
		H5Tclose(*t);
	*t = -1;
}

/* ---- provenance ------------------------------------------------------- */

int f8b_prov_set(struct f8b_provenance *p, const char *key, const char *fmt, ...)
{
	struct f8b_kv *kv = NULL;
	va_list ap;
	int len;

	if (!key || !key[0] || strlen(key) >= sizeof kv->key)
		return F8B_ERR(F8B_EINVAL,
		               "provenance key '%s' is empty or longer than %zu characters",
		               key ? key : "(null)", sizeof kv->key - 1);
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->kv[i].key, key) == 0)
			kv = &p->kv[i];
	if (!kv) {
		if (p->n == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 16;
			struct f8b_kv *v = realloc(p->kv, cap * sizeof *v);
			if (!v)
				return F8B_ERR(F8B_ENOMEM, "no memory for %zu provenance entries",
				               cap);
			p->kv = v;
			p->cap = cap;
		}
		kv = &p->kv[p->n++];
		snprintf(kv->key, sizeof kv->key, "%s", key);
	}
	va_start(ap, fmt);
	len = vsnprintf(kv->value, sizeof kv->value, fmt, ap);
	va_end(ap);
	/* A long value (a command line, say) is cut, and says so. */
	if (len >= (int)sizeof kv->value)
		memcpy(kv->value + sizeof kv->value - 4, "...", 4);
	return F8B_OK;
}

const char *f8b_prov_get(const struct f8b_provenance *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->kv[i].key, key) == 0)
			return p->kv[i].value;
	return NULL;
}

void f8b_prov_free(struct f8b_provenance *p)
{
	free(p->kv);
	p->kv = NULL;
	p->n = p->cap = 0;
}

/* ---- schema ------------------------------------------------------------ */

static size_t field_file_size(const struct f8b_field *f)
{
	switch (f->type) {
	case F8B_FT_I32: return 4;
	case F8B_FT_I64:
	case F8B_FT_F64: return 8;
	default: return f->size;
	}
}

/* A schema is code, not input: a bad one is a bug in schema.c. */
static int check_schema(const struct f8b_table_schema *s)
{
	if (!s || !s->name || !s->name[0] || !s->fields || s->nfields == 0)
		return F8B_ERR(F8B_EINTERNAL, "results schema is missing its name or fields");
	for (size_t i = 0; i < s->nfields; i++) {
		const struct f8b_field *f = &s->fields[i];
		bool size_ok = f->type == F8B_FT_STR ? f->size > 0 : f->size == field_file_size(f);
		if (!f->name || !f->name[0] || !f->unit || !size_ok ||
		    f->offset + f->size > s->row_size || (unsigned)f->type > F8B_FT_STR)
			return F8B_ERR(F8B_EINTERNAL, "schema '%s': column %zu ('%s') is malformed",
			               s->name, i, f->name ? f->name : "(null)");
	}
	return F8B_OK;
}

/* HDF5 type of one column: in the file little-endian, in memory native.
 * Strings are fixed-length and NUL-terminated, zero bytes after the NUL
 * (clean_row): h5py maps them to numpy's 'S<size>' (bytes), h5dump prints
 * them up to the NUL (a NUL-padded type would show every \000), and a
 * string read from another f8bench's wider or narrower column still ends
 * in NUL in the struct.  Returns a new id (the caller closes it) or -1. */
static hid_t column_type(const struct f8b_field *f, bool file)
{
	hid_t t;

	switch (f->type) {
	case F8B_FT_I32: return H5Tcopy(file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
	case F8B_FT_I64: return H5Tcopy(file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
	case F8B_FT_F64: return H5Tcopy(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
	default: break;
	}
	t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return -1;
	if (H5Tset_size(t, f->size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* The schema's row struct as an HDF5 compound (memory layout, for reads). */
static hid_t row_mem_type(const struct f8b_table_schema *s)
{
	hid_t c = H5Tcreate(H5T_COMPOUND, s->row_size);

	for (size_t i = 0; c >= 0 && i < s->nfields; i++) {
		hid_t t = column_type(&s->fields[i], false);
		if (t < 0 || H5Tinsert(c, s->fields[i].name, s->fields[i].offset, t) < 0)
			close_type(&c);
		if (t >= 0)
			H5Tclose(t);
	}
	return c;
}

/* "64-bit integer", "16-byte string"... for messages about column types. */
static void describe_type(hid_t t, char *buf, size_t n)
{
	size_t size = H5Tget_size(t);

	switch (H5Tget_class(t)) {
	case H5T_INTEGER: snprintf(buf, n, "%zu-bit integer", 8 * size); break;
	case H5T_FLOAT: snprintf(buf, n, "%zu-bit float", 8 * size); break;
	case H5T_STRING:
		if (H5Tis_variable_str(t) > 0)
			snprintf(buf, n, "variable-length string");
		else
			snprintf(buf, n, "%zu-byte string", size);
		break;
	case H5T_ENUM: snprintf(buf, n, "enum (h5py's bool is one)"); break;
	case H5T_ARRAY: snprintf(buf, n, "array"); break;
	case H5T_COMPOUND: snprintf(buf, n, "compound"); break;
	default: snprintf(buf, n, "%zu-byte opaque, bitfield, time or reference", size); break;
	}
}

static bool column_type_matches(const struct f8b_field *f, hid_t t)
{
	H5T_class_t c = H5Tget_class(t);
	size_t size = H5Tget_size(t);

	switch (f->type) {
	case F8B_FT_I32:
	case F8B_FT_I64: return c == H5T_INTEGER && size == f->size;
	case F8B_FT_F64: return c == H5T_FLOAT && size == 8;
	default: return c == H5T_STRING && H5Tis_variable_str(t) == 0 && size == f->size;
	}
}

static bool column_readable(const struct f8b_field *f, hid_t t)
{
	/* Anything HDF5 converts: numbers to numbers, fixed strings to fixed
	 * strings (variable-length strings have no conversion to fixed). */
	H5T_class_t c = H5Tget_class(t);

	if (f->type == F8B_FT_STR)
		return c == H5T_STRING && H5Tis_variable_str(t) == 0;
	return c == H5T_INTEGER || c == H5T_FLOAT;
}

/* The column the schema writes next to the one the file has, for one-line
 * errors. */
static int column_type_error(const char *path, const struct f8b_table_schema *s, size_t i, hid_t t)
{
	char have[48], want[48];
	hid_t w = column_type(&s->fields[i], true);

	describe_type(t, have, sizeof have);
	if (w >= 0)
		describe_type(w, want, sizeof want);
	else
		snprintf(want, sizeof want, "?");
	close_type(&w);
	return F8B_ERR(F8B_EIO,
	               "results file '%s': column %zu '%s' of table '%s' has type %s; this "
	               "f8bench expects %s; write to a new file",
	               path, i, s->fields[i].name, s->name, have, want);
}

/* An existing table must have exactly the schema's columns, in order, with
 * the schema's types: H5TBappend_records builds its memory type from the
 * file's own member list. */
static int check_table_columns(hid_t file, const char *path, const struct f8b_table_schema *s)
{
	hid_t d = -1, t = -1, mt = -1;
	int rc = F8B_OK, nm;

	d = H5Dopen2(file, s->name, H5P_DEFAULT);
	if (d < 0)
		return H5_ERR(path, "open table '%s'", s->name);
	t = H5Dget_type(d);
	if (t < 0) {
		rc = H5_ERR(path, "read the column types of table '%s'", s->name);
		goto out;
	}
	if (H5Tget_class(t) != H5T_COMPOUND) {
		rc = F8B_ERR(F8B_EIO,
		             "results file '%s': '%s' is not a table (not a compound dataset)",
		             path, s->name);
		goto out;
	}
	nm = H5Tget_nmembers(t);
	/* H5TBget_field_info would strcpy names of any length into fixed
	 * buffers; H5Tget_member_name allocates instead. */
	for (size_t i = 0; i < s->nfields || i < (size_t)nm; i++) {
		if (i >= (size_t)nm) {
			rc =
			    F8B_ERR(F8B_EIO,
			            "results file '%s': table '%s' lacks column %zu '%s' that this "
			            "f8bench writes; write to a new file",
			            path, s->name, i, s->fields[i].name);
			goto out;
		}
		char *name = H5Tget_member_name(t, (unsigned)i);
		if (!name) {
			rc = H5_ERR(path, "read column %zu of table '%s'", i, s->name);
			goto out;
		}
		if (i >= s->nfields) {
			rc = F8B_ERR(F8B_EIO,
			             "results file '%s': table '%s' has column %zu '%s' that this "
			             "f8bench does not write; write to a new file",
			             path, s->name, i, name);
			H5free_memory(name);
			goto out;
		}
		if (strcmp(name, s->fields[i].name) != 0) {
			rc = F8B_ERR(F8B_EIO,
			             "results file '%s': table '%s' has column %zu '%s' where this "
			             "f8bench writes '%s'; write to a new file",
			             path, s->name, i, name, s->fields[i].name);
			H5free_memory(name);
			goto out;
		}
		H5free_memory(name);
		mt = H5Tget_member_type(t, (unsigned)i);
		if (mt < 0) {
			rc = H5_ERR(path, "read the type of column '%s'", s->fields[i].name);
			goto out;
		}
		if (!column_type_matches(&s->fields[i], mt)) {
			rc = column_type_error(path, s, i, mt);
			goto out;
		}
		close_type(&mt);
	}
out:
	close_type(&mt);
	close_type(&t);
	H5Dclose(d);
	return rc;
}

/* ---- attributes -------------------------------------------------------- */

static int write_int_attr(hid_t file, const char *path, const char *name, int value)
{
	hid_t sp = H5Screate(H5S_SCALAR), a = -1;
	int rc = F8B_OK;

	if (sp >= 0)
		a = H5Acreate2(file, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, H5T_NATIVE_INT, &value) < 0)
		rc = H5_ERR(path, "write attribute '%s'", name);
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

static bool reserved_key(const char *key)
{
	return strcmp(key, F8B_ATTR_SCHEMA) == 0 || strcmp(key, F8B_ATTR_FORMAT) == 0;
}

/* Provenance as fixed-length string attributes of object `obj` ("/" or
 * "/runs/N"); h5py reads them as bytes, h5dump prints them. */
static int write_prov(hid_t file, const char *path, const char *obj,
                      const struct f8b_provenance *prov)
{
	for (size_t i = 0; prov && i < prov->n; i++) {
		if (H5LTset_attribute_string(file, obj, prov->kv[i].key, prov->kv[i].value) < 0)
			return H5_ERR(path, "write provenance attribute '%s' on '%s'",
			              prov->kv[i].key, obj);
	}
	return F8B_OK;
}

/* ---- table and runs ---------------------------------------------------- */

/* An empty, chunked, extendible H5TB table with the schema's columns packed
 * (no struct padding in the file), plus FIELD_<i>_UNIT beside H5TB's
 * FIELD_<i>_NAME. */
static int make_table(hid_t file, const char *path, const struct f8b_table_schema *s)
{
	const char **names = calloc(s->nfields, sizeof *names);
	size_t *offs = calloc(s->nfields, sizeof *offs);
	hid_t *types = calloc(s->nfields, sizeof *types);
	size_t off = 0, i;
	int rc = F8B_OK;

	for (i = 0; types && i < s->nfields; i++)
		types[i] = -1;
	if (!names || !offs || !types) {
		rc = F8B_ERR(F8B_ENOMEM, "no memory for the %zu columns of table '%s'", s->nfields,
		             s->name);
		goto out;
	}
	for (i = 0; i < s->nfields; i++) {
		names[i] = s->fields[i].name;
		offs[i] = off;
		off += field_file_size(&s->fields[i]);
		types[i] = column_type(&s->fields[i], true);
		if (types[i] < 0) {
			rc = H5_ERR(path, "make the type of column '%s'", names[i]);
			goto out;
		}
	}
	/* Compression stays off: rows are small and few, and the deflate
	 * filter is optional in HDF5 builds. */
	if (H5TBmake_table(s->title ? s->title : s->name, file, s->name, s->nfields, 0, off, names,
	                   offs, types, F8B_CHUNK_ROWS, NULL, 0, NULL) < 0) {
		rc = H5_ERR(path, "create table '%s'", s->name);
		goto out;
	}
	for (i = 0; i < s->nfields; i++) {
		char attr[32];
		snprintf(attr, sizeof attr, "FIELD_%zu_UNIT", i);
		if (H5LTset_attribute_string(file, s->name, attr, s->fields[i].unit) < 0) {
			rc = H5_ERR(path, "write the unit of column '%s'", names[i]);
			goto out;
		}
	}
out:
	for (i = 0; types && i < s->nfields; i++)
		close_type(&types[i]);
	free(names);
	free(offs);
	free(types);
	return rc;
}

/* Run ids are the names of /runs' subgroups; the next is one past the
 * largest (names that are not numbers are someone else's and ignored). */
static int next_run_id(hid_t file, const char *path, int *id)
{
	H5G_info_t info;
	hid_t g = H5Gopen2(file, F8B_RUNS, H5P_DEFAULT);
	long max = -1;
	int rc = F8B_OK;

	if (g < 0 || H5Gget_info(g, &info) < 0) {
		rc = H5_ERR(path, "list the runs in group " F8B_RUNS);
		goto out;
	}
	for (hsize_t i = 0; i < info.nlinks; i++) {
		char name[32], *end;
		ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
		                                 sizeof name, H5P_DEFAULT);
		if (len < 0) {
			rc = H5_ERR(path, "list the runs in group " F8B_RUNS);
			goto out;
		}
		if (len == 0 || (size_t)len >= sizeof name || name[0] < '0' || name[0] > '9')
			continue;
		errno = 0;
		long v = strtol(name, &end, 10);
		if (*end == '\0' && errno == 0 && v > max)
			max = v;
	}
	if (max >= INT_MAX) {
		rc = F8B_ERR(F8B_EIO, "results file '%s': run id %ld in " F8B_RUNS " is too large",
		             path, max);
		goto out;
	}
	*id = (int)(max + 1);
out:
	if (g >= 0)
		H5Gclose(g);
	return rc;
}

static int make_run_group(hid_t file, const char *path, int id, const struct f8b_provenance *prov)
{
	char name[48];
	hid_t g;
	htri_t have = H5Lexists(file, F8B_RUNS, H5P_DEFAULT);

	if (have < 0)
		return H5_ERR(path, "look for group " F8B_RUNS);
	if (!have) {
		g = H5Gcreate2(file, F8B_RUNS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		if (g < 0)
			return H5_ERR(path, "create group " F8B_RUNS);
		H5Gclose(g);
	}
	snprintf(name, sizeof name, F8B_RUNS "/%d", id);
	g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return H5_ERR(path, "create group %s", name);
	H5Gclose(g);
	return write_prov(file, path, name, prov);
}

/* Schema version, format, creating run's provenance, empty table, /runs/0. */
static int write_new_file(hid_t file, const char *path, const struct f8b_table_schema *s,
                          const struct f8b_provenance *prov)
{
	F8B_TRY(write_int_attr(file, path, F8B_ATTR_SCHEMA, F8B_SCHEMA_VERSION));
	if (H5LTset_attribute_string(file, "/", F8B_ATTR_FORMAT, F8B_FORMAT_VALUE) < 0)
		return H5_ERR(path, "write attribute '" F8B_ATTR_FORMAT "'");
	F8B_TRY(write_prov(file, path, "/", prov));
	F8B_TRY(make_table(file, path, s));
	return make_run_group(file, path, 0, prov);
}

/* ---- open / create ----------------------------------------------------- */

/* The directory that will hold path must exist and be writable, or the
 * user gets HDF5's long create error instead of this line.  (access() says
 * yes to root everywhere; then H5Fcreate is the check.) */
static int check_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK) == 0)
		return F8B_OK;
	if (errno == ENOENT)
		return F8B_ERR(F8B_EIO,
		               "cannot create results file '%s': directory '%s' does not exist",
		               path, dir);
	if (errno == ENOTDIR)
		return F8B_ERR(F8B_EIO, "cannot create results file '%s': '%s' is not a directory",
		               path, dir);
	return F8B_ERR(F8B_EIO,
	               "cannot create results file '%s': directory '%s' is not writable (%s)", path,
	               dir, strerror(errno));
}

static int refuse_existing(const char *path)
{
	return F8B_ERR(F8B_EIO,
	               "results file '%s' already exists; refusing to overwrite it (pass --append "
	               "to add this run's rows to it, or choose another output file)",
	               path);
}

/* Puts the finished temporary file at path without replacing anything:
 * link() fails with EEXIST where rename() would silently overwrite a file
 * that appeared since we looked.  File systems without hard links get a
 * re-check and rename(). */
static int publish(const char *tmp, const char *path)
{
	struct stat st;

	if (link(tmp, path) == 0) {
		unlink(tmp);
		return F8B_OK;
	}
	if (errno == EEXIST)
		return refuse_existing(path);
	if (lstat(path, &st) == 0)
		return refuse_existing(path);
	if (rename(tmp, path) != 0)
		return F8B_ERR(F8B_EIO, "cannot rename '%s' to results file '%s': %s", tmp, path,
		               strerror(errno));
	return F8B_OK;
}

static int create_file(struct f8b_results *r, const struct f8b_provenance *prov)
{
	char tmp[PATH_MAX];
	hid_t f;
	int rc;

	F8B_TRY(check_dir(r->path));
	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", r->path, (long)getpid()) >= (int)sizeof tmp)
		return F8B_ERR(F8B_EINVAL, "results file name '%s' is too long", r->path);
	/* TRUNC, not EXCL: a leftover with our pid is from a dead process. */
	f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(tmp, "create temporary file for '%s'", r->path);
	rc = write_new_file(f, r->path, r->schema, prov);
	if (rc == F8B_OK && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0)
		rc = H5_ERR(tmp, "flush temporary file");
	if (H5Fclose(f) < 0 && rc == F8B_OK)
		rc = H5_ERR(tmp, "close temporary file");
	if (rc == F8B_OK)
		rc = publish(tmp, r->path);
	if (rc != F8B_OK) {
		unlink(tmp);
		return rc;
	}
	r->file = H5Fopen(r->path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (r->file < 0) {
		rc = H5_ERR(r->path, "reopen the new file for appending");
		unlink(r->path);
		return rc;
	}
	r->created = true;
	r->run_id = 0;
	return F8B_OK;
}

static int read_schema_version(hid_t file, const char *path, int *v)
{
	htri_t have = H5Aexists_by_name(file, "/", F8B_ATTR_SCHEMA, H5P_DEFAULT);
	hid_t a;
	herr_t e;

	if (have < 0)
		return H5_ERR(path, "read the attributes of its root group");
	if (!have)
		return F8B_ERR(F8B_EIO,
		               "'%s' is not an f8bench results file (its root group has no '%s' "
		               "attribute); choose another output file",
		               path, F8B_ATTR_SCHEMA);
	a = H5Aopen(file, F8B_ATTR_SCHEMA, H5P_DEFAULT);
	if (a < 0)
		return H5_ERR(path, "open attribute '%s'", F8B_ATTR_SCHEMA);
	e = H5Aread(a, H5T_NATIVE_INT, v);
	H5Aclose(a);
	if (e < 0)
		return H5_ERR(path, "read attribute '%s' as an integer", F8B_ATTR_SCHEMA);
	return F8B_OK;
}

static int open_existing(struct f8b_results *r, const struct f8b_provenance *prov)
{
	const struct f8b_table_schema *s = r->schema;
	htri_t have;
	int v, rc;

	r->file = H5Fopen(r->path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (r->file < 0)
		return H5_ERR(r->path, "open it for appending");
	F8B_TRY(read_schema_version(r->file, r->path, &v));
	if (v != F8B_SCHEMA_VERSION)
		return F8B_ERR(F8B_EIO,
		               "results file '%s' has schema version %d but this f8bench writes "
		               "version %d; write to a new file",
		               r->path, v, F8B_SCHEMA_VERSION);
	have = H5Lexists(r->file, s->name, H5P_DEFAULT);
	if (have < 0)
		return H5_ERR(r->path, "look for table '%s'", s->name);
	if (have) {
		F8B_TRY(check_table_columns(r->file, r->path, s));
	} else {
		F8B_TRY(make_table(r->file, r->path, s));
		r->created_table = true;
	}
	have = H5Lexists(r->file, F8B_RUNS, H5P_DEFAULT);
	if (have < 0)
		return H5_ERR(r->path, "look for group " F8B_RUNS);
	r->run_id = 0;
	if (have)
		F8B_TRY(next_run_id(r->file, r->path, &r->run_id));
	rc = make_run_group(r->file, r->path, r->run_id, prov);
	if (rc == F8B_OK && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		rc = H5_ERR(r->path, "flush");
	return rc;
}

static void results_free(struct f8b_results *r)
{
	free(r->path);
	free(r->offsets);
	free(r->sizes);
	free(r->scratch);
	free(r);
}

int f8b_results_open(const char *path, bool append, const struct f8b_table_schema *schema,
                     const struct f8b_provenance *prov, struct f8b_results **out, int *run_id)
{
	struct f8b_results *r;
	struct stat st;
	bool exists;
	int rc;

	*out = NULL;
	h5_quiet();
	if (!path || !path[0])
		return F8B_ERR(F8B_EINVAL, "results file name is empty");
	F8B_TRY(check_schema(schema));
	for (size_t i = 0; prov && i < prov->n; i++)
		if (reserved_key(prov->kv[i].key))
			return F8B_ERR(
			    F8B_EINTERNAL,
			    "provenance key '%s' is reserved for the results file itself",
			    prov->kv[i].key);
	exists = lstat(path, &st) == 0;
	if (exists && !append)
		return refuse_existing(path);

	r = calloc(1, sizeof *r);
	if (!r)
		return F8B_ERR(F8B_ENOMEM, "no memory to open results file '%s'", path);
	r->file = -1;
	r->schema = schema;
	r->run_id_col = -1;
	r->path = strdup(path);
	r->offsets = calloc(schema->nfields, sizeof *r->offsets);
	r->sizes = calloc(schema->nfields, sizeof *r->sizes);
	r->scratch = malloc(F8B_BLOCK_ROWS * schema->row_size);
	if (!r->path || !r->offsets || !r->sizes || !r->scratch) {
		results_free(r);
		return F8B_ERR(F8B_ENOMEM, "no memory to open results file '%s'", path);
	}
	for (size_t i = 0; i < schema->nfields; i++) {
		r->offsets[i] = schema->fields[i].offset;
		r->sizes[i] = schema->fields[i].size;
		if (schema->fields[i].type == F8B_FT_I32 &&
		    strcmp(schema->fields[i].name, "run_id") == 0)
			r->run_id_col = (int)i;
	}

	rc = exists ? open_existing(r, prov) : create_file(r, prov);
	if (rc != F8B_OK) {
		if (r->file >= 0)
			H5Fclose(r->file);
		results_free(r);
		return rc;
	}
	if (run_id)
		*run_id = r->run_id;
	*out = r;
	return F8B_OK;
}

/* ---- append / close ------------------------------------------------------ */

/* What goes to the file from a row: string columns cut to size - 1 bytes
 * and zeroed after the first NUL (numpy keeps bytes after an embedded NUL,
 * so stale bytes behind a short string would show up in h5py), and the
 * run_id column set to this run's id, so every row points at its /runs
 * group. */
static void clean_row(const struct f8b_results *r, unsigned char *row)
{
	const struct f8b_table_schema *s = r->schema;

	for (size_t i = 0; i < s->nfields; i++) {
		const struct f8b_field *f = &s->fields[i];
		if (f->type != F8B_FT_STR)
			continue;
		char *str = (char *)row + f->offset;
		str[f->size - 1] = '\0';
		size_t len = strlen(str);
		memset(str + len, 0, f->size - len);
	}
	if (r->run_id_col >= 0) {
		int32_t id = r->run_id;
		memcpy(row + s->fields[r->run_id_col].offset, &id, sizeof id);
	}
}

int f8b_results_append(struct f8b_results *r, const void *rows, size_t n)
{
	const struct f8b_table_schema *s;
	const unsigned char *src = rows;

	if (!r || (n > 0 && !rows))
		return F8B_ERR(F8B_EINTERNAL, "append of %zu rows: no open results file or no rows",
		               n);
	h5_quiet();
	s = r->schema;
	while (n > 0) {
		size_t k = n < F8B_BLOCK_ROWS ? n : F8B_BLOCK_ROWS;
		memcpy(r->scratch, src, k * s->row_size);
		for (size_t i = 0; i < k; i++)
			clean_row(r, r->scratch + i * s->row_size);
		if (H5TBappend_records(r->file, s->name, k, s->row_size, r->offsets, r->sizes,
		                       r->scratch) < 0)
			return H5_ERR(r->path, "append %zu rows to table '%s'", k, s->name);
		r->appended += k;
		src += k * s->row_size;
		n -= k;
	}
	/* Data and metadata on disk now, so a kill later loses nothing
	 * appended so far. */
	if (H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0)
		return H5_ERR(r->path, "flush rows to disk");
	return F8B_OK;
}

int f8b_results_close(struct f8b_results *r)
{
	int rc = F8B_OK;

	if (!r)
		return F8B_OK;
	if (r->file >= 0) {
		h5_quiet();
		if (H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0)
			rc = H5_ERR(r->path, "flush");
		if (H5Fclose(r->file) < 0 && rc == F8B_OK)
			rc = H5_ERR(r->path, "close");
	}
	results_free(r);
	return rc;
}

void f8b_results_abandon(struct f8b_results *r)
{
	if (!r)
		return;
	h5_quiet();
	/* Rows already written are results; keep them (and the file). */
	if (r->appended == 0 && r->created) {
		H5Fclose(r->file);
		r->file = -1;
		unlink(r->path);
	} else if (r->appended == 0) {
		/* An existing file: take back this run's group (and a table it
		 * added), so the file looks as if the run never opened it. */
		char name[48];
		snprintf(name, sizeof name, F8B_RUNS "/%d", r->run_id);
		H5Ldelete(r->file, name, H5P_DEFAULT);
		if (r->created_table)
			H5Ldelete(r->file, r->schema->name, H5P_DEFAULT);
	}
	/* abandon is a cleanup path: its own failures have nowhere to go. */
	f8b_results_close(r);
}

/* ---- reading ----------------------------------------------------------- */

int f8b_results_read(const char *path, const struct f8b_table_schema *schema, void **rows,
                     size_t *n)
{
	hid_t f = -1, d = -1, ft = -1, mt = -1, sp = -1;
	hsize_t dims[1] = {0};
	int64_t bytes;
	void *buf = NULL;
	int rc = F8B_OK;
	htri_t have;
	bool *missing = NULL;         /* columns the file lacks */
	struct f8b_field *sub = NULL; /* the ones it has */
	struct f8b_table_schema subset = *schema;
	size_t present = 0;

	*rows = NULL;
	*n = 0;
	h5_quiet();
	F8B_TRY(check_schema(schema));
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(path, "open it for reading");
	have = H5Lexists(f, schema->name, H5P_DEFAULT);
	if (have <= 0) {
		rc = have < 0 ? H5_ERR(path, "look for table '%s'", schema->name)
		              : F8B_ERR(F8B_EIO, "results file '%s' has no table '%s'", path,
		                        schema->name);
		goto out;
	}
	d = H5Dopen2(f, schema->name, H5P_DEFAULT);
	if (d < 0 || (ft = H5Dget_type(d)) < 0) {
		rc = H5_ERR(path, "open table '%s'", schema->name);
		goto out;
	}
	if (H5Tget_class(ft) != H5T_COMPOUND) {
		rc = F8B_ERR(F8B_EIO,
		             "results file '%s': '%s' is not a table (not a compound dataset)",
		             path, schema->name);
		goto out;
	}
	/* Columns are found by name, so a file whose columns sit in another
	 * order (or has extra ones) still reads into this layout.  A column
	 * the file lacks (it was written by an f8bench that had not added it
	 * yet) reads as NaN, 0 or "" in every row; a file with none of the
	 * columns is no table of this kind. */
	missing = calloc(schema->nfields, sizeof *missing);
	sub = calloc(schema->nfields, sizeof *sub);
	if (!missing || !sub) {
		rc = F8B_ERR(F8B_ENOMEM, "reading table '%s'", schema->name);
		goto out;
	}
	for (size_t i = 0; i < schema->nfields; i++) {
		int idx = H5Tget_member_index(ft, schema->fields[i].name);
		if (idx < 0) {
			H5Eclear2(H5E_DEFAULT);
			missing[i] = true;
			continue;
		}
		sub[present++] = schema->fields[i];
		hid_t ct = H5Tget_member_type(ft, (unsigned)idx);
		bool ok = ct >= 0 && column_readable(&schema->fields[i], ct);
		if (!ok && ct >= 0)
			rc = column_type_error(path, schema, i, ct);
		else if (!ok)
			rc = H5_ERR(path, "read the type of column '%s'", schema->fields[i].name);
		close_type(&ct);
		if (!ok)
			goto out;
	}
	subset.fields = sub;
	subset.nfields = present;
	if (present == 0) {
		rc = F8B_ERR(F8B_EIO,
		             "results file '%s': table '%s' has none of the columns f8bench reads",
		             path, schema->name);
		goto out;
	}
	sp = H5Dget_space(d);
	if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 1 ||
	    H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
		rc = H5_ERR(path, "read the row count of table '%s'", schema->name);
		goto out;
	}
	if (dims[0] == 0)
		goto out;
	if (dims[0] > INT64_MAX ||
	    f8b_mul_overflows((int64_t)dims[0], (int64_t)schema->row_size, &bytes) ||
	    (uint64_t)bytes > SIZE_MAX) {
		rc = F8B_ERR(F8B_ENOMEM, "results file '%s': table '%s' has too many rows (%llu)",
		             path, schema->name, (unsigned long long)dims[0]);
		goto out;
	}
	/* Zeroed, so struct padding is defined. */
	buf = calloc((size_t)dims[0], schema->row_size);
	if (!buf) {
		rc = F8B_ERR(F8B_ENOMEM, "no memory for %llu rows of table '%s' from '%s'",
		             (unsigned long long)dims[0], schema->name, path);
		goto out;
	}
	mt = row_mem_type(&subset);
	if (mt < 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
		rc = H5_ERR(path, "read the rows of table '%s'", schema->name);
		goto out;
	}
	for (size_t i = 0; i < schema->nfields; i++) {
		if (!missing[i] || schema->fields[i].type != F8B_FT_F64)
			continue;
		for (hsize_t r = 0; r < dims[0]; r++) {
			double nan = NAN;
			memcpy((char *)buf + r * schema->row_size + schema->fields[i].offset, &nan,
			       sizeof nan);
		}
	}
	*rows = buf;
	*n = (size_t)dims[0];
	buf = NULL;
out:
	free(buf);
	free(missing);
	free(sub);
	close_type(&mt);
	close_type(&ft);
	if (sp >= 0)
		H5Sclose(sp);
	if (d >= 0)
		H5Dclose(d);
	H5Fclose(f);
	return rc;
}

bool f8b_results_list_has(const char *names, const char *table)
{
	size_t n = strlen(table);
	for (const char *p = names; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && !strncmp(p, table, n))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

struct prov_ctx {
	struct f8b_provenance *p;
	const char *path;
	int rc;
};

/* One attribute as text: strings as they are, numbers printed; other
 * types and arrays are not provenance and are skipped. */
static int read_attr_text(hid_t a, const char *path, const char *name, char *out, size_t n)
{
	hid_t t = H5Aget_type(a), sp = H5Aget_space(a), mt = -1;
	int rc = F8B_OK;

	out[0] = '\0';
	if (t < 0 || sp < 0) {
		rc = H5_ERR(path, "read attribute '%s'", name);
		goto out;
	}
	if (H5Sget_simple_extent_npoints(sp) != 1)
		goto out;
	switch (H5Tget_class(t)) {
	case H5T_INTEGER: {
		long long v;
		if (H5Aread(a, H5T_NATIVE_LLONG, &v) < 0)
			rc = H5_ERR(path, "read attribute '%s'", name);
		else
			snprintf(out, n, "%lld", v);
		break;
	}
	case H5T_FLOAT: {
		double v;
		if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0)
			rc = H5_ERR(path, "read attribute '%s'", name);
		else
			snprintf(out, n, "%.17g", v);
		break;
	}
	case H5T_STRING:
		mt = H5Tcopy(H5T_C_S1);
		/* In the attribute's own character set: HDF5 does not convert
		 * between ASCII and UTF-8 (h5py writes UTF-8). */
		if (mt >= 0 && H5Tset_cset(mt, H5Tget_cset(t)) < 0)
			close_type(&mt);
		if (H5Tis_variable_str(t) > 0) {
			/* As h5py writes them by default. */
			char *s = NULL;
			if (mt < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Aread(a, mt, &s) < 0) {
				rc = H5_ERR(path, "read attribute '%s'", name);
				break;
			}
			snprintf(out, n, "%s", s ? s : "");
			H5free_memory(s);
		} else {
			if (mt < 0 || H5Tset_size(mt, n) < 0 ||
			    H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 || H5Aread(a, mt, out) < 0)
				rc = H5_ERR(path, "read attribute '%s'", name);
		}
		break;
	default: break;
	}
out:
	close_type(&mt);
	close_type(&t);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

static herr_t prov_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
	struct prov_ctx *c = data;
	struct f8b_kv kv;
	hid_t a;
	(void)info;

	if (strlen(name) >= sizeof kv.key)
		return 0; /* not one of ours */
	a = H5Aopen(loc, name, H5P_DEFAULT);
	if (a < 0) {
		c->rc = H5_ERR(c->path, "open attribute '%s'", name);
		return -1;
	}
	c->rc = read_attr_text(a, c->path, name, kv.value, sizeof kv.value);
	H5Aclose(a);
	if (c->rc == F8B_OK)
		c->rc = f8b_prov_set(c->p, name, "%s", kv.value);
	return c->rc == F8B_OK ? 0 : -1;
}

int f8b_results_read_provenance(const char *path, struct f8b_provenance *p)
{
	struct prov_ctx c = {p, path, F8B_OK};
	hsize_t idx = 0;
	hid_t f;

	h5_quiet();
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(path, "open it for reading");
	if (H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, &idx, prov_cb, &c) < 0 && c.rc == F8B_OK)
		c.rc = H5_ERR(path, "list the attributes of its root group");
	H5Fclose(f);
	return c.rc;
}

/* ---- CSV export ---------------------------------------------------------- */

enum csv_kind { CSV_INT, CSV_UINT, CSV_F32, CSV_F64, CSV_STR, CSV_VSTR };

struct csv_col {
	char *name;
	enum csv_kind kind;
	size_t offset; /* in the memory row */
};

/* RFC 4180: a field is quoted only when it holds a comma, quote or line
 * break, and quotes inside it are doubled. */
static void csv_string(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_double(FILE *out, double v, bool f32)
{
	if (isnan(v))
		fputs("nan", out);
	else if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", out);
	else /* 17 (9) significant digits round-trip any double (float). */
		fprintf(out, f32 ? "%.9g" : "%.17g", v);
}

static void csv_value(FILE *out, const struct csv_col *c, const unsigned char *row)
{
	const void *p = row + c->offset;
	long long i;
	unsigned long long u;
	double d;
	const char *s;

	switch (c->kind) {
	case CSV_INT:
		memcpy(&i, p, sizeof i);
		fprintf(out, "%lld", i);
		break;
	case CSV_UINT:
		memcpy(&u, p, sizeof u);
		fprintf(out, "%llu", u);
		break;
	case CSV_F32:
	case CSV_F64:
		memcpy(&d, p, sizeof d);
		csv_double(out, d, c->kind == CSV_F32);
		break;
	case CSV_STR: csv_string(out, p); break;
	case CSV_VSTR:
		memcpy(&s, p, sizeof s);
		csv_string(out, s ? s : "");
		break;
	}
}

/* Maps file member i to a memory member: integers to (unsigned) long long,
 * floats to double, strings to NUL-terminated text.  Returns the memory
 * type (new id), or -1 with *unsupported set for other classes. */
static hid_t csv_member_type(hid_t ft, struct csv_col *c, size_t *slot, bool *unsupported)
{
	hid_t t;

	*unsupported = false;
	switch (H5Tget_class(ft)) {
	case H5T_INTEGER:
		c->kind = H5Tget_sign(ft) == H5T_SGN_NONE ? CSV_UINT : CSV_INT;
		*slot = 8;
		return H5Tcopy(c->kind == CSV_UINT ? H5T_NATIVE_ULLONG : H5T_NATIVE_LLONG);
	case H5T_FLOAT:
		c->kind = H5Tget_size(ft) <= 4 ? CSV_F32 : CSV_F64;
		*slot = 8;
		return H5Tcopy(H5T_NATIVE_DOUBLE);
	case H5T_STRING:
		t = H5Tcopy(H5T_C_S1);
		/* HDF5 does not convert between ASCII and UTF-8 (h5py writes
		 * UTF-8): read the bytes in the file's own character set. */
		if (t < 0 || H5Tset_cset(t, H5Tget_cset(ft)) < 0) {
			close_type(&t);
			return -1;
		}
		if (H5Tis_variable_str(ft) > 0) {
			c->kind = CSV_VSTR;
			*slot = sizeof(char *);
			if (H5Tset_size(t, H5T_VARIABLE) < 0)
				close_type(&t);
			return t;
		}
		/* One more byte than the file's, for the terminating NUL. */
		c->kind = CSV_STR;
		*slot = (H5Tget_size(ft) + 1 + 7) & ~(size_t)7;
		if (H5Tset_size(t, H5Tget_size(ft) + 1) < 0 ||
		    H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)
			close_type(&t);
		return t;
	default: *unsupported = true; return -1;
	}
}

/* One table: a "# table NAME" line if titled, the header, the rows. */
static int csv_table(hid_t d, const char *path, const char *name, bool titled, FILE *out)
{
	hid_t ft = -1, mt = -1, fsp = -1, msp = -1;
	struct csv_col *cols = NULL;
	unsigned char *buf = NULL;
	hsize_t dims[1] = {0};
	size_t size = 0, nc = 0;
	int rc = F8B_OK, nm;

	ft = H5Dget_type(d);
	nm = ft >= 0 ? H5Tget_nmembers(ft) : -1;
	if (nm < 0) {
		rc = H5_ERR(path, "read the columns of table '%s'", name);
		goto out;
	}
	cols = calloc((size_t)nm + 1, sizeof *cols);
	if (!cols) {
		rc = F8B_ERR(F8B_ENOMEM, "no memory for the columns of table '%s'", name);
		goto out;
	}
	/* First pass: offsets of the memory row. */
	for (nc = 0; nc < (size_t)nm; nc++) {
		hid_t m = H5Tget_member_type(ft, (unsigned)nc), t;
		size_t slot = 0;
		bool unsupported;
		cols[nc].name = H5Tget_member_name(ft, (unsigned)nc);
		if (m < 0 || !cols[nc].name) {
			close_type(&m);
			rc = H5_ERR(path, "read column %zu of table '%s'", nc, name);
			nc++;
			goto out;
		}
		t = csv_member_type(m, &cols[nc], &slot, &unsupported);
		if (t < 0) {
			char have[48];
			describe_type(m, have, sizeof have);
			rc = unsupported
			         ? F8B_ERR(
			               F8B_EUNSUPPORTED,
			               "results file '%s': column '%s' of table '%s' has type %s; "
			               "CSV export takes integers, floats and strings",
			               path, cols[nc].name, name, have)
			         : H5_ERR(path, "make a type for column '%s'", cols[nc].name);
			close_type(&m);
			nc++;
			goto out;
		}
		cols[nc].offset = size;
		size += slot;
		close_type(&m);
		close_type(&t);
	}
	/* Second pass: the memory compound, now that its size is known. */
	mt = H5Tcreate(H5T_COMPOUND, size ? size : 1);
	for (size_t i = 0; mt >= 0 && i < nc; i++) {
		hid_t m = H5Tget_member_type(ft, (unsigned)i), t;
		size_t slot;
		bool unsupported;
		t = m >= 0 ? csv_member_type(m, &cols[i], &slot, &unsupported) : -1;
		if (t < 0 || H5Tinsert(mt, cols[i].name, cols[i].offset, t) < 0)
			close_type(&mt);
		close_type(&t);
		close_type(&m);
	}
	if (mt < 0) {
		rc = H5_ERR(path, "make the memory type of table '%s'", name);
		goto out;
	}
	if (titled)
		fprintf(out, "# table %s\n", name);
	for (size_t i = 0; i < nc; i++) {
		if (i)
			fputc(',', out);
		csv_string(out, cols[i].name);
	}
	fputc('\n', out);

	fsp = H5Dget_space(d);
	if (fsp < 0 || H5Sget_simple_extent_ndims(fsp) != 1 ||
	    H5Sget_simple_extent_dims(fsp, dims, NULL) < 0) {
		rc = H5_ERR(path, "read the row count of table '%s'", name);
		goto out;
	}
	buf = calloc(F8B_BLOCK_ROWS, size ? size : 1);
	if (!buf) {
		rc = F8B_ERR(F8B_ENOMEM, "no memory to export table '%s'", name);
		goto out;
	}
	for (hsize_t start = 0; start < dims[0]; start += F8B_BLOCK_ROWS) {
		hsize_t count = dims[0] - start < F8B_BLOCK_ROWS ? dims[0] - start : F8B_BLOCK_ROWS;
		msp = H5Screate_simple(1, &count, NULL);
		if (msp < 0 ||
		    H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
		    H5Dread(d, mt, msp, fsp, H5P_DEFAULT, buf) < 0) {
			rc = H5_ERR(path, "read rows %llu.. of table '%s'",
			            (unsigned long long)start, name);
			goto out;
		}
		for (hsize_t r = 0; r < count; r++) {
			const unsigned char *row = buf + r * size;
			for (size_t i = 0; i < nc; i++) {
				if (i)
					fputc(',', out);
				csv_value(out, &cols[i], row);
			}
			fputc('\n', out);
			/* Variable-length strings were malloc'ed by HDF5. */
			for (size_t i = 0; i < nc; i++) {
				if (cols[i].kind == CSV_VSTR) {
					char *s;
					memcpy(&s, row + cols[i].offset, sizeof s);
					H5free_memory(s);
				}
			}
		}
		H5Sclose(msp);
		msp = -1;
	}
out:
	for (size_t i = 0; cols && i < nc; i++)
		H5free_memory(cols[i].name);
	free(cols);
	free(buf);
	if (msp >= 0)
		H5Sclose(msp);
	if (fsp >= 0)
		H5Sclose(fsp);
	close_type(&mt);
	close_type(&ft);
	return rc;
}

/* The dataset `name` if it is a compound (table) dataset, else -1 with
 * *is_table false. */
static hid_t open_table(hid_t f, const char *name, bool *is_table)
{
	hid_t o = H5Oopen(f, name, H5P_DEFAULT), t;

	*is_table = false;
	if (o < 0)
		return -1;
	if (H5Iget_type(o) != H5I_DATASET) {
		H5Oclose(o);
		return -1;
	}
	t = H5Dget_type(o);
	*is_table = t >= 0 && H5Tget_class(t) == H5T_COMPOUND;
	close_type(&t);
	if (!*is_table) {
		H5Oclose(o);
		return -1;
	}
	return o;
}

int f8b_results_tables(const char *path, char *names, size_t size)
{
	H5G_info_t info;
	size_t len = 0;
	bool is_table;
	int rc = F8B_OK;

	if (size)
		names[0] = '\0';
	h5_quiet();
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(path, "open it for reading");
	if (H5Gget_info(f, &info) < 0)
		rc = H5_ERR(path, "list its root group");
	for (hsize_t i = 0; rc == F8B_OK && i < info.nlinks; i++) {
		char name[256];
		ssize_t n = H5Lget_name_by_idx(f, "/", H5_INDEX_NAME, H5_ITER_INC, i, name,
		                               sizeof name, H5P_DEFAULT);
		if (n < 0)
			rc = H5_ERR(path, "list its root group");
		if (n < 0 || (size_t)n >= sizeof name)
			continue;
		hid_t d = open_table(f, name, &is_table);
		if (d < 0) {
			H5Eclear2(H5E_DEFAULT);
			continue;
		}
		H5Oclose(d);
		if (len + (size_t)n + 2 < size)
			len += (size_t)snprintf(names + len, size - len, "%s%s", len ? "," : "", name);
	}
	H5Fclose(f);
	return rc;
}

int f8b_results_export_csv(const char *path, const char *table, FILE *out)
{
	H5G_info_t info;
	hid_t f, d;
	bool is_table;
	int rc = F8B_OK;

	h5_quiet();
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(path, "open it for reading");
	if (table) {
		htri_t have = H5Lexists(f, table, H5P_DEFAULT);
		d = have > 0 ? open_table(f, table, &is_table) : -1;
		if (d < 0) {
			H5Eclear2(H5E_DEFAULT);
			rc =
			    F8B_ERR(F8B_EINVAL, "results file '%s' has no table '%s'", path, table);
			goto out;
		}
		rc = csv_table(d, path, table, false, out);
		H5Oclose(d);
		goto out;
	}
	if (H5Gget_info(f, &info) < 0) {
		rc = H5_ERR(path, "list its root group");
		goto out;
	}
	/* Every table of the root group, in name order. */
	for (hsize_t i = 0; i < info.nlinks && rc == F8B_OK; i++) {
		char name[256];
		ssize_t len = H5Lget_name_by_idx(f, "/", H5_INDEX_NAME, H5_ITER_INC, i, name,
		                                 sizeof name, H5P_DEFAULT);
		if (len < 0) {
			rc = H5_ERR(path, "list its root group");
			break;
		}
		if ((size_t)len >= sizeof name)
			continue; /* not a name f8bench gives its tables */
		d = open_table(f, name, &is_table);
		if (d < 0) {
			H5Eclear2(H5E_DEFAULT);
			continue;
		}
		rc = csv_table(d, path, name, true, out);
		H5Oclose(d);
	}
out:
	H5Fclose(f);
	if (rc == F8B_OK && (fflush(out) != 0 || ferror(out)))
		rc = F8B_ERR(F8B_EIO, "writing the CSV export of '%s' failed: %s", path,
		             strerror(errno));
	return rc;
}
