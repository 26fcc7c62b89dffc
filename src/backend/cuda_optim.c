/* cuda_optim.c - the optim op on the GPU: kernels/optim.cu, one launch
 * per pass on the current queue (doc/optim.md). */
#include "backend/cuda_internal.h"
#include "backend/optim_ops.h"
#include "kernels/kernels.h"

int f8b_cuda_optim_pass(struct f8b_backend *be, const struct f8b_optim_args *a, int pass)
{
	F8B_TRY(f8b_check_optim(a, pass));
	F8B_KERNEL_TRY(f8b_k_optim_pass(a, pass, be->stream));
	return F8B_OK;
}
