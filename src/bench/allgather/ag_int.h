/* ag_int.h - what the allgather benchmark's files share (doc/allgather.md):
 * configuration and cases (ag_cfg.c), the step's buffers (ag_buf.c), the
 * emulated FSDP step (ag_step.c), the optimizer on the shards
 * (ag_optim.c), the exact checks (ag_check.c, ag_optim_check.c) and the
 * driver (allgather.c).
 *
 * A stack of L linear layers; layer l's weight is [n_l, k_l] with
 * (n_0, k_0) = (d_out, d_in) and the two swapped on odd layers, so the
 * stack chains (an MLP's up and down projections).  Each weight is
 * sharded by rows over the R ranks (rank r holds rows r*n/R ..), each
 * rank has T tokens.  One step:
 *   forward   for l = 0..L-1: gather W_l; x_{l+1} = x_l @ W_l^T
 *   backward  for l = L-1..0: gather W_l again; g_l = g_{l+1} @ W_l;
 *             dW_l = g_{l+1}^T @ x_l; reduce-scatter dW_l to the shards
 * The gathers, the reduce-scatters and what prepares a gather (the fp8
 * cast of a shard) run on a communication queue, `prefetch` gathers
 * ahead of the layer computing; the GEMMs and the activations' casts on
 * the backend's own queue.
 */
#ifndef F8B_AG_INT_H
#define F8B_AG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "core/optim.h"
#include "harness/bench.h"
#include "harness/comm.h"
#include "results/schema.h"

#define AG_MAX_LAYERS   64
#define AG_MAX_PREFETCH 4
#define AG_MAX_USES     (2 * AG_MAX_LAYERS) /* gathers per step */
/* What a tuned FSDP runs (doc/allgather.md, "Two communicators"): gathers
 * in place on symmetric windows and the copy engines, which leave the SMs
 * to the GEMMs, and the reduce-scatter on registered buffers on a
 * communicator of its own (on the gathers' symmetric windows it ran 18%
 * slower: results/h100x2/experiments/nccl-buffers/).  In one job on 2x
 * H200 this cut the exposed communication at 2048 tokens/rank from 20.6%
 * to 11.4% of the step (results/h200x2/experiments/two-comms/). */
#define AG_DEFAULT_BUFFERS "symmetric"
#define AG_DEFAULT_CTA     "zero"
/* The reduce-scatter's buffers when --rs-nccl-buffers is not given and
 * the gathers' are symmetric; other modes are shared by both. */
#define AG_DEFAULT_RS_BUFFERS_OF_SYMMETRIC "registered"
#define AG_DEFAULT_IN_PLACE                "on"
/* --rs-max-ctas's bound: NCCL's channels (MAXCHANNELS) on sm_90. */
#define AG_MAX_RS_CTAS 64
/* --gemm-sm-margin's bound. */
#define AG_MAX_SM_MARGIN 32
/* Buffers f8b_coll_alloc made for one case, freed in reverse order. */
#define AG_MAX_CBUFS (8 * AG_MAX_LAYERS + 4 * AG_MAX_PREFETCH + 16)
/* --optimizer (ag_optim.c): blocks of F8B_OPTIM_BLOCK elements of each
 * layer's shard the check follows through a step (first, middle, last). */
#define AG_OPT_SAMPLE 3

enum ag_mode {
	AG_BF16,        /* bf16 gathers, bf16 GEMMs */
	AG_FP8_COMPUTE, /* bf16 gathers, the gathered weight cast to fp8 on every rank */
	AG_FP8_AG,      /* one all-reduce of L amaxes, shards cast, fp8 gathered */
	AG_FP8_AG_AXIS, /* per-row scales on each shard, gathered beside the data */
	AG_NMODES
};
const char *f8b_ag_mode_name(int mode);
/* The mode of a name, or AG_NMODES when it is none. */
int f8b_ag_mode_of(const char *name);
/* Bytes every rank holds after gathering a weight [n, k] in `mode`, for
 * its forward or its backward (nccl-tests' size; the axiswise forward
 * gathers its n row scales too). */
double f8b_ag_gather_bytes_of(int mode, int64_t n, int64_t k, bool fwd);

struct ag_weight {
	int64_t n, k; /* layer 0's weight [n, k] */
	char label[48];
};

struct ag_case {
	int weight;
	int64_t tokens;
	int mode;
	enum f8b_gemm_impl impl; /* the fp8 GEMMs' (--gemm-impl); the bf16 mode: cuBLASLt */
};

/* The bf16 step of one weight x tokens: its time and its outputs (the
 * fp8 modes' SQNRs are against these). */
