/* test_f8b_gemm_pick.c - the host-side choices of f8bench's own sm_90a
 * fp8 GEMM (src/backend/cuda_gemm_f8b.h), which need no GPU: the kernel
 * mode of every scaling pair and fast_accum, the refusals and their
 * message, the tile table (every mode has tiles; promotion tiles at most
 * 192 wide but 128x256's halves form, the pick of PROMOTE, BLOCK and
 * BLOCK_1X128 at large shapes; the ping-pong tile FAST only, a candidate
 * never picked), the
 * tile the plan picks and the --autotune candidates; the e4m3-output
 * variants (FAST and PROMOTE of the 128x128 tile) and their refusals.
 * Built with CUDA only (the table is compiled from kernels/gemm/); runs
 * without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "backend/cuda_gemm_f8b.h"
#include "kernels/gemm/gemm.h"

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

static void test_modes(void)
{
	static const struct {
		enum f8b_granularity a, b;
		int fast, off; /* mode with fast_accum on / off; -1: refused */
	} cases[] = {
	    {F8B_GRAN_TENSORWISE, F8B_GRAN_TENSORWISE, F8B_KGEMM_FAST, F8B_KGEMM_PROMOTE},
	    {F8B_GRAN_AXISWISE, F8B_GRAN_AXISWISE, F8B_KGEMM_FAST, F8B_KGEMM_PROMOTE},
	    {F8B_GRAN_AXISWISE, F8B_GRAN_TENSORWISE, F8B_KGEMM_FAST, F8B_KGEMM_PROMOTE},
	    {F8B_GRAN_TENSORWISE, F8B_GRAN_AXISWISE, F8B_KGEMM_FAST, F8B_KGEMM_PROMOTE},
	    {F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK128X128, F8B_KGEMM_BLOCK, F8B_KGEMM_BLOCK},
	    {F8B_GRAN_BLOCK1X128, F8B_GRAN_BLOCK1X128, F8B_KGEMM_BLOCK_1X128,
	     F8B_KGEMM_BLOCK_1X128},
	    {F8B_GRAN_BLOCK128X128, F8B_GRAN_BLOCK128X128, -1, -1},
	    {F8B_GRAN_BLOCK128X128, F8B_GRAN_TENSORWISE, -1, -1},
	    {F8B_GRAN_TENSORWISE, F8B_GRAN_BLOCK128X128, -1, -1},
	    {F8B_GRAN_AXISWISE, F8B_GRAN_BLOCK1X128, -1, -1},
	};
	for (size_t i = 0; i < COUNT(cases); i++)
		for (int fast = 0; fast <= 1; fast++) {
			struct f8b_gemm_desc d = {.m = 256,
			                          .n = 256,
			                          .k = 256,
			                          .a_dtype = F8B_E4M3,
			                          .b_dtype = F8B_E4M3,
			                          .out_dtype = F8B_BF16,
			                          .a_gran = cases[i].a,
			                          .b_gran = cases[i].b,
			                          .fast_accum = fast != 0,
			                          .impl = F8B_GEMM_IMPL_F8B};
			int want = fast ? cases[i].fast : cases[i].off, mode = -1;
			int rc = f8b_kgemm_mode_of(&d, "case", &mode);
			const char *ga = f8b_granularity_name(cases[i].a);
			const char *gb = f8b_granularity_name(cases[i].b);
			if (want >= 0)
				tap_ok(rc == F8B_OK && mode == want,
				       "%s x %s, fast_accum %s: kernel mode %d (want %d)", ga, gb,
				       fast ? "on" : "off", mode, want);
			else
				tap_ok(rc == F8B_EUNSUPPORTED &&
				           strstr(f8b_last_error(), "impl f8b") &&
				           strstr(f8b_last_error(), ga) &&
				           strstr(f8b_last_error(), gb),
				       "%s x %s, fast_accum %s: refused naming both: %s", ga, gb,
				       fast ? "on" : "off", rc ? f8b_last_error() : "accepted");
		}
	struct f8b_gemm_desc bf = {.m = 16,
	                           .n = 16,
	                           .k = 16,
	                           .a_dtype = F8B_BF16,
	                           .b_dtype = F8B_BF16,
	                           .out_dtype = F8B_BF16,
	                           .fast_accum = true};
	int mode = -1, rc = f8b_kgemm_mode_of(&bf, "bf16", &mode);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "bf16"),
	       "bf16 operands refused: %s", rc ? f8b_last_error() : "accepted");
}

