/* cuda_gemm_f8b.c - the "cuda" backend's plans and launches of f8bench's
 * own sm_90a fp8 GEMM (kernels/gemm/, doc/gemm-kernels.md), the
 * F8B_GEMM_IMPL_F8B side of cuda_gemm.c.
 *
 * A plan checks what the kernel takes, picks the kernel mode from the
 * scaling pair and fast_accum (FAST, PROMOTE, BLOCK, BLOCK_1X128:
 * kernels/gemm/gemm.h) and a tile of that mode from the table
 * (f8b_kgemm_tiles[]), and raises the kernels' shared-memory limit; a launch
 * encodes the two TMA tensor maps (only when the operand pointers differ
 * from the last call's: a host-side computation, no device call) and
 * enqueues the persistent kernel.  cuTensorMapEncodeTiled is a driver API
 * function: it is taken from the driver through the runtime's
 * cudaGetDriverEntryPointByVersion, so libcuda stays unlinked (DESIGN.md:
 * libcuda is loaded at run time).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled: types only */

#include "backend/cuda_gemm_f8b.h"
#include "backend/cuda_internal.h"
#include "kernels/gemm/gemm.h"

/* The ABI version of cuTensorMapEncodeTiled asked for (CUDA 12.0's, the
 * one its PFN typedef names). */
#define ENCODE_ABI 12000

struct f8b_kplan {
	/* 128-byte aligned (the struct is allocated so); tmap_t: D^T's (out_t) */
	CUtensorMap tmap_a, tmap_b, tmap_d, tmap_t;
	const void *bound_a, *bound_b, *bound_d, *bound_t;
	struct f8b_gemm_desc d;
	int tile, grid, mode; /* mode: enum f8b_kgemm_mode */
	bool tma_store;       /* D through tmap_d (its rows a multiple of 16 bytes) */
	PFN_cuTensorMapEncodeTiled_v12000 encode;
};

/* The tile for a problem among those compiled for `mode`: the fewest
 * waves of tiles over the SMs, each wave counted by its work (BM x BN),
 * with the wider tile (less A traffic per flop) winning ties.  E.g. 8192^2
 * on 132 SMs: 128x256 gives 2048 tiles = 16 waves of 32768, 128x128 gives
 * 4096 = 32 waves of 16384: a tie; 1024^2: 32 tiles (1 wave of 32768)
 * against 64 (1 wave of 16384).  Measured charges on that count:
 *  - Every mode counts a tile narrower than 256 9/8 times
 *    (NARROW_COST).  FAST on an H100 (tree 141e8eb): 128x128 ran at
 *    1105-1147 TFLOP/s against 1262-1304 for
 *    128x256 at 4096^3 and 8192^3, and the plain count had picked it for
 *    16384^3 (125 waves of 16384 against 63 of 32768) and for N = 28672
 *    or 57344, where it ran at 0.73-0.86x cuBLASLt
 *    (results/h100/experiments/f8b-gemm-tma-store/).  PROMOTE and BLOCK,
 *    since 128x256 promotes in halves (doc/gemm-kernels.md), on an H100
 *    (tree ba90128): PROMOTE at 1062 TFLOP/s against 1035 (128x192) and
 *    958 (128x128) at 8192^3, where the plain count picks 128x192 (21
 *    waves of 24576 against 16 of 32768); BLOCK at 924 / 914 / 895
 *    against at most 878 / 883 / 863 at 4096^3, 8192^3 and
 *    16384x4096x14336 (results/h100/experiments/f8b-gemm-halves/).
 *    BLOCK_1X128, since its 128x256 entry (column scales in shared
 *    memory), on an H100 (tree 10fa4b8, the lls step's grad_weight): 1.43
 *    ms against 2.43 for 128x128 at 8192^3, 0.178 against 0.313 at 4096^3
 *    (results/h100/experiments/f8b-gemm-colscales/).
 *  - BLOCK_1X128 counts 128x128, whose BN/4 column scales a thread are
 *    read from global memory, twice (BLK1_NARROW_COST, in place of
 *    NARROW_COST): on an H100 (tree 4e208bd, --autotune) it ran at
 *    456, 482 and 447 TFLOP/s against 902, 888 and 752 for 128x256 at
 *    4096^3, 8192x8192x8320 and the ragged 4000x4096x4112, where the
 *    count with 9/8 had picked it (8 waves of 16384 x 9/8 against 5 of
 *    32768; results/h100/experiments/f8b-gemm-ragged-pick/).
 *  - BLOCK counts 128x128 5/4 times (BLOCK_NARROW_COST, in place of
 *    NARROW_COST): on an H100 (tree 24c8996, --autotune, session 24) it
 *    ran at 0.76-0.83x its 128x256's TFLOP/s at 16 ragged shapes from
 *    1008x4096x4096 to 16000x4096x4096 (results/h100/experiments/
 *    f8b-gemm-ragged-pick/sweep/), where 9/8 had picked it at
 *    4000x4096x4112 (908 TFLOP/s against 975; now a tie of 8 waves of
 *    16384 x 5/4 and 5 of 32768, which the wider tile wins).
 *  - BLOCK counts 128x192, whose adds overlap no wgmma (neither the
 *    second partial of 128x128, F8B_KGEMM_OVERLAPS, nor the other half of
 *    128x256), 9/8 times more (NO_OVERLAP_COST): with block scales
 *    128x128 ran at 857 TFLOP/s against 842 for 128x192 at 8192^3 (tree
 *    2c3300d).  So 2048 x 1536 takes 128x192 in both promoting modes (one
 *    wave of 24576 x 9/8, or x (9/8)^2, against one of 32768 and two of
 *    16384 x 9/8).
 * Tiles with a cluster or the ping-pong schedule are --autotune
 * candidates only, until measured.  -1 when no tile has the mode. */
