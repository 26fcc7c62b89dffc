/* scheduler.cuh - which output tile a persistent CTA takes next.
 *
 * The grid has at most one CTA per SM; CTA b takes tiles b, b + grid,
 * b + 2 grid, ... of the numbering below.  Tiles are numbered in groups of
 * F8B_GEMM_GROUP_M tile-rows: inside a group the row index runs fastest,
 * so the CTAs of one wave work on a few rows of A and a few columns of B at
 * a time, which L2 keeps (with 132 CTAs and groups of 8 rows: 8 x ~17 tiles,
 * i.e. 8 row-panels of A and ~17 column-panels of B live at once, instead
 * of 1 row-panel and all of B for a plain row-major order).
 */
#ifndef F8B_GEMM_SCHEDULER_CUH
#define F8B_GEMM_SCHEDULER_CUH

#include <stdint.h>

#define F8B_GEMM_GROUP_M 8

struct f8b_gemm_sched {
	int tiles_m, tiles_n, tiles;

	__device__ __forceinline__ f8b_gemm_sched(int m, int n, int bm, int bn)
	{
		tiles_m = (m + bm - 1) / bm;
		tiles_n = (n + bn - 1) / bn;
		tiles = tiles_m * tiles_n;
	}

	/* Tile t (< tiles) as (tile row, tile column). */
	__device__ __forceinline__ void tile(int t, int &tm, int &tn) const
	{
		int per_group = F8B_GEMM_GROUP_M * tiles_n;
		int group = t / per_group;
		int first_m = group * F8B_GEMM_GROUP_M;
		int rows =
		    tiles_m - first_m < F8B_GEMM_GROUP_M ? tiles_m - first_m : F8B_GEMM_GROUP_M;
		int in_group = t - group * per_group;
		tm = first_m + in_group % rows;
		tn = in_group / rows;
	}
};

#endif