static void test_table(void)
{
	for (int mode = 0; mode < F8B_KGEMM_NMODES; mode++) {
		int n = f8b_kgemm_candidates(mode, F8B_BF16), seen = 0, ok = 1;
		int picked = f8b_kgemm_pick_tile(8192, 8192, 132, mode, F8B_BF16);
		tap_ok(n >= 1 && picked >= 0 && (f8b_kgemm_tiles[picked].modes & (1u << mode)),
		       "mode %d: %d tiles, 8192^2 picks tile %d", mode, n, picked);
		if (picked < 0)
			continue;
		/* The candidates are the mode's tiles, each once, the pick first. */
		for (int c = 0; c < n; c++) {
			int t = f8b_kgemm_candidate_tile(picked, mode, F8B_BF16, c);
			if (t < 0 || t >= f8b_kgemm_ntiles ||
			    !(f8b_kgemm_tiles[t].modes & (1u << mode)) || (seen & (1 << t)) ||
			    (c == 0 && t != picked))
				ok = 0;
			else
				seen |= 1 << t;
		}
		tap_ok(ok && f8b_kgemm_candidate_tile(picked, mode, F8B_BF16, n) == -1,
		       "mode %d: candidates 0..%d are its tiles, each once, the pick first; "
		       "candidate %d does not exist",
		       mode, n - 1, n);
	}
	for (int i = 0; i < f8b_kgemm_ntiles; i++) {
		const struct f8b_kgemm_tile *t = &f8b_kgemm_tiles[i];
		bool promo = t->modes & ~(1u << F8B_KGEMM_FAST);
		/* 128x256 promotes in halves (one BN/4 partial; BLOCK_1X128's
		 * column scales in shared memory, not registers) */
		bool halves = t->bn == 256;
		tap_ok(t->bm == 128 && t->bk == 128 && t->bn % 64 == 0 &&
		           (!promo || t->bn <= 192 || halves) && t->smem_bytes <= 227 * 1024 &&
		           (t->cluster == 1 || t->cluster == 2),
		       "tile %s: 128 rows, BK 128, BN %d (<= 192 with promotion, or 256 in "
		       "halves), %d bytes of shared memory (<= 227 KiB)",
		       t->name, t->bn, t->smem_bytes);
		/* ping-pong: FAST only (no promotion form), no cluster, 2 x BN/2
		 * accumulators a thread (BN <= 128) */
		if (t->sched != F8B_KGEMM_SCHED_COOP)
			tap_ok(t->sched == F8B_KGEMM_SCHED_PINGPONG &&
			           t->modes == (1u << F8B_KGEMM_FAST) && t->cluster == 1 &&
			           t->bn <= 128 && strstr(t->name, "/pp"),
			       "tile %s: ping-pong, FAST only, no cluster, BN %d <= 128", t->name,
			       t->bn);
	}
}

/* The ping-pong tile is an --autotune candidate of FAST, never the pick
 * (until an H100 run says it should be), at any shape. */
