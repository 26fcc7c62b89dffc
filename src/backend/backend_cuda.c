/* backend_cuda.c - the "cuda" backend: its ops table, opening and closing
 * a device, memory, kernels/ for fill, amax, scales and casts, CUDA events
 * for timing, NVML (loaded at run time) for clocks, the ceilings' kernels.
 * The GEMM (cuBLASLt) is in cuda_gemm.c; cuda_internal.h lists the others.
 *
 * One backend = one GPU, one non-blocking stream; every compute op only
 * enqueues on that stream.  upload/download synchronise the stream (a
 * non-blocking stream does not order against the legacy default stream,
 * so a plain cudaMemcpy could overtake queued kernels).
 */
#include "backend/lls_ops.h"
#include "backend/optim_ops.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"
#include "backend/cuda_gate.h"
#include "backend/nvml_dl.h"
#include "kernels/kernels.h"

/* The cuBLAS documentation (cublasSetWorkspace) recommends 32 MiB of
 * workspace on Hopper; allocated once at open, offered to every plan. */
#define WORKSPACE_BYTES ((size_t)32 << 20)

void *f8b_cuda_stream(struct f8b_backend *be)
{
	return be->stream;
}

/* ------------------------------------------------------------ open / close */

static void cuda_close(struct f8b_backend *be)
{
	if (!be)
		return;
	/* Teardown is best effort: errors (e.g. a sticky fault that ended the
	 * run) must not hide the message that explains the run's end.  A
	 * pending gate is released first, or the sync would wait for it. */
	f8b_cuda_gate_free(be->gate);
	f8b_cuda_streams_free(be);
	if (be->stream && cudaStreamSynchronize(be->stream) != cudaSuccess)
		(void)cudaGetLastError();
	if (be->flush)
		(void)cudaFree(be->flush);
	if (be->workspace)
		(void)cudaFree(be->workspace);
	if (be->lt)
		(void)cublasLtDestroy(be->lt);
	if (be->stream)
		(void)cudaStreamDestroy(be->stream);
	(void)cudaGetLastError();
	f8b_nvml_close(be->nvml);
	free(be);
}

static int open_resources(struct f8b_backend *be, const struct cudaDeviceProp *prop)
{
	/* The own queue one priority above the least, where the device has
	 * more than one, so that a second queue can be put behind it
	 * (stream_create's F8B_STREAM_LOW). */
	int least = 0, greatest = 0;
	F8B_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	be->main_priority = greatest < least ? least - 1 : least;
	F8B_CUDA_TRY(
	    cudaStreamCreateWithPriority(&be->stream, cudaStreamNonBlocking, be->main_priority));
	be->main_stream = be->stream;
	F8B_LT_TRY(cublasLtCreate(&be->lt));
	be->lt_version = cublasLtGetVersion();
	be->workspace_bytes = WORKSPACE_BYTES;
	F8B_TRY(f8b_cuda_malloc(be, be->workspace_bytes, &be->workspace, "cuBLASLt workspace"));
	/* Reading (or writing) twice the L2 size evicts every line a previous
	 * sample left there (H100 SXM: 50 MiB L2, so 100 MiB, ~40 us at 3 TB/s).
	 * Zeroed once: the read flush's key never matches. */
	be->flush_bytes = prop->l2CacheSize > 0 ? 2 * (size_t)prop->l2CacheSize : (size_t)64 << 20;
	F8B_TRY(f8b_cuda_malloc(be, be->flush_bytes, &be->flush, "L2 flush buffer"));
	F8B_CUDA_TRY(cudaMemset(be->flush, 0, be->flush_bytes));
	return F8B_OK;
}

