/* schema.h - the row of every results table (the HDF5 schema lives here and
 * in schema.c, which lists each column with its unit). */
#ifndef F8B_SCHEMA_H
#define F8B_SCHEMA_H

#include "results/results.h"

#define F8B_STR 16 /* fixed-length string columns (NUL-padded) */
#define F8B_MSG 96 /* the message column of every table */

/* Status column values. */
#define F8B_ROW_OK          "ok"          /* checked and within tolerance */
#define F8B_ROW_WRONG       "wrong"       /* ran, failed its correctness check */
#define F8B_ROW_UNSUPPORTED "unsupported" /* this GPU/library cannot run it */
#define F8B_ROW_ERROR       "error"       /* failed to run (see message column) */

struct f8b_gemm_row {
	int64_t m, k, n;
	char label[48];
	char scaling[F8B_STR]; /* tensorwise|axiswise|blockwise|none (bf16) */
	char a_gran[F8B_STR];  /* granularity of A's scales */
	char b_gran[F8B_STR];  /* granularity of B's scales */
	int32_t fast_accum;    /* 0/1 */
	char a_dtype[F8B_STR], b_dtype[F8B_STR], out_dtype[F8B_STR];
	char backend[F8B_STR];
	char status[F8B_STR];
	double time_median_s, time_min_s, time_max_s;
	double time_noise; /* relative noise of the median */
	int32_t samples;
	int32_t converged;              /* 1 if the stopping rule was met */
	int32_t throttled;              /* samples taken while SM clock was throttled */
	int64_t throttle_reasons;       /* NVML clocks-event reasons seen (OR of all samples) */
	int32_t sm_mhz_min, sm_mhz_max; /* SM clock range over the samples; 0 unknown */
	double tflops;                  /* 2*M*N*K / time_median_s / 1e12 */
	double pct_peak;                /* tflops / datasheet peak of this dtype; NaN unknown */
	double arith_intensity;         /* flops / minimal bytes moved (roofline.h), flop/byte */
	double predicted_time_s;        /* roofline model: max(flops/peak, bytes/bw) + launch */
	double pct_of_roofline;         /* 100 * predicted_time_s / time_median_s */
	char roofline_source[F8B_STR];  /* "measured" (a ceilings file) or "datasheet" */
	double bf16_time_median_s;
	double speedup_vs_bf16; /* bf16_time_median_s / time_median_s */
	double rel_error;       /* ||D - ref(dequantized operands)|| / ||ref|| */
	double tolerance;       /* rel_error must be <= this */
	double sqnr_db;         /* 20 log10(||ref_hp|| / ||D - ref_hp||) vs hp inputs */
	int32_t algo_id, algo_tile, algo_stages, algo_splitk, algo_swizzle;
	int32_t algo_reduction, algo_custom, algo_cluster;
	int32_t heuristic_rank;         /* 0 = heuristic's first choice */
	int32_t candidates_timed;       /* >1 when --autotune chose among several */
	double heuristic_time_median_s; /* first choice's median when autotuned */
	int64_t workspace_bytes;
	int64_t seed;
	int32_t run_id, rank, device;
	char gpu[48];
	char message[F8B_MSG]; /* why wrong/unsupported/error; "" when ok */
};

extern const struct f8b_table_schema f8b_gemm_schema;

/* f8bench ceilings: one row per measured ceiling (and its datasheet twin). */
struct f8b_ceilings_row {
	char kind[F8B_STR];  /* read|write|copy (bandwidth sweep), gemm, launch,
	                        allgather|allreduce (NCCL, > 1 rank) */
	char dtype[F8B_STR]; /* gemm: bf16|e4m3; others "" */
	int64_t bytes;       /* working set (bandwidth) or message size (collectives) */
	int64_t m, k, n;     /* gemm shape; 0 otherwise */
	char backend[F8B_STR];
	char status[F8B_STR];
	double time_median_s, time_min_s, time_max_s;
	double time_noise;
	int32_t samples, converged, throttled;
	double value;           /* the ceiling, in unit */
	char unit[F8B_STR];     /* "B/s" (bytes read + written; busbw for collectives),
	                           "FLOP/s", "s" (launch) */
	double datasheet_value; /* the same quantity from roofline/datasheet.tsv; NaN unknown */
	int32_t ranks;          /* MPI ranks taking part */
	int32_t candidate;      /* gemm: the heuristic's algorithm candidate timed (0 its
	                           first choice, as in files written before this column);
	                           0 for other kinds */
	int32_t run_id, rank, device;
	char gpu[48];
	char message[F8B_MSG];
};

extern const struct f8b_table_schema f8b_ceilings_schema;

#endif