static void test_pingpong(void)
{
	int pp = -1;
	for (int i = 0; i < f8b_kgemm_ntiles; i++)
		if (f8b_kgemm_tiles[i].sched == F8B_KGEMM_SCHED_PINGPONG)
			pp = i;
	if (!tap_ok(pp >= 0, "the table has a ping-pong tile"))
		return;
	static const int64_t sizes[] = {16, 1024, 2048, 4096, 8192, 16384, 5120, 28672};
	int picked_pp = 0, listed = 0, n = f8b_kgemm_candidates(F8B_KGEMM_FAST, F8B_BF16);
	for (size_t i = 0; i < COUNT(sizes); i++)
		for (size_t j = 0; j < COUNT(sizes); j++)
			for (int mode = 0; mode < F8B_KGEMM_NMODES; mode++) {
				int t =
				    f8b_kgemm_pick_tile(sizes[i], sizes[j], 132, mode, F8B_BF16);
				picked_pp += t >= 0 && f8b_kgemm_tiles[t].sched != 0;
			}
	int picked = f8b_kgemm_pick_tile(8192, 8192, 132, F8B_KGEMM_FAST, F8B_BF16);
	for (int c = 0; c < n; c++)
		listed += f8b_kgemm_candidate_tile(picked, F8B_KGEMM_FAST, F8B_BF16, c) == pp;
	tap_ok(picked_pp == 0, "no shape picks the ping-pong tile (%d did)", picked_pp);
	tap_ok(listed == 1, "FAST's %d candidates list the ping-pong tile %s once (%d)", n,
	       f8b_kgemm_tiles[pp].name, listed);
	tap_ok(f8b_kgemm_candidate_tile(picked, F8B_KGEMM_FAST, F8B_BF16, n - 1) == pp,
	       "the ping-pong tile is FAST's last candidate (table order)");
}

/* 128x256's promotion in halves is a candidate of PROMOTE, BLOCK and
 * BLOCK_1X128 (its own entry, with the scale ring), listed once, and
 * picked at some shapes (test_pick has which). */
static void test_halves(void)
{
	static const int64_t sizes[] = {1024, 2048, 4096, 8192, 16384, 28672};
	static const int modes[] = {F8B_KGEMM_PROMOTE, F8B_KGEMM_BLOCK, F8B_KGEMM_BLOCK_1X128};
	for (size_t i = 0; i < COUNT(modes); i++) {
		int listed = 0, picked = 0, n = f8b_kgemm_candidates(modes[i], F8B_BF16);
		int p0 = f8b_kgemm_pick_tile(8192, 8192, 132, modes[i], F8B_BF16);
		for (int c = 0; c < n; c++) {
			int t = f8b_kgemm_candidate_tile(p0, modes[i], F8B_BF16, c);
			listed += t >= 0 && f8b_kgemm_tiles[t].bn == 256;
		}
		for (size_t a = 0; a < COUNT(sizes); a++)
			for (size_t b = 0; b < COUNT(sizes); b++) {
				int t = f8b_kgemm_pick_tile(sizes[a], sizes[b], 132, modes[i],
				                            F8B_BF16);
				picked += t >= 0 && f8b_kgemm_tiles[t].bn == 256;
			}
		tap_ok(listed == 1 && picked > 0,
		       "mode %d: 128x256 (halves) among its %d candidates once (%d), picked at "
		       "some of %zu shapes (%d)",
		       modes[i], n, listed, COUNT(sizes) * COUNT(sizes), picked);
	}
}

