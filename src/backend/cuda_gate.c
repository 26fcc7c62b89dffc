/* cuda_gate.c - the stream gate behind which collective samples are timed.
 *
 * A collective sample used to be: barrier; record e0; enqueue the
 * collective; record e1.  The GPU reaches e0 as soon as it is recorded, so
 * e0..e1 also timed the host's enqueue (with a non-blocking NCCL
 * communicator that is a hand-off to a thread NCCL creates per call: tens
 * of microseconds, and ~4 ms while the poller in comm.c spun on the same
 * core) and the ranks' skew.  With the gate the GPU runs
 *     hold (waits for the host) ; e0 ; collective x batch ; e1
 * and the host releases every rank's hold only after all of them have
 * queued their sample and met in a barrier, so e0..e1 holds the collective
 * alone, started together on every rank (the ranks' release skew is the
 * barrier's exit skew, microseconds).  doc/formulas.md, "Collective samples". */
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "backend/backend.h"
#include "backend/cuda_gate.h"
#include "core/common.h"
#include "kernels/kernels.h"

struct f8b_cuda_gate {
	unsigned *host;   /* mapped pinned: [0] release generation, [1] timed out generation */
	unsigned *device; /* the same two words as the GPU addresses them */
	unsigned gen;     /* generation of the last hold */
	bool held;        /* a hold is queued and not yet released */
	double timeout_s;
};

static int gate_status(cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return F8B_OK;
	(void)cudaGetLastError();
	return F8B_ERR(F8B_EDEVICE, "%s: %s (%s)", call, cudaGetErrorString(e),
	               cudaGetErrorName(e));
}

static int gate_new(struct f8b_cuda_gate **out)
{
	struct f8b_cuda_gate *g = calloc(1, sizeof *g);
	void *h = NULL, *d = NULL;
	int rc;

	if (!g)
		return F8B_ERR(F8B_ENOMEM, "stream gate: %zu bytes", sizeof *g);
	rc = gate_status(cudaHostAlloc(&h, 2 * sizeof(unsigned), cudaHostAllocMapped),
	                 "cudaHostAlloc(stream gate flags, cudaHostAllocMapped)");
	if (rc == F8B_OK)
		rc = gate_status(cudaHostGetDevicePointer(&d, h, 0), "cudaHostGetDevicePointer");
	if (rc != F8B_OK) {
		if (h)
			(void)cudaFreeHost(h);
		free(g);
		return rc;
	}
	g->host = h;
	g->device = d;
	g->host[0] = g->host[1] = 0;
	*out = g;
	return F8B_OK;
}

int f8b_cuda_gate_hold(struct f8b_cuda_gate **gp, cudaStream_t stream, double timeout_s)
{
	if (!*gp)
		F8B_TRY(gate_new(gp));
	struct f8b_cuda_gate *g = *gp;
	if (g->held)
		return F8B_ERR(F8B_EINTERNAL,
		               "stream gate: hold without a release of the last one");
	g->gen++;
	g->timeout_s = timeout_s;
	F8B_TRY(
	    gate_status((cudaError_t)f8b_k_hold(&g->device[0], g->gen, (uint64_t)(timeout_s * 1e9),
	                                        &g->device[1], stream),
	                "f8b_k_hold"));
	g->held = true;
	return F8B_OK;
}

int f8b_cuda_gate_release(struct f8b_cuda_gate *g)
{
	if (!g || !g->held)
		return F8B_ERR(F8B_EINTERNAL, "stream gate: release without a hold");
	g->held = false;
	/* The store must not be reordered before the enqueues the caller made:
	 * a full barrier, then a volatile store the GPU polls. */
	__sync_synchronize();
	((volatile unsigned *)g->host)[0] = g->gen;
	__sync_synchronize();
	if (((volatile unsigned *)g->host)[1] == g->gen)
		return F8B_ERR(F8B_EDEVICE,
		               "the stream gate gave up after %g s: the host took longer than that "
		               "to queue one sample and meet the other ranks (a peer is slow or "
		               "stuck)",
		               g->timeout_s);
	return F8B_OK;
}

void f8b_cuda_gate_free(struct f8b_cuda_gate *g)
{
	if (!g)
		return;
	if (g->held) /* never leave a GPU waiting for a release */
		((volatile unsigned *)g->host)[0] = g->gen;
	(void)cudaFreeHost(g->host);
	(void)cudaGetLastError();
	free(g);
}
