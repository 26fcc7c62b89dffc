/* test_lls_lanes.c - the lls step's two lanes (lls_lanes.c): for every
 * short recipe and a few long forms, where each kernel runs and that every
 * kernel starts after everything it needs, by the step's structure (the
 * GEMMs after their operands' casts, the LayerNorm backward after
 * grad_input), not by the dependency model the waits were made from; and
 * that every pair the model says conflicts is ordered. */
#include <string.h>

#include "bench/lls/lls_int.h"
#include "tap.h"

/* hb[j][i]: stage j finishes before stage i starts. */
static void order(const struct lls_state *s, bool hb[LLS_MAX_STAGES][LLS_MAX_STAGES])
{
	memset(hb, 0, sizeof(bool) * LLS_MAX_STAGES * LLS_MAX_STAGES);
	for (int i = 0; i < s->nst; i++)
		for (int j = 0; j < i; j++) {
			if (s->st[j].lane == s->st[i].lane)
				hb[j][i] = true;
			/* i's lane waited (at i or before) for j or a later stage of j's lane */
			for (int p = 0; p <= i; p++)
				if (s->st[p].lane == s->st[i].lane && s->st[p].wait >= j &&
				    s->st[s->st[p].wait].lane == s->st[j].lane)
					hb[j][i] = true;
		}
	/* transitive closure */
	for (int k = 0; k < s->nst; k++)
		for (int j = 0; j < s->nst; j++)
			for (int i = 0; i < s->nst; i++)
				if (hb[j][k] && hb[k][i])
					hb[j][i] = true;
}

static int find_gemm(const struct lls_state *s, int j)
{
	for (int i = 0; i < s->nst; i++)
		if (s->st[i].kind == K_GEMM && s->st[i].gemm == j)
			return i;
	return -1;
}

static bool is_cast(enum lls_kind k)
{
	return k == K_LN_FWD_CAST || k == K_SIG_BWD_CAST || k == K_CAST_FUSED || k == K_AMAX ||
	       k == K_AMAX_T || k == K_SCALES || k == K_CAST || k == K_CAST_T || k == K_LN_FWD ||
	       k == K_SIG_BWD;
}

static void check_recipe(const char *spec)
{
	static struct f8b_recipe r;
	struct lls_cfg cfg = {.history = 4};
	static struct lls_state s;
	memset(&s, 0, sizeof s);
	if (f8b_recipe_parse(spec, &r) != F8B_OK) {
		tap_ok(false, "%s: parses (%s)", spec, f8b_last_error());
		return;
	}
	s.cfg = &cfg;
	s.recipe = &r;
	s.m = s.k = s.n = 256;
	if (f8b_lls_plan(&s) != F8B_OK) {
		tap_ok(false, "%s: plans (%s)", spec, f8b_last_error());
		return;
	}
	static bool hb[LLS_MAX_STAGES][LLS_MAX_STAGES];
	order(&s, hb);
	int g0 = find_gemm(&s, 0), g1 = find_gemm(&s, 1), g2 = find_gemm(&s, 2);
	bool placed = g0 >= 0 && g1 >= 0 && g2 >= 0 && s.st[g0].lane == 0 && s.st[g1].lane == 0 &&
	              s.st[g2].lane == 1;
	int second = 0;
	for (int i = 0; i < s.nst; i++) {
		enum lls_kind k = s.st[i].kind;
		if (k == K_LN_FWD || k == K_LN_FWD_CAST || k == K_SIG_FWD || k == K_SIG_BWD ||
		    k == K_SIG_BWD_CAST || k == K_LN_BWD)
			placed &= s.st[i].lane == 0;
		second += s.st[i].lane;
		if (s.st[i].wait >= 0)
			placed &= s.st[i].wait < i && s.st[s.st[i].wait].lane != s.st[i].lane &&
			          s.st[s.st[i].wait].signal;
	}
	tap_ok(placed && second >= 1,
	       "%s: LayerNorm, sigmoid, output and grad_input on lane 0, grad_weight on lane 1 "
	       "(%d of %d stages there)",
	       spec, second, s.nst);

	/* By structure: output after W's forward casts and x_ln's; grad_input
	 * after every cast of W and of dz; grad_weight after every cast of dz
	 * and x_ln; the LayerNorm backward after grad_input. */
	bool ok = true;
	for (int i = 0; i < s.nst; i++) {
		const struct lls_stage *st = &s.st[i];
		if (!is_cast(st->kind) && st->kind != K_HISTORY)
			continue;
		bool w = !strcmp(st->tensor, "W"), x = !strcmp(st->tensor, "x_ln"),
		     dz = !strcmp(st->tensor, "dz");
		bool direct = st->q >= 0 || st->kind == K_LN_FWD || st->kind == K_SIG_BWD;
		if (st->kind == K_HISTORY)
			continue; /* it only reads what its cast wrote */
		if ((w && !st->bwd && direct) || (x && direct && st->kind != K_CAST_FUSED))
			ok &= hb[i][g0];
		if (w || (dz && direct))
			ok &= i < g1 ? hb[i][g1] : false;
		if (dz || x)
			ok &= hb[i][g2];
	}
	for (int i = 0; i < s.nst; i++)
		if (s.st[i].kind == K_LN_BWD)
			ok &= hb[g1][i];
	tap_ok(ok, "%s: every GEMM after its operands' casts, LayerNorm backward after grad_input",
	       spec);

	/* Every pair the model calls dependent is ordered. */
	bool all = true;
	for (int i = 0; i < s.nst; i++)
		for (int j = 0; j < i; j++) {
			unsigned ri = f8b_lls_reads(&s, i), wi = f8b_lls_writes(&s, i);
			unsigned rj = f8b_lls_reads(&s, j), wj = f8b_lls_writes(&s, j);
			if (((wj & (ri | wi)) || (rj & wi)) && !hb[j][i])
				all = false;
		}
	tap_ok(all, "%s: every conflicting pair of stages is ordered", spec);
}

