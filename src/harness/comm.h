/* comm.h - MPI: init, rank, local rank -> GPU, row gathering; collectives
 * over backend memory (MPI on the host, NCCL on GPUs). */
#ifndef F8B_COMM_H
#define F8B_COMM_H

#include "core/common.h"

struct f8b_comm {
	int rank, size;
	int local_rank, local_size; /* among ranks on this node */
	char host[64];
	char mpi_version[256]; /* MPI_Get_library_version, first line */
};

/* MPI_Init (errors returned, not fatal) and the fields above; sets the
 * error-message context to "host:rank N". */
int f8b_comm_init(int *argc, char ***argv, struct f8b_comm *c);
void f8b_comm_finalize(void);
/* Aborts every rank (main, and a wait past --timeout: f8b_comm_set_timeout). */
void f8b_comm_abort(int code);

/* Rank 0 receives `bytes` from every rank into recv (size*bytes). */
int f8b_comm_gather(const void *send, void *recv, size_t bytes);
int f8b_comm_bcast(void *buf, size_t bytes);
/* Logical OR / max of an int over ranks (all ranks get the result). */
int f8b_comm_max_int(int *v);
int f8b_comm_barrier(void);
/* Element-wise maximum / minimum of n doubles over ranks, in place (all
 * ranks get it; any n). */
int f8b_comm_max_double(double *v, int n);
int f8b_comm_min_double(double *v, int n);
/* Gathers a fixed-size string from every rank to rank 0 (size*n bytes). */
int f8b_comm_gather_str(const char *s, char *recv, size_t n);
/* Ranks in the job (1 before f8b_comm_init). */
int f8b_comm_size(void);
/* Every rank receives `bytes` from every rank into recv (size*bytes). */
int f8b_comm_allgather(const void *send, void *recv, size_t bytes);
/* Every rank must run the same command: F8B_EINVAL naming the first
 * option that differs from rank 0's (same_args.c).  Collective. */
int f8b_comm_same_args(int argc, char **argv, int rank, int size);
/* Bounds every MPI wait above (and the MPI collectives below) by
 * timeout_s (0: unbounded, the default).  A wait that runs past it means
 * a rank is dead or stuck: this rank prints which call, on which rank,
 * and ends the whole job (MPI_Abort), since no later MPI call could
 * complete either.  Drivers with a --timeout set it at finalize. */
void f8b_comm_set_timeout(double timeout_s);
/* fn(arg) runs once, on this rank, before a wait past the timeout ends the
 * job: the runner takes back a results file it created and wrote no row
 * to (its temporary file would outlive the abort otherwise).  NULL
 * clears it. */
void f8b_comm_on_abort(void (*fn)(void *), void *arg);

/* ---- collectives over backend memory (f8bench ceilings).
 * The host backend runs them with MPI on host buffers; the cuda backend
 * with NCCL on device buffers and the backend's stream (F8B_HAVE_NCCL),
 * NCCL bootstrapped through MPI (ncclGetUniqueId on rank 0, MPI_Bcast,
 * ncclCommInitRankConfig).  Every function is collective: all ranks call
 * it in the same order.
 * NCCL waits are bounded: init polls ncclCommGetAsyncError until done or
 * timeout_s, and a watchdog thread polls it (and the age of the oldest
 * collective still in flight) while collectives run.  An asynchronous
 * error or a collective older than timeout_s (a dead or stuck peer)
 * aborts the communicator, which releases every wait on the stream; the
 * next f8b_coll_run / f8b_coll_status then fails with the reason. */
struct f8b_backend_ops;
struct f8b_backend;
struct f8b_coll;

enum f8b_coll_op {
	F8B_COLL_ALLGATHER,      /* recv[r*count + i] = send of rank r [i] */
	F8B_COLL_ALLREDUCE,      /* recv[i] = reduction over ranks of send[i] */
	F8B_COLL_REDUCE_SCATTER, /* recv[i] = reduction over ranks of send[rank*count + i] */
};

/* Element types and reductions of f8b_coll_call. */
enum f8b_coll_type {
	F8B_COLL_U32,  /* sums wrap mod 2^32 */
	F8B_COLL_U8,   /* bytes (fp8 data): all-gather only */
	F8B_COLL_F32,  /* sum or max (max of amaxes) */
	F8B_COLL_BF16, /* sum (gradients); MPI: each pairwise sum in fp32, rounded to bf16 */
};
enum f8b_coll_red { F8B_COLL_SUM, F8B_COLL_MAX };

/* How a communicator's buffers are made (--nccl-buffers) and how many
 * SMs its collectives may take (--nccl-cta-policy); doc/allgather.md,
 * "NCCL buffers and CTA policy".  MPI collectives (the host backend) take
 * plain host memory whatever is asked: the choice is recorded, and
 * changes nothing there. */
