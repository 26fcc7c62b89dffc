/* results.c - what the results files' code shares: HDF5 error messages
 * with the advice that fits, the column types of a schema, and the checks
 * of a file's table against a schema.  results.h states the contract;
 * doc/results.md the file layout.  The other parts: results_write.c
 * (create, append, close), results_read.c (read back, list tables),
 * results_prov.c (provenance attributes), results_csv.c (CSV export).
 *
 * Only HDF5 calls whose signatures are the same in 1.10, 1.12 and 1.14 are
 * used (no H5Literate/H5Oget_info/H5Lget_info, whose info structs changed in
 * 1.12), and files are written with the library's default (earliest) format
 * bounds, so a file written on a GPU node with HDF5 1.10 reads anywhere.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_int.h"
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

/* F8B_EIO "results file 'P': cannot WHAT (HDF5: reason)". */
int f8b_h5_errorf(const char *file, int line, const char *path, const char *fmt, ...)
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

/* Library code never prints: HDF5's own printing of its error stack is
 * turned off, and failures become one-line messages (H5_ERR).  Also
 * initialises the library. */
void f8b_h5_quiet(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void f8b_h5_close_type(hid_t *t)
{
	if (*t >= 0)
		H5Tclose(*t);
	*t = -1;
}

/* ---- schema ------------------------------------------------------------ */

size_t f8b_h5_field_file_size(const struct f8b_field *f)
{
	switch (f->type) {
	case F8B_FT_I32: return 4;
	case F8B_FT_I64:
	case F8B_FT_F64: return 8;
	default: return f->size;
	}
}

/* A schema is code, not input: a bad one is a bug in schema.c. */
int f8b_h5_check_schema(const struct f8b_table_schema *s)
{
	if (!s || !s->name || !s->name[0] || !s->fields || s->nfields == 0)
		return F8B_ERR(F8B_EINTERNAL, "results schema is missing its name or fields");
	for (size_t i = 0; i < s->nfields; i++) {
		const struct f8b_field *f = &s->fields[i];
		bool size_ok =
		    f->type == F8B_FT_STR ? f->size > 0 : f->size == f8b_h5_field_file_size(f);
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
hid_t f8b_h5_column_type(const struct f8b_field *f, bool file)
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
hid_t f8b_h5_row_mem_type(const struct f8b_table_schema *s)
{
	hid_t c = H5Tcreate(H5T_COMPOUND, s->row_size);

	for (size_t i = 0; c >= 0 && i < s->nfields; i++) {
		hid_t t = f8b_h5_column_type(&s->fields[i], false);
		if (t < 0 || H5Tinsert(c, s->fields[i].name, s->fields[i].offset, t) < 0)
			f8b_h5_close_type(&c);
		if (t >= 0)
			H5Tclose(t);
	}
	return c;
}

/* "64-bit integer", "16-byte string"... for messages about column types. */
void f8b_h5_describe_type(hid_t t, char *buf, size_t n)
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

bool f8b_h5_column_readable(const struct f8b_field *f, hid_t t)
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
int f8b_h5_column_type_error(const char *path, const struct f8b_table_schema *s, size_t i, hid_t t)
{
	char have[48], want[48];
	hid_t w = f8b_h5_column_type(&s->fields[i], true);

	f8b_h5_describe_type(t, have, sizeof have);
	if (w >= 0)
		f8b_h5_describe_type(w, want, sizeof want);
	else
		snprintf(want, sizeof want, "?");
	f8b_h5_close_type(&w);
	return F8B_ERR(F8B_EIO,
	               "results file '%s': column %zu '%s' of table '%s' has type %s; this "
	               "f8bench expects %s; write to a new file",
	               path, i, s->fields[i].name, s->name, have, want);
}

/* An existing table must have exactly the schema's columns, in order, with
 * the schema's types: H5TBappend_records builds its memory type from the
 * file's own member list. */
int f8b_h5_check_table_columns(hid_t file, const char *path, const struct f8b_table_schema *s)
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
			rc = f8b_h5_column_type_error(path, s, i, mt);
			goto out;
		}
		f8b_h5_close_type(&mt);
	}
out:
	f8b_h5_close_type(&mt);
	f8b_h5_close_type(&t);
	H5Dclose(d);
	return rc;
}

/* The dataset `name` if it is a compound (table) dataset, else -1 with
 * *is_table false. */
hid_t f8b_h5_open_table(hid_t f, const char *name, bool *is_table)
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
	f8b_h5_close_type(&t);
	if (!*is_table) {
		H5Oclose(o);
		return -1;
	}
	return o;
}