static int cuda_open(int device, struct f8b_backend **out, struct f8b_device_info *info)
{
	char why[256], bus_id[32], uuid[48];
	struct cudaDeviceProp prop;
	struct f8b_backend *be;
	int count = 0, rc;
	cudaError_t e;

	*out = NULL;
	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count <= 0) {
		if (e != cudaSuccess)
			(void)cudaGetLastError();
		f8b_cuda_describe_no_gpu(e != cudaSuccess ? e : cudaErrorNoDevice, why, sizeof why);
		return F8B_ERR(F8B_EUNSUPPORTED, "cuda backend: no usable GPU: %s", why);
	}
	if (device < 0 || device >= count)
		return F8B_ERR(F8B_EINVAL,
		               "cuda backend: device %d does not exist (accepted: 0..%d)", device,
		               count - 1);
	F8B_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
	/* fp8 tensor cores: Ada (8.9) and Hopper (9.0) onwards. */
	if (prop.major * 10 + prop.minor < 89)
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "cuda backend: device %d (%s) has compute capability %d.%d: fp8 needs "
		    "sm_89 or newer",
		    device, prop.name, prop.major, prop.minor);
	F8B_CUDA_TRY(cudaSetDevice(device));

	be = calloc(1, sizeof *be);
	if (!be)
		return F8B_ERR(F8B_ENOMEM, "cuda backend: cannot allocate %zu bytes", sizeof *be);
	be->device = device;
	be->cc_major = prop.major;
	be->cc_minor = prop.minor;
	snprintf(be->name, sizeof be->name, "%.127s", prop.name);
	rc = open_resources(be, &prop);
	if (rc != F8B_OK) {
		cuda_close(be);
		return rc;
	}

	f8b_cuda_format_uuid(&prop.uuid, uuid, sizeof uuid);
	if (cudaDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, device) != cudaSuccess) {
		(void)cudaGetLastError();
		bus_id[0] = '\0';
	}
	/* Without NVML, clocks and driver version are simply unknown. */
	be->nvml = f8b_nvml_open(bus_id, uuid, why, sizeof why);
	if (info)
		f8b_cuda_fill_info(be, &prop, uuid, info);
	*out = be;
	return F8B_OK;
}

/* ---------------------------------------------------------------- memory */

static int cuda_alloc(struct f8b_backend *be, size_t bytes, void **ptr)
{
	return f8b_cuda_malloc(be, bytes, ptr, "alloc");
}

static void cuda_free(struct f8b_backend *be, void *ptr)
{
	(void)be;
	if (ptr && cudaFree(ptr) != cudaSuccess)
		(void)cudaGetLastError();
}

static int cuda_upload(struct f8b_backend *be, void *dst, const void *src, size_t bytes)
{
	if (bytes == 0)
		return F8B_OK;
	F8B_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, be->stream));
	/* The caller may reuse src as soon as this returns. */
	F8B_CUDA_TRY(cudaStreamSynchronize(be->stream));
	return F8B_OK;
}

static int cuda_download(struct f8b_backend *be, void *dst, const void *src, size_t bytes)
{
	if (bytes == 0)
		return F8B_OK;
	F8B_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, be->stream));
	F8B_CUDA_TRY(cudaStreamSynchronize(be->stream));
	return F8B_OK;
}

static int cuda_memset(struct f8b_backend *be, void *dst, int byte, size_t bytes)
{
	if (bytes == 0)
		return F8B_OK;
	F8B_CUDA_TRY(cudaMemsetAsync(dst, byte, bytes, be->stream));
	return F8B_OK;
}

/* ------------------------------------------------------ fill / amax / cast */

static int cuda_fill(struct f8b_backend *be, struct f8b_tensor *x, const struct f8b_fill_spec *spec)
{
	F8B_TRY(f8b_check_wide_input(x, "fill"));
	if (!spec)
		return F8B_ERR(F8B_EINVAL, "fill: no fill spec");
	F8B_KERNEL_TRY(f8b_k_fill(x->data, (int)x->dtype, x->rows * x->cols, spec, be->stream));
	return F8B_OK;
}

static int cuda_amax(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                     float *amax)
{
	F8B_TRY(f8b_check_wide_input(x, "amax"));
	F8B_TRY(f8b_check_gran(g, "amax"));
	if (!amax)
		return F8B_ERR(F8B_EINVAL, "amax: no output buffer");
	F8B_KERNEL_TRY(
	    f8b_k_amax(x->data, (int)x->dtype, x->rows, x->cols, (int)g, amax, be->stream));
	return F8B_OK;
}

static int cuda_scales(struct f8b_backend *be, const float *amax, int64_t n, enum f8b_dtype target,
                       const struct f8b_scale_opts *o, float *scale, float *scale_inv)
{
	if (!f8b_dtype_is_fp8(target))
		return F8B_ERR(F8B_EINVAL, "scales: target dtype %s (accepted: e4m3, e5m2)",
		               f8b_dtype_name(target));
	if (n < 0)
		return F8B_ERR(F8B_EINVAL, "scales: count %lld (must be >= 0)", (long long)n);
	if (n == 0)
		return F8B_OK;
	if (!amax || !scale || !scale_inv)
		return F8B_ERR(F8B_EINVAL, "scales: missing amax, scale or scale_inv buffer");
	F8B_KERNEL_TRY(f8b_k_scales(amax, n, (int)target, o ? o->margin : 0.0f,
	                            o && o->pow2 ? 1 : 0, scale, scale_inv, be->stream));
	return F8B_OK;
}