enum f8b_coll_buffers {
	F8B_COLL_BUF_PLAIN,      /* the backend's allocation (cudaMalloc) */
	F8B_COLL_BUF_REGISTERED, /* ncclMemAlloc + ncclCommRegister (NCCL >= 2.19) */
	F8B_COLL_BUF_SYMMETRIC,  /* ncclMemAlloc + ncclCommWindowRegister, symmetric (>= 2.27) */
	F8B_COLL_BUF_N
};
enum f8b_coll_cta {
	F8B_COLL_CTA_DEFAULT,    /* NCCL's choice */
	F8B_COLL_CTA_EFFICIENCY, /* fewest CTAs for decent speed (NCCL >= 2.27) */
	F8B_COLL_CTA_ZERO,       /* copy engines, no CTA, where NCCL can (>= 2.28; symmetric) */
	F8B_COLL_CTA_N
};
extern const char *const f8b_coll_buffers_names[F8B_COLL_BUF_N]; /* "plain", ... */
extern const char *const f8b_coll_cta_names[F8B_COLL_CTA_N];     /* "default", ... */
/* The index of `name` in names[0..n), or -1. */
int f8b_coll_name_index(const char *const *names, int n, const char *name);
/* names[0..n) as "a, b, c" in buf (an error message's accepted values). */
void f8b_coll_name_list(const char *const *names, int n, char *buf, size_t size);

struct f8b_coll_opts {
	int cta_policy; /* enum f8b_coll_cta */
	int max_ctas;   /* ncclConfig_t.maxCTAs; 0: NCCL's default */
	/* A blocking NCCL communicator, for symmetric windows: NCCL 2.28.3
	 * refused ncclCommWindowRegister on a non-blocking one on an H100 pair
	 * ("Attempt to use communicator before the previous operation returned
	 * ncclSuccess", doc/allgather.md).  Its init waits without the
	 * timeout (every rank has met in an MPI broadcast just before);
	 * collectives keep the watchdog.  F8B_NCCL_BLOCKING=0|1 overrides. */
	bool blocking;
};

/* F8B_EUNSUPPORTED (with the reason) for a backend with no collectives
 * (cuda without NCCL), or a CTA policy this NCCL lacks (the message names
 * the version it needs).  o may be NULL: the default policy. */
int f8b_coll_open(const struct f8b_backend_ops *ops, struct f8b_backend *be, double timeout_s,
                  const struct f8b_coll_opts *o, struct f8b_coll **c);
/* The communicator's CTA policy (enum f8b_coll_cta). */
int f8b_coll_cta_policy(const struct f8b_coll *c);
/* Memory for collectives: `bytes` made as `buffers` says (zeroed: no).
 * Registered and symmetric buffers are collective calls: every rank
 * allocates and frees the same sizes in the same order.  A mode this NCCL
 * lacks is F8B_EUNSUPPORTED naming the version it needs.  The host
 * backend allocates plain host memory for every mode. */
int f8b_coll_alloc(struct f8b_coll *c, int buffers, size_t bytes, void **p);
/* Frees what f8b_coll_alloc made (deregistering it first); NULL is a no-op. */
void f8b_coll_free(struct f8b_coll *c, void *p);
/* Collective of `count` uint32 words per rank (send; recv holds size*count
 * words for all-gather, count for all-reduce).  NCCL: enqueue-only on the
 * backend's stream; MPI: done on return.  In place: an all-gather whose
 * send is recv + rank*count elements (the rank's part of the output, as
 * FSDP gathers), an all-reduce whose send is recv. */
int f8b_coll_run(struct f8b_coll *c, enum f8b_coll_op op, const void *send, void *recv,
                 size_t count);
/* The general form: `count` elements of `type` per rank (all-gather:
 * send has count, recv size*count; all-reduce: count each;
 * reduce-scatter: send size*count, recv count), reduced by `red`.  NCCL:
 * enqueued on the backend's current stream (stream_use); MPI: done on
 * return.  A type/op/reduction the library cannot do is F8B_EINVAL. */
int f8b_coll_call(struct f8b_coll *c, enum f8b_coll_op op, enum f8b_coll_type type,
                  enum f8b_coll_red red, const void *send, void *recv, size_t count);
/* F8B_OK, or the error that ended the communicator (see above). */
int f8b_coll_status(struct f8b_coll *c);
/* "MPI" or "NCCL 2.28.3". */
const char *f8b_coll_library(const struct f8b_coll *c);
void f8b_coll_close(struct f8b_coll *c);

#endif
