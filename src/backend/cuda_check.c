/* cuda_check.c - error translation for the "cuda" backend: a CUDA
 * runtime or cuBLASLt status becomes an f8b status with the call's text,
 * the library's own error string and file:line; device allocation names
 * what it was for and, when memory ran out, how much there was.
 */
#include <stdio.h>

#include "backend/cuda_internal.h"

int f8b_cuda_status(cudaError_t e, const char *call, const char *file, int line)
{
	if (e == cudaSuccess)
		return F8B_OK;
	/* Clears a non-sticky error so the next call does not report it again
	 * (sticky ones, e.g. an illegal address, stay until the process ends). */
	(void)cudaGetLastError();
	return f8b_errorf(e == cudaErrorMemoryAllocation ? F8B_ENOMEM : F8B_EDEVICE, file, line,
	                  "%s: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}

int f8b_cuda_lt_status(cublasStatus_t s, const char *call, const char *file, int line)
{
	if (s == CUBLAS_STATUS_SUCCESS)
		return F8B_OK;
	return f8b_errorf(s == CUBLAS_STATUS_ALLOC_FAILED ? F8B_ENOMEM : F8B_EDEVICE, file, line,
	                  "%s: %s (%s)", call, cublasLtGetStatusString(s),
	                  cublasLtGetStatusName(s));
}

int f8b_cuda_malloc(const struct f8b_backend *be, size_t bytes, void **p, const char *what)
{
	cudaError_t e;

	*p = NULL;
	if (bytes == 0)
		return F8B_OK;
	e = cudaMalloc(p, bytes);
	if (e == cudaSuccess)
		return F8B_OK;
	(void)cudaGetLastError();
	*p = NULL;
	if (e == cudaErrorMemoryAllocation) {
		size_t free_b = 0, total_b = 0;
		if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
			(void)cudaGetLastError();
		return F8B_ERR(F8B_ENOMEM,
		               "%s: cudaMalloc of %zu bytes (%.1f MiB) on device %d failed: out of "
		               "device memory (%.1f MiB free of %.1f MiB)",
		               what, bytes, bytes / 1048576.0, be->device, free_b / 1048576.0,
		               total_b / 1048576.0);
	}
	return F8B_ERR(F8B_EDEVICE, "%s: cudaMalloc of %zu bytes on device %d: %s (%s)", what,
	               bytes, be->device, cudaGetErrorString(e), cudaGetErrorName(e));
}