#define NARROW_COST       1.125
#define NO_OVERLAP_COST   1.125
#define BLK1_NARROW_COST  2.0
#define BLOCK_NARROW_COST 1.25

/* The modes tile t is compiled for with output dtype out: e4m3 has its
 * own, fewer, variants (gemm.h); with F8B_KGEMM_OUT_T (a D^T written too)
 * those whose epilogue has the transposed write: the cooperative tiles',
 * but for BLOCK_1X128 in halves (its column scales in shared memory),
 * whose registers have no room for it (sm90_fp8_gemm_consumer.cuh). */
static unsigned tile_modes(const struct f8b_kgemm_tile *t, int out)
{
	const bool out_t = (out & F8B_KGEMM_OUT_T) != 0;
	out &= ~F8B_KGEMM_OUT_T;
	unsigned m = out == F8B_E4M3 ? t->e4m3_modes : t->modes;
	if (out_t && t->sched != F8B_KGEMM_SCHED_COOP)
		return 0;
	if (out_t && F8B_KGEMM_SMEM_SCALES(t->bn, F8B_KGEMM_BLOCK_1X128))
		m &= ~(1u << F8B_KGEMM_BLOCK_1X128);
	return m;
}

/* The measured charges above on tile t's count of work in `mode`: 1 for
 * a 256-wide tile; a narrower one NARROW_COST, or its mode's own charge
 * (BLK1_NARROW_COST, BLOCK_NARROW_COST at 128); and BLOCK's 128x192,
 * whose adds overlap no wgmma, NO_OVERLAP_COST more. */
static double tile_charge(const struct f8b_kgemm_tile *t, int mode)
{
	double c = 1.0;
	if (t->bn < 256) {
		if (mode == F8B_KGEMM_BLOCK_1X128)
			c = BLK1_NARROW_COST;
		else if (mode == F8B_KGEMM_BLOCK && t->bn == 128)
			c = BLOCK_NARROW_COST;
		else
			c = NARROW_COST;
	}
	if (mode == F8B_KGEMM_BLOCK && !F8B_KGEMM_OVERLAPS(t->bn, mode) &&
	    !F8B_KGEMM_HALVES(t->bn, mode))
		c *= NO_OVERLAP_COST; /* 128x192 */
	return c;
}

