/* cuda_device.c - which GPUs the "cuda" backend can use and what they
 * are: the count of usable devices (fp8 needs sm_89+), why there is none in
 * words a user can act on, and the f8b_device_info of an open device
 * (versions of the runtime, cuBLASLt, NCCL and the driver, for provenance).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"
#ifdef F8B_HAVE_NCCL
#include <nccl.h>
#endif
#include "backend/nvml_dl.h"

void f8b_cuda_describe_no_gpu(cudaError_t e, char *why, size_t n)
{
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");

	if (e == cudaErrorInsufficientDriver) {
		/* The runtime says this both when there is no driver at all and
		 * when the driver is too old: tell the two apart. */
		void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
		if (!lib) {
			snprintf(why, n, "no NVIDIA driver (libcuda.so.1 not found)");
			return;
		}
		dlclose(lib);
		int dv = 0, rv = 0;
		if (cudaDriverGetVersion(&dv) != cudaSuccess)
			(void)cudaGetLastError();
		if (cudaRuntimeGetVersion(&rv) != cudaSuccess)
			(void)cudaGetLastError();
		snprintf(why, n,
		         "the NVIDIA driver (supports CUDA %d.%d) is older than the CUDA runtime "
		         "%d.%d f8bench uses",
		         F8B_CUDART_VERSION_MAJOR(dv), F8B_CUDART_VERSION_MINOR(dv),
		         F8B_CUDART_VERSION_MAJOR(rv), F8B_CUDART_VERSION_MINOR(rv));
		return;
	}
	if (e == cudaErrorNoDevice) {
		snprintf(why, n, "no CUDA device visible%s%s%s",
		         vis ? " (CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "", vis ? ")" : "");
		return;
	}
	snprintf(why, n, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
}

/* Counts every device, but answers 0 when none of them can run fp8
 * (sm_89+), so the caller falls back to the host backend with a reason. */
int f8b_cuda_device_count(char *why, size_t n)
{
	char local[256];
	int count = 0, usable = 0;
	struct cudaDeviceProp p0;
	cudaError_t e;

	if (!why || n == 0) {
		why = local;
		n = sizeof local;
	}
	why[0] = '\0';
	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		f8b_cuda_describe_no_gpu(e, why, n);
		return 0;
	}
	if (count <= 0) {
		f8b_cuda_describe_no_gpu(cudaErrorNoDevice, why, n);
		return 0;
	}
	memset(&p0, 0, sizeof p0);
	for (int d = 0; d < count; d++) {
		struct cudaDeviceProp p;
		if (cudaGetDeviceProperties(&p, d) != cudaSuccess) {
			(void)cudaGetLastError();
			continue;
		}
		if (d == 0)
			p0 = p;
		if (p.major * 10 + p.minor >= 89)
			usable++;
	}
	if (usable == 0) {
		snprintf(why, n,
		         "%d CUDA device(s), none with compute capability >= 8.9 (fp8 needs sm_89 "
		         "or newer; device 0 is %s, sm_%d%d)",
		         count, p0.name[0] ? p0.name : "?", p0.major, p0.minor);
		return 0;
	}
	return count;
}

void f8b_cuda_format_uuid(const cudaUUID_t *u, char *buf, size_t n)
{
	const unsigned char *b = (const unsigned char *)u->bytes;

	/* NVML's spelling, so the string matches nvidia-smi -L. */
	snprintf(buf, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
	         b[13], b[14], b[15]);
}

void f8b_cuda_fill_info(const struct f8b_backend *be, const struct cudaDeviceProp *prop,
                        const char *uuid, struct f8b_device_info *info)
{
	int rv = 0;
	size_t lv = be->lt_version;

	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "%.127s", prop->name);
	info->device = be->device;
	info->cc_major = prop->major;
	info->cc_minor = prop->minor;
	info->sm_count = prop->multiProcessorCount;
	info->mem_bytes = prop->totalGlobalMem;
	info->l2_bytes = prop->l2CacheSize > 0 ? (size_t)prop->l2CacheSize : 0;
	if (cudaRuntimeGetVersion(&rv) == cudaSuccess)
		snprintf(info->runtime_version, sizeof info->runtime_version, "%d.%d",
		         F8B_CUDART_VERSION_MAJOR(rv), F8B_CUDART_VERSION_MINOR(rv));
	else
		(void)cudaGetLastError();
	snprintf(info->cublaslt_version, sizeof info->cublaslt_version, "%d.%d.%d",
	         F8B_CUBLASLT_VERSION_MAJOR(lv), F8B_CUBLASLT_VERSION_MINOR(lv),
	         F8B_CUBLASLT_VERSION_PATCH(lv));
	info->nccl_version[0] = '\0';
#ifdef F8B_HAVE_NCCL
	/* The NCCL this binary runs with, for the provenance of every run.
	 * Since NCCL 2.9 the code is major*10000 + minor*100 + patch. */
	int nv = 0;
	if (ncclGetVersion(&nv) == ncclSuccess && nv >= 20900)
		snprintf(info->nccl_version, sizeof info->nccl_version, "%d.%d.%d", nv / 10000,
		         nv / 100 % 100, nv % 100);
#endif
	snprintf(info->uuid, sizeof info->uuid, "%s", uuid);
	if (!f8b_nvml_driver_version(be->nvml, info->driver_version, sizeof info->driver_version))
		info->driver_version[0] = '\0';
	if (!f8b_nvml_pci_device_id(be->nvml, &info->pci_device_id))
		info->pci_device_id = 0;
}
