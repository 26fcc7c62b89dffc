/* lls_int.h - what the lls benchmark's files share (doc/lls.md):
 * configuration and cases (lls_cfg.c), the step - its buffers, its list
 * of kernels and how a recipe picks them (lls_step.c), the two lanes they
 * run on (lls_lanes.c) - the checks and the host reference (lls_check.c),
 * and the driver (lls.c).
 *
 * The step of y = sigmoid(layernorm(x) @ W^T), x [M,K], W [N,K]:
 *   forward   x_ln = layernorm(x); z = x_ln @ W^T; y = sigmoid(z)
 *   backward  dz = dy * y * (1 - y); dx_ln = dz @ W; dW = dz^T @ x_ln;
 *             dx = layernorm_bwd(dx_ln)
 * Each GEMM argument is cast as the recipe says; a GEMM whose two
 * arguments are not both fp8 runs in bf16 on the bf16 tensors.
 */
#ifndef F8B_LLS_INT_H
#define F8B_LLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "harness/bench.h"
#include "core/cases.h"
#include "core/recipe.h"
#include "model/peaks.h"
#include "model/roofline.h"
#include "results/schema.h"

#define LLS_EPS        1e-5f /* LayerNorm epsilon */
#define LLS_MAX_STAGES 32    /* kernels in one step, at most */
#define LLS_HISTORY    16    /* default delayed-scaling amax history */

/* The step's tensors. */
enum lls_buf {
	B_X,    /* input x [M,K] bf16 */
	B_W,    /* weight [N,K] bf16 */
	B_DY,   /* grad of y [M,N] bf16 (seeded) */
	B_XLN,  /* layernorm(x) [M,K] bf16, when a kernel reads it */
	B_Z,    /* x_ln @ W^T [M,N] */
	B_Y,    /* sigmoid(z) [M,N] */
	B_DZ,   /* [M,N] bf16, when a kernel reads it */
	B_DXLN, /* dz @ W [M,K] */
	B_DX,   /* [M,K] */
	B_DW,   /* dz^T @ x_ln [N,K] */
	B_MEAN, /* LayerNorm statistics, M floats each (as [1,M] f32) */
	B_RSTD,
	NBUF
};

/* The six fp8 GEMM operands (the recipe's six cast fields). */
enum lls_opnd {
	O_XLN,  /* x_ln [M,K]      output's A      (recipe input) */
	O_W,    /* W [N,K]         output's B      (weight) */
	O_DZ,   /* dz [M,N]        grad_input's A  (grad_output) */
	O_WT,   /* W^T [K,N]       grad_input's B  (weight_for_grad_input) */
	O_DZT,  /* dz^T [N,M]      grad_weight's A (grad_output_for_grad_weight) */
	O_XLNT, /* x_ln^T [K,M]    grad_weight's B (input_for_grad_weight) */
	NOPND
};

struct lls_operand {
	bool used;
	struct f8b_cast_config cfg;
	int src;             /* B_XLN, B_W or B_DZ */
	bool transposed;     /* of src */
	int64_t rows, cols;  /* of the fp8 tensor */
	struct f8b_tensor q; /* fp8 */
	int64_t ns;          /* scale count */
	float *amax, *scale, *sinv;
	int alias;            /* -1, or the operand whose cast also writes this one
	                         (q and q^T of one tensorwise cast share its scale) */
	float *dscale, *hist; /* delayed: the scale cast with, the amax history */
	float *partial;       /* dynamic tensorwise: pass 1's block maxima (backend.h) */
	float dscale_host;    /* check: the scale the checked step used */
};

enum lls_kind {
	K_LN_FWD,
	K_LN_FWD_CAST,
	K_SIG_FWD,
	K_SIG_BWD,
	K_SIG_BWD_CAST,
	K_CAST_FUSED,
	K_AMAX,
	K_AMAX_T,
	K_SCALES,
	K_CAST,
	K_CAST_T,
	K_HISTORY,
	K_GEMM,
	K_LN_BWD,
};