int f8b_kgemm_pick_tile(int64_t m, int64_t n, int sms, int mode, int out)
{
	int best = -1;
	double best_cost = 0;
	for (int i = 0; i < f8b_kgemm_ntiles; i++) {
		const struct f8b_kgemm_tile *t = &f8b_kgemm_tiles[i];
		if (!(tile_modes(t, out) & (1u << mode)))
			continue;
		if (t->cluster != 1 || t->sched != F8B_KGEMM_SCHED_COOP)
			continue; /* --autotune only, until measured */
		int64_t tiles = ((m + t->bm - 1) / t->bm) * ((n + t->bn - 1) / t->bn);
		double waves = (double)((tiles + sms - 1) / sms);
		double cost = waves * t->bm * t->bn * tile_charge(t, mode);
		if (best < 0 || cost < best_cost ||
		    (cost == best_cost && t->bn > f8b_kgemm_tiles[best].bn)) {
			best = i;
			best_cost = cost;
		}
	}
	return best;
}

/* How many tiles of the table have `mode`; candidate c of a plan: 0 is
 * the picked tile, then the other tiles of the mode in table order (so
 * --autotune times every one).  -1 past the end. */
int f8b_kgemm_candidates(int mode, int out)
{
	int n = 0;
	for (int i = 0; i < f8b_kgemm_ntiles; i++)
		n += (tile_modes(&f8b_kgemm_tiles[i], out) & (1u << mode)) != 0;
	return n;
}

int f8b_kgemm_candidate_tile(int picked, int mode, int out, int c)
{
	if (c == 0)
		return picked;
	for (int i = 0; i < f8b_kgemm_ntiles; i++)
		if (i != picked && (tile_modes(&f8b_kgemm_tiles[i], out) & (1u << mode)) &&
		    --c == 0)
			return i;
	return -1;
}

static const char *mode_name(int mode);

/* An e4m3 D in `mode`: compiled for e4m3 x e4m3 only, in the modes some
 * tile lists in e4m3_modes (FAST and PROMOTE so far), and not beside the
 * fused sigmoid (doc/gemm-kernels.md "fp8 output"). */
static int check_e4m3_out(const struct f8b_gemm_desc *d, const char *cfg, int mode)
{
	if (d->a_dtype != F8B_E4M3 || d->b_dtype != F8B_E4M3)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: an e4m3 output is compiled for e4m3 x e4m3 "
		               "operands only (this is %s x %s)",
		               cfg, f8b_dtype_name(d->a_dtype), f8b_dtype_name(d->b_dtype));
	if (d->epilogue != F8B_GEMM_EPI_NONE)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: the fused sigmoid writes bf16 or f32, not e4m3",
		               cfg);
	if (f8b_kgemm_candidates(mode, F8B_E4M3) == 0)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: no e4m3-output kernel for mode %s (compiled: "
		               "tensorwise or axiswise scales, fast_accum on or off)",
		               cfg, mode_name(mode));
	return F8B_OK;
}

/* A D^T written beside D (out_t; doc/gemm-kernels.md "Transposed
 * write"): bf16 or e4m3 (the f32 variants have no transposed epilogue),
 * through a tensor map whose rows, M elements each, must be a multiple of
 * 16 bytes (so they are whenever f8b_check_gemm_desc took the problem:
 * every fp8 GEMM dimension is a multiple of 16; checked here for the
 * kernel's own sake). */
