/* host_internal.h - what the host backend's files share: the scale
 * lookup of the cast and the GEMM, and the GEMM ops of host_gemm.c. */
#ifndef F8B_HOST_INTERNAL_H
#define F8B_HOST_INTERNAL_H

#include <stdint.h>

#include "backend/backend.h"

/* The index into a scale tensor of granularity g for element row r,
 * K-block kb, of a rows x cols operand; kb is 0 for the unblocked
 * granularities (backend_host.c). */
int64_t f8b_host_scale_at(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t r,
                          int64_t kb);

/* host_gemm.c: the gemm_plan, gemm and gemm_plan_free ops. */
int f8b_host_gemm_plan(struct f8b_backend *be, const struct f8b_gemm_desc *d, int candidate,
                       struct f8b_gemm_plan **out, struct f8b_algo_info *info);
int f8b_host_gemm(struct f8b_backend *be, struct f8b_gemm_plan *p,
                  const struct f8b_gemm_args *args);
void f8b_host_gemm_plan_free(struct f8b_backend *be, struct f8b_gemm_plan *p);

#endif
