/* bench.h - the benchmark descriptor (after nccl-tests' per-collective
 * struct): a driver describes its cases, setup, enqueue-only launch and
 * check; the harness (runner.c) does options, sweep, MPI split, progress,
 * correctness-before-timing, measurement and results.  A driver has no
 * main(), prints no rows and owns no timing loop. */
#ifndef F8B_BENCH_H
#define F8B_BENCH_H

#include "backend/backend.h"
#include "harness/measure.h"
#include "core/options.h"
#include "results/results.h"

struct f8b_report_module; /* report/report.h: a benchmark's plots and tables */

/* An accuracy column that compare gates (a f64 column of the table). */
struct f8b_gate_column {
	const char *name; /* e.g. "sqnr_db", "rel_error" */
	int better;       /* +1: higher is better (SQNR); -1: lower is better (error) */
};

/* The most cases --interleave measures together (a longer run of one
 * group is cut into groups of this many). */
#define F8B_GROUP_MAX 8

/* Per-process context handed to every driver hook. */
struct f8b_run {
	const struct f8b_backend_ops *ops;
	struct f8b_backend *be;
	struct f8b_device_info dev;
	struct f8b_measure_opts mopts;
	int rank, nranks, run_id;
	uint64_t seed;
	bool verbose;
	void *cfg; /* the driver's parsed configuration */
};

struct f8b_bench {
	const char *name;    /* subcommand, e.g. "gemm" */
	const char *summary; /* one line for --help */
	const struct f8b_table_schema *schema;
	const struct f8b_option *options; /* driver-specific, {0}-terminated */
	/* false: cases are spread over ranks, each timed alone.  true: every
	 * rank runs every case together (collectives); each sample is the
	 * slowest rank's time and rank 0 records the row. */
	bool collective;

	/* Option parsing: called once per option of `options`, then finalize
	 * (defaults, validation, the case list).  cfg is driver-owned. */
	int (*cfg_new)(void **cfg);
	int (*cfg_option)(void *cfg, int key, const char *arg);
	int (*cfg_finalize)(void *cfg, size_t *ncases);
	void (*cfg_free)(void *cfg);

	/* Fill the identifying columns of case i (also used for --resume and
	 * progress lines). */
	void (*case_key)(const void *cfg, size_t i, void *row);
	/* True if two rows describe the same case (--resume, compare). */
	bool (*same_case)(const void *row_a, const void *row_b);
	/* Optional (--interleave): true when case j, which follows case i in
	 * the list, is measured together with it: the cases of a group are
	 * set up at once and their samples taken in turn (measure.h,
	 * f8b_measure_group), so that a drifting clock falls on each alike.
	 * gemm: the implementations (and D^T) of one fp8 case; lls: the
	 * --gemm-impl of one shape and recipe.  NULL: --interleave refused. */
	bool (*same_group)(const void *cfg, size_t i, size_t j);
	/* Short human descriptions for progress lines: the case, and its
	 * outcome ("ok 1.23 ms 1520 TFLOP/s 1.93x bf16"). */
	void (*describe)(const void *row, char *buf, size_t n);
	void (*summarize)(const void *row, char *buf, size_t n);
	/* Where the harness writes the status / message / run_id columns. */
	size_t off_status, off_message, off_run_id;

	/* Optional: the bytes of backend memory case i will allocate (its
	 * tensors and what its check adds).  The harness refuses a case that
	 * does not fit in what the backend has free (an unsupported row naming
	 * both) instead of letting it run out of memory half-way. */
	int64_t (*case_bytes)(const void *cfg, size_t i);
	/* Allocation, data, plans: everything outside timing.  May set the row
	 * status to unsupported (return F8B_EUNSUPPORTED with a message). */
	int (*setup)(struct f8b_run *run, size_t i, void *row, void **state);
	f8b_launch_fn launch; /* enqueue-only */
	/* Called after one launch and a sync: fills the correctness columns
	 * and returns true when the result is within tolerance. */
	int (*check)(void *state, void *row, bool *ok);
	/* Optional: adjusts the measurement options for case `state` (a copy
	 * of the run's, after the check), e.g. an adaptive batch for the
	 * ceilings' collectives. */
	void (*tune)(void *state, struct f8b_measure_opts *o);
	/* Fills derived columns (TFLOP/s, speedup...) from the measurement. */
	int (*finish)(void *state, const struct f8b_measure_result *m, void *row);
	void (*teardown)(void *state);
	/* Optional detail table (lls: one row per kernel of a case's step):
	 * after finish, with the case still set up, detail fills at most
	 * detail_max zeroed rows of detail_schema and returns how many; they
	 * go to that table of the same file, beside the case's row (run_id
	 * set by the writer).  Independent cases only. */
	const struct f8b_table_schema *detail_schema;
	size_t detail_max;
	size_t (*detail)(void *state, const void *row, void *rows);

	/* After the run: compare, report and merge work on finished files and
	 * know a benchmark only through these.  Every table also has the
	 * columns status, message, run_id and gpu, by those names. */
	/* The columns that identify a case: all that case_key fills and that
	 * same_case and describe read ({NULL}-terminated).  Readers that take
	 * only these plus the ones below keep working on files written before
	 * later columns joined the schema. */
	const char *const *key_columns;
	const char *time_column;      /* the timing compare gates (s, lower is better) */
	const char *noise_column;     /* its relative standard error */
	const char *throttled_column; /* samples taken while throttled (i32); may be NULL */
	const struct f8b_gate_column *accuracy; /* {0}-terminated; NULL: none gated */
	const struct f8b_report_module *report; /* NULL: report writes the generic table only */
};

extern const struct f8b_bench f8b_bench_gemm;
extern const struct f8b_bench f8b_bench_ceilings;
extern const struct f8b_bench f8b_bench_lls;
extern const struct f8b_bench f8b_bench_allgather;
extern const struct f8b_bench f8b_bench_optim;
/* Every benchmark, NULL-terminated (bench/registry.c): the command's
 * subcommands, and the tables compare, report and merge recognise. */
extern const struct f8b_bench *const f8b_benches[];

/* Runs the sweep described by argv for bench b; returns the process exit
 * status (0 ok, 1 a row went wrong / error, 2 bad input). */
int f8b_run_bench(const struct f8b_bench *b, int argc, char **argv);

#endif
