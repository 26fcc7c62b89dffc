/* compare_int.h - what compare.c (matching and verdicts) and compare_out.c
 * (the text table, JUnit XML, Markdown) share.  Rows are a benchmark's own
 * row structs read through its schema; their columns are reached through
 * the offsets in struct cmp_cols, so nothing here names a benchmark. */
#ifndef F8B_COMPARE_INT_H
#define F8B_COMPARE_INT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness/bench.h"
#include "report/compare.h"
#include "results/schema.h"

#define CMP_MAX_ACC 8
#define CMP_GPU_LEN 160

/* Where the columns compare reads sit in a row (from the schema). */
struct cmp_cols {
	size_t status, status_n, message, message_n, run_id, gpu, gpu_n;
	size_t time, noise;
	long throttled; /* -1: the benchmark has none */
	size_t acc[CMP_MAX_ACC];
	const char *acc_name[CMP_MAX_ACC];
	int acc_better[CMP_MAX_ACC];
	int nacc;
};

struct cmp_side {
	const char *label; /* "BASE" or "NEW" */
	const char *path;
	int want_run; /* -1: the newest row of each case */
	unsigned char *rows;
	size_t nrows;
	size_t *pick; /* one row index per case, in order of first appearance */
	size_t npick;
	char gpu[CMP_GPU_LEN]; /* the GPU model its picked rows ran on, "" unknown */
	char measure[256];     /* its first run's "measure" provenance, "" unknown */
	char runs[64];         /* "1" / "0, 1" for the header */
};

struct cmp_item {
	const unsigned char *b, *n; /* NULL when the case is absent */
	enum f8b_verdict v;
	double change, noise;
	char note[F8B_MSG + 48];
};

/* One benchmark's table of both files, compared. */
struct cmp_table {
	const struct f8b_bench *bench;
	struct cmp_cols cols;
	struct cmp_side base, nw;
	struct cmp_item *items;
	size_t nitems;
	size_t count[F8B_V_COUNT];
};

struct cmp_cfg {
	double tolerance, sigmas, acc_tolerance;
	int base_run, new_run;
	bool all, force, help, no_timing, detail;
	const char *junit, *markdown;
};

/* Row access. */
static inline const char *cmp_str(const unsigned char *row, size_t off)
{
	return (const char *)(row + off);
}
static inline double cmp_f64(const unsigned char *row, size_t off)
{
	double v;
	memcpy(&v, row + off, sizeof v);
	return v;
}
static inline int32_t cmp_i32(const unsigned char *row, size_t off)
{
	int32_t v;
	memcpy(&v, row + off, sizeof v);
	return v;
}
bool f8b_cmp_status_is(const struct cmp_cols *c, const unsigned char *row, const char *s);

#define ANY_RUN -1 /* cmp_side.want_run: the newest row of each case */

/* compare_rows.c: the columns of b a comparison reads; one side's rows. */
int f8b_cmp_find_cols(const struct f8b_bench *b, struct cmp_cols *c);
int f8b_cmp_load_side(const struct f8b_bench *b, const struct cmp_cols *c, struct cmp_side *s,
                      bool force);

/* compare_out.c: the outputs. */
void f8b_cmp_print_header(const struct cmp_table *t, const struct cmp_cfg *c, bool titled);
void f8b_cmp_print_table(const struct cmp_table *t, bool all);
void f8b_cmp_summary(const size_t count[F8B_V_COUNT], char *buf, size_t n);
int f8b_cmp_write_junit(const char *path, const struct cmp_table *t, size_t nt);
int f8b_cmp_write_markdown(const char *path, const struct cmp_table *t, size_t nt,
                           const struct cmp_cfg *c);

#endif
