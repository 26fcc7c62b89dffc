/* report.h - f8bench report: results files in, plots and a Markdown summary
 * out.  Reads finished HDF5 files only; it never measures and never
 * initialises MPI, so it runs on a laptop with the files copied back from
 * the GPU nodes (doc/report.md).
 *
 *   f8bench report FILE.h5... -o DIR [--ceilings CEILINGS.h5]
 *
 * The core (report.c) reads every file, and for each benchmark of
 * f8b_benches[] whose table a file holds hands that benchmark's report
 * module (its descriptor's .report) the rows; the module writes its data
 * files, names the gnuplot templates (roofline/NAME.gp) the core draws as
 * NAME.png and NAME.svg, and writes its section of report.md.  A benchmark
 * without a module gets a generic section: its rows as CSV and a table of
 * its cases.  The helpers below are the writers every module shares. */
#ifndef F8B_REPORT_H
#define F8B_REPORT_H

#include <math.h>
#include <stdio.h>

#include "harness/bench.h"
#include "results/results.h"

/* One input file, as a module sees it. */
struct f8b_report_file {
	const char *path;
	struct f8b_provenance prov;
	char tables[256]; /* the tables it holds, comma-separated */
	/* The module's benchmark's rows, in its schema's layout (NULL, 0 when
	 * the file has no such table); columns the file lacks (written by an
	 * older f8bench) read as NaN, 0 or "" and are listed in missing. */
	void *rows;
	size_t nrows;
	char missing[512];
};

struct f8b_report_ctx {
	const char *dir; /* the output directory, created */
	const struct f8b_bench *bench;
	const struct f8b_report_file *files;
	int nfiles;
	const char *ceilings_path; /* --ceilings FILE, or NULL */
	/* The network a projection past one node assumes (--net-bw GB/s per
	 * GPU, --net-lat us, --gpus-per-node), in B/s and s. */
	double net_bw, net_lat_s;
	int gpus_per_node;
	const char *gpu, *date; /* of every input, for titles: "NVIDIA H100 ...", "2026-11-21" */
};

#define F8B_REPORT_MAX_PLOTS 8

struct f8b_report_module {
	/* Reads ctx's rows, writes its data files into ctx->dir and names the
	 * templates to draw in plots[] (up to F8B_REPORT_MAX_PLOTS, NULL after
	 * the last); *plotted counts the rows its plots show (0: nothing to
	 * draw).  *state is handed to markdown and freed by release. */
	int (*prepare)(const struct f8b_report_ctx *ctx, void **state, const char **plots,
	               size_t *plotted);
	/* Its sections of report.md ("## ..." headings); drawn: whether the
	 * core drew its plots (else a note says why not). */
	int (*markdown)(void *state, FILE *md, bool drawn);
	void (*release)(void *state);
	/* What it writes, for `f8bench report --help` (lines of "  FILE  what"). */
	const char *help;
	/* Its detail table seen as cases of their own, for compare --detail:
	 * name, schema, same_case, describe, key, time and noise columns of a
	 * descriptor that runs nothing; NULL: none. */
	const struct f8b_bench *detail_cases;
};

extern const struct f8b_report_module f8b_gemm_report, f8b_ceilings_report, f8b_lls_report,
    f8b_allgather_report;
extern const struct f8b_report_module f8b_optim_report;

/* The subcommand's main: argv[0] is "report".  Prints its own errors.
 * Exit status: 0 everything written; 1 data and report.md written but no
 * plots (gnuplot not found, or gnuplot failed: see DIR/gnuplot.log);
 * 2 bad arguments or unreadable input, nothing useful written. */
int f8b_report_main(int argc, char **argv);

/* ---------------------------------------------------------------- writers
 * (report_out.c) */

static inline bool f8b_rpt_finite_pos(double v)
{
	return isfinite(v) && v > 0;
}

struct f8b_rpt_stats {
	int n;
	double min, med, max;
};
/* Sorts v[0..n) in place (NaNs left out first). */
void f8b_rpt_stats_of(double *v, int n, struct f8b_rpt_stats *s);
/* Appends "item" to a ", "-separated list unless already there. */
void f8b_rpt_list_add(char *list, size_t size, const char *item);
/* Appends "MxKxN" to a ", "-separated list of shapes while it fits with
 * room for a "+N more" note; counts in *more the shapes left out. */
void f8b_rpt_shape_list_add(char *list, size_t size, int64_t m, int64_t k, int64_t n, int *more);
/* Order of shapes for plots and tables: by M*K*N, then M, K, N. */
int f8b_rpt_cmp_shape(int64_t am, int64_t ak, int64_t an, int64_t bm, int64_t bk, int64_t bn);

/* An output file of the report directory. */
struct f8b_rpt_out {
	FILE *f;
	char path[4096];
	const char *name;
};
int f8b_rpt_open(const char *dir, struct f8b_rpt_out *o, const char *name);
int f8b_rpt_close(struct f8b_rpt_out *o, int rc); /* rc, or the write error */

void f8b_rpt_csv_str(FILE *f, const char *s);            /* quoted when needed */
void f8b_rpt_csv_list(FILE *f, const char *s);           /* a ", " list as one field */
void f8b_rpt_csv_num(FILE *f, double v);                 /* "" for NaN */
void f8b_rpt_md_str(FILE *f, const char *s);             /* | and newlines escaped */
void f8b_rpt_md_num(FILE *f, const char *fmt, double v); /* "-" for NaN */
void f8b_rpt_gp_str(FILE *f, const char *s);             /* a gnuplot string */
void f8b_rpt_gp_num(FILE *f, double v);                  /* NaN for gnuplot */
/* "# WHAT" and "# COLS" lines heading a gnuplot .dat file. */
void f8b_rpt_dat_header(FILE *f, const char *what, const char *cols);
/* The Markdown image of plot NAME, or a note that it was not drawn. */
void f8b_rpt_md_plot(FILE *f, const char *name, const char *caption, bool drawn);
/* mkdir -p, then checks the directory is writable. */
int f8b_rpt_make_dir(const char *dir);

/* Its --help and man page section (core/options.h). */
extern const struct f8b_cmd_doc f8b_report_doc;

#endif
