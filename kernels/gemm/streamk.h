/* streamk.h - the stream-K tail of f8bench's persistent fp8 GEMM
 * (doc/gemm-kernels.md, "Stream-K tail"): which work units a CTA takes,
 * in C that the kernel (sm90_fp8_gemm_kernel.cuh), the host's plan
 * (src/backend/cuda_gemm_f8b.c) and a CPU test (tests/test_f8b_gemm_pick.c)
 * share.
 *
 * A persistent grid of G CTAs over T tiles of K-blocks KB each: when T is
 * not a multiple of G, the last round of whole tiles leaves SMs idle
 * (with 128x256 tiles on 132 SMs, 128 q tiles keep 128 of them busy in
 * every round).  Here the first T - R tiles (R = T mod G) are taken whole,
 * round by round (CTA g: tiles g, g + G, ...), and the last R tiles' R x KB
 * K-blocks are cut into C contiguous ranges, one per CTA g < C (the
 * "iterations" x = 0 .. R KB - 1; range g is [R KB g / C, R KB (g+1) / C)).
 * A range crosses tile boundaries; each piece is a unit:
 *  - WHOLE: all of a tile's K-blocks (0 .. KB-1): epilogue as usual;
 *  - FIRST: K-blocks 0 .. k1-1 of a tile, k1 < KB: this CTA adds the
 *    partial sums of the CTAs that hold the rest (its "partners", the
 *    next CTAs), then stores the tile;
 *  - PART: K-blocks k0 .. k1-1, k0 > 0: the CTA writes its fp32 sums to
 *    its own slot of the workspace and raises its flag.
 * A CTA's PART, if it has one, is its range's first unit, so no CTA waits
 * for a partner before writing its own part: the waits cannot close a
 * cycle.  C < G leaves CTAs C .. G-1 without a tail (ranges of at least
 * a few K-blocks: a part costs a write and a read of the tile's sums).
 */
#ifndef F8B_KERNELS_GEMM_STREAMK_H
#define F8B_KERNELS_GEMM_STREAMK_H

#include <stdint.h>

#ifdef __CUDACC__
#define F8B_SK_FN __host__ __device__ __forceinline__
#else
#define F8B_SK_FN static inline
#endif

enum f8b_sk_role { F8B_SK_WHOLE = 0, F8B_SK_FIRST = 1, F8B_SK_PART = 2 };

/* One unit of a CTA's work: K-blocks k0 .. k1-1 of tile `tile` (the
 * scheduler's tile number). */
struct f8b_sk_unit {
	int tile, k0, k1, role;
};

/* The start of range g of C over `units` iterations (g = C: the end).
 * The host takes the tail only where units fits an int. */
F8B_SK_FN int f8b_sk_start(int units, int ctas, int g)
{
	return (int)((int64_t)units * g / ctas);
}

/* The range holding iteration x < units: the largest g < C whose start is
 * at most x (every range is non-empty: units >= C). */
F8B_SK_FN int f8b_sk_owner(int units, int ctas, int x)
{
	int g = (int)((int64_t)x * ctas / units);
	while (g + 1 < ctas && f8b_sk_start(units, ctas, g + 1) <= x)
		g++;
	while (g > 0 && f8b_sk_start(units, ctas, g) > x)
		g--;
	return g;
}

/* A CTA's walk over its units: whole tiles first, then its range. */
struct f8b_sk_iter {
	int x, x_end; /* the CTA's range of the tail, [x, x_end) */
	int t, step, dp_end, kblocks;
};

/* CTA g of `grid` (clusters, for a clustered grid) over `tiles` tiles of
 * `kblocks` K-blocks, the last sk_tiles of them cut over sk_ctas ranges
 * (sk_tiles = 0: every tile whole, the plain persistent order). */
