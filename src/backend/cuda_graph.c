/* cuda_graph.c - CUDA graphs of a sequence of ops (stream capture on the
 * backend's stream, instantiated once, launched as one), and delayed
 * scaling's history step (kernels/scale.cu). */
#include <stdlib.h>

#include "backend/cuda_internal.h"
#include "backend/lls_ops.h"
#include "kernels/kernels.h"

struct f8b_graph {
	cudaGraph_t graph;
	cudaGraphExec_t exec;
};

int f8b_cuda_history_scale(struct f8b_backend *be, float *hist, int len, const float *amax,
                           enum f8b_dtype dtype, const struct f8b_scale_opts *opts, float *scale)
{
	F8B_TRY(f8b_check_history(hist, len, amax, dtype, scale));
	F8B_KERNEL_TRY(f8b_k_history_scale(hist, len, amax, (int)dtype, opts ? opts->margin : 0.0f,
	                                   opts && opts->pow2 ? 1 : 0, scale, be->stream));
	return F8B_OK;
}

void f8b_cuda_graph_free(struct f8b_backend *be, struct f8b_graph *g)
{
	(void)be;
	if (!g)
		return;
	if (g->exec)
		(void)cudaGraphExecDestroy(g->exec);
	if (g->graph)
		(void)cudaGraphDestroy(g->graph);
	free(g);
}

/* Captures in the thread-local mode: only this thread's calls are
 * recorded, and a call that is not allowed during capture (a sync, a
 * synchronous copy) fails at once instead of being recorded wrong. */
int f8b_cuda_graph_capture(struct f8b_backend *be, int (*fn)(void *arg), void *arg,
                           struct f8b_graph **out)
{
	*out = NULL;
	if (!fn)
		return F8B_ERR(F8B_EINVAL, "graph_capture: no function to capture");
	struct f8b_graph *g = calloc(1, sizeof *g);
	if (!g)
		return F8B_ERR(F8B_ENOMEM, "graph_capture: no host memory");
	int rc =
	    F8B_CUDA_CHECK(cudaStreamBeginCapture(be->stream, cudaStreamCaptureModeThreadLocal));
	if (rc != F8B_OK) {
		free(g);
		return rc;
	}
	int frc = fn(arg);
	/* End the capture whatever fn did, so the stream is usable again. */
	cudaError_t e = cudaStreamEndCapture(be->stream, &g->graph);
	if (frc != F8B_OK) {
		f8b_cuda_graph_free(be, g);
		return frc;
	}
	rc = F8B_CUDA_CHECK(e);
	if (rc == F8B_OK)
		rc = F8B_CUDA_CHECK(cudaGraphInstantiate(&g->exec, g->graph, 0));
	if (rc == F8B_OK)
		rc = F8B_CUDA_CHECK(cudaGraphUpload(g->exec, be->stream));
	if (rc != F8B_OK) {
		f8b_cuda_graph_free(be, g);
		return rc;
	}
	*out = g;
	return F8B_OK;
}

int f8b_cuda_graph_launch(struct f8b_backend *be, struct f8b_graph *g)
{
	if (!g)
		return F8B_ERR(F8B_EINVAL, "graph_launch: no graph");
	F8B_CUDA_TRY(cudaGraphLaunch(g->exec, be->stream));
	return F8B_OK;
}
