/* cuda_optim.c - the optim op on the GPU: kernels/optim.cu, one launch
 * per pass on the current queue (doc/optim.md); dynamic-sync's fused pass
 * is one cooperative launch (kernels/optim_sync.cu), refused with a
 * message where the device or a graph capture cannot take one. */
#include "backend/cuda_internal.h"
#include "backend/optim_ops.h"
#include "kernels/kernels.h"

/* dynamic-sync's fused pass: the device must launch cooperative kernels
 * (its grid barrier needs every CTA resident at once; the kernel side
 * asks once per device, cudaErrorNotSupported when it cannot), and a
 * graph capture must take the cooperative launch. */
static int sync_pass(struct f8b_backend *be, const struct f8b_optim_args *a)
{
	enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
	F8B_CUDA_TRY(cudaStreamIsCapturing(be->stream, &cs));
	unsigned grid = 0;
	int e = f8b_k_optim_sync_pass(a, be->stream, &grid);
	if (e == cudaErrorNotSupported)
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "--scaling dynamic-sync: %s (device %d) cannot launch cooperative "
		    "kernels (cudaDevAttrCooperativeLaunch is 0), which its grid barrier "
		    "needs; --scaling dynamic gives the same scales in two launches",
		    be->name, be->device);
	if (e != cudaSuccess && cs == cudaStreamCaptureStatusActive)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "--scaling dynamic-sync: this CUDA runtime and driver could not "
		               "capture its cooperative launch (%u CTAs) in a graph (%s: %s); run "
		               "it with --graph off",
		               grid, cudaGetErrorName((cudaError_t)e),
		               cudaGetErrorString((cudaError_t)e));
	if (e == cudaErrorCooperativeLaunchTooLarge)
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "--scaling dynamic-sync: %u CTAs cannot all be resident on %s at once "
		    "(another process or MPS holding SMs?); its grid barrier needs them",
		    grid, be->name);
	F8B_KERNEL_TRY(e);
	return F8B_OK;
}

int f8b_cuda_optim_pass(struct f8b_backend *be, const struct f8b_optim_args *a, int pass)
{
	F8B_TRY(f8b_check_optim(a, pass));
	if (pass == F8B_OPTIM_FUSED && a->scaling == F8B_OPTIM_DYNAMIC_SYNC)
		return sync_pass(be, a);
	F8B_KERNEL_TRY(f8b_k_optim_pass(a, pass, be->stream));
	return F8B_OK;
}
