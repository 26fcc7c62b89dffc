/* gemm_report.h - what the gemm benchmark's report module
 * (gemm_report.c: series, shapes and points; gemm_report_roof.c: roofs,
 * ranges, the roofline data; gemm_report_md.c: speedup, SQNR, best per
 * shape and its Markdown) shares.  doc/report.md says what each plot shows. */
#ifndef F8B_GEMM_REPORT_H
#define F8B_GEMM_REPORT_H

#include "model/peaks.h"
#include "model/roofline.h"
#include "report/report.h"
#include "results/schema.h"

struct rpt_file {
	const char *path;
	const struct f8b_provenance *prov;
	const struct f8b_gemm_row *rows;
	size_t nrows;
	bool has_ceilings;
};

struct rpt_series {
	char gran[F8B_STR]; /* the scaling column; "bf16" for the baseline */
	int fast;           /* fast_accum 0/1; -1 for bf16 */
	char pair[64];      /* "e4m3 x e5m2" (fp8), "" for bf16 */
	int pair_idx;       /* index into rpt.pairs; -1 for bf16 */
	char title[160];
	char short_title[64]; /* title without the dtype pair */
	int npoints;
	int slot; /* SQNR chart: 1-based (granularity, fast_accum) slot */
};

struct rpt_shape {
	int64_t m, k, n;
	char name[64];    /* "MxKxN" */
	char labels[160]; /* the case labels seen with this shape */
};

struct rpt_point {
	const struct f8b_gemm_row *r;
	int file, series, shape;
	double ai;          /* flop/byte */
	double roof_tflops; /* attainable at ai: min(peak, ai * bandwidth) */
	double pct_roof;    /* 100 * predicted / measured time */
	double speedup;     /* bf16 time / this time */
	char roof_src[F8B_STR];
};

struct rpt_roof {
	char source[F8B_STR]; /* "measured" or "datasheet" */
	char dtype[8];        /* "bf16" or "fp8" */
	double peak_tflops;   /* NaN: no compute roof known */
	double bw_tbs;        /* NaN: no bandwidth roof known */
	char title[128];
};

#define RPT_MAX_PAIRS 8

struct rpt {
	const char *dir;
	struct rpt_file *files;
	int nfiles;
	struct rpt_series *series;
	int nseries;
	char pairs[RPT_MAX_PAIRS][64];
	int npairs;
	int nslots;
	bool show_out; /* more than one output dtype among the fp8 rows */
	struct rpt_shape *shapes;
	int nshapes;
	struct rpt_point *pts;
	size_t npts, nrows_total;
	struct f8b_peaks peaks;
	struct f8b_ceilings ds, meas, pref;
	bool have_ds, have_meas;
	const char *meas_path;
	struct rpt_roof roofs[4];
	int nroofs;
	double xmin, xmax, ymin, ymax;
	const char *gpu, *date; /* for titles (f8b_report_ctx) */
	double *scratch;        /* nrows_total doubles */
	struct best *best;      /* one per shape (gemm_report_md.c) */
	size_t nplotted;
};

/* ---------------------------------------------------------------- small helpers */

/* Per shape: the fastest fp8 point and the bf16 TFLOP/s beside it. */
struct best {
	const struct rpt_point *p; /* NULL: no fp8 row */
	double bf16_tflops;
};

/* gemm_report.c */
bool f8b_grpt_row_is_fp8(const struct f8b_gemm_row *r);
bool f8b_grpt_row_cost(const struct f8b_gemm_row *r, struct f8b_cost *c);
double f8b_grpt_roof_at(const struct f8b_ceilings *c, bool fp8, double ai);
/* gemm_report_roof.c */
int f8b_grpt_ceilings(struct rpt *R, const char *ceil_path);
void f8b_grpt_ranges(struct rpt *R);
int f8b_grpt_write_plot_vars(const struct rpt *R);
int f8b_grpt_write_roofline_data(const struct rpt *R);
const char *f8b_grpt_fast_name(int fast);
double f8b_grpt_sqnr_x(const struct rpt *R, int s);
/* gemm_report_md.c */
int f8b_grpt_write_speedup_sqnr(const struct rpt *R);
int f8b_grpt_write_best(struct rpt *R);
int f8b_grpt_markdown(void *state, FILE *md, bool drawn);

#endif
