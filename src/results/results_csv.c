/* results_csv.c - `f8bench export --csv`: any table of a results file as
 * CSV, from the file's own compound types (no schema needed). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_int.h"

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
			f8b_h5_close_type(&t);
			return -1;
		}
		if (H5Tis_variable_str(ft) > 0) {
			c->kind = CSV_VSTR;
			*slot = sizeof(char *);
			if (H5Tset_size(t, H5T_VARIABLE) < 0)
				f8b_h5_close_type(&t);
			return t;
		}
		/* One more byte than the file's, for the terminating NUL. */
		c->kind = CSV_STR;
		*slot = (H5Tget_size(ft) + 1 + 7) & ~(size_t)7;
		if (H5Tset_size(t, H5Tget_size(ft) + 1) < 0 ||
		    H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)
			f8b_h5_close_type(&t);
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
			f8b_h5_close_type(&m);
			rc = H5_ERR(path, "read column %zu of table '%s'", nc, name);
			nc++;
			goto out;
		}
		t = csv_member_type(m, &cols[nc], &slot, &unsupported);
		if (t < 0) {
			char have[48];
			f8b_h5_describe_type(m, have, sizeof have);
			rc = unsupported
			         ? F8B_ERR(
			               F8B_EUNSUPPORTED,
			               "results file '%s': column '%s' of table '%s' has type %s; "
			               "CSV export takes integers, floats and strings",
			               path, cols[nc].name, name, have)
			         : H5_ERR(path, "make a type for column '%s'", cols[nc].name);
			f8b_h5_close_type(&m);
			nc++;
			goto out;
		}
		cols[nc].offset = size;
		size += slot;
		f8b_h5_close_type(&m);
		f8b_h5_close_type(&t);
	}
	/* Second pass: the memory compound, now that its size is known. */
	mt = H5Tcreate(H5T_COMPOUND, size ? size : 1);
	for (size_t i = 0; mt >= 0 && i < nc; i++) {
		hid_t m = H5Tget_member_type(ft, (unsigned)i), t;
		size_t slot;
		bool unsupported;
		t = m >= 0 ? csv_member_type(m, &cols[i], &slot, &unsupported) : -1;
		if (t < 0 || H5Tinsert(mt, cols[i].name, cols[i].offset, t) < 0)
			f8b_h5_close_type(&mt);
		f8b_h5_close_type(&t);
		f8b_h5_close_type(&m);
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
	f8b_h5_close_type(&mt);
	f8b_h5_close_type(&ft);
	return rc;
}

int f8b_results_export_csv(const char *path, const char *table, FILE *out)
{
	H5G_info_t info;
	hid_t f, d;
	bool is_table;
	int rc = F8B_OK;

	f8b_h5_quiet();
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(path, "open it for reading");
	if (table) {
		htri_t have = H5Lexists(f, table, H5P_DEFAULT);
		d = have > 0 ? f8b_h5_open_table(f, table, &is_table) : -1;
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
		d = f8b_h5_open_table(f, name, &is_table);
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