struct lls_stage {
	enum lls_kind kind;
	bool bwd;
	int src;         /* the tensor read (casts), B_* */
	int hp_out;      /* bf16 written beside a fused cast (B_XLN / B_DZ), -1 none */
	int q, qt;       /* operands written (-1 none); amax/scales of `q`, else `qt` */
	int gemm;        /* K_GEMM: 0 output, 1 grad_input, 2 grad_weight */
	bool ln;         /* amax_t / cast_transpose of x_ln formed from x, mean and rstd
	                    (layernorm_amax_t / layernorm_cast_t): x_ln is not stored */
	int amax_to;     /* axiswise cast: also writes the tensorwise amax of this
	                    operand (backend.h amax_all), -1 none */
	bool amax_given; /* tensorwise T-only cast_fused whose amax amax_to made */
	char tensor[16]; /* for the kernels table */
	char fuses[64];
	enum f8b_dtype dtype;
	struct f8b_cost cost;
	enum f8b_dtype compute; /* GEMM dtype; F8B_F32: memory-bound */
	double time_s, noise;   /* timed alone (finish) */
	double in_step_s;       /* its median time inside the step (finish's trace) */
	int lane;               /* 0: the backend's stream, 1: the second (lls_lanes.c) */
	int wait;               /* the stage of the other lane to wait for first, -1 none */
	bool signal;            /* a stage of the other lane waits for this one */
};

struct lls_gemm {
	struct f8b_gemm_desc desc;
	struct f8b_gemm_args args;
	struct f8b_gemm_plan *plan;
	struct f8b_algo_info info;
};

struct lls_case {
	size_t shape;
	size_t recipe; /* into cfg->recipes */
	/* The fp8 GEMMs' implementation (--gemm-impl).  A recipe with no fp8
	 * GEMM (bf16) is one case, on cuBLASLt, whatever the list says. */
	enum f8b_gemm_impl impl;
};

struct lls_baseline {
	int64_t m, k, n;
	double median_s;
};

struct lls_cfg {
	const char *shapes_spec, *recipe_spec, *ceilings_path, *impl_spec;
	enum f8b_gemm_impl impls[F8B_GEMM_IMPL_COUNT]; /* --gemm-impl, in its order */
	int nimpls;
	bool graph;
	int lanes; /* 1: every kernel on one stream; 2: two lanes; 0: auto (lls_lanes.c) */
	int history;
	struct f8b_shapes shapes;
	struct f8b_recipe *recipes;
	size_t nrecipes;
	struct lls_case *cases;
	size_t ncases;
	struct lls_baseline *base;
	size_t nbase;
	struct f8b_peaks peaks;
	struct f8b_ceilings ceilings;
	bool roof_done;
};

struct lls_state {
	struct f8b_run *run;
	struct lls_cfg *cfg;
	const struct f8b_recipe *recipe;
	enum f8b_gemm_impl impl; /* of the fp8 GEMMs; bf16 GEMMs run on cuBLASLt */
	/* The output GEMM applies the sigmoid in its epilogue and writes y
	 * (impl f8b with an fp8 output GEMM): no sigmoid_fwd stage, no z. */
	bool fused_sigmoid;
	int64_t m, k, n;
	struct f8b_tensor buf[NBUF];
	struct lls_operand op[NOPND];
	struct lls_gemm g[3];
	struct lls_stage st[LLS_MAX_STAGES];
	int nst;
	int history;              /* delayed scaling's history length, 0 none */
	struct f8b_scale_opts so; /* the recipe's scale options */
	struct f8b_graph *graph;
	/* The second lane (lls_lanes.c): its stream, an event after each
	 * stage that signals, one at the step's start (fork) and one after
	 * the lane's last stage (join). */
	struct f8b_stream *side;
	struct f8b_event *ev[LLS_MAX_STAGES], *ev_fork, *ev_join;
	/* finish's trace of the step (NULL otherwise): run_step records
	 * trace[2 + 2i] and trace[3 + 2i] just before and after stage i on
	 * its lane (after its wait); trace[0] and trace[1] are the harness's
	 * events around the whole step (f8b_measure_cold). */
	struct f8b_event **trace;
	bool force_hp;     /* check: fused casts also write their bf16 value */
	int64_t allocated; /* bytes of backend memory the step holds */
	int single;        /* finish: the stage timed alone */
	int casts_checked;
	double staleness;
};

