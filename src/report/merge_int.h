/* merge_int.h - what merge.c and merge_detail.c (a benchmark's detail
 * table, such as lls_kernels) share. */
#ifndef F8B_MERGE_INT_H
#define F8B_MERGE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <hdf5.h>

#include "harness/bench.h"

#define MODEL_LEN 200

/* One input file. */
struct part {
	const char *path;
	unsigned char *rows; /* n rows of the schema's row_size */
	size_t n;
	int *runs;                /* ids of its /runs/<id> groups, ascending */
	char (*model)[MODEL_LEN]; /* GPU model of each run ("" unknown) */
	size_t nruns;
	int first_new; /* runs[k] becomes /runs/<first_new + k> in OUT */
	/* The benchmark's detail table (lls_kernels), when the file has one:
	 * dn rows of the detail schema's row_size. */
	unsigned char *drows;
	size_t dn;
	unsigned char *dkeep; /* 0: the detail of a row --keep-last dropped */
};

/* The run a main-table row names (its run_id column). */
static inline int32_t f8b_merge_row_run(const struct f8b_bench *b, const unsigned char *row)
{
	int32_t id;
	memcpy(&id, row + b->off_run_id, sizeof id);
	return id;
}

/* Index of run `run` in p->runs, -1 when the file has no such run. */
long f8b_merge_run_index(const struct part *p, int run);
/* The file's table `s` has exactly the schema's columns. */
int f8b_merge_check_columns(hid_t f, const char *path, const struct f8b_table_schema *s);

/* merge_detail.c */
/* Reads the input's detail table when it has one (every row naming one of
 * its runs); p->dkeep starts all ones. */
int f8b_merge_load_detail(hid_t f, struct part *p, const struct f8b_bench *b);
/* The detail rows of the rows --keep-last dropped (keep[g] == 0, rows in
 * argument order) go with them. */
void f8b_merge_drop_details(const struct f8b_bench *b, struct part *parts, size_t np,
                            const unsigned char *keep);
/* The kept detail rows of every input in argument order, with their run
 * ids in the merged file; *any: some input has the detail table (written
 * even when empty).  The caller frees *rows and *ids. */
int f8b_merge_gather_details(const struct f8b_bench *b, const struct part *parts, size_t np,
                             unsigned char **rows, int32_t **ids, size_t *n, bool *any);

#endif
