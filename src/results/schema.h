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
	char scaling[F8B_STR]; /* tensorwise|axiswise|blockwise|blockwise-1x128|none (bf16) */
	char a_gran[F8B_STR];  /* granularity of A's scales */
	char b_gran[F8B_STR];  /* granularity of B's scales */
	int32_t fast_accum;    /* 0/1 */
	char a_dtype[F8B_STR], b_dtype[F8B_STR], out_dtype[F8B_STR];
	char backend[F8B_STR];
	char impl[F8B_STR]; /* GEMM implementation: cublaslt|f8b ("" in files before it) */
	int32_t out_t;      /* 1: D^T written too (--out-t on; 0 in files before it) */
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
	double value;               /* the ceiling, in unit */
	char unit[F8B_STR];         /* "B/s" (bytes read + written; busbw for collectives),
	                               "FLOP/s", "s" (launch) */
	double datasheet_value;     /* the same quantity from roofline/datasheet.tsv; NaN unknown */
	int32_t ranks;              /* MPI ranks taking part */
	int32_t candidate;          /* gemm: the heuristic's algorithm candidate timed (0 its
	                               first choice, as in files written before this column);
	                               0 for other kinds */
	int32_t batch;              /* launches timed back to back per sample (1: one per
	                               sample; collectives: chosen to cover ~1 ms unless
	                               --batch is given); 0 in files written before it */
	int32_t in_place;           /* collectives: 1 when the output holds the input (the
	                               all-gather's send is the rank's part of recv); 0
	                               out of place, and in files written before it */
	char nccl_buffers[F8B_STR]; /* collectives: plain|registered|symmetric ("" in
	                               files written before it: plain) */
	char cta_policy[F8B_STR];   /* collectives: default|efficiency|zero ("": default) */
	int32_t run_id, rank, device;
	char gpu[48];
	char message[F8B_MSG];
};

extern const struct f8b_table_schema f8b_ceilings_schema;

/* f8bench lls: one row per shape x recipe, the whole training step of
 * y = sigmoid(layernorm(x) @ W^T), forward and backward (doc/lls.md). */
struct f8b_lls_row {
	int64_t m, k, n;
	char label[48];
	char recipe[32];       /* short name, or "custom" */
	char recipe_long[320]; /* the nine fields, "field=value,..." */
	int32_t graph;         /* 1: the step ran as one graph */
	int32_t lanes;         /* streams the step ran on, 1 or 2; 0: not recorded (older files) */
	char gemm_impl[F8B_STR]; /* the fp8 GEMMs' implementation, cublaslt|f8b (--gemm-impl; a
	                            bf16 GEMM runs on cuBLASLt in either); "" in older files */
	char backend[F8B_STR];
	char status[F8B_STR];
	double time_median_s, time_min_s, time_max_s; /* one step, forward + backward */
	double time_noise;
	int32_t samples, converged, throttled;
	int32_t launches; /* kernels (ops) in one step */
	int64_t throttle_reasons;
	int32_t sm_mhz_min, sm_mhz_max;
	double bf16_time_median_s; /* the bf16 step of this shape, this process */
	double speedup_vs_bf16;
	double kernels_time_s; /* sum of the step's kernels timed alone */
	double gemm_time_s;    /* of which the three GEMMs */
	/* The step run eagerly with an event before and after each kernel
	 * (the lls_kernels rows' in_step_median_s): its median, to set
	 * beside time_median_s; NaN in older files */
	double traced_time_median_s;
	double predicted_time_s; /* roofline: GEMMs at the GEMM peak, the rest at bandwidth */
	double pct_of_roofline;  /* 100 * predicted / measured */
	char roofline_source[F8B_STR];
	double step_flops; /* 2MNK per GEMM, three GEMMs */
	double step_bytes; /* bytes the step's kernels move (cost model) */
	double sqnr_y_db, sqnr_grad_x_db, sqnr_grad_w_db; /* vs the reference */
	double sqnr_min_db;                               /* the smallest of the three (gated) */
	char reference[F8B_STR];  /* "host-f64" (every element) or "host-f64-rows" */
	int32_t casts_checked;    /* cast kernels checked bit-exact against the host */
	int32_t history_len;      /* delayed scaling's amax history; 0 none */
	double scale_staleness;   /* delayed: max over tensors of scale used / scale of this
	                             step's amax (1 = current; > 1 saturates); NaN none */
	int64_t peak_mem_bytes;   /* most bytes live at once in the step (buffers live from
	                             their first write to their last read) */
	int64_t saved_bytes;      /* activations kept from forward for backward */
	int64_t device_mem_bytes; /* what the step's buffers took from the device (measured) */
	int64_t seed;
	int32_t run_id, rank, device;
	char gpu[48];
	char message[F8B_MSG];
};

extern const struct f8b_table_schema f8b_lls_schema;

/* f8bench lls, where the time goes: one row per kernel of each case's
 * step, timed alone (the lls table's detail). */
