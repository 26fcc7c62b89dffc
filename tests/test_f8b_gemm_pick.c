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
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "backend/cuda_gemm_f8b.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/streamk.h"

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
	    {2048, 1536, F8B_KGEMM_FAST, 256}, /* 1 wave of 32768 = 2 of 16384: wider */
	    /* 16 waves of 32768 (halves, column scales in shared memory) < 32
	     * of 16384 x 9/8 */
	    {8192, 8192, F8B_KGEMM_BLOCK_1X128, 256},
	    {1024, 1024, F8B_KGEMM_BLOCK_1X128, 128}, /* 1 wave: 16384 x 9/8 < 32768 */
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

/* The stream-K tail's schedule (kernels/gemm/streamk.h), walked for every
 * CTA as the kernel walks it: each K-block of each tile taken exactly
 * once; whole tiles in the plain persistent order first; at most one PART
 * a CTA, and then as its first unit of the tail (so no CTA waits before
 * writing its part); each FIRST's partners (streamk.h's last partner) the
 * CTAs that hold the rest of its tile, each with one PART there. */
static int walk_streamk(int tiles, int grid, int kb, int skt, int skc)
{
	const int dp_end = tiles - skt;
	int *cover = calloc((size_t)tiles * (size_t)kb, sizeof *cover);
	int *part_tile = malloc((size_t)grid * sizeof *part_tile);
	int *first_of = malloc((size_t)tiles * sizeof *first_of);
	int bad = !cover || !part_tile || !first_of;
	for (int i = 0; !bad && i < tiles; i++)
		first_of[i] = -1;
	for (int g = 0; !bad && g < grid; g++) {
		part_tile[g] = -1;
		int tail_units = 0, want_t = g;
		struct f8b_sk_iter it = f8b_sk_begin(g, grid, tiles, kb, skt, skc);
		struct f8b_sk_unit u;
		while (!bad && f8b_sk_next(&it, &u)) {
			bad |=
			    u.tile < 0 || u.tile >= tiles || u.k0 < 0 || u.k1 > kb || u.k0 >= u.k1;
			if (bad)
				break;
			if (u.tile < dp_end) { /* whole, in order g, g + grid, ... */
				bad |= u.tile != want_t || u.role != F8B_SK_WHOLE || tail_units;
				want_t += grid;
			} else {
				if (u.role == F8B_SK_PART) {
					bad |= tail_units != 0 || part_tile[g] >= 0;
					part_tile[g] = u.tile;
				}
				if (u.role == F8B_SK_FIRST)
					first_of[u.tile] = g;
				bad |= (u.role == F8B_SK_WHOLE) != (u.k0 == 0 && u.k1 == kb);
				tail_units++;
			}
			for (int k = u.k0; k < u.k1; k++)
				cover[(size_t)u.tile * kb + k]++;
		}
		bad |= want_t < dp_end; /* every whole tile of the CTA's taken */
	}
	for (size_t i = 0; !bad && i < (size_t)tiles * kb; i++)
		bad |= cover[i] != 1;
	/* each FIRST's partners hold PARTs of its tile, and every PART has
	 * its FIRST */
	for (int t = dp_end; !bad && t < tiles; t++) {
		int g = first_of[t];
		if (g < 0) {
			/* a whole tile: no partner */
			for (int q = 0; q < grid; q++)
				bad |= part_tile[q] == t;
			continue;
		}
		int last = f8b_sk_last_partner(tiles, kb, skt, skc, t);
		bad |= last <= g;
		for (int q = 0; q < grid; q++)
			bad |= (part_tile[q] == t) != (q > g && q <= last);
	}
	free(cover);
	free(part_tile);
	free(first_of);
	return !bad;
}

static void test_streamk(void)
{
	int st = -1, sc = -1;
	/* 8192^3 on the 128x256 tile: 2048 tiles, 132 SMs, 64 K-blocks */
	f8b_sk_choose(2048, 132, 64, 0, &st, &sc);
	tap_ok(st == 68 && sc == 132,
	       "stream-K 2048 tiles / 132: the last 68 over 132 CTAs (%d/%d)", st, sc);
	/* 4096^3: 512 tiles of 32 K-blocks, the tail's range (29) no shorter
	 * than the fixed costs allow */
	f8b_sk_choose(512, 132, 32, 0, &st, &sc);
	tap_ok(st == 0 && sc == 0, "stream-K 512 tiles of 32 K-blocks: none (%d/%d)", st, sc);
	/* 16384^3: 4096 tiles, 4 left over, 128 K-blocks: fewer CTAs than
	 * SMs, ranges longer than one K-block */
	f8b_sk_choose(4096, 132, 128, 0, &st, &sc);
	tap_ok(st == 4 && sc >= 2 && sc < 132, "stream-K 4096 tiles of 128: 4 over %d CTAs", sc);
	f8b_sk_choose(4096, 128, 128, 0, &st, &sc);
	tap_ok(st == 0, "stream-K: no tail when the tiles fill every round");
	f8b_sk_choose(100, 132, 64, 1, &st, &sc);
	tap_ok(st == 0, "stream-K: no tail with fewer tiles than CTAs, even forced");
	f8b_sk_choose(144, 132, 8, 1, &st, &sc);
	tap_ok(st == 12 && sc == 96, "stream-K forced: 12 tiles x 8 K-blocks over 96 CTAs (%d/%d)",
	       st, sc);

	static const int cases[][4] = {
	    /* tiles, grid, kblocks, force */
	    {2048, 132, 64, 0}, {4096, 132, 128, 0}, {144, 132, 8, 1},   {144, 132, 1, 1},
	    {300, 132, 7, 1},   {133, 132, 3, 1},    {1024, 132, 64, 0}, {20, 8, 5, 1},
	    {17, 4, 40, 0},     {264, 132, 16, 0},
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		const int *c = cases[i];
		f8b_sk_choose(c[0], c[1], c[2], c[3], &st, &sc);
		tap_ok(walk_streamk(c[0], c[1], c[2], st, sc),
		       "stream-K walk: %d tiles, grid %d, %d K-blocks%s (tail %d over %d)", c[0],
		       c[1], c[2], c[3] ? ", forced" : "", st, sc);
	}
	/* no tail: the plain persistent order */
	tap_ok(walk_streamk(2048, 132, 64, 0, 0), "stream-K walk without a tail");
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
	test_streamk();
	return tap_done();
}
