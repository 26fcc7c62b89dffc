/* comm.c - MPI plumbing, and collectives over backend memory (MPI on host
 * buffers here, NCCL on device buffers in comm_nccl.c).  Errors come back as statuses with
 * MPI's / NCCL's own error string; MPI_ERRORS_RETURN is set so a failing
 * call does not abort behind our back. */
#define _POSIX_C_SOURCE 200809L
#include "harness/comm_int.h"

#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/fp8.h"

static int mpi_err(int rc, const char *call)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	return F8B_ERR(F8B_EMPI, "%s: %s", call, msg);
}

#define F8B_MPI(call)                                                                              \
	do {                                                                                       \
		int f8b_mpi_rc_ = (call);                                                          \
		if (f8b_mpi_rc_ != MPI_SUCCESS)                                                    \
			return mpi_err(f8b_mpi_rc_, #call);                                        \
	} while (0)

static double wait_timeout_s;    /* f8b_comm_set_timeout; 0: unbounded */
static void (*abort_fn)(void *); /* f8b_comm_on_abort */
static void *abort_arg;

void f8b_comm_on_abort(void (*fn)(void *), void *arg)
{
	abort_fn = fn;
	abort_arg = arg;
}

void f8b_comm_set_timeout(double timeout_s)
{
	wait_timeout_s = timeout_s > 0 ? timeout_s : 0;
}

/* Completes a non-blocking MPI call.  Bounded: polls (yielding the core,
 * not sleeping: a sample's barrier runs through here) until it completes
 * or the timeout passes; then no MPI call on this communicator can be
 * trusted to return, so the rank says why and ends the job. */
static int wait_bounded(MPI_Request *rq, const char *what)
{
	if (wait_timeout_s <= 0) {
		F8B_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE));
		return F8B_OK;
	}
	double t0 = f8b_now();
	for (;;) {
		int done = 0;
		F8B_MPI(MPI_Test(rq, &done, MPI_STATUS_IGNORE));
		if (done)
			return F8B_OK;
		if (f8b_now() - t0 > wait_timeout_s)
			break;
		sched_yield();
	}
	int rank = -1, size = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	fprintf(stderr,
	        "f8bench: error: rank %d of %d: MPI %s did not complete within %g s (--timeout): "
	        "another rank is dead or stuck; ending the job\n",
	        rank, size, what, wait_timeout_s);
	fflush(stderr);
	if (abort_fn) {
		void (*fn)(void *) = abort_fn;
		abort_fn = NULL;
		fn(abort_arg);
	}
	/* The launcher forwards this rank's output; give it a moment before
	 * the abort takes every rank (and their pipes) down. */
	struct timespec pause = {0, 500000000L};
	nanosleep(&pause, NULL);
	f8b_comm_abort(3);
	_exit(3); /* MPI_Abort should not return */
}

/* A non-blocking MPI call completed through wait_bounded. */
#define F8B_MPI_WAIT(what, icall)                                                                  \
	do {                                                                                       \
		MPI_Request f8b_rq_;                                                               \
		F8B_MPI(icall);                                                                    \
		F8B_TRY(wait_bounded(&f8b_rq_, what));                                             \
	} while (0)

int f8b_comm_init(int *argc, char ***argv, struct f8b_comm *c)
{
	memset(c, 0, sizeof *c);
	int inited = 0;
	MPI_Initialized(&inited);
	if (!inited)
		F8B_MPI(MPI_Init(argc, argv));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	F8B_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &c->rank));
	F8B_MPI(MPI_Comm_size(MPI_COMM_WORLD, &c->size));

	/* Ranks sharing a node pick GPUs by their rank among that node. */
	MPI_Comm node;
	F8B_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL,
	                            &node));
	F8B_MPI(MPI_Comm_rank(node, &c->local_rank));
	F8B_MPI(MPI_Comm_size(node, &c->local_size));
	MPI_Comm_free(&node);

	if (gethostname(c->host, sizeof c->host) != 0)
		snprintf(c->host, sizeof c->host, "unknown");
	c->host[sizeof c->host - 1] = '\0';
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;
	MPI_Get_library_version(v, &len);
	v[strcspn(v, "\n")] = '\0';
	v[sizeof c->mpi_version - 1] = '\0'; /* first line is enough */
	memcpy(c->mpi_version, v, strlen(v) + 1);
	f8b_set_error_context(c->host, c->rank);
	return F8B_OK;
}