static int check_out_t(const struct f8b_gemm_desc *d, const char *cfg)
{
	if (d->out_dtype != F8B_BF16 && d->out_dtype != F8B_E4M3)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: a transposed D is written in bf16 or e4m3 (this "
		               "output is %s)",
		               cfg, f8b_dtype_name(d->out_dtype));
	const int64_t row = d->m * (int64_t)f8b_dtype_size(d->out_dtype);
	if (row % 16)
		return F8B_ERR(F8B_EINVAL,
		               "gemm %s, impl f8b: a transposed D needs M a multiple of %d (D^T's "
		               "rows, M=%lld elements of %s, are stored by TMA: 16-byte aligned)",
		               cfg, (int)(16 / f8b_dtype_size(d->out_dtype)), (long long)d->m,
		               f8b_dtype_name(d->out_dtype));
	return F8B_OK;
}

/* The kernel mode of a problem (enum f8b_kgemm_mode), or a refusal naming
 * what is not taken. */
int f8b_kgemm_mode_of(const struct f8b_gemm_desc *d, const char *cfg, int *mode)
{
	enum f8b_granularity ga = d->a_gran, gb = d->b_gran;
	bool a_epi = ga == F8B_GRAN_TENSORWISE || ga == F8B_GRAN_AXISWISE;
	bool b_epi = gb == F8B_GRAN_TENSORWISE || gb == F8B_GRAN_AXISWISE;
	int m = -1;

	if (!f8b_dtype_is_fp8(d->a_dtype) || !f8b_dtype_is_fp8(d->b_dtype))
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: an fp8 GEMM only (bf16 GEMMs run on cuBLASLt)",
		               cfg);
	if (a_epi && b_epi)
		m = d->fast_accum ? F8B_KGEMM_FAST : F8B_KGEMM_PROMOTE;
	/* Block scales are applied at each promotion whatever fast_accum
	 * says: there is no other place for them. */
	else if (ga == F8B_GRAN_BLOCK1X128 && gb == F8B_GRAN_BLOCK128X128)
		m = F8B_KGEMM_BLOCK;
	else if (ga == F8B_GRAN_BLOCK1X128 && gb == F8B_GRAN_BLOCK1X128)
		m = F8B_KGEMM_BLOCK_1X128;
	else
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "gemm %s, impl f8b: granularities %s x %s (accepted: tensorwise or "
		    "axiswise for both, block1x128 x block128x128, block1x128 x block1x128)",
		    cfg, f8b_granularity_name(ga), f8b_granularity_name(gb));
	if (d->out_dtype == F8B_E4M3)
		F8B_TRY(check_e4m3_out(d, cfg, m));
	if (d->out_t)
		F8B_TRY(check_out_t(d, cfg));
	*mode = m;
	return F8B_OK;
}

static const char *mode_name(int mode)
{
	switch (mode) {
	case F8B_KGEMM_FAST: return "fast";
	case F8B_KGEMM_PROMOTE: return "promote";
	case F8B_KGEMM_BLOCK: return "block1x128.128x128";
	default: return "block1x128.1x128";
	}
}

/* The cuBLASLt enum of a tile's shape (cublasLt.h), so a row's algo_tile
 * reads alike for both implementations: CUBLASLT_MATMUL_TILE_128x128 = 20,
 * _128x192 = 32, _128x256 = 23. */
static int tile_enum(int bn)
{
	return bn == 256 ? 23 : bn == 192 ? 32 : 20;
}

static int get_encoder(PFN_cuTensorMapEncodeTiled_v12000 *fn)
{
	enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	void *p = NULL;
	F8B_CUDA_TRY(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, ENCODE_ABI,
	                                              cudaEnableDefault, &q));
	if (q != cudaDriverEntryPointSuccess || !p)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm impl f8b: the driver has no cuTensorMapEncodeTiled (%s); TMA "
		               "needs a CUDA 12 or newer driver",
		               q == cudaDriverEntryPointVersionNotSufficent ? "version too old"
		                                                            : "symbol not found");
	*fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
	return F8B_OK;
}

