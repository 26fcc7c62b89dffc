/* cuda_internal.h - what the files of the "cuda" backend share, and no
 * one else sees: the backend's state, the checks every CUDA runtime /
 * cuBLASLt / kernels/ call goes through, and the entry points one file
 * gives the others.
 *
 *   backend_cuda.c  open/close, memory, data kernels, events, clocks, ceilings; the ops table
 *   cuda_check.c    error translation (runtime, cuBLASLt) and device allocation
 *   cuda_device.c   how many usable GPUs, why none, what the device is (f8b_device_info)
 *   cuda_gemm.c     cuBLASLt plans (descriptors, layouts, scale modes, heuristic) and the launch
 *   cuda_algo.c     the algorithm a plan runs, in numbers and words (f8b_algo_info)
 *   cuda_gemm_f8b.c plans and launches of f8bench's own sm_90a GEMM (--impl f8b)
 *   cuda_gate.c     the stream gate of collective samples
 *   cuda_stream.c   second queues (stream_create/use/wait), the fp8 byte transpose
 */
#ifndef F8B_CUDA_INTERNAL_H
#define F8B_CUDA_INTERNAL_H

#include <stddef.h>

#include "backend/backend.h"
#include "backend/cuda_compat.h"

struct f8b_nvml;
struct f8b_cuda_gate;

#define F8B_CUDA_MAX_STREAMS 4 /* second queues per backend */

struct f8b_event {
	cudaEvent_t ev;
	bool recorded;
};

struct f8b_backend {
	int device;
	int cc_major, cc_minor;
	/* The queue ops enqueue on: main_stream (the backend's own, made at
	 * open) unless stream_use chose one of side[] (cuda_stream.c). */
	cudaStream_t stream;
	cudaStream_t main_stream;
	int main_priority; /* its stream priority (backend_cuda.c) */
	cudaStream_t side[F8B_CUDA_MAX_STREAMS];
	cublasLtHandle_t lt;
	size_t lt_version;
	void *workspace;
	size_t workspace_bytes;
	/* A cuBLASLt workspace of each second queue, made by the first GEMM
	 * enqueued there (two GEMMs running at once must not share one). */
	void *side_ws[F8B_CUDA_MAX_STREAMS];
	void *flush; /* 2 x L2, written by flush_cache() */
	size_t flush_bytes;
	struct f8b_nvml *nvml;      /* NULL when the driver's NVML is absent */
	struct f8b_cuda_gate *gate; /* made by the first hold() */
	char name[128];
};

/* Every CUDA runtime / cuBLASLt call goes through these: the argument is
 * evaluated once, and a failure records "<call text>: <library's error
 * string> (<error name>)" with file:line (cuda_check.c). */
int f8b_cuda_status(cudaError_t e, const char *call, const char *file, int line);
int f8b_cuda_lt_status(cublasStatus_t s, const char *call, const char *file, int line);