F8B_SK_FN struct f8b_sk_iter f8b_sk_begin(int g, int grid, int tiles, int kblocks, int sk_tiles,
                                          int sk_ctas)
{
	struct f8b_sk_iter it;
	it.t = g;
	it.step = grid;
	it.dp_end = tiles - sk_tiles;
	it.kblocks = kblocks;
	it.x = it.x_end = 0;
	if (sk_tiles > 0 && g < sk_ctas) {
		const int units = sk_tiles * kblocks;
		it.x = f8b_sk_start(units, sk_ctas, g);
		it.x_end = f8b_sk_start(units, sk_ctas, g + 1);
	}
	return it;
}

/* The next unit into *u; 0 when the CTA has none left. */
F8B_SK_FN int f8b_sk_next(struct f8b_sk_iter *it, struct f8b_sk_unit *u)
{
	const int kb = it->kblocks;
	if (it->t < it->dp_end) {
		u->tile = it->t;
		u->k0 = 0;
		u->k1 = kb;
		u->role = F8B_SK_WHOLE;
		it->t += it->step;
		return 1;
	}
	if (it->x >= it->x_end)
		return 0;
	const int left = it->x_end - it->x;
	u->tile = it->dp_end + it->x / kb;
	u->k0 = it->x % kb;
	u->k1 = left < kb - u->k0 ? u->k0 + left : kb;
	u->role = u->k0 > 0 ? F8B_SK_PART : u->k1 < kb ? F8B_SK_FIRST : F8B_SK_WHOLE;
	it->x += u->k1 - u->k0;
	return 1;
}

/* Whether the CTA has a unit after the one f8b_sk_next gave last. */
F8B_SK_FN int f8b_sk_more(const struct f8b_sk_iter *it)
{
	return it->t < it->dp_end || it->x < it->x_end;
}

/* The partners of a FIRST unit of tile `tile`, held by CTA g: CTAs g + 1
 * to the returned one, each with a PART of that tile. */
F8B_SK_FN int f8b_sk_last_partner(int tiles, int kblocks, int sk_tiles, int sk_ctas, int tile)
{
	const int last = (tile - (tiles - sk_tiles) + 1) * kblocks - 1;
	return f8b_sk_owner(sk_tiles * kblocks, sk_ctas, last);
}

/* The host's choice (cuda_gemm_f8b.c): how many of `tiles` tiles to cut
 * over how many CTAs of a grid of `grid`, into *sk_tiles and *sk_ctas (0
 * and 0: none).  A time model in K-blocks of one tile: the last round
 * takes KB whole, or the longest range w = ceil(R KB / C) plus FIX for
 * writing a part and FIX for each part the FIRST unit reads (at most
 * ceil(KB / w) + 1 pieces a tile); C is the count with the least time, at
 * least 2 CTAs, and the tail is taken where it saves more than FIX.
 * force: any R > 0 and C = min(G, R KB), the least time not asked (the
 * tests' knob: ranges of one K-block, many partners). */
#define F8B_SK_FIX 3

F8B_SK_FN void f8b_sk_choose(int tiles, int grid, int kblocks, int force, int *sk_tiles,
                             int *sk_ctas)
{
	*sk_tiles = 0;
	*sk_ctas = 0;
	if (grid < 2 || tiles <= grid || kblocks < 1)
		return;
	const int r = tiles % grid;
	if (r == 0)
		return;
	const int64_t units = (int64_t)r * kblocks;
	if (units > INT32_MAX)
		return;
	if (force) {
		*sk_tiles = r;
		*sk_ctas = units < grid ? (int)units : grid;
		return;
	}
	int best = 0;
	int64_t best_t = kblocks - F8B_SK_FIX; /* to beat: a whole round */
	for (int c = 2; c <= grid && c <= units; c++) {
		const int64_t w = (units + c - 1) / c;
		const int64_t pieces = (kblocks + w - 1) / w + 1;
		const int64_t t = w + F8B_SK_FIX + F8B_SK_FIX * (pieces - 1);
		if (t < best_t) {
			best_t = t;
			best = c;
		}
	}
	if (best) {
		*sk_tiles = r;
		*sk_ctas = best;
	}
}

#endif
