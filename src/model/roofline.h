/* roofline.h - the roofline model: flops and minimal bytes of every kernel
 * a recipe needs, machine ceilings (measured or datasheet), predicted
 * times, and where a measured point stands against them.  The formulas are
 * written out in doc/roofline.md.
 *
 * Minimal bytes: each input read once and each output written once from
 * device memory, scale tensors included (f8b_scale_count floats).  The
 * predicted time of a kernel is
 *     t = max(flops / peak(compute dtype), bytes / bandwidth) + launch
 * and a measured time t_meas stands at pct_of_roofline = 100 * t / t_meas.
 */
#ifndef F8B_ROOFLINE_H
#define F8B_ROOFLINE_H

#include "backend/backend.h"
#include "model/peaks.h"

#ifdef __cplusplus
extern "C" {
#endif

struct f8b_cost {
	double flops;         /* floating-point operations (a multiply-add is 2) */
	double bytes_read;    /* minimal bytes read from device memory */
	double bytes_written; /* minimal bytes written */
};

struct f8b_ceilings {
	double hbm_bytes_per_s;  /* device-memory bandwidth, bytes read + written per s */
	double bf16_flops_per_s; /* dense bf16 tensor-core rate */
	double fp8_flops_per_s;  /* dense fp8 tensor-core rate; 0 = no fp8 */
	double launch_s;         /* one kernel launch's fixed cost */
	char source[16];         /* "measured" or "datasheet" */
	char detail[160];        /* ceilings file, or the datasheet row used */
	/* Measured GEMM peaks: the shape of the best row of each dtype and how
	 * many rows it was chosen from ("8192x8192x8192, best of 3"); "" for
	 * the datasheet. */
	char bf16_at[48], fp8_at[48];
};

/* GEMM D = A @ B^T of desc: 2*M*N*K flops; reads A, B (and their scale
 * tensors for fp8), writes D. */
void f8b_cost_gemm(const struct f8b_gemm_desc *d, struct f8b_cost *c);

/* Cast kernels on a rows x cols tensor of dtype `in` (bf16 or f32), per
 * granularity g, to fp8 dtype `out` (flops: one compare per element for
 * amax, one multiply per element for cast; bytes are what dominates):
 *   amax:            reads x, writes the amax tensor
 *   scales:          reads amaxes, writes scale and scale_inv
 *   cast:            reads x and scales, writes q
 *   cast_transpose:  reads x and scales, writes q and q^T (the copy a
 *                    backward GEMM needs along the other axis)
 *   amax_cast fused: reads x once for amax, once more for the cast (two
 *                    passes over x, one launch), writes q and the scales */
void f8b_cost_amax(enum f8b_dtype in, enum f8b_granularity g, int64_t rows, int64_t cols,
                   struct f8b_cost *c);
void f8b_cost_scales(enum f8b_granularity g, int64_t rows, int64_t cols, struct f8b_cost *c);
void f8b_cost_cast(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g, int64_t rows,
                   int64_t cols, struct f8b_cost *c);
void f8b_cost_cast_transpose(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g,
                             int64_t rows, int64_t cols, struct f8b_cost *c);
void f8b_cost_amax_cast_fused(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g,
                              int64_t rows, int64_t cols, struct f8b_cost *c);

double f8b_cost_bytes(const struct f8b_cost *c);
/* Arithmetic intensity, flop/byte (flops / (read + written)). */
double f8b_cost_intensity(const struct f8b_cost *c);

/* Predicted time (s) of a kernel whose math runs at the rate of dtype
 * `compute` (bf16 or an fp8 dtype; F8B_F32 means "memory-bound only": no
 * compute roof).  NaN when a needed ceiling is unknown. */
double f8b_roofline_time(const struct f8b_cost *c, const struct f8b_ceilings *ceil,
                         enum f8b_dtype compute);
/* 100 * predicted / measured (NaN when either is unknown). */
double f8b_pct_of_roofline(double predicted_s, double measured_s);

/* Ceilings from the datasheet row of this device (peaks.h); launch_s is
 * F8B_DEFAULT_LAUNCH_S (a typical measured launch gap, stated in
 * doc/roofline.md).  Unknown device: every ceiling NaN, source "datasheet". */
#define F8B_DEFAULT_LAUNCH_S 4e-6
void f8b_ceilings_datasheet(const struct f8b_peaks *p, struct f8b_ceilings *c);
/* Ceilings measured by `f8bench ceilings` (its "ceilings" table): HBM =
 * the copy bandwidth plateau (median over the three largest working sets),
 * GEMM peaks = the best bf16 / fp8 rows (bf16_at / fp8_at say which shape
 * and of how many), launch = the launch row.  Missing
 * pieces are taken from `fallback` (may be NULL) and `detail` says so. */
int f8b_ceilings_read(const char *path, const struct f8b_ceilings *fallback,
                      struct f8b_ceilings *c);

#ifdef __cplusplus
}
#endif

#endif