#define F8B_CUDA_CHECK(call) f8b_cuda_status((call), #call, __FILE__, __LINE__)
#define F8B_CUDA_TRY(call)   F8B_TRY(F8B_CUDA_CHECK(call))
#define F8B_LT_CHECK(call)   f8b_cuda_lt_status((call), #call, __FILE__, __LINE__)
#define F8B_LT_TRY(call)     F8B_TRY(F8B_LT_CHECK(call))
/* kernels/ return a cudaError_t as int (kernels.h). */
#define F8B_KERNEL_TRY(call)                                                                       \
	F8B_TRY(f8b_cuda_status((cudaError_t)(call), #call, __FILE__, __LINE__))

/* cudaMalloc of `bytes` (none for 0) with a message naming `what`, and for
 * an out-of-memory failure the device's free and total memory. */
int f8b_cuda_malloc(const struct f8b_backend *be, size_t bytes, void **p, const char *what);

/* cuda_device.c */
/* Why cudaGetDeviceCount failed, in words a user can act on. */
void f8b_cuda_describe_no_gpu(cudaError_t e, char *why, size_t n);
/* NVML's spelling of a device UUID ("GPU-xxxxxxxx-..."). */
void f8b_cuda_format_uuid(const cudaUUID_t *u, char *buf, size_t n);
/* The open backend's f8b_device_info (versions of runtime, cuBLASLt, NCCL, driver). */
void f8b_cuda_fill_info(const struct f8b_backend *be, const struct cudaDeviceProp *prop,
                        const char *uuid, struct f8b_device_info *info);

/* cuda_gemm.c: the gemm_plan, gemm and gemm_plan_free ops. */
int f8b_cuda_gemm_plan(struct f8b_backend *be, const struct f8b_gemm_desc *d, int candidate,
                       struct f8b_gemm_plan **out, struct f8b_algo_info *info);
int f8b_cuda_gemm(struct f8b_backend *be, struct f8b_gemm_plan *p, const struct f8b_gemm_args *a);
void f8b_cuda_gemm_plan_free(struct f8b_backend *be, struct f8b_gemm_plan *p);

/* cuda_gemm_f8b.c: the F8B_GEMM_IMPL_F8B side of those three ops, called
 * by cuda_gemm.c after the checks every implementation shares; cfg names
 * the configuration in messages. */
struct f8b_kplan;
int f8b_cuda_kgemm_plan(struct f8b_backend *be, const struct f8b_gemm_desc *d, int candidate,
                        const char *cfg, struct f8b_kplan **out, struct f8b_algo_info *info);
int f8b_cuda_kgemm(struct f8b_backend *be, struct f8b_kplan *p, const struct f8b_gemm_args *a);
void f8b_cuda_kgemm_free(struct f8b_kplan *p);
/* The tensor map the kernel reads an fp8 operand [rows, k] (backend memory)
 * with, box {128, box_rows}, into map (a CUtensorMap: 128 bytes, 128-byte
 * aligned), for the layer tests of tests/gpu/test_f8b_gemm.c. */
int f8b_cuda_kgemm_encode(const void *ptr, int64_t rows, int64_t k, int box_rows, void *map);
/* The tensor map the epilogue stores an output [rows, cols] of `dtype`
 * (backend memory) with, box {box_cols, 64}, box_cols x the element size
 * 128 or 64 bytes (the swizzle's span), for the layer test of the TMA
 * store (tests/gpu/test_f8b_gemm_layers.c). */
int f8b_cuda_kgemm_encode_out(void *ptr, int64_t rows, int64_t cols, int dtype, int box_cols,
                              void *map);

/* cuda_stream.c: the stream ops and transpose_fp8; streams_free ends the
 * second queues at close (after syncing them), streams_sync waits for
 * them (sync()). */
struct f8b_stream;
int f8b_cuda_stream_create(struct f8b_backend *be, int priority, struct f8b_stream **s);
void f8b_cuda_stream_destroy(struct f8b_backend *be, struct f8b_stream *s);
int f8b_cuda_stream_use(struct f8b_backend *be, struct f8b_stream *s);
int f8b_cuda_stream_wait(struct f8b_backend *be, struct f8b_event *ev);
int f8b_cuda_transpose_fp8(struct f8b_backend *be, const struct f8b_tensor *x,
                           struct f8b_tensor *out);
void f8b_cuda_streams_free(struct f8b_backend *be);
int f8b_cuda_streams_sync(struct f8b_backend *be);
/* The cuBLASLt workspace of the current queue (be->workspace on the
 * backend's own); a second queue's is allocated on its first use, which
 * must not be during a graph capture. */
int f8b_cuda_stream_workspace(struct f8b_backend *be, void **ws);

/* cuda_algo.c: info from the heuristic's result `rank` of `candidates`. */
void f8b_cuda_fill_algo_info(const cublasLtMatmulHeuristicResult_t *r, int rank, int candidates,
                             struct f8b_algo_info *info);

#endif