static int cuda_cast(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                     const float *scale, struct f8b_tensor *out)
{
	F8B_TRY(f8b_check_cast(x, g, scale, out));
	F8B_KERNEL_TRY(f8b_k_cast(x->data, (int)x->dtype, x->rows, x->cols, (int)g, scale,
	                          out->data, (int)out->dtype, be->stream));
	return F8B_OK;
}

/* ------------------------------------------------------- events and clocks */

static int cuda_event_create(struct f8b_backend *be, struct f8b_event **out)
{
	struct f8b_event *ev;
	int rc;

	(void)be;
	*out = NULL;
	ev = calloc(1, sizeof *ev);
	if (!ev)
		return F8B_ERR(F8B_ENOMEM, "event: cannot allocate %zu bytes", sizeof *ev);
	rc = F8B_CUDA_CHECK(cudaEventCreate(&ev->ev));
	if (rc != F8B_OK) {
		free(ev);
		return rc;
	}
	*out = ev;
	return F8B_OK;
}

static void cuda_event_destroy(struct f8b_backend *be, struct f8b_event *ev)
{
	(void)be;
	if (!ev)
		return;
	if (cudaEventDestroy(ev->ev) != cudaSuccess)
		(void)cudaGetLastError();
	free(ev);
}

static int cuda_event_record(struct f8b_backend *be, struct f8b_event *ev)
{
	if (!ev)
		return F8B_ERR(F8B_EINVAL, "event record: no event");
	F8B_CUDA_TRY(cudaEventRecord(ev->ev, be->stream));
	ev->recorded = true;
	return F8B_OK;
}

static int cuda_event_elapsed(struct f8b_backend *be, struct f8b_event *a, struct f8b_event *b,
                              double *seconds)
{
	float ms = 0.0f;

	(void)be;
	if (!a || !b || !seconds)
		return F8B_ERR(F8B_EINVAL, "event elapsed: missing event or output");
	if (!a->recorded || !b->recorded)
		return F8B_ERR(F8B_EINVAL, "event elapsed: an event was never recorded");
	F8B_CUDA_TRY(cudaEventSynchronize(b->ev));
	/* Resolution about 0.5 us (cudaEventElapsedTime documentation). */
	F8B_CUDA_TRY(cudaEventElapsedTime(&ms, a->ev, b->ev));
	*seconds = 1e-3 * (double)ms;
	return F8B_OK;
}

static int cuda_flush_cache(struct f8b_backend *be, int how)
{
	/* 2 x L2, ordered before the next timed launch on this stream: read
	 * (the buffer is zero from open, the key nonzero: nothing is written),
	 * or an asynchronous memset (nvbench's flush, with one L2's worth). */
	if (how == F8B_FLUSH_WRITE) {
		F8B_CUDA_TRY(cudaMemsetAsync(be->flush, 0, be->flush_bytes, be->stream));
		return F8B_OK;
	}
	int e = f8b_k_read_flush(be->flush, be->flush_bytes, 0xF8B0F1u,
	                         (unsigned *)be->flush + be->flush_bytes / 4 - 1, be->stream);
	if (e != cudaSuccess)
		return F8B_ERR(F8B_EDEVICE, "L2 flush: %s", cudaGetErrorString((cudaError_t)e));
	return F8B_OK;
}

static int cuda_sync(struct f8b_backend *be)
{
	F8B_CUDA_TRY(cudaStreamSynchronize(be->main_stream));
	return f8b_cuda_streams_sync(be);
}

static int cuda_clock_state(struct f8b_backend *be, struct f8b_clock_state *c)
{
	unsigned long long reasons = 0;

	if (!c)
		return F8B_ERR(F8B_EINVAL, "clock state: no output");
	memset(c, 0, sizeof *c);
	/* No NVML, or a query this driver lacks: valid stays false. */
	if (!f8b_nvml_clocks(be->nvml, &c->sm_mhz, &c->mem_mhz))
		return F8B_OK;
	c->valid = true;
	if (f8b_nvml_clock_reasons(be->nvml, &reasons)) {
		c->throttle_reasons = reasons;
		c->throttled = f8b_nvml_is_throttled(reasons);
	}
	return F8B_OK;
}

/* ------------------------------------------------------------- ceilings */

