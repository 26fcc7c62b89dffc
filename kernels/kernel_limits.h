/* kernel_limits.h - sizes the CUDA kernels' launch geometry fixes, which
 * the backend's ops take and their callers size buffers and check shapes
 * by.  Plain C, no CUDA: kernels.h, backend/backend.h and, through it, the
 * benchmarks include it on every build. */
#ifndef F8B_KERNEL_LIMITS_H
#define F8B_KERNEL_LIMITS_H

/* Blocks of a pass 1 that may leave a max in f8b_cast_spec.partial
 * (backend.h) and f8b_k_qspec.partial (kernels.h). */
#define F8B_CAST_PARTIALS 4096

/* Longest row the cuda backend's row-wise lls kernels take (a row lives
 * in the registers of one 256-thread block, 64 floats per thread). */
#define F8B_LLS_ROW_MAX_COLS 16384

/* Entries of bw_read's partial-sum buffer (one per GPU thread block). */
#define F8B_BW_PARTIALS 4096

#endif