extern const struct f8b_option f8b_lls_options[];

/* lls_cfg.c */
int f8b_lls_cfg_new(void **cfg);
void f8b_lls_cfg_free(void *cfg);
int f8b_lls_cfg_option(void *cfg, int key, const char *arg);
int f8b_lls_cfg_finalize(void *cfg, size_t *ncases);
void f8b_lls_case_key(const void *cfg, size_t i, void *row);
bool f8b_lls_same_case(const void *a, const void *b);
void f8b_lls_describe(const void *row, char *buf, size_t n);
void f8b_lls_summarize(const void *row, char *buf, size_t n);
int64_t f8b_lls_case_bytes(const void *cfg, size_t i);
/* The recipe in one line, "input=tensorwise:e4m3:dynamic,...". */
void f8b_lls_recipe_line(const struct f8b_recipe *r, char *buf, size_t n);

/* lls_step.c */
/* The GEMMs recipe r runs in fp8 (both arguments cast), as bits: 1
 * output, 2 grad_input, 4 grad_weight.  The others run in bf16, on
 * cuBLASLt whatever --gemm-impl says (f8bench's own GEMM is fp8 only). */
unsigned f8b_lls_fp8_gemms(const struct f8b_recipe *r);
/* "output", "grad_input", "grad_weight" (j = 0, 1, 2). */
const char *f8b_lls_gemm_name(int j);
/* Plans the step of s->recipe: operands, stages, GEMM descriptions and
 * their costs.  No backend call. */
int f8b_lls_plan(struct lls_state *s);
/* Allocates and fills the buffers, plans the GEMMs. */
int f8b_lls_alloc(struct lls_state *s);
void f8b_lls_free(struct lls_state *s);
/* Enqueues stage i alone (on the backend's stream). */
int f8b_lls_run_stage(struct lls_state *s, int i);
const char *f8b_lls_kind_name(enum lls_kind k);

/* lls_lanes.c: the step on two lanes.  f8b_lls_lanes (called by plan)
 * puts on the second lane the kernels no GEMM of the first needs before
 * it: W's casts, the casts made only for grad_weight (x_ln^T, dz^T) and
 * grad_weight itself; every other kernel, the GEMMs output and
 * grad_input and the LayerNorm and sigmoid passes, stays on the first.
 * Each stage waits for the last stage of the other lane that writes what
 * it reads or touches what it writes, unless an earlier wait covers it.
 * lanes_open makes the stream and events (after alloc), run_step enqueues
 * the step: a fork at its start, the waits, a join at its end, so it
 * begins and ends on the backend's stream (and captures as one graph). */
void f8b_lls_lanes(struct lls_state *s);
/* The lanes a step of M x K x N runs on: cfg's 1 or 2, or for auto (0,
 * also a NULL cfg) 2 while M * K * N < 2^41 and 1 from there. */
int f8b_lls_lanes_for(const struct lls_cfg *cfg, int64_t m, int64_t k, int64_t n);
int f8b_lls_lanes_open(struct lls_state *s);
void f8b_lls_lanes_close(struct lls_state *s);
int f8b_lls_run_step(void *state);
/* The resources stage i reads / writes (bits: NBUF buffers, then the
 * operands, an alias counted as the operand it shares scales with). */
unsigned f8b_lls_reads(const struct lls_state *s, int i);
unsigned f8b_lls_writes(const struct lls_state *s, int i);

/* lls_mem.c: the live-buffer model: the most bytes live at once, and the
 * bytes kept from the forward for the backward. */
void f8b_lls_memory(const struct lls_state *s, int64_t *peak, int64_t *saved);
/* The buffers (and operand tensors) stage i reads / writes, as the model
 * counts them: bits over NBUF + operands. */
unsigned f8b_lls_touches(const struct lls_state *s, int i, bool write);

/* lls_check.c */
/* Runs the step once more with every intermediate kept and checks it:
 * the casts bit for bit against the host backend, y / grad_x / grad_W
 * against the host reference (SQNRs into row).  *ok false when wrong. */
int f8b_lls_check(struct lls_state *s, struct f8b_lls_row *row, bool *ok);

#endif
