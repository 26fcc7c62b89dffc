/* gemm_int.h - what the gemm driver's files share: the sweep's
 * configuration and case list (gemm_cfg.c) and the driver (gemm.c). */
#ifndef F8B_GEMM_INT_H
#define F8B_GEMM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cases.h"
#include "backend/backend.h"
#include "core/options.h"
#include "model/peaks.h"
#include "model/roofline.h"

/* --scaling: blockwise is DeepSeek-V3's A 1x128 x B 128x128 (the output and
 * grad_input GEMMs of the blockwise recipe), blockwise-1x128 its
 * grad_weight GEMM's A 1x128 x B 1x128 (f8b_gemm_grans). */
enum scaling_kind {
	SC_NONE,
	SC_TENSORWISE,
	SC_AXISWISE,
	SC_BLOCKWISE,
	SC_BLOCKWISE_1X128,
	SC_COUNT
};

struct dtype_pair {
	enum f8b_dtype a, b;
};

struct gemm_case {
	size_t shape;
	enum scaling_kind sc;
	bool fast_accum;
	struct dtype_pair dt;
	enum f8b_gemm_impl impl; /* the bf16 baseline: always cuBLASLt */
	bool out_t;              /* D^T written too (--out-t; the baseline: never) */
};

/* bf16 baseline times measured by this process, one per shape. */
struct baseline {
	int64_t m, k, n;
	double median_s;
};

struct gemm_cfg {
	const char *shapes_spec, *scaling_spec, *fa_spec, *dtypes_spec, *impl_spec, *out_t_spec;
	enum f8b_dtype out_dtype;
	float outlier_frac, outlier_scale;
	int autotune;
	struct f8b_shapes shapes;
	struct gemm_case *cases;
	size_t ncases;
	struct baseline *base;
	size_t nbase;
	struct f8b_peaks peaks;
	struct f8b_ceilings ceilings; /* measured (--ceilings) or datasheet */
	const char *ceilings_path;
	bool peaks_done;
};

/* The command-line options of f8bench gemm. */
extern const struct f8b_option f8b_gemm_options[];

/* The bench descriptor's configuration and case-list hooks (harness/bench.h). */
int f8b_gemm_cfg_new(void **cfg);
void f8b_gemm_cfg_free(void *cfg);
int f8b_gemm_cfg_option(void *cfg, int key, const char *arg);
int f8b_gemm_cfg_finalize(void *cfg, size_t *ncases);
void f8b_gemm_case_key(const void *cfg, size_t i, void *vrow);
bool f8b_gemm_same_case(const void *va, const void *vb);
void f8b_gemm_describe(const void *vrow, char *buf, size_t n);
void f8b_gemm_summarize(const void *vrow, char *buf, size_t n);

/* The granularities of A and B for a scaling kind (blockwise: A 1x128,
 * B 128x128; blockwise-1x128: both 1x128; none: tensorwise, unused by a
 * bf16 GEMM). */
void f8b_gemm_grans(enum scaling_kind sc, enum f8b_granularity *ga, enum f8b_granularity *gb);

/* A row's fixed-size string, zero-padded so the HDF5 record holds no stale
 * bytes (gemm_cfg.c). */
void f8b_gemm_setstr(char *dst, size_t n, const char *s);

#endif