int f8b_cuda_kgemm_plan(struct f8b_backend *be, const struct f8b_gemm_desc *d, int candidate,
                        const char *cfg, struct f8b_kplan **out, struct f8b_algo_info *info)
{
	*out = NULL;
	if (info)
		memset(info, 0, sizeof *info);
	if (be->cc_major != 9 || be->cc_minor != 0)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: the kernel is for sm_90a (Hopper, H100/H200); "
		               "this GPU is sm_%d%d",
		               cfg, be->cc_major, be->cc_minor);
	int mode = F8B_KGEMM_FAST;
	F8B_TRY(f8b_kgemm_mode_of(d, cfg, &mode));
	/* TMA: every global stride but the innermost a multiple of 16 bytes
	 * (the rows of A and B are K bytes), dims below 2^31 for the kernel's
	 * int coordinates. */
	if (d->k % 16)
		return F8B_ERR(F8B_EINVAL,
		               "gemm %s, impl f8b: K=%lld is not a multiple of 16 (TMA needs the "
		               "rows of A and B, K bytes each, 16-byte aligned)",
		               cfg, (long long)d->k);
	if (d->m > INT_MAX || d->n > INT_MAX || d->k > INT_MAX ||
	    (double)d->m * (double)d->n > 9e18)
		return F8B_ERR(F8B_EINVAL, "gemm %s, impl f8b: dimensions above 2^31-1", cfg);

	int sms = 0;
	F8B_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, be->device));
	if (sms < 1)
		return F8B_ERR(F8B_EDEVICE, "gemm impl f8b: the device reports %d SMs", sms);
	const int odt = d->out_dtype | (d->out_t ? F8B_KGEMM_OUT_T : 0);
	int ncand = f8b_kgemm_candidates(mode, odt);
	if (info)
		info->candidates = ncand;
	int picked = f8b_kgemm_pick_tile(d->m, d->n, sms, mode, odt);
	int tile = picked < 0 ? -1 : f8b_kgemm_candidate_tile(picked, mode, odt, candidate);
	if (candidate < 0 || tile < 0)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: algorithm candidate %d does not exist (the tile "
		               "table has %d for mode %s: 0..%d)",
		               cfg, candidate, ncand, mode_name(mode), ncand - 1);
	const struct f8b_kgemm_tile *t = &f8b_kgemm_tiles[tile];
	int ptx = 0;
	F8B_KERNEL_TRY(f8b_kgemm_prepare(tile, mode, &ptx));
	/* ptxVersion is the virtual architecture the loaded code came from:
	 * 89 when the driver compiled the build's compute_89 PTX (whose bodies
	 * are empty) because no sm_90a image is there.  0 would mean "not
	 * known": the sm_90a image is then assumed, and the tests say whether
	 * it ran. */
	if (ptx > 0 && ptx < 90)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s, impl f8b: this build holds no sm_90a code for the kernel "
		               "(compute_%d; configure --with-cuda-arch=sm_90a)",
		               cfg, ptx);

	/* A cluster's CTAs share a GPC: fewer than sms / cluster may be
	 * resident at once, and a persistent grid that asks for more runs
	 * the rest after them, a second wave of whole tile loops. */
	int fit = sms;
	if (t->cluster > 1) {
		F8B_KERNEL_TRY(f8b_kgemm_max_clusters(tile, mode, &fit));
		if (fit < 1)
			return F8B_ERR(
			    F8B_EUNSUPPORTED,
			    "gemm %s, impl f8b: no cluster of %d CTAs of tile %s fits on "
			    "this GPU",
			    cfg, t->cluster, t->name);
	}

	size_t bytes = (sizeof(struct f8b_kplan) + 127) / 128 * 128;
	struct f8b_kplan *p = aligned_alloc(128, bytes);
	if (!p)
		return F8B_ERR(F8B_ENOMEM, "gemm plan: cannot allocate %zu bytes", bytes);
	memset(p, 0, bytes);
	p->d = *d;
	p->tile = tile;
	p->mode = mode;
	/* A cluster of t->cluster CTAs takes that many tile rows of one tile
	 * column at a time; clusters are persistent like single CTAs. */
	int64_t rows = t->bm * t->cluster;
	int64_t tiles = ((d->m + rows - 1) / rows) * ((d->n + t->bn - 1) / t->bn);
	int64_t clusters = sms / t->cluster;
	if (fit < clusters)
		clusters = fit;
	p->grid = (int)((tiles < clusters ? tiles : clusters) * t->cluster);
	/* The epilogue stores D with TMA where a tensor map can describe it
	 * (rows a multiple of 16 bytes: always, N being a multiple of 16 for
	 * every fp8 GEMM the problem takes), else from registers;
	 * F8B_KGEMM_DIRECT_STORE=1 in the environment asks for the latter, for
	 * an A/B of the two and for the tests (doc/gemm-kernels.md,
	 * "Epilogue"), for every output type (e4m3: boxes of 128 columns,
	 * "fp8 output"). */
	const char *direct = getenv("F8B_KGEMM_DIRECT_STORE");
	p->tma_store = (d->n * (int64_t)f8b_dtype_size(d->out_dtype)) % 16 == 0 &&
	               !(direct && strcmp(direct, "1") == 0);
	int rc = get_encoder(&p->encode);
	if (rc != F8B_OK) {
		free(p);
		return rc;
	}
	if (info) {
		/* The cuBLASLt enums of the same shapes: tile_enum(); stages
		 * "128xS" (K width 128, S stages) = 18 + S. */
		info->algo_id = -1; /* not a cuBLASLt algorithm */
		info->tile = tile_enum(t->bn);
		info->stages = 18 + t->stages;
		info->splitk = 1;
		info->reduction = 0;
		info->swizzle = 0;
		/* cuBLASLt's algorithm-specific option; here the schedule
		 * (enum f8b_kgemm_sched: 1 = ping-pong), which the tile id
		 * alone does not tell */
		info->custom = t->sched;
		/* CUBLASLT_CLUSTER_SHAPE_1x1x1 = 2, _2x1x1 = 3 */
		info->cluster = t->cluster == 2 ? 3 : 2;
		info->heuristic_rank = candidate;
		info->candidates = ncand;
		info->workspace = 0;
		/* The tile's name says its cluster ("/c2") and schedule
		 * ("/pp"); every grid is persistent (doc/gemm-kernels.md).  At
		 * most 80 characters of the 96 the row keeps. */
		snprintf(info->desc, sizeof info->desc,
		         "f8b sm90 %s tile=%s stages=%d grid=%d store=%s%s%s%s", mode_name(mode),
		         t->name, t->stages, p->grid, p->tma_store ? "tma" : "direct",
		         d->epilogue == F8B_GEMM_EPI_SIGMOID ? "+sigmoid" : "",
		         d->out_dtype == F8B_E4M3 ? "+amax" : "", d->out_t ? "+dT" : "");
	}
	*out = p;
	return F8B_OK;
}