/* The bandwidth kernels take 16-byte vectors (kernels/bandwidth.cu), hence
 * the alignment of 16 below. */
static int cuda_bw_read(struct f8b_backend *be, const void *src, size_t bytes, int passes,
                        uint64_t *partial)
{
	F8B_TRY(f8b_check_bw(src, NULL, false, bytes, passes, 16, "bw_read"));
	if (!partial)
		return F8B_ERR(F8B_EINVAL, "bw_read: no partial-sum buffer");
	F8B_KERNEL_TRY(f8b_k_bw_read(src, (int64_t)bytes, passes, partial, be->stream));
	return F8B_OK;
}

static int cuda_bw_write(struct f8b_backend *be, void *dst, size_t bytes, int passes,
                         uint64_t value)
{
	F8B_TRY(f8b_check_bw(dst, NULL, false, bytes, passes, 16, "bw_write"));
	F8B_KERNEL_TRY(f8b_k_bw_write(dst, (int64_t)bytes, passes, value, be->stream));
	return F8B_OK;
}

/* A kernel rather than cudaMemcpyAsync(D2D): the copy engine path of the
 * latter is not what kernels see, and it would not sweep an L2-resident
 * working set the way the read and write kernels do. */
static int cuda_bw_copy(struct f8b_backend *be, void *dst, const void *src, size_t bytes,
                        int passes)
{
	F8B_TRY(f8b_check_bw(dst, src, true, bytes, passes, 16, "bw_copy"));
	F8B_KERNEL_TRY(f8b_k_bw_copy(dst, src, (int64_t)bytes, passes, be->stream));
	return F8B_OK;
}

static int cuda_launch_empty(struct f8b_backend *be)
{
	F8B_KERNEL_TRY(f8b_k_empty(be->stream));
	return F8B_OK;
}

static int cuda_hold(struct f8b_backend *be, double timeout_s)
{
	return f8b_cuda_gate_hold(&be->gate, be->stream, timeout_s);
}

static int cuda_release(struct f8b_backend *be)
{
	return f8b_cuda_gate_release(be->gate);
}

static int cuda_mem_info(struct f8b_backend *be, size_t *free_bytes, size_t *total_bytes)
{
	(void)be;
	F8B_CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes));
	return F8B_OK;
}

const struct f8b_backend_ops f8b_backend_cuda = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .memset = cuda_memset,
    .fill = cuda_fill,
    .amax = cuda_amax,
    .scales = cuda_scales,
    .cast = cuda_cast,
    .gemm_plan = f8b_cuda_gemm_plan,
    .gemm = f8b_cuda_gemm,
    .gemm_plan_free = f8b_cuda_gemm_plan_free,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_elapsed = cuda_event_elapsed,
    .flush_cache = cuda_flush_cache,
    .sync = cuda_sync,
    .clock_state = cuda_clock_state,
    .bw_read = cuda_bw_read,
    .bw_write = cuda_bw_write,
    .bw_copy = cuda_bw_copy,
    .launch_empty = cuda_launch_empty,
    .hold = cuda_hold,
    .release = cuda_release,
    .mem_info = cuda_mem_info,
    .layernorm_fwd = f8b_cuda_layernorm_fwd,
    .layernorm_bwd = f8b_cuda_layernorm_bwd,
    .sigmoid_fwd = f8b_cuda_sigmoid_fwd,
    .sigmoid_bwd = f8b_cuda_sigmoid_bwd,
    .amax_t = f8b_cuda_amax_t,
    .cast_transpose = f8b_cuda_cast_transpose,
    .layernorm_amax_t = f8b_cuda_layernorm_amax_t,
    .layernorm_cast_t = f8b_cuda_layernorm_cast_t,
    .layernorm_fwd_cast = f8b_cuda_layernorm_fwd_cast,
    .sigmoid_bwd_cast = f8b_cuda_sigmoid_bwd_cast,
    .cast_fused = f8b_cuda_cast_fused,
    .history_scale = f8b_cuda_history_scale,
    .graph_capture = f8b_cuda_graph_capture,
    .graph_launch = f8b_cuda_graph_launch,
    .graph_free = f8b_cuda_graph_free,
    .stream_create = f8b_cuda_stream_create,
    .stream_destroy = f8b_cuda_stream_destroy,
    .stream_use = f8b_cuda_stream_use,
    .stream_wait = f8b_cuda_stream_wait,
    .transpose_fp8 = f8b_cuda_transpose_fp8,
    .optim_pass = f8b_cuda_optim_pass,
};
