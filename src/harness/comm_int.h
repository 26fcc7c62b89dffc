/* comm_int.h - what comm.c (MPI, and the collectives' front) and
 * comm_nccl.c (the NCCL side of the collectives) share: the collective
 * handle and the NCCL functions the front calls.  Not for other modules:
 * comm.h is the interface. */
#ifndef F8B_COMM_INT_H
#define F8B_COMM_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/comm.h"

#ifdef F8B_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <pthread.h>
#endif

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
#ifdef F8B_HAVE_NCCL
/* comm_nccl.c.  Each returns F8B_OK or an error with its message. */
/* The NCCL this process runs has what CTA policy `cta` needs. */
int f8b_nccl_version_ok(struct f8b_coll *c, int cta);
/* The communicator (NCCL bootstrapped through MPI), its events and its
 * watchdog thread. */
int f8b_nccl_open(struct f8b_coll *c, struct f8b_backend *be);
/* Enqueues one collective on the backend's current stream. */
int f8b_nccl_run(struct f8b_coll *c, enum f8b_coll_op op, enum f8b_coll_type type,
                 enum f8b_coll_red red, const void *send, void *recv, size_t count);
/* The error that ended the communicator, or F8B_OK. */
int f8b_nccl_status(struct f8b_coll *c);
/* Registered or symmetric memory (b->mode, b->bytes in; b->p, b->handle out). */
int f8b_nccl_buf_alloc(struct f8b_coll *c, struct coll_buf *b);
void f8b_nccl_buf_free(struct f8b_coll *c, struct coll_buf *b);
/* Frees the registered buffers, stops the watchdog, ends the communicator. */
void f8b_nccl_close(struct f8b_coll *c);
#endif

#endif