void f8b_cuda_kgemm_free(struct f8b_kplan *p)
{
	free(p);
}

/* A [rows, K] fp8 operand as a 2-D TMA tensor: dims {K, rows} (innermost
 * first), row stride K bytes, box {128, box_rows}, 128-byte swizzle (the
 * layout common/smem.cuh describes), zeros outside. */
static int encode_with(PFN_cuTensorMapEncodeTiled_v12000 fn, CUtensorMap *map, const void *ptr,
                       int64_t rows, int64_t k, int box_rows, const char *what)
{
	cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
	cuuint64_t strides[1] = {(cuuint64_t)k};
	cuuint32_t box[2] = {128, (cuuint32_t)box_rows};
	cuuint32_t estr[2] = {1, 1};
	CUresult r = fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, (void *)ptr, dims, strides, box,
	                estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
	                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS)
		return F8B_ERR(F8B_EDEVICE,
		               "gemm impl f8b: cuTensorMapEncodeTiled for %s [%lld, %lld] failed "
		               "(CUresult %d)",
		               what, (long long)rows, (long long)k, (int)r);
	return F8B_OK;
}

static int encode(struct f8b_kplan *p, CUtensorMap *map, const void *ptr, int64_t rows,
                  int box_rows, const char *what)
{
	return encode_with(p->encode, map, ptr, rows, p->d.k, box_rows, what);
}

