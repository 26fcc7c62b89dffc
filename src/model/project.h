/* project.h - the allgather step past one node (doc/allgather.md
 * "Projection"): an alpha-beta model of ring collectives, and a replay of
 * the step's two queues (ag_step.c's order) with those collective times
 * and the compute measured on one rank.
 *
 * A collective over R ranks moving S bytes (nccl-tests' size: the
 * all-gather's output, the reduce-scatter's input) on a ring takes
 *     t(S, R) = (R-1) * alpha + (R-1)/R * S / busbw
 * where, for R <= gpus_per_node, (alpha, busbw) are the node's (measured
 * intra-node all-gather), and for R > gpus_per_node the network's per GPU
 * (busbw = min(intra, network): a ring that leaves the node is held to the
 * NIC's rate; alpha = the network's).  The one all-reduce of the L amaxes
 * takes min(ring: 2 alpha, tree: 2 log2(R) alpha).  R = 1: no
 * collective, 0 s.
 *
 * The ring's alpha is an upper bound: past a node NCCL picks other
 * algorithms (trees, PAT for all-gather and reduce-scatter), whose latency
 * grows with log2(R).  net->lower selects the lower bound
 *     t(S, R) = ceil(log2 R) * alpha + (R-1)/R * S / busbw
 * the fewest latency steps any algorithm needs (recursive doubling) with
 * the same bandwidth term; the truth lies between the two.
 *
 * The step: compute per use (a layer's forward; a layer's grad_input and
 * its dW) from the measured compute-only step, slowed by `slowdown` (>= 1:
 * the GEMMs' measured loss while collectives run beside them); gathers,
 * reduce-scatters and the all-reduce on one communication queue in the
 * order the step issues them; the same waits as the step.  The step ends
 * when both queues are done.
 */
#ifndef F8B_PROJECT_H
#define F8B_PROJECT_H

#include <stdbool.h>

#define F8B_PROJ_MAX_LAYERS 64

struct f8b_proj_link {
	double busbw;   /* bytes/s */
	double alpha_s; /* per ring step */
};

struct f8b_proj_step {
	int layers, prefetch;
	double fwd_s[F8B_PROJ_MAX_LAYERS]; /* compute of layer l's forward */
	double gi_s[F8B_PROJ_MAX_LAYERS];  /* its grad_input (and the casts before it) */
	double gw_s[F8B_PROJ_MAX_LAYERS];  /* its dW GEMM */
	/* Bytes of the gather of use u (u < L: layer u's forward; else layer
	 * 2L-1-u's backward) and of layer l's reduce-scatter. */
	double ag_bytes[2 * F8B_PROJ_MAX_LAYERS];
	double rs_bytes[F8B_PROJ_MAX_LAYERS];
	bool amax_allreduce; /* fp8-allgather: one all-reduce before the first gather */
	double slowdown;     /* compute multiplier while overlapped (1: none) */
	/* Measured instead of modelled (the check at a measured rank count):
	 * when set, each collective takes these times, not the formula's. */
	bool measured;
	double ag_s[2 * F8B_PROJ_MAX_LAYERS], rs_s[F8B_PROJ_MAX_LAYERS], ar_s;
};

struct f8b_proj_net {
	struct f8b_proj_link intra, inter;
	int gpus_per_node;
	bool lower; /* collectives at the log-latency lower bound, not the ring's */
};

struct f8b_proj_result {
	double step_s;    /* predicted step */
	double compute_s; /* its compute alone (sum of uses, slowed) */
	double comm_s;    /* its collectives alone, summed */
	double exposed_s; /* step - compute */
};

/* Time of one ring collective of `bytes` on R ranks. */
double f8b_proj_ring(const struct f8b_proj_net *net, double bytes, int ranks);
/* The same at the log-latency lower bound. */
double f8b_proj_loglat(const struct f8b_proj_net *net, double bytes, int ranks);
/* The amax all-reduce's time. */
double f8b_proj_allreduce_small(const struct f8b_proj_net *net, int ranks);
/* Replays the step on R ranks.  Returns 0, or -1 for bad input. */
int f8b_proj_run(const struct f8b_proj_step *st, const struct f8b_proj_net *net, int ranks,
                 struct f8b_proj_result *out);

#endif