/* The pick rule on shapes whose answer is worked out by hand (132 SMs). */
static void test_pick(void)
{
	static const struct {
		int64_t m, n;
		int mode, bn;
	} cases[] = {
	    {8192, 8192, F8B_KGEMM_FAST, 256}, /* 16 waves of 128x256 = 32 of 128x128 */
	    {1024, 1024, F8B_KGEMM_FAST, 128}, /* one wave either way: 16384 x 9/8 < 32768 */
	    /* 63 waves of 32768 < 125 of 16384 x 9/8 (without the charge:
	     * 128x128, measured 0.74x cuBLASLt on an H100) */
	    {16384, 16384, F8B_KGEMM_FAST, 256},
	    {8192, 28672, F8B_KGEMM_FAST, 256},  /* 55 x 32768 < 109 x 16384 x 9/8 */
	    {16384, 57344, F8B_KGEMM_FAST, 256}, /* llama2-70b w13 at 16384 tokens */
	    /* block scales: 16 waves of 32768 (in halves) < 32 of 16384 x 9/8
	     * (overlapped) < 21 of 24576 x 9/8 x 9/8 (neither) */
	    {8192, 8192, F8B_KGEMM_BLOCK, 256},
	    {16384, 14336, F8B_KGEMM_BLOCK, 256}, /* 55 x 32768 < 109 x 18432 */
	    /* plain promotion: 16 waves of 32768 (in halves) < 21 of 24576 x
	     * 9/8 (without the charge: 128x192, measured 3 % slower) */
	    {8192, 8192, F8B_KGEMM_PROMOTE, 256},
	    {4096, 4096, F8B_KGEMM_PROMOTE, 256}, /* 4 x 32768 < 8 x 16384 x 9/8 */
	    /* 1 wave of 24576 x 9/8 < 1 of 32768 < 2 waves of 16384 x 9/8 */
	    {2048, 1536, F8B_KGEMM_PROMOTE, 192},
	    /* 1 wave of 24576 x (9/8)^2 < 1 of 32768 < 2 of 16384 x 9/8 */
	    {2048, 1536, F8B_KGEMM_BLOCK, 192},
	    /* ragged: 5 waves of 32768 = 8 of 16384 x 5/4 (BLOCK's 128x128 at
	     * 0.76-0.83x its 128x256): a tie, the wider tile (with 9/8,
	     * 147456 < 163840 had picked 128x128, 7% slower there) */
	    {4000, 4112, F8B_KGEMM_BLOCK, 256},
	    {2048, 1536, F8B_KGEMM_FAST, 256}, /* 1 wave of 32768 = 2 of 16384: wider */
	    /* 16 waves of 32768 (halves, column scales in shared memory) < 32
	     * of 16384 x 9/8 */
	    {8192, 8192, F8B_KGEMM_BLOCK_1X128, 256},
	    /* 1 wave of 32768 = 1 of 16384 x 2 (128x128 holds its column
	     * scales in registers, read from global memory): wider */
	    {1024, 1024, F8B_KGEMM_BLOCK_1X128, 256},
	    /* the ragged shape the charge was measured on: 5 waves of 32768 <
	     * 8 of 16384 x 2 (with 9/8: 147456 < 163840, 128x128 at half the
	     * speed) */
	    {4000, 4112, F8B_KGEMM_BLOCK_1X128, 256},
	    /* 1 wave: 16384 x 9/8 < 24576 x 9/8 < 32768 */
	    {1024, 1024, F8B_KGEMM_PROMOTE, 128},
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		int t = f8b_kgemm_pick_tile(cases[i].m, cases[i].n, 132, cases[i].mode, F8B_BF16);
		tap_ok(t >= 0 && f8b_kgemm_tiles[t].bn == cases[i].bn &&
		           f8b_kgemm_tiles[t].cluster == 1 && f8b_kgemm_tiles[t].sched == 0,
		       "M=%lld N=%lld mode %d on 132 SMs: tile %s (want 128x%d, no cluster)",
		       (long long)cases[i].m, (long long)cases[i].n, cases[i].mode,
		       t >= 0 ? f8b_kgemm_tiles[t].name : "none", cases[i].bn);
	}
}

/* e4m3 output: the variants the table lists in e4m3_modes (a subset of
 * each tile's modes, cooperative tiles without a cluster: the epilogue
 * that flushes the amax), the pick and candidates among them only, and
 * the refusals of what has no variant. */