struct f8b_lls_kernel_row {
	int64_t m, k, n;
	char recipe[32];
	char gemm_impl[F8B_STR]; /* its case's (the lls row's); "" in older files */
	int32_t index;           /* position in the step */
	char kernel[32];         /* the op: layernorm_fwd_cast, gemm, ... */
	char tensor[F8B_STR];    /* what it works on: x_ln, W, dz, output, ... */
	char pass[F8B_STR];      /* fwd or bwd */
	char fuses[64];          /* what it does in one kernel, e.g. "layernorm+amax+cast+T" */
	char dtype[F8B_STR];     /* the output / GEMM operand dtype */
	double bytes;            /* moved, as implemented (cost model) */
	double flops;
	double time_median_s; /* timed alone */
	double time_noise;
	double in_step_median_s; /* inside the step, on its lane; NaN in older files */
	double gbps;             /* bytes / time / 1e9 */
	double pct_of_bw;        /* of the bandwidth ceiling; NaN unknown */
	double tflops;           /* GEMMs: flops / time / 1e12 */
	double predicted_time_s;
	double pct_of_roofline;
	char status[F8B_STR];
	int32_t run_id, rank;
	char gpu[48];
	char message[F8B_MSG];
};

extern const struct f8b_table_schema f8b_lls_kernel_schema;

/* f8bench allgather: one row per mode x weight x tokens per rank x ranks,
 * the emulated FSDP step over every rank (doc/allgather.md); times are the
 * slowest rank's. */
struct f8b_allgather_row {
	char mode[24]; /* bf16, fp8-compute, fp8-allgather, fp8-allgather-axiswise */
	int64_t d_out; /* layer 0's weight [d_out, d_in]; odd layers are [d_in, d_out] */
	int64_t d_in;
	int32_t layers;
	char label[48]; /* the weight's name in its shape set, or "" */
	int64_t tokens_per_rank;
	int32_t ranks;
	int32_t nodes;                 /* hosts the ranks ran on */
	int32_t prefetch;              /* all-gathers in flight ahead of the layer computing */
	char rs_dtype[F8B_STR];        /* reduce-scatter element type: bf16 or f32 */
	char nccl_buffers[F8B_STR];    /* plain|registered|symmetric ("" in older files: plain) */
	char cta_policy[F8B_STR];      /* default|efficiency|zero ("" in older files: default) */
	int32_t in_place;              /* 1: gathers in place (FSDP); 0 out of place, older files */
	char comm_priority[F8B_STR];   /* the communication stream's: default|high ("": default) */
	char rs_nccl_buffers[F8B_STR]; /* the reduce-scatter's ("": nccl_buffers') */
	int32_t rs_max_ctas;           /* the reduce-scatter's CTA bound; 0: NCCL's choice */
	int32_t gemm_sm_margin;        /* SMs the GEMMs leave to NCCL (--gemm-sm-margin) */
	char gemm_impl[F8B_STR]; /* the fp8 GEMMs' implementation, cublaslt|f8b (--gemm-impl; the
	                            bf16 mode's GEMMs are cuBLASLt's); "" in older files */
	char backend[F8B_STR];
	char library[32];   /* the collectives' library: "NCCL 2.28.3" or "MPI" */
	char transport[48]; /* the path the collectives took (doc/allgather.md) */
	char status[F8B_STR];
	double time_median_s; /* one step, forward + backward, slowest rank */
	double time_min_s;
	double time_max_s;
	double time_noise;
	int32_t samples;
	int32_t converged;
	int32_t throttled;
	int64_t throttle_reasons;
	int32_t sm_mhz_min;
	int32_t sm_mhz_max;
	double fwd_time_s; /* forward part of an instrumented step (median) */
	double bwd_time_s;
	double compute_time_s;     /* the same step with every collective removed, same run */
	double exposed_comm_s;     /* time_median_s - compute_time_s */
	double exposed_pct;        /* 100 * exposed / step */
	double comm_time_s;        /* the step's collectives, each timed alone, summed */
	double overlap_efficiency; /* 1 - exposed / comm_time (1: all hidden) */
	int32_t ag_per_step;       /* all-gathers per step (2 per layer) */
	double ag_bytes;           /* one all-gather's output, largest layer (nccl-tests' size) */
	double ag_bytes_per_step;  /* every all-gather's output in one step */
	double ag_time_s;          /* one all-gather of ag_bytes alone (median) */
	double ag_algbw_gbps;      /* ag_bytes / ag_time */
	double ag_busbw_gbps;      /* algbw * (R-1)/R */
	double ag_overlap_time_s;  /* mean all-gather inside the step, from the last rank's start */
	double ag_overlap_busbw_gbps;
	double ag_busbw_kept_pct; /* 100 * overlapped / standalone busbw */
	double rs_bytes;          /* one reduce-scatter's input, largest layer */
	double rs_time_s;         /* alone (median) */
	double rs_busbw_gbps;
	double rs_overlap_time_s; /* mean reduce-scatter inside the step, the same way */
	double rs_overlap_busbw_gbps;
	double amax_allreduce_s; /* fp8-allgather: the one all-reduce of L amaxes, alone */
	double gemm_time_s;      /* the step's GEMMs in the compute-only step */
	double gemm_tflops;
	double gemm_overlap_time_s; /* the same GEMMs inside the full step */
	double gemm_overlap_tflops;
	double gemm_kept_pct;      /* 100 * overlapped / compute-only TFLOP/s */
	double step_flops;         /* 3 GEMMs per layer, 2*T*n*k each */
	double bf16_time_median_s; /* the bf16 step of this case, this run */
	double speedup_vs_bf16;
	double sqnr_out_db; /* the stack's output vs the bf16 mode's */
	double sqnr_grad_x_db;
	double sqnr_grad_w_db; /* layer 0's grad_weight shard */
	double sqnr_min_db;
	int32_t checks;           /* exact checks passed before timing */
	int64_t peak_mem_bytes;   /* device memory the case took on the rank that took most */
	int64_t weight_mem_bytes; /* of which weight shards and gathered weights */
	int64_t seed;
	int32_t run_id;
	int32_t rank;
	int32_t device;
	char gpu[48];
	char message[F8B_MSG];
	char optimizer[F8B_STR]; /* --optimizer: none|fp32|bf16|fp8|fp8-master16 ("": none) */
	char update[F8B_STR];    /* --update: after|overlap ("" in older files: after) */
	double optim_bytes;      /* bytes the optimizer's passes move per step on a rank */
	double
	    ag_wait_s; /* mean wait of the first rank at an all-gather for the last (NaN: older) */
	double rs_wait_s;        /* the same at a reduce-scatter */
	char rs_stream[F8B_STR]; /* --rs-stream: shared|own ("" in older files: shared) */
};

