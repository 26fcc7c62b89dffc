/* results_read.c - reading a results file back: a table into a schema's
 * row layout (columns matched by name; those an older file lacks read as
 * NaN, 0 or ""), and the list of its tables. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_int.h"

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
	f8b_h5_quiet();
	F8B_TRY(f8b_h5_check_schema(schema));
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
		bool ok = ct >= 0 && f8b_h5_column_readable(&schema->fields[i], ct);
		if (!ok && ct >= 0)
			rc = f8b_h5_column_type_error(path, schema, i, ct);
		else if (!ok)
			rc = H5_ERR(path, "read the type of column '%s'", schema->fields[i].name);
		f8b_h5_close_type(&ct);
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
	mt = f8b_h5_row_mem_type(&subset);
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
	f8b_h5_close_type(&mt);
	f8b_h5_close_type(&ft);
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

int f8b_results_tables(const char *path, char *names, size_t size)
{
	H5G_info_t info;
	size_t len = 0;
	bool is_table;
	int rc = F8B_OK;

	if (size)
		names[0] = '\0';
	f8b_h5_quiet();
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
		hid_t d = f8b_h5_open_table(f, name, &is_table);
		if (d < 0) {
			H5Eclear2(H5E_DEFAULT);
			continue;
		}
		H5Oclose(d);
		if (len + (size_t)n + 2 < size)
			len +=
			    (size_t)snprintf(names + len, size - len, "%s%s", len ? "," : "", name);
	}
	H5Fclose(f);
	return rc;
}