/* An output [rows, cols] row-major, elements of `dtype` (e4m3: bytes;
 * bf16; f32), as a 2-D TMA tensor for the epilogue's stores: dims {cols,
 * rows}, row stride cols x the element size (a multiple of 16 bytes: the
 * plan's tma_store, check_out_t), box {box_cols, 64 rows}, swizzled over
 * the box's row (128 bytes: 128-byte swizzle; 64: 64-byte), as
 * sm90_fp8_gemm_epilogue.cuh writes its boxes; a store clips at the
 * bounds.  D is [M, N] in boxes of 128 bytes of columns; D^T is [N, M]
 * in boxes of 64 columns (128 bytes of bf16, 64 of e4m3). */
static int encode_out_with(PFN_cuTensorMapEncodeTiled_v12000 fn, CUtensorMap *map, void *ptr,
                           int64_t rows, int64_t cols, int dtype, int box_cols, const char *what)
{
	const size_t es = f8b_dtype_size(dtype);
	cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
	cuuint64_t strides[1] = {(cuuint64_t)cols * es};
	cuuint32_t box[2] = {(cuuint32_t)box_cols, 64};
	cuuint32_t estr[2] = {1, 1};
	const size_t row_bytes = (size_t)box_cols * es;
	if (row_bytes != 128 && row_bytes != 64)
		return F8B_ERR(F8B_EINVAL,
		               "gemm impl f8b: an output box row of %zu bytes (128 or 64 only)",
		               row_bytes);
	CUresult r = fn(map,
	                dtype == F8B_F32    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
	                : dtype == F8B_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
	                                    : CU_TENSOR_MAP_DATA_TYPE_UINT8,
	                2, ptr, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
	                row_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
	                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS)
		return F8B_ERR(F8B_EDEVICE,
		               "gemm impl f8b: cuTensorMapEncodeTiled for %s [%lld, %lld] failed "
		               "(CUresult %d)",
		               what, (long long)rows, (long long)cols, (int)r);
	return F8B_OK;
}

int f8b_cuda_kgemm_encode(const void *ptr, int64_t rows, int64_t k, int box_rows, void *map)
{
	PFN_cuTensorMapEncodeTiled_v12000 fn = NULL;
	F8B_TRY(get_encoder(&fn));
	return encode_with(fn, (CUtensorMap *)map, ptr, rows, k, box_rows, "a test operand");
}

int f8b_cuda_kgemm_encode_out(void *ptr, int64_t rows, int64_t cols, int dtype, int box_cols,
                              void *map)
{
	PFN_cuTensorMapEncodeTiled_v12000 fn = NULL;
	F8B_TRY(get_encoder(&fn));
	return encode_out_with(fn, (CUtensorMap *)map, ptr, rows, cols, dtype, box_cols,
	                       "a test output");
}

