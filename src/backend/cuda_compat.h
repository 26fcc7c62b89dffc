/* cuda_compat.h - every CUDA / cuBLASLt version dependency of the host code,
 * in one place (the rest of src/ is written against one API).
 *
 * Minimum: cuBLASLt 12.9, the first release with the OUTER_VEC_32F,
 * VEC128_32F and BLK128x128_32F scale modes (NVIDIA, "cuBLAS 12.9" release
 * notes and blog; configure checks the same symbols by compiling).  The GPU
 * nodes this project measures on have CUDA 13.0.
 */
#ifndef F8B_CUDA_COMPAT_H
#define F8B_CUDA_COMPAT_H

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#if !defined(CUBLAS_VERSION) || CUBLAS_VERSION < 120900
#error "f8bench needs cuBLASLt >= 12.9 (scale modes OUTER_VEC_32F, VEC128_32F, BLK128x128_32F)"
#endif

/* cublasLtGetVersion() encodes major*10000 + minor*100 + patch since
 * CUDA 12.0 (11.x used major*1000); the 12.9 floor above makes the 12.x
 * form the only one this code can meet at run time too, since the runtime
 * library is the same major version the code was compiled against. */
#define F8B_CUBLASLT_VERSION_MAJOR(v) ((int)((v) / 10000))
#define F8B_CUBLASLT_VERSION_MINOR(v) ((int)((v) / 100 % 100))
#define F8B_CUBLASLT_VERSION_PATCH(v) ((int)((v) % 100))

/* cudaRuntimeGetVersion() / cudaDriverGetVersion(): major*1000 + minor*10
 * (13000 = 13.0) in every release. */
#define F8B_CUDART_VERSION_MAJOR(v) ((v) / 1000)
#define F8B_CUDART_VERSION_MINOR(v) ((v) % 1000 / 10)

#endif