static void test_e4m3_out(void)
{
	int ok = 1, listed = 0;
	for (int i = 0; i < f8b_kgemm_ntiles; i++) {
		const struct f8b_kgemm_tile *t = &f8b_kgemm_tiles[i];
		if ((t->e4m3_modes & ~t->modes) ||
		    (t->e4m3_modes && (t->sched != F8B_KGEMM_SCHED_COOP || t->cluster != 1)))
			ok = 0;
		listed += t->e4m3_modes != 0;
	}
	tap_ok(ok && listed >= 1,
	       "e4m3-output variants: within each tile's modes, cooperative, no cluster "
	       "(%d tiles have some)",
	       listed);
	static const int modes[] = {F8B_KGEMM_FAST, F8B_KGEMM_PROMOTE};
	for (size_t i = 0; i < COUNT(modes); i++) {
		int mode = modes[i], n = f8b_kgemm_candidates(mode, F8B_E4M3);
		int t = f8b_kgemm_pick_tile(8192, 8192, 132, mode, F8B_E4M3);
		tap_ok(n >= 1 && t >= 0 && (f8b_kgemm_tiles[t].e4m3_modes & (1u << mode)) &&
		           f8b_kgemm_candidate_tile(t, mode, F8B_E4M3, 0) == t &&
		           f8b_kgemm_candidate_tile(t, mode, F8B_E4M3, n) == -1,
		       "mode %d, e4m3 out: %d candidates, 8192^2 picks %s (one with the "
		       "variant)",
		       mode, n, t >= 0 ? f8b_kgemm_tiles[t].name : "none");
		/* the tile a bf16 D takes: 128x256 has both e4m3 variants */
		int tb = f8b_kgemm_pick_tile(8192, 8192, 132, mode, F8B_BF16);
		tap_ok(t >= 0 && t == tb && f8b_kgemm_tiles[t].bn == 256 && n >= 2,
		       "mode %d, e4m3 out: bf16's pick, the 128x256 tile (%s), 128x128 a "
		       "candidate too",
		       mode, t >= 0 ? f8b_kgemm_tiles[t].name : "none");
	}
	tap_ok(f8b_kgemm_candidates(F8B_KGEMM_BLOCK, F8B_E4M3) == 0 &&
	           f8b_kgemm_pick_tile(8192, 8192, 132, F8B_KGEMM_BLOCK, F8B_E4M3) == -1,
	       "BLOCK has no e4m3-output tile");

	struct f8b_gemm_desc d = {.m = 256,
	                          .n = 256,
	                          .k = 256,
	                          .a_dtype = F8B_E4M3,
	                          .b_dtype = F8B_E4M3,
	                          .out_dtype = F8B_E4M3,
	                          .a_gran = F8B_GRAN_AXISWISE,
	                          .b_gran = F8B_GRAN_AXISWISE,
	                          .fast_accum = false,
	                          .impl = F8B_GEMM_IMPL_F8B};
	int mode = -1, rc = f8b_kgemm_mode_of(&d, "case", &mode);
	tap_ok(rc == F8B_OK && mode == F8B_KGEMM_PROMOTE,
	       "e4m3 x e4m3 axiswise -> e4m3, fast_accum off: PROMOTE (%s)",
	       rc ? f8b_last_error() : "accepted");
	struct f8b_gemm_desc e = d;
	e.b_dtype = F8B_E5M2;
	rc = f8b_kgemm_mode_of(&e, "case", &mode);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "e4m3 x e5m2") &&
	           strstr(f8b_last_error(), "impl f8b"),
	       "e4m3 x e5m2 -> e4m3 refused: %s", rc ? f8b_last_error() : "accepted");
	e = d;
	e.a_gran = F8B_GRAN_BLOCK1X128;
	e.b_gran = F8B_GRAN_BLOCK128X128;
	rc = f8b_kgemm_mode_of(&e, "case", &mode);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "e4m3-output") &&
	           strstr(f8b_last_error(), "block1x128.128x128"),
	       "blockwise -> e4m3 refused: %s", rc ? f8b_last_error() : "accepted");
	e = d;
	e.epilogue = F8B_GEMM_EPI_SIGMOID;
	rc = f8b_kgemm_mode_of(&e, "case", &mode);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "sigmoid"),
	       "e4m3 out with the fused sigmoid refused: %s", rc ? f8b_last_error() : "accepted");
}

/* The transposed write (F8B_KGEMM_OUT_T, f8b_gemm_desc.out_t): the
 * cooperative tiles only, and not BLOCK_1X128's 128x256 halves; the picks
 * of the other modes unchanged; out_t refused for f32 and for M whose
 * rows of D^T are not 16-byte multiples, naming the constraint. */
