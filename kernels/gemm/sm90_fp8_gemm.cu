/* sm90_fp8_gemm.cu - the host side of f8bench's own Hopper fp8 GEMM
 * (gemm.h): the tile table, the variant for (tile, mode, dtypes, output),
 * and the launch.  The variants are compiled, one file per mode, from
 * sm90_fp8_gemm_kernel.cuh. */
#include "sm90_fp8_gemm_kernel.cuh"

namespace
{

f8b_kgemm_fn pick(int tile, int mode, int a, int b, int out)
{
	if (tile < 0 || tile >= f8b_kgemm_ntiles)
		return nullptr;
	switch (mode) {
	case F8B_KGEMM_FAST: return f8b_kgemm_pick_fast(tile, a, b, out);
	case F8B_KGEMM_PROMOTE: return f8b_kgemm_pick_promote(tile, a, b, out);
	case F8B_KGEMM_BLOCK:
	case F8B_KGEMM_BLOCK_1X128: return f8b_kgemm_pick_blockwise(tile, mode, a, b, out);
	default: return nullptr;
	}
}

} // namespace

#define F8B_TILE_ENTRY(BN, ST, CL, SCHED, MODES, E8MODES)                                          \
	{F8B_KG_BM,                                                                                \
	 BN,                                                                                       \
	 F8B_KG_BK,                                                                                \
	 ST,                                                                                       \
	 F8B_KG_THREADS,                                                                           \
	 f8b_kg_smem_bytes(BN, ST, f8b_kg_scale_ring(BN, ST, MODES)),                              \
	 CL,                                                                                       \
	 SCHED,                                                                                    \
	 MODES,                                                                                    \
	 E8MODES,                                                                                  \
	 SCHED == F8B_KG_PP ? "128x" #BN "x128/c" #CL "/pp" : "128x" #BN "x128/c" #CL},
extern "C" const struct f8b_kgemm_tile f8b_kgemm_tiles[] = {F8B_KGEMM_TILE_LIST(F8B_TILE_ENTRY)};
#undef F8B_TILE_ENTRY
extern "C" const int f8b_kgemm_ntiles = sizeof f8b_kgemm_tiles / sizeof f8b_kgemm_tiles[0];

/* Raises fn's dynamic shared memory limit to the tile's and reads the
 * virtual architecture of its loaded code. */
static int prepare_one(f8b_kgemm_fn fn, int tile, int *ptx_version)
{
	if (!fn)
		return (int)cudaErrorInvalidValue;
	cudaFuncAttributes attr;
	cudaError_t e =
	    cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                         f8b_kgemm_tiles[tile].smem_bytes);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&attr, (const void *)fn);
	if (e == cudaSuccess)
		*ptx_version = attr.ptxVersion;
	return (int)e;
}

extern "C" int f8b_kgemm_prepare(int tile, int mode, int *ptx_version)
{
	static const int dts[][2] = {
	    {F8B_E4M3, F8B_E4M3}, {F8B_E4M3, F8B_E5M2}, {F8B_E5M2, F8B_E4M3}};
	static const int outs[] = {F8B_BF16, F8B_F32};

	*ptx_version = 0;
	for (const auto &dt : dts)
		for (int out : outs) {
			int e = prepare_one(pick(tile, mode, dt[0], dt[1], out), tile, ptx_version);
			if (e != (int)cudaSuccess)
				return e;
		}
	/* The e4m3-output variant (e4m3 x e4m3), where the table lists one. */
	if ((f8b_kgemm_tiles[tile].e4m3_modes >> mode) & 1u)
		return prepare_one(pick(tile, mode, F8B_E4M3, F8B_E4M3, F8B_E4M3), tile,
		                   ptx_version);
	return (int)cudaSuccess;
}

extern "C" int f8b_kgemm_max_clusters(int tile, int mode, int *clusters)
{
	*clusters = 0;
	f8b_kgemm_fn fn = pick(tile, mode, F8B_E4M3, F8B_E4M3, F8B_BF16);
	if (!fn)
		return (int)cudaErrorInvalidValue;
	const int cl = f8b_kgemm_tiles[tile].cluster;
	cudaLaunchAttribute attr[1];
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = (unsigned)cl;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)cl);
	cfg.blockDim = dim3(F8B_KG_THREADS);
	cfg.dynamicSmemBytes = (size_t)f8b_kgemm_tiles[tile].smem_bytes;
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	return (int)cudaOccupancyMaxActiveClusters(clusters, (const void *)fn, &cfg);
}

extern "C" int f8b_kgemm_run(int tile, int mode, int a_dtype, int b_dtype, int out_dtype,
                             const void *tmap_a, const void *tmap_b, const void *tmap_d,
                             const void *tmap_t, const struct f8b_kgemm_args *args, int grid,
                             cudaStream_t stream)
{
	f8b_kgemm_fn fn = pick(tile, mode, a_dtype, b_dtype, out_dtype);
	if (!fn || grid < 1)
		return (int)cudaErrorInvalidValue;
	CUtensorMap ta, tb, td, tt;
	f8b_kgemm_args p = *args;
	memcpy(&ta, tmap_a, sizeof ta);
	memcpy(&tb, tmap_b, sizeof tb);
	if (tmap_d)
		memcpy(&td, tmap_d, sizeof td);
	else
		memset(&td, 0, sizeof td);
	p.tma_store = tmap_d != nullptr;
	/* D^T: the cooperative consumer's epilogue only (not BLOCK_1X128's
	 * halves), through its tensor map, in a bf16 or e4m3 variant (gemm.h) */
	if (tmap_t) {
		if (f8b_kgemm_tiles[tile].sched != F8B_KGEMM_SCHED_COOP || !args->d_t ||
		    F8B_KGEMM_SMEM_SCALES(f8b_kgemm_tiles[tile].bn, mode) ||
		    (out_dtype != F8B_BF16 && out_dtype != F8B_E4M3))
			return (int)cudaErrorInvalidValue;
		memcpy(&tt, tmap_t, sizeof tt);
	} else
		memset(&tt, 0, sizeof tt);
	p.tma_t = tmap_t != nullptr;
	void *kargs[] = {&ta, &tb, &td, &tt, &p};
	const int cl = f8b_kgemm_tiles[tile].cluster;
	if (cl == 1)
		return (int)cudaLaunchKernel((const void *)fn, dim3((unsigned)grid),
		                             dim3(F8B_KG_THREADS), kargs,
		                             (size_t)f8b_kgemm_tiles[tile].smem_bytes, stream);
	if (grid % cl)
		return (int)cudaErrorInvalidValue;
	cudaLaunchAttribute attr[1];
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = (unsigned)cl;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)grid);
	cfg.blockDim = dim3(F8B_KG_THREADS);
	cfg.dynamicSmemBytes = (size_t)f8b_kgemm_tiles[tile].smem_bytes;
	cfg.stream = stream;
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	return (int)cudaLaunchKernelExC(&cfg, (const void *)fn, kargs);
}
