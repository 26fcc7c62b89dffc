/* results.h - HDF5 results files: tables of compound rows plus provenance.
 *
 * A results file holds one table per benchmark (dataset "/gemm", "/lls",
 * ...), made with the HDF5 Table (H5TB) high-level API so h5py, pandas and
 * the HDF5 tools see a table: compound records, chunked, extendible.  Each
 * column's unit is an attribute FIELD_<i>_UNIT on the dataset beside
 * H5TB's FIELD_<i>_NAME.  Provenance: attributes on the root group for the
 * run that created the file, and a group /runs/<run_id> with the same
 * attributes for every run that wrote rows (rows carry run_id).
 *
 * Safety: a new file is written to "<path>.tmp.<pid>" and renamed to <path>
 * once its schema and provenance are complete; rows are then appended and
 * flushed one batch at a time, so an interrupted sweep loses at most the
 * case in flight.  --append opens an existing file, checks the schema
 * version and the table's columns, and only adds rows.
 */
#ifndef F8B_RESULTS_H
#define F8B_RESULTS_H

#include <stdio.h>

#include "core/common.h"

#define F8B_SCHEMA_VERSION 1

enum f8b_field_type { F8B_FT_I32, F8B_FT_I64, F8B_FT_F64, F8B_FT_STR };

struct f8b_field {
	const char *name;
	enum f8b_field_type type;
	size_t offset;    /* offsetof(row struct, member) */
	size_t size;      /* sizeof member (string: char array length) */
	const char *unit; /* "" when dimensionless, e.g. "s", "TFLOP/s", "dB" */
};

struct f8b_table_schema {
	const char *name; /* dataset name, e.g. "gemm" */
	const char *title;
	size_t row_size;
	const struct f8b_field *fields;
	size_t nfields;
	/* Columns that joined the table after files of it were committed
	 * (NULL-terminated; may be NULL): a file lacking one of these reads
	 * it as 0 / "" / NaN, whose meaning doc/results.md states, and merge
	 * accepts such a file.  Any other missing column is another schema. */
	const char *const *late_columns;
};

struct f8b_kv {
	char key[48];
	char value[1024];
};

struct f8b_provenance {
	struct f8b_kv *kv;
	size_t n, cap;
};
int f8b_prov_set(struct f8b_provenance *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *f8b_prov_get(const struct f8b_provenance *p, const char *key);
void f8b_prov_free(struct f8b_provenance *p);

struct f8b_results;

/* Creates (append=false; fails with F8B_EIO if path exists, naming
 * --append) or opens for appending (append=true; creates if missing).
 * *run_id receives this run's id (0 for a new file). */
int f8b_results_open(const char *path, bool append, const struct f8b_table_schema *schema,
                     const struct f8b_provenance *prov, struct f8b_results **out, int *run_id);
int f8b_results_append(struct f8b_results *r, const void *rows, size_t n);
/* A second table in the same file (a benchmark's detail table, e.g.
 * lls_kernels): made, or checked like the first when the file has it.
 * Call once, right after open. */
int f8b_results_add_table(struct f8b_results *r, const struct f8b_table_schema *schema);
/* Appends rows to that second table (its run_id column set like the
 * first's) and flushes. */
int f8b_results_append_extra(struct f8b_results *r, const void *rows, size_t n);
int f8b_results_close(struct f8b_results *r); /* flushes, closes */
/* Closes and, for a file this run created, removes it (used when the run
 * failed before writing any row).  */
void f8b_results_abandon(struct f8b_results *r);

/* Reads every row of table schema->name into a malloc'ed array of
 * row_size-byte rows (member layout of the schema).  Columns are matched by
 * name; a missing column is an error. */
int f8b_results_read(const char *path, const struct f8b_table_schema *schema, void **rows,
                     size_t *n);
/* The tables (compound datasets at the root) of a results file, in the
 * file's order, as a comma-separated list in names ("" when none); names
 * that do not fit are left out.  An unreadable file is an error. */
int f8b_results_tables(const char *path, char *names, size_t size);
/* True when "," names "," holds table (a list from f8b_results_tables). */
bool f8b_results_list_has(const char *names, const char *table);

/* Reads the root provenance attributes. */
int f8b_results_read_provenance(const char *path, struct f8b_provenance *p);

/* Writes table `table` (NULL: every table, each preceded by a line
 * "# table NAME") as CSV - a header line, then one line per row - to out.
 * Works from the file's own compound types, without knowing the schemas. */
int f8b_results_export_csv(const char *path, const char *table, FILE *out);

#endif
