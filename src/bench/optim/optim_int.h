/* optim_int.h - what the optim benchmark's files share (doc/optim.md):
 * options, the parameter set and the case list (optim_cfg.c); buffers,
 * the gradient stream, the trajectory and the fp64 reference
 * (optim_step.c); the bit-exact check and the SQNRs (optim_check.c); the
 * driver (optim.c).
 */
#ifndef F8B_OPTIM_INT_H
#define F8B_OPTIM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cases.h"
#include "core/optim.h"
#include "harness/bench.h"
#include "model/peaks.h"
#include "model/roofline.h"
#include "results/schema.h"

#define OPTIM_MAX_LIST 16
/* Blocks of 128 elements the SQNRs and the bit-exact check read at most
 * (evenly spaced over the model; every block when there are fewer). */
#define OPTIM_SAMPLE_BLOCKS 2048
#define OPTIM_HISTORY       16
#define OPTIM_CHUNK_BYTES   ((int64_t)1 << 20)
/* Defaults: a Llama 3 8B layer's weights on a GPU; on the host a few
 * uneven tensors, one smaller than a chunk, so CI stays fast. */
#define OPTIM_GPU_SHAPES  "llama3-8b"
#define OPTIM_HOST_PARAMS "384x257,1000,130"

/* One parameter tensor of the set. */
struct optim_tspec {
	int64_t rows, cols;
};

struct optim_case {
	enum f8b_optim_variant variant;
	enum f8b_optim_scaling scaling;
	enum f8b_granularity gran;
	int steps;
	bool graph;
};

struct optim_base {
	struct optim_case key; /* variant unused */
	double median_s;
};

struct optim_cfg {
	const char *variant_spec, *scaling_spec, *gran_spec, *steps_spec, *params_spec,
	    *shapes_spec, *graph_spec, *ceilings_path;
	struct f8b_optim_hparams hp;
	int history;
	int64_t chunk_bytes;
	bool stochastic;
	int64_t nonfinite; /* gradient elements made NaN / +-inf per step (tests) */
	bool gpu_defaults;
	/* the parameter set */
	struct optim_tspec *t;
	int64_t nt, params;
	char label[48];
	struct optim_case *cases;
	size_t ncases;
	struct optim_base *base;
	size_t nbase;
	struct f8b_peaks peaks;
	struct f8b_ceilings ceilings;
	bool roof_done;
	struct f8b_backend *href; /* the host backend: the reference's gradients */
};

/* A block of the sample: elements [e0, e0 + cnt) of tensor k. */
struct optim_sample {
	int64_t k, e0;
	int cnt;
};

/* The buffers of backend.h's optim args, as one list (alloc and free). */
enum optim_buf {
	OB_GRAD,
	OB_MASTER,
	OB_M,
	OB_V,
	OB_MSINV,
	OB_VSINV,
	OB_W8,
	OB_SCALE,
	OB_USED,
	OB_ACC,
	OB_LAST,
	OB_HIST,
	OB_CTR,
	OB_TENSORS,
	OB_CHUNKS,
	OB_HYPER,
	OB_COUNT
};

struct optim_state {
	struct f8b_run *run;
	struct optim_cfg *cfg;
	struct optim_case cs;
	struct f8b_optim_args a; /* backend memory */
	void *buf[OB_COUNT];
	size_t bytes[OB_COUNT];
	int64_t allocated;
	/* host copies of the tables */
	struct f8b_optim_tensor *tensors;
	struct f8b_optim_chunk *chunks;
	struct f8b_optim_hyper *hyper;
	int64_t arena, nblocks;
	struct f8b_graph *graph, *graph_split;
	/* the sample and the fp64 reference of its elements */
	struct optim_sample *smp;
	int64_t nsmp, nsmp_elems;
	double *rw, *rm, *rv; /* reference w, m, v per sampled element */
	/* the sampled state before the checked step (optim_check.c) */
	void *pre;
	size_t pre_bytes;
	uint64_t pre_ctr[F8B_OPTIM_CTR_COUNT];
	float *pre_scale;
};

/* optim_cfg.c */
extern const struct f8b_option f8b_optim_options[];
int f8b_optim_cfg_new(void **cfg);
void f8b_optim_cfg_free(void *cfg);
int f8b_optim_cfg_option(void *cfg, int key, const char *arg);
int f8b_optim_cfg_finalize(void *cfg, size_t *ncases);
void f8b_optim_case_key(const void *cfg, size_t i, void *row);
bool f8b_optim_same_case(const void *a, const void *b);
void f8b_optim_describe(const void *row, char *buf, size_t n);
void f8b_optim_summarize(const void *row, char *buf, size_t n);
int64_t f8b_optim_case_bytes(const void *cfg, size_t i);

/* optim_step.c */
/* Layout, buffers, tables, initial weights and scales, the sample. */
int f8b_optim_alloc(struct optim_state *s);
void f8b_optim_free(struct optim_state *s);
/* Step t's gradients into the grad buffer (and the injected non-finite
 * values); the same values the reference draws for its sample. */
int f8b_optim_gradients(struct optim_state *s, int64_t t);
/* One step's ops: the fused pass (and the cast pass, dynamic); what the
 * graph captures. */
int f8b_optim_step_ops(void *vs);
/* One step as timed: its graph, or its ops. */
int f8b_optim_run_step(void *vs);
/* The split sequence: update, amax, cast as three passes. */
int f8b_optim_run_split(void *vs);
/* The trajectory of cs.steps steps with the fp64 reference beside it. */
int f8b_optim_trajectory(struct optim_state *s);
/* The seed of tensor k's data of stream `what` at step t. */
uint64_t f8b_optim_seed(uint64_t seed, uint64_t what, int64_t t, int64_t k);
struct f8b_fill_spec f8b_optim_grad_spec(uint64_t seed, int64_t t, int64_t k);
struct f8b_fill_spec f8b_optim_weight_spec(uint64_t seed, int64_t k);
/* Injected non-finite gradient j of step t: tensor *k, element *e, bf16 bits. */
void f8b_optim_bad_grad(const struct optim_state *s, int64_t t, int64_t j, int64_t *k, int64_t *e,
                        uint16_t *bits);

/* optim_check.c */
/* After the trajectory: SQNRs, counters, range used into the row; the
 * sampled state kept for the bit-exact check of the next step. */
int f8b_optim_accuracy(struct optim_state *s, struct f8b_optim_row *row);
int f8b_optim_check(void *vs, void *vrow, bool *ok);

#endif