static void test_out_t(void)
{
	for (int mode = 0; mode < F8B_KGEMM_NMODES; mode++) {
		const int outs[] = {F8B_BF16, F8B_E4M3};
		for (size_t o = 0; o < COUNT(outs); o++) {
			int out = outs[o], ot = out | F8B_KGEMM_OUT_T;
			int n = f8b_kgemm_candidates(mode, out),
			    nt = f8b_kgemm_candidates(mode, ot);
			int expect = 0, ok = 1;
			for (int i = 0; i < f8b_kgemm_ntiles; i++) {
				const struct f8b_kgemm_tile *t = &f8b_kgemm_tiles[i];
				unsigned m = out == F8B_E4M3 ? t->e4m3_modes : t->modes;
				expect += (m & (1u << mode)) && t->sched == F8B_KGEMM_SCHED_COOP &&
				          !(mode == F8B_KGEMM_BLOCK_1X128 && t->bn == 256);
			}
			int pt = f8b_kgemm_pick_tile(8192, 8192, 132, mode, ot);
			for (int c = 0; c < nt; c++) {
				int t = f8b_kgemm_candidate_tile(pt, mode, ot, c);
				if (t < 0 || f8b_kgemm_tiles[t].sched != F8B_KGEMM_SCHED_COOP ||
				    (mode == F8B_KGEMM_BLOCK_1X128 && f8b_kgemm_tiles[t].bn == 256))
					ok = 0;
			}
			int p = f8b_kgemm_pick_tile(8192, 8192, 132, mode, out);
			tap_ok(nt == expect && ok && nt <= n &&
			           (mode == F8B_KGEMM_BLOCK_1X128 || pt == p),
			       "mode %d, %s out with D^T: %d candidates of %d, cooperative, "
			       "the same pick as without (%d, %d)%s",
			       mode, out == F8B_E4M3 ? "e4m3" : "bf16", nt, n, pt, p,
			       mode == F8B_KGEMM_BLOCK_1X128 ? " but for BLOCK_1X128" : "");
		}
	}
	int pt =
	    f8b_kgemm_pick_tile(8192, 8192, 132, F8B_KGEMM_BLOCK_1X128, F8B_BF16 | F8B_KGEMM_OUT_T);
	tap_ok(pt >= 0 && f8b_kgemm_tiles[pt].bn == 128,
	       "BLOCK_1X128 with D^T at 8192^2: the 128x128 tile (%s)",
	       pt >= 0 ? f8b_kgemm_tiles[pt].name : "none");

	struct f8b_gemm_desc d = {.m = 256,
	                          .n = 256,
	                          .k = 256,
	                          .a_dtype = F8B_E4M3,
	                          .b_dtype = F8B_E4M3,
	                          .out_dtype = F8B_F32,
	                          .a_gran = F8B_GRAN_TENSORWISE,
	                          .b_gran = F8B_GRAN_TENSORWISE,
	                          .fast_accum = true,
	                          .impl = F8B_GEMM_IMPL_F8B,
	                          .out_t = true};
	int mode = -1, rc = f8b_kgemm_mode_of(&d, "case", &mode);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "bf16 or e4m3"),
	       "f32 with D^T refused: %s", rc ? f8b_last_error() : "accepted");
	static const struct {
		int64_t m;
		enum f8b_dtype out;
		int want;
	} ms[] = {{24, F8B_E4M3, F8B_EINVAL},
	          {32, F8B_E4M3, F8B_OK},
	          {20, F8B_BF16, F8B_EINVAL},
	          {24, F8B_BF16, F8B_OK},
	          {16, F8B_E4M3, F8B_OK}};
	for (size_t i = 0; i < COUNT(ms); i++) {
		d.m = ms[i].m;
		d.out_dtype = ms[i].out;
		rc = f8b_kgemm_mode_of(&d, "case", &mode);
		tap_ok(rc == ms[i].want &&
		           (rc == F8B_OK || (strstr(f8b_last_error(), "multiple of") &&
		                             strstr(f8b_last_error(), "D^T"))),
		       "M=%lld, %s out with D^T: %s", (long long)ms[i].m, f8b_dtype_name(ms[i].out),
		       rc ? f8b_last_error() : "accepted");
	}
}

int main(void)
{
	test_modes();
	test_table();
	test_pick();
	test_pingpong();
	test_halves();
	test_e4m3_out();
	test_out_t();
	return tap_done();
}
