/* optim_ops.h - the optim op of backend.h (optim_pass) as the two
 * backends define it, and the argument check both make the same way.
 * Included by the two ops-table initialisers (backend_host.c,
 * backend_cuda.c) and the files that define it: host_optim.c (the golden
 * reference) and cuda_optim.c (kernels/optim.cu). */
#ifndef F8B_OPTIM_OPS_H
#define F8B_OPTIM_OPS_H

#include "backend/backend.h"

/* host_optim.c */
int f8b_check_optim(const struct f8b_optim_args *a, int pass);
int f8b_host_optim_pass(struct f8b_backend *be, const struct f8b_optim_args *a, int pass);

#ifdef F8B_HAVE_CUDA
/* cuda_optim.c */
int f8b_cuda_optim_pass(struct f8b_backend *be, const struct f8b_optim_args *a, int pass);
#endif

#endif