int main(void)
{
	const char *specs[] = {
	    "bf16",
	    "tensorwise",
	    "tensorwise-delayed",
	    "axiswise",
	    "lw-axiswise-gw-hp",
	    "blockwise",
	    /* grad_weight alone in bf16 (dz and x_ln written in bf16 for it) */
	    "tensorwise,grad_output_for_grad_weight=disabled,input_for_grad_weight=disabled",
	    /* W^T tensorwise (T only) beside an axiswise W; delayed x_ln */
	    "axiswise,weight_for_grad_input=tensorwise,input=tensorwise:e4m3:delayed,"
	    "input_for_grad_weight=tensorwise:e4m3:delayed",
	    "blockwise,weight_for_grad_input=block128x128:e5m2",
	};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
		check_recipe(specs[i]);
	/* bf16: grad_weight is the only kernel on lane 1, waiting for dz. */
	{
		static struct f8b_recipe r;
		struct lls_cfg cfg = {.history = 4};
		static struct lls_state s;
		memset(&s, 0, sizeof s);
		bool ok = f8b_recipe_parse("bf16", &r) == F8B_OK;
		s.cfg = &cfg, s.recipe = &r, s.m = s.k = s.n = 256;
		ok = ok && f8b_lls_plan(&s) == F8B_OK;
		int g2 = ok ? find_gemm(&s, 2) : -1, lane1 = 0;
		for (int i = 0; ok && i < s.nst; i++)
			lane1 += s.st[i].lane;
		tap_ok(ok && g2 >= 0 && lane1 == 1 && s.st[g2].wait >= 0 &&
		           s.st[s.st[g2].wait].kind == K_SIG_BWD,
		       "bf16: grad_weight alone on lane 1, after the sigmoid backward");
	}
	/* --lanes 1: every recipe's stages on lane 0, in the order planned,
	 * with nothing to wait for or signal (run_step then runs them in
	 * order on the backend's stream); the same stages as with two. */
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		static struct f8b_recipe r;
		struct lls_cfg one = {.history = 4, .lanes = 1}, two = {.history = 4, .lanes = 2};
		static struct lls_state s, t;
		memset(&s, 0, sizeof s);
		memset(&t, 0, sizeof t);
		bool ok = f8b_recipe_parse(specs[i], &r) == F8B_OK;
		s.cfg = &one, s.recipe = &r, s.m = s.k = s.n = 256;
		t.cfg = &two, t.recipe = &r, t.m = t.k = t.n = 256;
		ok = ok && f8b_lls_plan(&s) == F8B_OK && f8b_lls_plan(&t) == F8B_OK &&
		     s.nst == t.nst;
		int side = 0;
		for (int j = 0; ok && j < s.nst; j++) {
			ok &= s.st[j].lane == 0 && s.st[j].wait < 0 && !s.st[j].signal &&
			      s.st[j].kind == t.st[j].kind && s.st[j].q == t.st[j].q &&
			      s.st[j].qt == t.st[j].qt;
			side += t.st[j].lane;
		}
		tap_ok(ok && side >= 1,
		       "%s, --lanes 1: the same %d stages, all on lane 0, no waits (%d on lane 1 "
		       "with --lanes 2)",
		       specs[i], s.nst, side);
	}
	/* --lanes auto (0, the default; also no cfg): two lanes below
	 * M * K * N = 2^41, one from there; 1 and 2 are kept as given. */
	{
		struct lls_cfg aut = {.history = 4}, one = {.lanes = 1}, two = {.lanes = 2};
		const int64_t big = 16384, mid = 8192;
		tap_ok(f8b_lls_lanes_for(&aut, mid, mid, mid) == 2 &&
		           f8b_lls_lanes_for(NULL, mid, mid, mid) == 2 &&
		           f8b_lls_lanes_for(&aut, big, big, big) == 1 &&
		           f8b_lls_lanes_for(&aut, big, big, mid) == 1 &&
		           f8b_lls_lanes_for(&aut, big, mid, mid) == 2 &&
		           f8b_lls_lanes_for(&two, big, big, big) == 2 &&
		           f8b_lls_lanes_for(&one, 64, 64, 64) == 1,
		       "auto: two lanes up to 8192^3 and 16384x8192x8192, one at 16384x16384x8192 "
		       "and 16384^3; --lanes 1 and 2 kept");
		static struct f8b_recipe r;
		static struct lls_state s;
		memset(&s, 0, sizeof s);
		bool ok = f8b_recipe_parse("axiswise", &r) == F8B_OK;
		s.cfg = &aut, s.recipe = &r, s.m = s.k = s.n = big;
		ok = ok && f8b_lls_plan(&s) == F8B_OK;
		int side = 0;
		for (int j = 0; ok && j < s.nst; j++)
			side += s.st[j].lane + (s.st[j].wait >= 0);
		tap_ok(ok && side == 0, "auto at 16384^3: axiswise plans every stage on lane 0");
	}
	/* lw-axiswise-gw-hp: W's axiswise cast also writes W^T's tensorwise
	 * amax, so W^T's cast reads W once (no amax pass), after it. */
	{
		static struct f8b_recipe r;
		static struct lls_state s;
		struct lls_cfg two = {.history = 4, .lanes = 2};
		memset(&s, 0, sizeof s);
		bool ok = f8b_recipe_parse("lw-axiswise-gw-hp", &r) == F8B_OK;
		s.cfg = &two, s.recipe = &r, s.m = s.k = s.n = 256;
		ok = ok && f8b_lls_plan(&s) == F8B_OK;
		int wd = -1, wt = -1;
		for (int j = 0; ok && j < s.nst; j++) {
			if (s.st[j].kind == K_CAST_FUSED && s.st[j].q == O_W)
				wd = j;
			if (s.st[j].kind == K_CAST_FUSED && s.st[j].qt == O_WT)
				wt = j;
		}
		tap_ok(ok && wd >= 0 && wt > wd && s.st[wd].amax_to == O_WT &&
		           s.st[wt].amax_given && s.st[wt].cost.bytes_read == 2.0 * 256 * 256 &&
		           s.st[wt].lane == s.st[wd].lane,
		       "lw-axiswise-gw-hp: W^T's tensorwise cast takes its amax from W's axiswise "
		       "cast (one pass over W, same lane, after it)");
		memset(&s, 0, sizeof s);
		ok = f8b_recipe_parse("tensorwise", &r) == F8B_OK;
		s.cfg = &two, s.recipe = &r, s.m = s.k = s.n = 256;
		ok = ok && f8b_lls_plan(&s) == F8B_OK;
		bool none = ok;
		for (int j = 0; ok && j < s.nst; j++)
			none &= s.st[j].amax_to < 0 && !s.st[j].amax_given;
		tap_ok(none, "tensorwise: no cast takes its amax from another");
	}
	/* impl f8b: the output GEMM applies the sigmoid (its epilogue) and
	 * writes y; no sigmoid_fwd stage, and the step's predicted bytes drop
	 * by that pass's (read z, write y); cuBLASLt keeps the pass.  The
	 * bf16 recipe's GEMMs stay on cuBLASLt: no fusion there. */
	{
		static struct f8b_recipe r;
		static struct lls_state s;
		struct lls_cfg two = {.history = 4, .lanes = 2};
		const char *names[] = {"tensorwise", "axiswise", "blockwise", "lw-axiswise-gw-hp",
		                       "bf16"};
		for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
			double bytes[2] = {0, 0};
			int sig[2] = {0, 0};
			bool ok = f8b_recipe_parse(names[n], &r) == F8B_OK,
			     fused[2] = {false, false};
			for (int im = 0; ok && im < 2; im++) {
				memset(&s, 0, sizeof s);
				s.cfg = &two, s.recipe = &r, s.m = s.k = s.n = 256;
				s.impl = im ? F8B_GEMM_IMPL_F8B : F8B_GEMM_IMPL_CUBLASLT;
				ok = f8b_lls_plan(&s) == F8B_OK;
				for (int j = 0; ok && j < s.nst; j++) {
					sig[im] += s.st[j].kind == K_SIG_FWD;
					bytes[im] +=
					    s.st[j].cost.bytes_read + s.st[j].cost.bytes_written;
				}
				int g0 = ok ? find_gemm(&s, 0) : -1;
				fused[im] = g0 >= 0 && s.fused_sigmoid &&
				            s.g[0].desc.epilogue == F8B_GEMM_EPI_SIGMOID &&
				            strstr(s.st[g0].fuses, "+ sigmoid") != NULL;
			}
			bool fp8 = strcmp(names[n], "bf16") != 0;
			/* the pass read z and wrote y: 2 + 2 bytes an element */
			double saved = 4.0 * 256 * 256;
			tap_ok(
			    ok && sig[0] == 1 && !fused[0] &&
			        (fp8 ? sig[1] == 0 && fused[1] && bytes[0] - bytes[1] == saved
			             : sig[1] == 1 && !fused[1] && bytes[0] == bytes[1]),
			    "%s: impl f8b %s the sigmoid into the output GEMM (sigmoid_fwd stages "
			    "%d / %d, bytes %.0f / %.0f)",
			    names[n], fp8 ? "fuses" : "does not fuse", sig[0], sig[1], bytes[0],
			    bytes[1]);
		}
	}
	return tap_done();
}