void f8b_comm_finalize(void)
{
	int fin = 0;
	MPI_Finalized(&fin);
	if (!fin)
		MPI_Finalize();
}

void f8b_comm_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

int f8b_comm_gather(const void *send, void *recv, size_t bytes)
{
	F8B_MPI_WAIT("gather", MPI_Igather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE,
	                                   0, MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
}

int f8b_comm_bcast(void *buf, size_t bytes)
{
	F8B_MPI_WAIT("broadcast",
	             MPI_Ibcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
}

int f8b_comm_max_int(int *v)
{
	int in = *v;
	F8B_MPI_WAIT("all-reduce",
	             MPI_Iallreduce(&in, v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
}

static int reduce_double(double *v, int n, MPI_Op op)
{
	if (n < 0)
		return F8B_ERR(F8B_EINTERNAL, "all-reduce of %d doubles", n);
	if (n > 0)
		F8B_MPI_WAIT("all-reduce", MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, op,
		                                          MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
}

int f8b_comm_max_double(double *v, int n)
{
	return reduce_double(v, n, MPI_MAX);
}

int f8b_comm_min_double(double *v, int n)
{
	return reduce_double(v, n, MPI_MIN);
}

int f8b_comm_barrier(void)
{
	F8B_MPI_WAIT("barrier", MPI_Ibarrier(MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
}

int f8b_comm_gather_str(const char *s, char *recv, size_t n)
{
	char buf[256];
	if (n > sizeof buf)
		return F8B_ERR(F8B_EINTERNAL, "gather_str of %zu bytes", n);
	memset(buf, 0, n);
	snprintf(buf, n, "%s", s);
	return f8b_comm_gather(buf, recv, n);
}

int f8b_comm_size(void)
{
	int inited = 0, size = 1;
	MPI_Initialized(&inited);
	if (inited && MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
		size = 1;
	return size;
}

int f8b_comm_allgather(const void *send, void *recv, size_t bytes)
{
	if (bytes > INT_MAX)
		return F8B_ERR(F8B_EINTERNAL,
		               "allgather of %zu bytes per rank (MPI counts are int)", bytes);
	F8B_MPI_WAIT("all-gather", MPI_Iallgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes,
	                                          MPI_BYTE, MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
}

/* ------------------------------------------------------------ collectives */

const char *f8b_coll_library(const struct f8b_coll *c)
{
	return c->library;
}

int f8b_coll_open(const struct f8b_backend_ops *ops, struct f8b_backend *be, double timeout_s,
                  const struct f8b_coll_opts *o, struct f8b_coll **out)
{
	*out = NULL;
	if (o && ((unsigned)o->cta_policy >= F8B_COLL_CTA_N || o->max_ctas < 0))
		return F8B_ERR(F8B_EINTERNAL, "collectives: CTA policy %d, max CTAs %d",
		               o->cta_policy, o->max_ctas);
	struct f8b_coll *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "collectives: %zu bytes", sizeof *c);
	c->cta_policy = o ? o->cta_policy : F8B_COLL_CTA_DEFAULT;
	c->ops = ops;
	c->obe = be;
	c->size = f8b_comm_size();
	if (MPI_Comm_rank(MPI_COMM_WORLD, &c->rank) != MPI_SUCCESS) {
		free(c);
		return F8B_ERR(F8B_EMPI, "MPI_Comm_rank failed");
	}
	if (!strcmp(ops->name, "host")) {
		snprintf(c->library, sizeof c->library, "MPI");
		*out = c;
		return F8B_OK;
	}
#ifdef F8B_HAVE_NCCL
	if (!strcmp(ops->name, "cuda")) {
		c->nccl = true;
		c->timeout_s = timeout_s;
		c->max_ctas = o ? o->max_ctas : 0;
		c->blocking = o && o->blocking;
		const char *ev = getenv("F8B_NCCL_BLOCKING");
		if (ev && (!strcmp(ev, "0") || !strcmp(ev, "1")))
			c->blocking = !strcmp(ev, "1");
		snprintf(c->library, sizeof c->library, "NCCL");
		int rc = f8b_nccl_version_ok(c, c->cta_policy);
		if (rc == F8B_OK)
			rc = f8b_nccl_open(c, be);
		if (rc != F8B_OK) {
			f8b_coll_close(c);
			return rc;
		}
		*out = c;
		return F8B_OK;
	}
#else
	(void)be;
	(void)timeout_s;
#endif
	free(c);
	return F8B_ERR(F8B_EUNSUPPORTED,
	               "collectives on the %s backend need NCCL, and this f8bench was built "
	               "without it (configure --with-nccl=DIR)",
	               ops->name);
}

const char *const f8b_coll_buffers_names[F8B_COLL_BUF_N] = {"plain", "registered", "symmetric"};
const char *const f8b_coll_cta_names[F8B_COLL_CTA_N] = {"default", "efficiency", "zero"};

int f8b_coll_name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

void f8b_coll_name_list(const char *const *names, int n, char *buf, size_t size)
{
	size_t k = 0;
	if (size)
		buf[0] = 0;
	for (int j = 0; j < n && k < size; j++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s", j ? ", " : "", names[j]);
}

int f8b_coll_cta_policy(const struct f8b_coll *c)
{
	return c->cta_policy;
}

int f8b_coll_alloc(struct f8b_coll *c, int buffers, size_t bytes, void **p)
{
	*p = NULL;
	if ((unsigned)buffers >= F8B_COLL_BUF_N)
		return F8B_ERR(F8B_EINTERNAL, "collective buffers mode %d", buffers);
	if (c->nbufs == c->capbufs) {
		size_t cap = c->capbufs ? 2 * c->capbufs : 16;
		struct coll_buf *nb = realloc(c->bufs, cap * sizeof *nb);
		if (!nb)
			return F8B_ERR(F8B_ENOMEM, "%zu collective buffer records", cap);
		c->bufs = nb;
		c->capbufs = cap;
	}
	struct coll_buf b = {.bytes = bytes ? bytes : 1, .mode = buffers};
	int rc;
#ifdef F8B_HAVE_NCCL
	if (c->nccl && buffers != F8B_COLL_BUF_PLAIN)
		rc = f8b_nccl_buf_alloc(c, &b);
	else
#endif
	{
		b.mode = F8B_COLL_BUF_PLAIN; /* MPI: host memory, whatever was asked */
		rc = c->ops->alloc(c->obe, b.bytes, &b.p);
	}
	if (rc != F8B_OK)
		return rc;
	c->bufs[c->nbufs++] = b;
	*p = b.p;
	return F8B_OK;
}

void f8b_coll_free(struct f8b_coll *c, void *p)
{
	if (!c || !p)
		return;
	for (size_t i = 0; i < c->nbufs; i++) {
		if (c->bufs[i].p != p)
			continue;
		struct coll_buf b = c->bufs[i];
		c->bufs[i] = c->bufs[--c->nbufs];
#ifdef F8B_HAVE_NCCL
		if (b.mode != F8B_COLL_BUF_PLAIN) {
			f8b_nccl_buf_free(c, &b);
			return;
		}
#endif
		c->ops->free(c->obe, b.p);
		return;
	}
}

/* bf16 sum for MPI (which has no bf16): each pair added in fp32 and
 * rounded to nearest even, as a GPU reduction step does. */
static void bf16_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	const uint16_t *a = in;
	uint16_t *b = inout;
	for (int i = 0; i < *len; i++)
		b[i] = f8b_f32_to_bf16(f8b_bf16_to_f32(a[i]) + f8b_bf16_to_f32(b[i]));
}

static int mpi_call(enum f8b_coll_op op, enum f8b_coll_type type, enum f8b_coll_red red,
                    const void *send, void *recv, size_t count)
{
	static MPI_Op bf16_op = MPI_OP_NULL;
	static const char *const what[] = {"all-gather", "all-reduce", "reduce-scatter"};
	MPI_Datatype dt = type == F8B_COLL_U32   ? MPI_UINT32_T
	                  : type == F8B_COLL_U8  ? MPI_BYTE
	                  : type == F8B_COLL_F32 ? MPI_FLOAT
	                                         : MPI_UINT16_T;
	MPI_Op mop = red == F8B_COLL_MAX ? MPI_MAX : MPI_SUM;
	if (count > INT_MAX)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "MPI collective of %zu elements per rank: MPI counts are int (at "
		               "most %d)",
		               count, INT_MAX);
	if (type == F8B_COLL_BF16) {
		if (bf16_op == MPI_OP_NULL)
			F8B_MPI(MPI_Op_create(bf16_sum, 1, &bf16_op));
		mop = bf16_op;
	}
	int n = (int)count, esize = 0, rank = 0;
	F8B_MPI(MPI_Type_size(dt, &esize));
	F8B_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	/* In place (as NCCL takes it): MPI says so with MPI_IN_PLACE, and
	 * forbids overlapping buffers otherwise. */
	const char *own = (const char *)recv + (size_t)rank * count * (size_t)esize;
	if (op == F8B_COLL_ALLGATHER)
		F8B_MPI_WAIT(what[op], MPI_Iallgather(send == own ? MPI_IN_PLACE : send, n, dt,
		                                      recv, n, dt, MPI_COMM_WORLD, &f8b_rq_));
	else if (op == F8B_COLL_ALLREDUCE)
		F8B_MPI_WAIT(what[op], MPI_Iallreduce(send == recv ? MPI_IN_PLACE : send, recv, n,
		                                      dt, mop, MPI_COMM_WORLD, &f8b_rq_));
	else
		F8B_MPI_WAIT(what[op], MPI_Ireduce_scatter_block(send, recv, n, dt, mop,
		                                                 MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
}

int f8b_coll_call(struct f8b_coll *c, enum f8b_coll_op op, enum f8b_coll_type type,
                  enum f8b_coll_red red, const void *send, void *recv, size_t count)
{
	if ((unsigned)op > F8B_COLL_REDUCE_SCATTER || (unsigned)type > F8B_COLL_BF16 ||
	    (unsigned)red > F8B_COLL_MAX)
		return F8B_ERR(F8B_EINTERNAL, "collective op %d type %d reduction %d", (int)op,
		               (int)type, (int)red);
	if (op != F8B_COLL_ALLGATHER &&
	    (type == F8B_COLL_U8 || (type == F8B_COLL_BF16 && red != F8B_COLL_SUM) ||
	     (type == F8B_COLL_U32 && red != F8B_COLL_SUM)))
		return F8B_ERR(F8B_EINVAL, "collectives: no %s of that element type",
		               red == F8B_COLL_MAX ? "max" : "sum");
#ifdef F8B_HAVE_NCCL
	if (c->nccl)
		return f8b_nccl_run(c, op, type, red, send, recv, count);
#else
	(void)c;
#endif
	return mpi_call(op, type, red, send, recv, count);
}

int f8b_coll_run(struct f8b_coll *c, enum f8b_coll_op op, const void *send, void *recv,
                 size_t count)
{
	if (op != F8B_COLL_ALLGATHER && op != F8B_COLL_ALLREDUCE)
		return F8B_ERR(F8B_EINTERNAL, "collective op %d", (int)op);
	return f8b_coll_call(c, op, F8B_COLL_U32, F8B_COLL_SUM, send, recv, count);
}

int f8b_coll_status(struct f8b_coll *c)
{
	int rc = F8B_OK;
#ifdef F8B_HAVE_NCCL
	if (c->nccl)
		rc = f8b_nccl_status(c);
#else
	(void)c;
#endif
	return rc;
}

void f8b_coll_close(struct f8b_coll *c)
{
	if (!c)
		return;
#ifdef F8B_HAVE_NCCL
	if (c->nccl)
		f8b_nccl_close(c);
#endif
	for (size_t i = 0; i < c->nbufs; i++)
		c->ops->free(c->obe, c->bufs[i].p);
	free(c->bufs);
	free(c);
}