struct ag_base {
	bool have;
	int64_t n, k, tokens; /* layer 0's weight, tokens per rank */
	double median_s;
	uint16_t *y, *gx, *gw; /* host copies */
	size_t ny, ngx, ngw;
	bool rs_f32; /* gw holds floats */
};

struct ag_cfg {
	const char *modes_spec, *weights_spec, *tokens_spec, *impl_spec;
	enum f8b_gemm_impl impls[F8B_GEMM_IMPL_COUNT]; /* --gemm-impl, in its order */
	int nimpls;
	int modes[AG_NMODES];
	int nmodes;
	struct ag_weight *w;
	size_t nw;
	int64_t *tokens;
	size_t ntok;
	int layers, prefetch;
	bool rs_f32;
	double timeout_s;
	int buffers, cta; /* enum f8b_coll_buffers, f8b_coll_cta */
	bool cta_set, in_place;
	bool comm_high;   /* --comm-priority high */
	int rs_buffers;   /* --rs-nccl-buffers (-1 until finalize: the all-gather's) */
	int rs_max_ctas;  /* --rs-max-ctas; 0: NCCL's choice */
	bool rs_own_comm; /* the reduce-scatter runs on rs_coll */
	bool rs_stream; /* --rs-stream own: reduce-scatters (and updates) on a queue of their own */
	int sm_margin;  /* --gemm-sm-margin */
	int optim;      /* --optimizer: enum f8b_optim_variant, or -1 (none) */
	bool overlap;   /* --update overlap */
	bool update_set, modes_set;
	struct ag_case *cases;
	size_t ncases;
	/* Filled at the first setup. */
	struct f8b_coll *coll;
	struct f8b_coll *rs_coll; /* rs_own_comm: the reduce-scatter's */
	int coll_rc;
	bool coll_tried;
	char transport[48];
	int nodes;
	struct ag_base base;
	int *wchecked;  /* nw x AG_NMODES: exact checks the gathered weights passed (0: not yet) */
	int *rschecked; /* nw: the reduce-scatter's */
	struct f8b_backend *hb; /* host backend for the checks' references */
};

extern const struct f8b_option f8b_ag_options[];
int f8b_ag_cfg_new(void **cfg);
int f8b_ag_cfg_option(void *cfg, int key, const char *arg);
int f8b_ag_cfg_finalize(void *cfg, size_t *ncases);
void f8b_ag_cfg_free(void *cfg);
void f8b_ag_case_key(const void *cfg, size_t i, void *row);
bool f8b_ag_same_case(const void *a, const void *b);
/* The same communication stream priority, reduce-scatter communicator and
 * GEMM SM margin
 * ("" and 0 in older files: default priority, the all-gather's buffers,
 * NCCL's CTAs). */
bool f8b_ag_same_rs_comm(const struct f8b_allgather_row *a, const struct f8b_allgather_row *b);
/* ", RS on registered buffers, <= 8 CTAs, high-priority comm stream": what
 * differs from one communicator at the default priority, and the GEMMs'
 * SM margin ("" if nothing). */
void f8b_ag_comm_extra(const struct f8b_allgather_row *r, char *buf, size_t n);
void f8b_ag_describe(const void *row, char *buf, size_t n);
/* The row's gemm_impl ("" in older files: cuBLASLt), and how the report
 * marks it after the mode: "" for cuBLASLt, " [f8b]" for f8bench's own. */
enum f8b_gemm_impl f8b_ag_row_impl(const struct f8b_allgather_row *r);
const char *f8b_ag_impl_tag(const struct f8b_allgather_row *r);
void f8b_ag_summarize(const void *row, char *buf, size_t n);
/* The exposed communication's share for a person to read: "12.3%", or
 * "none (-1.2%: noise; ...)" where the two medians it comes from crossed. */
void f8b_ag_exposed_str(const struct f8b_allgather_row *r, char *buf, size_t n);
int64_t f8b_ag_case_bytes(const void *cfg, size_t i);

struct ag_gemm {
	struct f8b_gemm_desc desc;
	struct f8b_gemm_plan *plan;
};

/* Timing marks of an instrumented step. */
enum { TM_START, TM_FWD_END, TM_END, TM_N };

struct ag_state {
	struct f8b_run *run;
	struct ag_cfg *c;
	int mode, L, P, R, rank;
	enum f8b_gemm_impl impl; /* of the fp8 modes' GEMMs (the bf16 mode's: cuBLASLt) */
	int64_t T;
	int64_t n[AG_MAX_LAYERS], k[AG_MAX_LAYERS], rows[AG_MAX_LAYERS];
	int64_t maxn, maxk, maxrows; /* over layers: maxn = maxk = max(d_out, d_in) */
	enum f8b_dtype gw_dtype;     /* of dW and its reduce-scatter */

