/* cuda_stream.c - the cuda backend's second queues and its fp8 byte
 * transpose (backend.h "Streams").
 *
 * A stream is one of the backend's side[] slots, a non-blocking CUDA
 * stream.  stream_use points be->stream, which every op enqueues on, at
 * it (or back at the backend's own stream); stream_wait is
 * cudaStreamWaitEvent on the current one.  A GEMM on a second stream
 * uses that stream's own cuBLASLt workspace (stream_workspace), so GEMMs
 * on two streams may run at once.  Compiled only with CUDA.
 */
#include <stdlib.h>

#include "backend/cuda_internal.h"
#include "kernels/kernels.h"

struct f8b_stream {
	int slot;
};

int f8b_cuda_stream_create(struct f8b_backend *be, int priority, struct f8b_stream **out)
{
	*out = NULL;
	int slot = 0;
	while (slot < F8B_CUDA_MAX_STREAMS && be->side[slot])
		slot++;
	if (slot == F8B_CUDA_MAX_STREAMS)
		return F8B_ERR(F8B_EUNSUPPORTED, "stream_create: at most %d second streams",
		               F8B_CUDA_MAX_STREAMS);
	struct f8b_stream *s = calloc(1, sizeof *s);
	if (!s)
		return F8B_ERR(F8B_ENOMEM, "stream_create: %zu bytes", sizeof *s);
	/* Lower numbers are higher priorities (backend_cuda.c: the own
	 * queue's is one above the least). */
	int least = 0, greatest = 0;
	int rc = F8B_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	int p = priority > 0 ? greatest : priority < 0 ? least : be->main_priority;
	if (rc == F8B_OK)
		rc = F8B_CUDA_CHECK(
		    cudaStreamCreateWithPriority(&be->side[slot], cudaStreamNonBlocking, p));
	if (rc != F8B_OK) {
		be->side[slot] = NULL;
		free(s);
		return rc;
	}
	s->slot = slot;
	*out = s;
	return F8B_OK;
}

void f8b_cuda_stream_destroy(struct f8b_backend *be, struct f8b_stream *s)
{
	if (!s)
		return;
	cudaStream_t st = be->side[s->slot];
	if (be->stream == st)
		be->stream = be->main_stream;
	if (st) {
		if (cudaStreamSynchronize(st) != cudaSuccess ||
		    cudaStreamDestroy(st) != cudaSuccess)
			(void)cudaGetLastError();
	}
	be->side[s->slot] = NULL;
	if (be->side_ws[s->slot] && cudaFree(be->side_ws[s->slot]) != cudaSuccess)
		(void)cudaGetLastError();
	be->side_ws[s->slot] = NULL;
	free(s);
}

int f8b_cuda_stream_use(struct f8b_backend *be, struct f8b_stream *s)
{
	if (s && (s->slot < 0 || s->slot >= F8B_CUDA_MAX_STREAMS || !be->side[s->slot]))
		return F8B_ERR(F8B_EINVAL, "stream_use: not a stream of this backend");
	be->stream = s ? be->side[s->slot] : be->main_stream;
	return F8B_OK;
}

int f8b_cuda_stream_wait(struct f8b_backend *be, struct f8b_event *ev)
{
	if (!ev || !ev->recorded)
		return F8B_ERR(F8B_EINVAL, "stream_wait: %s",
		               ev ? "the event was never recorded" : "no event");
	F8B_CUDA_TRY(cudaStreamWaitEvent(be->stream, ev->ev, 0));
	return F8B_OK;
}

int f8b_cuda_transpose_fp8(struct f8b_backend *be, const struct f8b_tensor *x,
                           struct f8b_tensor *out)
{
	F8B_TRY(f8b_check_transpose_fp8(x, out));
	F8B_KERNEL_TRY(f8b_k_transpose8(x->data, x->rows, x->cols, out->data, be->stream));
	return F8B_OK;
}

void f8b_cuda_streams_free(struct f8b_backend *be)
{
	be->stream = be->main_stream;
	for (int i = 0; i < F8B_CUDA_MAX_STREAMS; i++) {
		if (!be->side[i])
			continue;
		if (cudaStreamSynchronize(be->side[i]) != cudaSuccess ||
		    cudaStreamDestroy(be->side[i]) != cudaSuccess)
			(void)cudaGetLastError();
		be->side[i] = NULL;
		if (be->side_ws[i] && cudaFree(be->side_ws[i]) != cudaSuccess)
			(void)cudaGetLastError();
		be->side_ws[i] = NULL;
	}
}

int f8b_cuda_stream_workspace(struct f8b_backend *be, void **ws)
{
	*ws = be->workspace;
	if (be->stream == be->main_stream)
		return F8B_OK;
	int slot = 0;
	while (slot < F8B_CUDA_MAX_STREAMS && be->side[slot] != be->stream)
		slot++;
	if (slot == F8B_CUDA_MAX_STREAMS)
		return F8B_ERR(F8B_EINTERNAL,
		               "gemm: the current queue is not one of the backend's");
	if (!be->side_ws[slot]) {
		enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
		F8B_CUDA_TRY(cudaStreamIsCapturing(be->stream, &cs));
		if (cs != cudaStreamCaptureStatusNone)
			return F8B_ERR(F8B_EINVAL, "gemm: the first GEMM of a second stream was "
			                           "captured; enqueue one before capturing (its "
			                           "workspace is allocated then)");
		F8B_CUDA_TRY(cudaMalloc(&be->side_ws[slot], be->workspace_bytes));
	}
	*ws = be->side_ws[slot];
	return F8B_OK;
}

int f8b_cuda_streams_sync(struct f8b_backend *be)
{
	for (int i = 0; i < F8B_CUDA_MAX_STREAMS; i++)
		if (be->side[i])
			F8B_CUDA_TRY(cudaStreamSynchronize(be->side[i]));
	return F8B_OK;
}
