/* results_int.h - what the results files' code (results*.c) shares: the
 * file layout's names, the writer's state, and the HDF5 helpers of
 * results.c.  Not for use outside src/results/. */
#ifndef F8B_RESULTS_INT_H
#define F8B_RESULTS_INT_H

#include <hdf5.h>
#include <hdf5_hl.h>

#include "results/results.h"

/* Rows per chunk.  A gemm row is 524 bytes packed, so a chunk is 33.5 KB:
 * inside HDF5's advised 10 KB - 1 MB and its default 1 MB chunk cache, and
 * a sweep of a few hundred cases extends the table a handful of times. */
#define F8B_CHUNK_ROWS 64
/* Rows appended per H5TB call (the writer's scratch buffer). */
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
	/* A second table of the same file (a benchmark's detail table,
	 * f8b_results_add_table), NULL when none. */
	const struct f8b_table_schema *extra;
	size_t *extra_offsets, *extra_sizes;
	int extra_run_id_col;
	bool created_extra;
	unsigned char *extra_scratch;
	/* A new file lives at this temporary name until its first rows are
	 * flushed (or it is closed): a run killed before it recorded anything
	 * leaves no results file, only this (NULL once published). */
	char *tmp;
};

/* F8B_EIO "results file 'P': cannot WHAT (HDF5: reason; advice)". */
int f8b_h5_errorf(const char *file, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define H5_ERR(path, ...) f8b_h5_errorf(__FILE__, __LINE__, (path), __VA_ARGS__)
/* HDF5 never prints; also initialises the library. */
void f8b_h5_quiet(void);
void f8b_h5_close_type(hid_t *t);

/* "int32", "string(16)", ... for messages. */
void f8b_h5_describe_type(hid_t t, char *buf, size_t n);
size_t f8b_h5_field_file_size(const struct f8b_field *f);
int f8b_h5_check_schema(const struct f8b_table_schema *s);
hid_t f8b_h5_column_type(const struct f8b_field *f, bool file);
hid_t f8b_h5_row_mem_type(const struct f8b_table_schema *s);
bool f8b_h5_column_readable(const struct f8b_field *f, hid_t t);
int f8b_h5_column_type_error(const char *path, const struct f8b_table_schema *s, size_t i, hid_t t);
int f8b_h5_check_table_columns(hid_t file, const char *path, const struct f8b_table_schema *s);
/* The dataset `name` if it is a compound (table) dataset, else -1. */
hid_t f8b_h5_open_table(hid_t f, const char *name, bool *is_table);

/* results_prov.c */
int f8b_h5_write_int_attr(hid_t file, const char *path, const char *name, int value);
int f8b_h5_write_prov(hid_t file, const char *path, const char *obj,
                      const struct f8b_provenance *prov);
/* Keys the file layout itself uses (schema_version, format). */
bool f8b_h5_reserved_key(const char *key);
int f8b_h5_read_attr_text(hid_t a, const char *path, const char *name, char *out, size_t n);

#endif
