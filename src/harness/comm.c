/* comm.c - MPI plumbing, and collectives over backend memory (MPI on host
 * buffers, NCCL on device buffers).  Errors come back as statuses with
 * MPI's / NCCL's own error string; MPI_ERRORS_RETURN is set so a failing
 * call does not abort behind our back. */
#define _POSIX_C_SOURCE 200809L
#include "harness/comm.h"

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

#ifdef F8B_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <pthread.h>

#include "harness/nccl_compat.h"
#endif

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

int f8b_comm_max_double(double *v, int n)
{
	double in[8];
	if (n > 8)
		return F8B_ERR(F8B_EINTERNAL, "max of %d doubles", n);
	memcpy(in, v, sizeof *v * (size_t)n);
	F8B_MPI_WAIT("all-reduce",
	             MPI_Iallreduce(in, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &f8b_rq_));
	return F8B_OK;
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

/* Collectives in flight that the watchdog follows: one event recorded after
 * each enqueue, with its time.  When the ring is full the newest entry is
 * re-recorded (and re-timed), so the oldest unfinished work is always
 * covered and a deep queue never looks older than it is. */
#define F8B_COLL_RING 64
/* How often the watchdog looks: far below any timeout worth setting, and
 * rare enough to cost nothing measurable. */
#define F8B_WATCHDOG_NS 10000000L

/* A buffer f8b_coll_alloc made, and what undoes it. */
struct coll_buf {
	void *p;
	size_t bytes;
	int mode;     /* enum f8b_coll_buffers */
	void *handle; /* ncclCommRegister's handle, or the ncclWindow_t */
};

struct f8b_coll {
	int rank, size;
	bool nccl;
	char library[48];
	int cta_policy;
	const struct f8b_backend_ops *ops;
	struct f8b_backend *obe; /* the backend buffers come from */
	struct coll_buf *bufs;
	size_t nbufs, capbufs;
#ifdef F8B_HAVE_NCCL
	int version; /* ncclGetVersion's, e.g. 22803 */
	ncclComm_t comm;
	struct f8b_backend *be; /* collectives go on its current stream */
	int device;
	double timeout_s;
	int max_ctas;
	bool blocking;
	pthread_mutex_t mu;
	pthread_t thread;
	bool mu_ready, thread_running, stop;
	int failed;    /* status that ended the communicator; F8B_OK while usable */
	char why[400]; /* its message */
	cudaEvent_t ev[F8B_COLL_RING];
	double t_enq[F8B_COLL_RING];
	unsigned head, tail; /* ev[tail % RING] is the oldest not known done */
#endif
};

const char *f8b_coll_library(const struct f8b_coll *c)
{
	return c->library;
}

#ifdef F8B_HAVE_NCCL
static void sleep_ns(long ns)
{
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

static int nccl_err(struct f8b_coll *c, ncclResult_t r, const char *call)
{
	const char *last = c->comm ? ncclGetLastError(c->comm) : "";
	return F8B_ERR(F8B_EDEVICE, "%s: %s%s%s", call, ncclGetErrorString(r),
	               last && *last ? ": " : "", last ? last : "");
}

/* A non-blocking communicator answers ncclInProgress until the call
 * behind it is done: poll its asynchronous state until it settles, for at
 * most timeout_s.  With poll_ns 0 (a collective's launch) it yields
 * between polls instead of sleeping.  It must not spin: NCCL (2.28,
 * ncclGroupEndInternal) hands every call on a non-blocking communicator to
 * a thread it creates for that call, which inherits this rank's CPU set.
 * Under mpirun's default binding (a core per rank for 2 ranks) a spinning
 * poller kept that thread off the core until the scheduler preempted the
 * poller, a slice or a tick later: every collective's enqueue took a
 * constant ~3.9 ms, which the timing once read as the collective itself. */
static int nccl_settle(struct f8b_coll *c, ncclResult_t r, const char *call, long poll_ns)
{
	double t0 = f8b_now();
	while (r == ncclInProgress) {
		if (f8b_now() - t0 > c->timeout_s)
			return F8B_ERR(
			    F8B_EDEVICE,
			    "%s did not finish within %g s (--timeout) on %d ranks: a "
			    "peer is missing, dead or stuck (NCCL_DEBUG=INFO tells more)",
			    call, c->timeout_s, c->size);
		if (poll_ns > 0)
			sleep_ns(poll_ns);
		else
			sched_yield(); /* let NCCL's launch thread have this core */
		ncclResult_t st = ncclInProgress;
		ncclResult_t q = ncclCommGetAsyncError(c->comm, &st);
		r = q != ncclSuccess ? q : st;
	}
	return r == ncclSuccess ? F8B_OK : nccl_err(c, r, call);
}

/* Called with mu held: end the communicator so no wait on it can hang. */
static void abort_comm(struct f8b_coll *c, const char *why)
{
	snprintf(c->why, sizeof c->why, "%s", why);
	c->failed = F8B_EDEVICE;
	(void)ncclCommAbort(c->comm);
	c->comm = NULL;
}

static void *watchdog(void *arg)
{
	struct f8b_coll *c = arg;
	char why[400];
	if (cudaSetDevice(c->device) != cudaSuccess)
		(void)cudaGetLastError();
	pthread_mutex_lock(&c->mu);
	while (!c->stop) {
		/* Retire what finished; a failing query (a sticky device error)
		 * retires too: the main thread meets that error itself. */
		while (c->tail != c->head &&
		       cudaEventQuery(c->ev[c->tail % F8B_COLL_RING]) != cudaErrorNotReady)
			c->tail++;
		(void)cudaGetLastError();
		if (c->failed == F8B_OK) {
			ncclResult_t st = ncclSuccess;
			ncclResult_t q = ncclCommGetAsyncError(c->comm, &st);
			double age = c->tail != c->head
			                 ? f8b_now() - c->t_enq[c->tail % F8B_COLL_RING]
			                 : 0.0;
			if (q != ncclSuccess || (st != ncclSuccess && st != ncclInProgress)) {
				snprintf(
				    why, sizeof why,
				    "NCCL reported an asynchronous error on rank %d of %d: %s "
				    "(a peer died or the network failed; communicator aborted)",
				    c->rank, c->size,
				    ncclGetErrorString(q != ncclSuccess ? q : st));
				abort_comm(c, why);
			} else if (age > c->timeout_s) {
				snprintf(
				    why, sizeof why,
				    "a collective on rank %d of %d has not finished after %.0f s "
				    "(--timeout %g): a peer is dead or stuck; communicator aborted",
				    c->rank, c->size, age, c->timeout_s);
				abort_comm(c, why);
			}
		}
		pthread_mutex_unlock(&c->mu);
		sleep_ns(F8B_WATCHDOG_NS);
		pthread_mutex_lock(&c->mu);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* The NCCL this process runs (not the one it was built with) has what the
 * option asks for, or the option is refused naming the version it needs. */
static int nccl_needs(struct f8b_coll *c, int need, bool built, const char *what)
{
	int v = c->version;
	if (built && v >= need)
		return F8B_OK;
	if (!built)
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "%s needs NCCL >= %d.%d, and this f8bench was built against an older "
		    "nccl.h (%d.%d.%d)",
		    what, need / 10000, need / 100 % 100, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
	return F8B_ERR(F8B_EUNSUPPORTED, "%s needs NCCL >= %d.%d; this process runs NCCL %d.%d.%d",
	               what, need / 10000, need / 100 % 100, v / 10000, v / 100 % 100, v % 100);
}

static int nccl_version_ok(struct f8b_coll *c, int cta)
{
	if (ncclGetVersion(&c->version) != ncclSuccess)
		c->version = 0;
	if (cta == F8B_COLL_CTA_EFFICIENCY)
		return nccl_needs(c, F8B_NCCL_V_CTA, F8B_NCCL_HAVE_CTA,
		                  "--nccl-cta-policy efficiency");
	if (cta == F8B_COLL_CTA_ZERO)
		return nccl_needs(c, F8B_NCCL_V_CTA_ZERO, F8B_NCCL_HAVE_CTA,
		                  "--nccl-cta-policy zero (copy-engine collectives)");
	return F8B_OK;
}

/* ncclMemAlloc, then registration: ncclCommRegister (registered) or a
 * symmetric window (every rank the same size, collective).  Both are
 * calls on a non-blocking communicator: settle them like any other. */
static int nccl_buf_alloc(struct f8b_coll *c, struct coll_buf *b)
{
	static const char *const opt[] = {"", "--nccl-buffers registered",
	                                  "--nccl-buffers symmetric"};
	int need = b->mode == F8B_COLL_BUF_SYMMETRIC ? F8B_NCCL_V_WINDOW : F8B_NCCL_V_REGISTER;
	bool built =
	    b->mode == F8B_COLL_BUF_SYMMETRIC ? F8B_NCCL_HAVE_WINDOW : F8B_NCCL_HAVE_REGISTER;
	F8B_TRY(nccl_needs(c, need, built, opt[b->mode]));
#if F8B_NCCL_HAVE_REGISTER
	ncclResult_t r = ncclMemAlloc(&b->p, b->bytes);
	if (r != ncclSuccess) {
		b->p = NULL;
		return r == ncclSystemError || r == ncclUnhandledCudaError
		           ? F8B_ERR(F8B_ENOMEM, "ncclMemAlloc of %zu bytes: %s", b->bytes,
		                     ncclGetErrorString(r))
		           : nccl_err(c, r, "ncclMemAlloc");
	}
	pthread_mutex_lock(&c->mu);
	int rc = c->failed != F8B_OK ? F8B_ERR(c->failed, "%s", c->why) : F8B_OK;
	if (rc == F8B_OK && b->mode == F8B_COLL_BUF_REGISTERED)
		rc = nccl_settle(c, ncclCommRegister(c->comm, b->p, b->bytes, &b->handle),
		                 "ncclCommRegister", 1000L);
#if F8B_NCCL_HAVE_WINDOW
	if (rc == F8B_OK && b->mode == F8B_COLL_BUF_SYMMETRIC) {
		ncclWindow_t w = NULL;
		rc = nccl_settle(
		    c, ncclCommWindowRegister(c->comm, b->p, b->bytes, &w, NCCL_WIN_COLL_SYMMETRIC),
		    "ncclCommWindowRegister (symmetric)", 1000L);
		b->handle = w;
	}
#endif
	pthread_mutex_unlock(&c->mu);
	if (rc != F8B_OK) {
		(void)ncclMemFree(b->p);
		b->p = NULL;
		b->handle = NULL;
	}
	return rc;
#else
	return F8B_ERR(F8B_EINTERNAL, "NCCL buffer registration");
#endif
}

static void nccl_buf_free(struct f8b_coll *c, struct coll_buf *b)
{
#if F8B_NCCL_HAVE_REGISTER
	pthread_mutex_lock(&c->mu);
	if (c->comm && c->failed == F8B_OK && b->handle) {
#if F8B_NCCL_HAVE_WINDOW
		if (b->mode == F8B_COLL_BUF_SYMMETRIC)
			(void)nccl_settle(
			    c, ncclCommWindowDeregister(c->comm, (ncclWindow_t)b->handle),
			    "ncclCommWindowDeregister", 1000L);
#endif
		if (b->mode == F8B_COLL_BUF_REGISTERED)
			(void)nccl_settle(c, ncclCommDeregister(c->comm, b->handle),
			                  "ncclCommDeregister", 1000L);
	}
	pthread_mutex_unlock(&c->mu);
	(void)ncclMemFree(b->p);
#else
	(void)c;
	(void)b;
#endif
}

static int nccl_open(struct f8b_coll *c, struct f8b_backend *be)
{
	ncclUniqueId id;
	int ok = 1, v = 0;
	memset(&id, 0, sizeof id);
	/* Rank 0 makes the id; everyone learns whether it could first, so a
	 * failure there never leaves the others waiting for an id. */
	if (c->rank == 0 && ncclGetUniqueId(&id) != ncclSuccess)
		ok = 0;
	F8B_TRY(f8b_comm_bcast(&ok, sizeof ok));
	if (!ok)
		return F8B_ERR(F8B_EDEVICE, "ncclGetUniqueId failed on rank 0 (NCCL_DEBUG=INFO "
		                            "tells why; often no usable network interface)");
	F8B_TRY(f8b_comm_bcast(&id, sizeof id));
	if (cudaGetDevice(&c->device) != cudaSuccess) {
		(void)cudaGetLastError();
		return F8B_ERR(F8B_EDEVICE, "cudaGetDevice failed before NCCL init");
	}
	c->be = be;

	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	cfg.blocking = c->blocking; /* 0: init returns at once; we poll it with a timeout */
	if (c->max_ctas > 0)
		cfg.maxCTAs = c->max_ctas;
#if F8B_NCCL_HAVE_CTA
	if (c->cta_policy != F8B_COLL_CTA_DEFAULT)
		cfg.CTAPolicy = c->cta_policy == F8B_COLL_CTA_ZERO ? F8B_NCCL_CTA_ZERO
		                                                   : NCCL_CTA_POLICY_EFFICIENCY;
#endif
	ncclResult_t r = ncclCommInitRankConfig(&c->comm, c->size, id, c->rank, &cfg);
	if (r != ncclSuccess && r != ncclInProgress) {
		int rc = nccl_err(c, r, "ncclCommInitRankConfig");
		c->comm = NULL;
		return rc;
	}
	int rc = nccl_settle(c, ncclInProgress, "NCCL communicator init", 1000000L);
	if (rc != F8B_OK) {
		(void)ncclCommAbort(c->comm);
		c->comm = NULL;
		return rc;
	}
	v = c->version;
	snprintf(c->library, sizeof c->library, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	for (int i = 0; i < F8B_COLL_RING; i++) {
		cudaError_t e = cudaEventCreateWithFlags(&c->ev[i], cudaEventDisableTiming);
		if (e != cudaSuccess) {
			(void)cudaGetLastError();
			c->ev[i] = NULL;
			return F8B_ERR(F8B_EDEVICE, "cudaEventCreateWithFlags: %s",
			               cudaGetErrorString(e));
		}
	}
	if (pthread_mutex_init(&c->mu, NULL) != 0)
		return F8B_ERR(F8B_EINTERNAL, "pthread_mutex_init failed");
	c->mu_ready = true;
	if (pthread_create(&c->thread, NULL, watchdog, c) != 0)
		return F8B_ERR(F8B_EINTERNAL, "cannot start the NCCL watchdog thread");
	c->thread_running = true;
	return F8B_OK;
}

static const char *coll_name(enum f8b_coll_op op)
{
	return op == F8B_COLL_ALLGATHER   ? "ncclAllGather"
	       : op == F8B_COLL_ALLREDUCE ? "ncclAllReduce"
	                                  : "ncclReduceScatter";
}

static int nccl_run(struct f8b_coll *c, enum f8b_coll_op op, enum f8b_coll_type type,
                    enum f8b_coll_red red, const void *send, void *recv, size_t count)
{
	static const ncclDataType_t nt[] = {ncclUint32, ncclUint8, ncclFloat32, ncclBfloat16};
	int rc = F8B_OK;
	cudaStream_t stream = (cudaStream_t)f8b_cuda_stream(c->be);
	pthread_mutex_lock(&c->mu);
	if (c->failed != F8B_OK) {
		rc = F8B_ERR(c->failed, "%s", c->why);
		pthread_mutex_unlock(&c->mu);
		return rc;
	}
	ncclRedOp_t ro = red == F8B_COLL_MAX ? ncclMax : ncclSum;
	ncclResult_t r = op == F8B_COLL_ALLGATHER
	                     ? ncclAllGather(send, recv, count, nt[type], c->comm, stream)
	                 : op == F8B_COLL_ALLREDUCE
	                     ? ncclAllReduce(send, recv, count, nt[type], ro, c->comm, stream)
	                     : ncclReduceScatter(send, recv, count, nt[type], ro, c->comm, stream);
	rc = nccl_settle(c, r, coll_name(op), 0);
	if (rc == F8B_OK) {
		bool full = c->head - c->tail >= F8B_COLL_RING;
		unsigned slot = (full ? c->head - 1 : c->head) % F8B_COLL_RING;
		cudaError_t e = cudaEventRecord(c->ev[slot], stream);
		if (e != cudaSuccess) {
			(void)cudaGetLastError();
			rc = F8B_ERR(F8B_EDEVICE, "cudaEventRecord after a collective: %s",
			             cudaGetErrorString(e));
		} else {
			c->t_enq[slot] = f8b_now();
			if (!full)
				c->head++;
		}
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}

static void nccl_close(struct f8b_coll *c)
{
	/* Buffers still registered go before the communicator does. */
	for (size_t i = c->nbufs; i-- > 0;)
		if (c->bufs[i].mode != F8B_COLL_BUF_PLAIN)
			nccl_buf_free(c, &c->bufs[i]);
		else
			c->ops->free(c->obe, c->bufs[i].p);
	c->nbufs = 0;
	if (c->thread_running) {
		pthread_mutex_lock(&c->mu);
		c->stop = true;
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->thread, NULL);
	}
	if (c->comm && c->failed == F8B_OK) {
		/* Finalize flushes what is queued; a peer that never answers
		 * ends in an abort rather than a hang. */
		ncclResult_t r = ncclCommFinalize(c->comm);
		if (nccl_settle(c, r, "ncclCommFinalize", 1000000L) == F8B_OK)
			(void)ncclCommDestroy(c->comm);
		else
			(void)ncclCommAbort(c->comm);
	}
	for (int i = 0; i < F8B_COLL_RING; i++)
		if (c->ev[i])
			(void)cudaEventDestroy(c->ev[i]);
	(void)cudaGetLastError();
	if (c->mu_ready)
		pthread_mutex_destroy(&c->mu);
}
#endif /* F8B_HAVE_NCCL */

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
		int rc = nccl_version_ok(c, c->cta_policy);
		if (rc == F8B_OK)
			rc = nccl_open(c, be);
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
		rc = nccl_buf_alloc(c, &b);
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
			nccl_buf_free(c, &b);
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
		return nccl_run(c, op, type, red, send, recv, count);
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
	if (c->nccl) {
		pthread_mutex_lock(&c->mu);
		if (c->failed != F8B_OK)
			rc = F8B_ERR(c->failed, "%s", c->why);
		pthread_mutex_unlock(&c->mu);
	}
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
		nccl_close(c);
#endif
	for (size_t i = 0; i < c->nbufs; i++)
		c->ops->free(c->obe, c->bufs[i].p);
	free(c->bufs);
	free(c);
}