extern const struct f8b_table_schema f8b_allgather_schema;

/* f8bench optim: one row per parameter set x variant x scaling x
 * granularity x graph x steps, the fused optimizer step (doc/optim.md). */
struct f8b_optim_row {
	char variant[F8B_STR]; /* fp32, bf16, fp8, fp8-master16 */
	char scaling[F8B_STR]; /* the fp8 weight's scale: dynamic, dynamic-sync, delayed, predicted
	                        */
	char granularity[F8B_STR]; /* of the fp8 weight's scale: tensorwise or axiswise (per row) */
	char label[48];            /* the parameter set: shape set names, or "params" */
	int64_t params;            /* parameters updated per step */
	int32_t tensors;           /* parameter tensors */
	int32_t steps;             /* steps of the trajectory before the SQNRs */
	int32_t graph;             /* 1: each step ran as one graph */
	int32_t stochastic;        /* 1: the bf16 master rounds stochastically (fp8-master16) */
	int64_t chunk_bytes;       /* the chunk threshold of the multi-tensor launch */
	int32_t chunks;            /* chunks per launch (a CTA each; dynamic-sync: fewer CTAs) */
	int32_t launches;          /* kernel launches per step (2: dynamic; else 1) */
	char backend[F8B_STR];
	char status[F8B_STR];
	double time_median_s; /* one step */
	double time_min_s;
	double time_max_s;
	double time_noise;
	int32_t samples;
	int32_t converged;
	int32_t throttled;
	int32_t history_len;           /* delayed: amaxes in the history; 0 otherwise */
	double time_split_s;           /* update, amax, cast as three launches (same run) */
	double fused_speedup;          /* time_split_s / time_median_s */
	double fp32_time_median_s;     /* the fp32 row of this case, this process */
	double speedup_vs_fp32;        /* fp32_time_median_s / time_median_s */
	double state_bytes_per_param;  /* master + m + v (+ block scales), as stored */
	double step_bytes_per_param;   /* what one step moves at least per parameter */
	double min_bytes;              /* params x step_bytes_per_param */
	double gbps;                   /* min_bytes / time_median_s / 1e9 */
	double copy_bw_gbps;           /* the copy bandwidth ceiling (measured or datasheet) */
	double pct_of_copy_bw;         /* 100 x gbps / copy_bw_gbps */
	char roofline_source[F8B_STR]; /* "measured" or "datasheet" */
	int64_t peak_mem_bytes;        /* device memory the case's buffers took */
	double sqnr_w_db;              /* master weight after steps vs an fp64 AdamW */
	double sqnr_w8_db;             /* fp8 weight (dequantised) vs the same */
	int64_t sampled;               /* elements the SQNRs and the bit-exact check read */
	int64_t saturated;             /* fp8 weight values the casts clipped, all steps */
	int32_t saturated_steps;       /* steps whose cast clipped at least one value */
	int32_t bitexact;              /* 1: one step matched the host reference bit for bit */
	double range_used;             /* mean over scales of amax x scale / 448 (last step) */
	double range_used_min;         /* the smallest of them */
	int64_t nonfinite_grads;       /* non-finite gradient elements met (skipped), all steps */
	int64_t clipped;               /* update elements clipped to the bound U_t, all steps */
	double lr;                     /* peak learning rate */
	double weight_decay;
	int64_t seed;
	int32_t run_id;
	int32_t rank;
	int32_t device;
	char gpu[48];
	char message[F8B_MSG];
};

extern const struct f8b_table_schema f8b_optim_schema;

#endif
