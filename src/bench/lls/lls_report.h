/* lls_report.h - the lls benchmark's report module, shared by its two
 * files: lls_report.c (rows and kernels paired, series, shapes, the data
 * files and plots), lls_report_md.c (its sections of report.md) and
 * lls_report_csv.c (lls.csv, lls-kernels.csv). */
#ifndef F8B_LLS_REPORT_H
#define F8B_LLS_REPORT_H

#include "report/report.h"
#include "results/schema.h"

/* Where a kernel's time goes, in the breakdown's colours. */
enum lrpt_cat { CAT_GEMM, CAT_NORM, CAT_FUSED, CAT_CAST, CAT_OTHER, NCAT };

/* One row of the lls table, as the report uses it. */
struct lrpt_point {
	const struct f8b_lls_row *r;
	int file;
	int series;                            /* index into series (bf16 rows too) */
	int shape;                             /* index into shapes */
	double speedup;                        /* measured: bf16 step / this step */
	double pred_speedup;                   /* the roofline's: bf16 predicted / this predicted */
	const struct f8b_lls_kernel_row *kern; /* its kernels, in step order */
	size_t nkern;                          /* 0: none in the file */
};

/* recipe x recipe_long x GEMM implementation x graph x lanes */
struct lrpt_series {
	char recipe[32];
	const char *recipe_long;
	char impl[F8B_STR]; /* the row's gemm_impl, "" read as cublaslt */
	int graph;
	int lanes; /* as in the row (1, 2, 0 = not recorded) when lanes are
	            * compared (mixed_lanes), else 0 for every series */
	char title[80];
	int npts;
};

struct lrpt_shape {
	int64_t m, k, n;
	double x; /* M for square shapes, else M*K*N */
	char name[64];
};

/* One bar of the breakdown: a recipe's row at the chosen shape. */
struct lrpt_bar {
	const struct lrpt_point *p;
	double cat_s[NCAT]; /* its kernels' time per category */
};

struct lrpt {
	/* A copy: the core's ctx lives only through prepare; what it points
	 * at (files, dir, titles) lives until release. */
	struct f8b_report_ctx ctx;
	struct f8b_lls_kernel_row **krows; /* per file; NULL when it has none */
	size_t *nk;
	char kernel_note[512]; /* files whose lls_kernels could not be read */
	size_t nrows_total, nkern_total, unpaired;
	struct lrpt_point *pts; /* the ok rows */
	size_t npts;
	struct lrpt_series *series;
	int nseries, first_fp8; /* series [0, first_fp8) are bf16 */
	bool both_graphs;       /* graph on and off rows both present */
	bool other_impl;        /* some row's fp8 GEMMs are not cuBLASLt's (--gemm-impl) */
	bool mixed_lanes;       /* lanes compared: a shape, recipe, graph with two */
	struct lrpt_shape *shapes;
	int nshapes;
	bool square; /* every shape M = K = N: x is M */
	bool has_pred, has_pct;
	int bd_shape; /* the breakdown's shape, -1 none */
	struct lrpt_bar *bars;
	int nbars;
	double *scratch;
};

enum lrpt_cat f8b_lrpt_category(const char *kernel);
/* A row's gemm_impl as a name ("" in older files: cublaslt); buf has
 * F8B_STR + 1 bytes. */
const char *f8b_lrpt_impl(const struct f8b_lls_row *r, char *buf);
extern const char *const f8b_lrpt_cat_names[NCAT];
int f8b_lrpt_markdown(void *state, FILE *md, bool drawn); /* lls_report_md.c */
int f8b_lrpt_write_csv(const struct lrpt *L);             /* lls_report_csv.c */
int f8b_lrpt_write_dat(const struct lrpt *L);             /* lls_report_dat.c */

#endif