int f8b_cuda_kgemm(struct f8b_backend *be, struct f8b_kplan *p, const struct f8b_gemm_args *a)
{
	const struct f8b_kgemm_tile *t = &f8b_kgemm_tiles[p->tile];

	F8B_TRY(f8b_check_gemm_args(&p->d, a));
	/* TMA's global address must be 16-byte aligned (alloc() gives 256). */
	if ((uintptr_t)a->a % 16 || (uintptr_t)a->b % 16 || (uintptr_t)a->d % 16 ||
	    (p->d.out_t && (uintptr_t)a->d_t % 16))
		return F8B_ERR(F8B_EINVAL,
		               "gemm impl f8b: A, B, D and D^T must be 16-byte aligned (TMA)");
	/* BLOCK_1X128 in halves: B's scales come by bulk copies (16-byte
	 * aligned sources; the rows, N floats, are multiples of 64 bytes) */
	if (F8B_KGEMM_SMEM_SCALES(t->bn, p->mode) && (uintptr_t)a->b_scale_inv % 16)
		return F8B_ERR(F8B_EINVAL, "gemm impl f8b: B's 1x128 scales must be 16-byte "
		                           "aligned (the kernel copies them in bulk)");
	/* BLOCK in halves: A's scales too (rows of M floats, M a multiple of
	 * 16) */
	if (F8B_KGEMM_SMEM_ROWSCALES(t->bn, p->mode) && (uintptr_t)a->a_scale_inv % 16)
		return F8B_ERR(F8B_EINVAL, "gemm impl f8b: A's 1x128 scales must be 16-byte "
		                           "aligned (the kernel copies them in bulk)");
	if (a->a != p->bound_a) {
		F8B_TRY(encode(p, &p->tmap_a, a->a, p->d.m, t->bm, "A"));
		p->bound_a = a->a;
	}
	if (a->b != p->bound_b) {
		F8B_TRY(encode(p, &p->tmap_b, a->b, p->d.n, t->bn / t->cluster, "B"));
		p->bound_b = a->b;
	}
	if (p->tma_store && a->d != p->bound_d) {
		F8B_TRY(encode_out_with(p->encode, &p->tmap_d, a->d, p->d.m, p->d.n, p->d.out_dtype,
		                        128 / (int)f8b_dtype_size(p->d.out_dtype), "D"));
		p->bound_d = a->d;
	}
	if (p->d.out_t && a->d_t != p->bound_t) {
		F8B_TRY(encode_out_with(p->encode, &p->tmap_t, a->d_t, p->d.n, p->d.m,
		                        p->d.out_dtype, 64, "D^T"));
		p->bound_t = a->d_t;
	}
	struct f8b_kgemm_args ka = {
	    .a_scale_inv = a->a_scale_inv,
	    .b_scale_inv = a->b_scale_inv,
	    .d = a->d,
	    .m = (int)p->d.m,
	    .n = (int)p->d.n,
	    .k = (int)p->d.k,
	    .a_vec = p->d.a_gran == F8B_GRAN_AXISWISE,
	    .b_vec = p->d.b_gran == F8B_GRAN_AXISWISE,
	    /* block128x128: the padded row length of B's scale tensor (scaling.c) */
	    .b_scale_ld = (int)(f8b_scale_count(F8B_GRAN_BLOCK128X128, p->d.n, p->d.k) /
	                        ((p->d.n + 127) / 128)),
	    .sigmoid = p->d.epilogue == F8B_GEMM_EPI_SIGMOID,
	    .d_scale = a->d_scale,
	    .amax_d = a->amax_d,
	    .d_t = p->d.out_t ? a->d_t : NULL,
	};
	/* An e4m3 D: the kernel's warps atomically max |v| into amax_d, which
	 * starts from +0.0 (bits 0), zeroed here on the same stream: part of
	 * the enqueue, no host synchronisation. */
	if (p->d.out_dtype == F8B_E4M3)
		F8B_CUDA_TRY(cudaMemsetAsync(a->amax_d, 0, sizeof(float), be->stream));
	F8B_KERNEL_TRY(f8b_kgemm_run(p->tile, p->mode, p->d.a_dtype, p->d.b_dtype, p->d.out_dtype,
	                             &p->tmap_a, &p->tmap_b, p->tma_store ? &p->tmap_d : NULL,
	                             p->d.out_t ? &p->tmap_t : NULL, &ka, p->grid, be->stream));
	return F8B_OK;
}