	void **cbuf[AG_MAX_CBUFS];                /* where each f8b_coll_alloc pointer is kept */
	struct f8b_coll *cbuf_coll[AG_MAX_CBUFS]; /* and the communicator it came from */
	int ncbuf;
	struct f8b_tensor w[AG_MAX_LAYERS];          /* bf16 shards [rows, k] */
	struct f8b_tensor wq_shard;                  /* fp8 shard cast before a gather */
	float *amax_loc, *amax_all;                  /* fp8-allgather: L each */
	float *scale_all, *sinv_all;                 /* layer l's at [4*l] (16-byte aligned) */
	float *row_amax, *row_sinv;                  /* axiswise shard: maxrows each */
	struct f8b_tensor slot[AG_MAX_PREFETCH + 1]; /* gathered weights (bytes: n*k*2) */
	float *slot_sinv[AG_MAX_PREFETCH + 1];       /* axiswise: gathered row scales */

	struct f8b_tensor wq, wq_t;       /* fp8 full weight / its transpose (casts on a rank) */
	float *w_amax, *w_scale, *w_sinv; /* maxn floats each (tensorwise: [0]) */

	struct f8b_tensor x[AG_MAX_LAYERS + 1]; /* activations bf16 [T, dim] */
	struct f8b_tensor xq;                   /* fp8 x_l (forward's A) */
	float *x_amax, *x_sinv;                 /* T floats each */
	struct f8b_tensor xq_t[AG_MAX_LAYERS];  /* fp8 x_l^T [k, T], kept for dW */
	float *xt_sinv[AG_MAX_LAYERS];          /* its scales (tensorwise: 1; axiswise: k) */
	float *xt_amax, *xt_scale;              /* maxk floats each (scratch) */

	struct f8b_tensor dy;                /* seeded gradient of the output [T, n_{L-1}] */
	struct f8b_tensor g[2];              /* gradients bf16 [T, maxn], ping-pong */
	struct f8b_tensor gq, gq_t;          /* fp8 e5m2 g and g^T */
	float *g_amax, *g_sinv;              /* T floats (tensorwise: [0]) */
	float *gt_amax, *gt_scale, *gt_sinv; /* maxn floats */
	struct f8b_tensor gw[2];             /* dW [n, k] bf16 or f32, ping-pong */
	struct f8b_tensor gw_shard[AG_MAX_LAYERS];
	const struct f8b_tensor *grad_x; /* where the step leaves dL/dx_0 */

	struct ag_gemm fwd[AG_MAX_LAYERS], gi[AG_MAX_LAYERS], gwg[AG_MAX_LAYERS];

	struct f8b_stream *cs;  /* the communication queue */
	struct f8b_stream *rss; /* --rs-stream own: the reduce-scatters' (NULL: cs) */
	struct f8b_stream *ups; /* --update overlap: the updates' queue (else NULL) */
	struct f8b_event *ev_start, *ev_comm_end, *ev_rs_end;
	struct f8b_event *ev_upd[AG_MAX_LAYERS]; /* overlap: layer l's update pass done */
	struct f8b_event *ev_gath[AG_MAX_USES], *ev_used[AG_MAX_USES];
	struct f8b_event *ev_gw[AG_MAX_LAYERS], *ev_rs[AG_MAX_LAYERS];

	/* What one launch does. */
	bool no_coll; /* the compute-only step: every collective left out */
	bool instr;   /* record the timing events below */
	struct f8b_event *t_ag[AG_MAX_USES][2], *t_rs[AG_MAX_LAYERS][2];
	struct f8b_event *t_gemm[3 * AG_MAX_LAYERS][2], *t_mark[TM_N];
	int solo; /* finish's standalone launches: 0 all-gather, 1 reduce-scatter, 2 all-reduce */

	/* The optimizer (--optimizer, ag_optim.c): this rank's shard of every
	 * layer, at element ooff[l] of each state buffer. */
	bool opt;
	struct f8b_optim_args oa;                  /* every layer: after's one pass */
	struct f8b_optim_args oa_l[AG_MAX_LAYERS]; /* layer l alone: overlap's */
	void *obuf[16];                            /* what ag_optim.c allocated */
	int64_t ooff[AG_MAX_LAYERS], oarena;
	struct f8b_optim_hyper *ohyper; /* host copy of the table */
	struct f8b_tensor gw_all;       /* after: every layer's grad shard, at ooff[l] */
	uint16_t *probe;                /* the check: the sampled grads each update read */
	bool probe_on;
	bool opt_ready; /* the first fp8 shards are cast (the first step does it) */

