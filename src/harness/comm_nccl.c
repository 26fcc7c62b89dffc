/* comm_nccl.c - the NCCL side of the collectives (comm.h): the
 * communicator bootstrapped through MPI, registered and symmetric buffers,
 * enqueueing on the backend's stream, and the watchdog that turns a dead
 * or stuck peer into an error instead of a hang. */
#define _POSIX_C_SOURCE 200809L
#include "harness/comm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "harness/nccl_compat.h"

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

int f8b_nccl_version_ok(struct f8b_coll *c, int cta)
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
int f8b_nccl_buf_alloc(struct f8b_coll *c, struct coll_buf *b)
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

void f8b_nccl_buf_free(struct f8b_coll *c, struct coll_buf *b)
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

int f8b_nccl_open(struct f8b_coll *c, struct f8b_backend *be)
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

int f8b_nccl_run(struct f8b_coll *c, enum f8b_coll_op op, enum f8b_coll_type type,
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

void f8b_nccl_close(struct f8b_coll *c)
{
	/* Buffers still registered go before the communicator does. */
	for (size_t i = c->nbufs; i-- > 0;)
		if (c->bufs[i].mode != F8B_COLL_BUF_PLAIN)
			f8b_nccl_buf_free(c, &c->bufs[i]);
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

int f8b_nccl_status(struct f8b_coll *c)
{
	int rc = F8B_OK;
	pthread_mutex_lock(&c->mu);
	if (c->failed != F8B_OK)
		rc = F8B_ERR(c->failed, "%s", c->why);
	pthread_mutex_unlock(&c->mu);
	return rc;
}
#endif /* F8B_HAVE_NCCL */
