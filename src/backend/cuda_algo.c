/* cuda_algo.c - the algorithm a cuBLASLt plan runs, read back from the
 * heuristic's result: its config attributes as numbers (f8b_algo_info, kept
 * in every results row) and as a short description with the tile, stage
 * and cluster shapes spelled out.
 */
#include <stdio.h>
#include <string.h>

#include "backend/cuda_internal.h"

/* Names of the cublasLtMatmulTile_t / cublasLtMatmulStages_t /
 * cublasLtClusterShape_t ids (their numeric values are the library's ABI,
 * cublasLt.h); rarer ids print as "#id". */
static const char *const tile_names[] = {
    [0] = "auto",     [1] = "8x8",      [2] = "8x16",     [3] = "16x8",     [4] = "8x32",
    [5] = "16x16",    [6] = "32x8",     [7] = "8x64",     [8] = "16x32",    [9] = "32x16",
    [10] = "64x8",    [11] = "32x32",   [12] = "32x64",   [13] = "64x32",   [14] = "32x128",
    [15] = "64x64",   [16] = "128x32",  [17] = "64x128",  [18] = "128x64",  [19] = "64x256",
    [20] = "128x128", [21] = "256x64",  [22] = "64x512",  [23] = "128x256", [24] = "256x128",
    [25] = "512x64",  [26] = "64x96",   [27] = "96x64",   [28] = "96x128",  [29] = "128x160",
    [30] = "160x128", [31] = "192x128", [32] = "128x192", [33] = "128x96",  [34] = "32x256",
    [35] = "256x32",
};
static const char *const stage_names[] = {
    [0] = "auto",      [1] = "16x1",      [2] = "16x2",     [3] = "16x3",     [4] = "16x4",
    [5] = "16x5",      [6] = "16x6",      [7] = "32x1",     [8] = "32x2",     [9] = "32x3",
    [10] = "32x4",     [11] = "32x5",     [12] = "32x6",    [13] = "64x1",    [14] = "64x2",
    [15] = "64x3",     [16] = "64x4",     [17] = "64x5",    [18] = "64x6",    [19] = "128x1",
    [20] = "128x2",    [21] = "128x3",    [22] = "128x4",   [23] = "128x5",   [24] = "128x6",
    [25] = "32x10",    [26] = "8x4",      [27] = "16x10",   [28] = "8x5",     [31] = "8x3",
    [32] = "8xAUTO",   [33] = "16xAUTO",  [34] = "32xAUTO", [35] = "64xAUTO", [36] = "128xAUTO",
    [37] = "256xAUTO", [38] = "768xAUTO",
};
static const char *const cluster_names[] = {
    [0] = "auto",   [2] = "1x1x1",  [3] = "2x1x1",   [4] = "4x1x1",
    [5] = "1x2x1",  [6] = "2x2x1",  [7] = "4x2x1",   [8] = "1x4x1",
    [9] = "2x4x1",  [10] = "4x4x1", [11] = "8x1x1",  [12] = "1x8x1",
    [13] = "8x2x1", [14] = "2x8x1", [15] = "16x1x1", [16] = "1x16x1",
};

static const char *id_name(const char *const *names, size_t count, int id, char *buf, size_t n)
{
	if (id >= 0 && (size_t)id < count && names[id])
		return names[id];
	snprintf(buf, n, "#%d", id);
	return buf;
}

/* One algo-config attribute, whose stored size differs per attribute
 * (int32 / uint32 / uint16, cublasLt.h); -1 when it cannot be read. */
static int algo_attr(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t attr)
{
	size_t need = 0;
	union {
		int32_t i32;
		uint32_t u32;
		uint16_t u16;
	} v;

	if (cublasLtMatmulAlgoConfigGetAttribute(algo, attr, NULL, 0, &need) !=
	        CUBLAS_STATUS_SUCCESS ||
	    (need != 2 && need != 4))
		return -1;
	memset(&v, 0, sizeof v);
	if (cublasLtMatmulAlgoConfigGetAttribute(algo, attr, &v, need, &need) !=
	    CUBLAS_STATUS_SUCCESS)
		return -1;
	if (need == 2)
		return v.u16;
	/* ID and SPLITK_NUM are int32, the rest uint32: both fit an int. */
	return attr == CUBLASLT_ALGO_CONFIG_ID || attr == CUBLASLT_ALGO_CONFIG_SPLITK_NUM
	           ? v.i32
	           : (int)v.u32;
}

void f8b_cuda_fill_algo_info(const cublasLtMatmulHeuristicResult_t *r, int rank, int candidates,
                             struct f8b_algo_info *info)
{
	char tb[16], sb[16], cb[16], desc[192];

	memset(info, 0, sizeof *info);
	info->algo_id = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_ID);
	info->tile = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
	info->stages = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
	info->splitk = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
	info->reduction = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
	info->swizzle = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
	info->custom = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
	info->cluster = algo_attr(&r->algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
	if (info->splitk <= 0)
		info->splitk = 1; /* 0/unset means "not split" */
	info->heuristic_rank = rank;
	info->candidates = candidates;
	info->workspace = r->workspaceSize;
	snprintf(
	    desc, sizeof desc, "id=%d tile=%s stages=%s cluster=%s splitk=%d red=%d swz=%d opt=%d",
	    info->algo_id,
	    id_name(tile_names, sizeof tile_names / sizeof *tile_names, info->tile, tb, sizeof tb),
	    id_name(stage_names, sizeof stage_names / sizeof *stage_names, info->stages, sb,
	            sizeof sb),
	    id_name(cluster_names, sizeof cluster_names / sizeof *cluster_names, info->cluster, cb,
	            sizeof cb),
	    info->splitk, info->reduction, info->swizzle, info->custom);
	snprintf(info->desc, sizeof info->desc, "%.95s", desc);
}