	int64_t allocated; /* bytes of backend memory */
	int64_t weight_bytes;
};

/* ag_buf.c */
/* A tensor header over data (no allocation). */
struct f8b_tensor f8b_ag_view(void *data, enum f8b_dtype dt, int64_t r, int64_t c);
/* The seeded fill of layer l's weight: the whole W_l, or (shard) this
 * rank's rows of it, which are the whole tensor's elements from an offset. */
struct f8b_fill_spec f8b_ag_weight_fill(const struct ag_state *s, int l, bool shard);
int f8b_ag_alloc(struct ag_state *s);
void f8b_ag_free(struct ag_state *s);
/* Backend memory, counted in s->allocated: plain, or a collective's
 * buffer (--nccl-buffers; freed by f8b_ag_free). */
int f8b_ag_bytes(struct ag_state *s, size_t bytes, void **p);
int f8b_ag_cbytes(struct ag_state *s, size_t bytes, void **p);
/* The same from the reduce-scatter's communicator (rs), in its mode. */
int f8b_ag_cbytes_on(struct ag_state *s, bool rs, size_t bytes, void **p);

/* ag_optim.c */
/* The optimizer's state and tables, the grad shards (every layer's, or
 * overlap's two buffers) and the initial master weights (the seeded
 * W_l's shard). */
int f8b_ag_optim_alloc(struct ag_state *s);
void f8b_ag_optim_free(struct ag_state *s);
/* The first fp8 shards: the amax of each master, its all-reduce, the
 * global scales and the cast (the first step runs it, on its queue). */
int f8b_ag_optim_first(struct ag_state *s);
/* On the current queue.  l < 0: after's update of every layer's shard
 * in one multi-tensor pass, or (overlap) nothing more; then the global
 * amaxes and scales and the fp8 shards the next step gathers.  l >= 0
 * (overlap): layer l's update pass alone (its rank-local amax). */
int f8b_ag_optim_update(struct ag_state *s, int l);
/* The check's probe: layer l's sampled grad blocks, copied on the
 * current queue (only while probe_on). */
int f8b_ag_optim_probe(struct ag_state *s, int l);
/* Element where sampled block i of layer l starts in the layer's shard. */
int64_t f8b_ag_optim_sample(const struct ag_state *s, int l, int i, int *cnt);
/* Bytes of the optimizer's step over every shard (the roofline's). */
double f8b_ag_optim_bytes(const struct ag_state *s);

/* ag_optim_check.c */
int f8b_ag_optim_check(struct ag_state *s, char *why, size_t nwhy, int *checks);

/* ag_step.c */
/* The scales of fp8-allgather: every shard's amax, the one all-reduce,
 * the scales (on the current queue). */
int f8b_ag_prologue(struct ag_state *s);
/* Gather for use u (u < L: layer u's forward; else layer 2L-1-u's
 * backward) into slot, on the current queue. */
int f8b_ag_gather(struct ag_state *s, int u, int slot);
/* One collective of the step on the communicator that runs its kind (the
 * reduce-scatter's own, f8b_ag_rs_coll, which also takes the optimizer's
 * all-reduce when the reduce-scatters have their own queue; else the
 * all-gather's); nothing in the compute-only step (no_coll). */
int f8b_ag_coll(struct ag_state *s, enum f8b_coll_op op, enum f8b_coll_type t,
                enum f8b_coll_red red, const void *send, void *recv, size_t count);
/* A whole step (the harness's launch). */
int f8b_ag_step(void *state);
int f8b_ag_solo(void *state);
/* Layer of use u, and whether it is a forward use. */
int f8b_ag_use_layer(const struct ag_state *s, int u, bool *fwd);
/* Bytes of the gather of use u (output, every rank's) and of dW_l. */
double f8b_ag_gather_bytes(const struct ag_state *s, int u);
double f8b_ag_rs_bytes(const struct ag_state *s, int l);

/* The reduce-scatter's communicator: its own (--rs-nccl-buffers other than
 * --nccl-buffers, or --rs-max-ctas), else the all-gather's. */
static inline struct f8b_coll *f8b_ag_rs_coll(const struct ag_cfg *c)
{
	return c->rs_coll ? c->rs_coll : c->coll;
}

/* ag_check.c */
int f8b_ag_check(struct ag_state *s, struct f8b_allgather_row *row, bool *ok);

#endif
