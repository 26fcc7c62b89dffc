/* gemm_cfg.c - the gemm sweep's configuration: its options, their
 * parsing, the case list (per shape: the bf16 baseline, then every
 * granularity x fast_accum x dtype pair), and how a case's row is keyed,
 * named and summarised.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/gemm/gemm_int.h"
#include "core/fp8.h"
#include "results/schema.h"

void f8b_gemm_setstr(char *dst, size_t n, const char *s)
{
	memset(dst, 0, n);
	snprintf(dst, n, "%s", s);
}

static const char *const scaling_names[SC_COUNT] = {"none", "tensorwise", "axiswise", "blockwise",
                                                    "blockwise-1x128"};
/* blockwise-1x128, the longest name, fills the row's 16-byte scaling
 * column but for its NUL (results/schema.h): a longer one would be cut
 * short in every file, and --resume and compare would no longer find it. */
_Static_assert(sizeof "blockwise-1x128" <= sizeof(((struct f8b_gemm_row *)0)->scaling),
               "a --scaling name does not fit the gemm row's scaling column");

enum {
	OPT_SHAPES = 2000,
	OPT_SCALING,
	OPT_FAST_ACCUM,
	OPT_DTYPES,
	OPT_OUT_DTYPE,
	OPT_OUTLIERS,
	OPT_AUTOTUNE,
	OPT_CEILINGS,
	OPT_IMPL,
	OPT_OUT_T,
};

const struct f8b_option f8b_gemm_options[] = {
    {"shapes", OPT_SHAPES, 0, "SPEC",
     "shapes: set names (quick, pow2, square, llama2-70b, llama3-8b),\n"
     "shape files, or MxKxN, comma separated (default quick)"},
    {"scaling", OPT_SCALING, 0, "LIST",
     "tensorwise,axiswise,blockwise,blockwise-1x128 (default the\n"
     "first three); blockwise is A 1x128 and B 128x128 (DeepSeek-V3's\n"
     "output and grad_input GEMMs), blockwise-1x128 A 1x128 and B\n"
     "1x128 (its grad_weight GEMM)"},
    {"fast-accum", OPT_FAST_ACCUM, 0, "LIST", "on,off (default on,off)"},
    {"dtypes", OPT_DTYPES, 0, "LIST",
     "A:B fp8 pairs from e4m3:e4m3, e4m3:e5m2, e5m2:e4m3\n(default e4m3:e4m3)"},
    {"out-dtype", OPT_OUT_DTYPE, 0, "T",
     "fp8 GEMMs' output: bf16, f32, or e4m3 with its amax (d_scale\n"
     "448/amax of the reference D; impl f8b: e4m3 x e4m3, tensorwise\n"
     "or axiswise) (default bf16; the bf16 baseline writes bf16)"},
    {"impl", OPT_IMPL, 0, "LIST",
     "fp8 GEMM implementations, each case run with each: cublaslt,\n"
     "f8b (f8bench's own sm_90a kernel: tensorwise, axiswise, blockwise\n"
     "and blockwise-1x128, fast_accum on and off (promotion every 128 of\n"
     "K); the host backend refuses it) (default cublaslt)"},
    {"out-t", OPT_OUT_T, 0, "LIST",
     "off,on: whether the fp8 GEMM also writes D^T [N,M], D's values\n"
     "transposed (impl f8b only, bf16 or e4m3 output; cuBLASLt and the\n"
     "host refuse it, a row that says so) (default off)"},
    {"outliers", OPT_OUTLIERS, 0, "FRAC[:SCALE]",
     "multiply a fraction of inputs by SCALE (default 100) to\nstress scaling (default none)"},
    {"ceilings", OPT_CEILINGS, 0, "FILE",
     "roofline ceilings measured by f8bench ceilings (default: the\ndatasheet of this GPU, "
     "roofline/datasheet.tsv)"},
    {"autotune", OPT_AUTOTUNE, 0, "N",
     "time the heuristic's first N algorithms and keep the fastest\nwhen it beats the first by "
     "over 2% (default 1: no tuning)"},
    {0},
};

int f8b_gemm_cfg_new(void **cfg)
{
	struct gemm_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "gemm config");
	c->shapes_spec = "quick";
	c->scaling_spec = "tensorwise,axiswise,blockwise";
	c->fa_spec = "on,off";
	c->dtypes_spec = "e4m3:e4m3";
	c->impl_spec = "cublaslt";
	c->out_t_spec = "off";
	c->out_dtype = F8B_BF16;
	c->outlier_scale = 100.0f;
	c->autotune = 1;
	*cfg = c;
	return F8B_OK;
}

void f8b_gemm_cfg_free(void *cfg)
{
	struct gemm_cfg *c = cfg;
	f8b_shapes_free(&c->shapes);
	free(c->cases);
	free(c->base);
	free(c);
}

int f8b_gemm_cfg_option(void *cfg, int key, const char *arg)
{
	struct gemm_cfg *c = cfg;
	char *end;
	switch (key) {
	case OPT_SHAPES: c->shapes_spec = arg; return F8B_OK;
	case OPT_SCALING: c->scaling_spec = arg; return F8B_OK;
	case OPT_FAST_ACCUM: c->fa_spec = arg; return F8B_OK;
	case OPT_DTYPES: c->dtypes_spec = arg; return F8B_OK;
	case OPT_IMPL: c->impl_spec = arg; return F8B_OK;
	case OPT_OUT_T: c->out_t_spec = arg; return F8B_OK;
	case OPT_OUT_DTYPE:
		if (f8b_dtype_parse(arg, &c->out_dtype) != F8B_OK ||
		    (c->out_dtype != F8B_BF16 && c->out_dtype != F8B_F32 &&
		     c->out_dtype != F8B_E4M3))
			return F8B_ERR(
			    F8B_EINVAL,
			    "--out-dtype '%s': accepted: bf16, f32, e4m3 (an fp8 output is "
			    "e4m3 only)",
			    arg);
		return F8B_OK;
	case OPT_OUTLIERS:
		errno = 0;
		c->outlier_frac = strtof(arg, &end);
		if (*end == ':')
			c->outlier_scale = strtof(end + 1, &end);
		if (errno || *end || !(c->outlier_frac >= 0 && c->outlier_frac <= 1) ||
		    !(c->outlier_scale > 0 && isfinite(c->outlier_scale)))
			return F8B_ERR(F8B_EINVAL,
			               "--outliers '%s': expected FRAC[:SCALE] with 0 <= FRAC <= 1 "
			               "and SCALE > 0 (e.g. 0.001:100)",
			               arg);
		return F8B_OK;
	case OPT_CEILINGS: c->ceilings_path = arg; return F8B_OK;
	case OPT_AUTOTUNE: {
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 1 || v > 64)
			return F8B_ERR(F8B_EINVAL, "--autotune '%s': expected 1..64 candidates",
			               arg);
		c->autotune = (int)v;
		return F8B_OK;
	}
	}
	return F8B_ERR(F8B_EINTERNAL, "gemm option %d", key);
}

static int parse_scaling(const char *s, void *out)
{
	for (int i = SC_TENSORWISE; i < SC_COUNT; i++) {
		if (!strcasecmp(s, scaling_names[i])) {
			*(enum scaling_kind *)out = (enum scaling_kind)i;
			return F8B_OK;
		}
	}
	return F8B_ERR(F8B_EINVAL,
	               "unknown granularity '%s' (accepted: tensorwise, axiswise, blockwise, "
	               "blockwise-1x128)",
	               s);
}

static int parse_onoff(const char *s, void *out)
{
	if (!strcasecmp(s, "on") || !strcmp(s, "1") || !strcasecmp(s, "true")) {
		*(bool *)out = true;
		return F8B_OK;
	}
	if (!strcasecmp(s, "off") || !strcmp(s, "0") || !strcasecmp(s, "false")) {
		*(bool *)out = false;
		return F8B_OK;
	}
	return F8B_ERR(F8B_EINVAL, "'%s' (accepted: on, off)", s);
}

static int parse_impl(const char *s, void *out)
{
	return f8b_gemm_impl_parse(s, out);
}

static int parse_pair(const char *s, void *out)
{
	struct dtype_pair *p = out;
	char a[32], b[32];
	const char *colon = strchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof a || strlen(colon + 1) >= sizeof b)
		goto bad;
	snprintf(a, sizeof a, "%.*s", (int)(colon - s), s);
	snprintf(b, sizeof b, "%s", colon + 1);
	if (f8b_dtype_parse(a, &p->a) != F8B_OK || f8b_dtype_parse(b, &p->b) != F8B_OK ||
	    !f8b_dtype_is_fp8(p->a) || !f8b_dtype_is_fp8(p->b))
		goto bad;
	if (p->a == F8B_E5M2 && p->b == F8B_E5M2)
		return F8B_ERR(F8B_EINVAL,
		               "dtype pair '%s': e5m2 x e5m2 is not an fp8 GEMM cuBLASLt runs "
		               "(accepted: e4m3:e4m3, e4m3:e5m2, e5m2:e4m3)",
		               s);
	return F8B_OK;
bad:
	return F8B_ERR(F8B_EINVAL,
	               "unknown dtype pair '%s' (accepted: e4m3:e4m3, e4m3:e5m2, e5m2:e4m3)", s);
}

int f8b_gemm_cfg_finalize(void *cfg, size_t *ncases)
{
	struct gemm_cfg *c = cfg;
	enum scaling_kind *sc = NULL;
	bool *fa = NULL;
	struct dtype_pair *dt = NULL;
	enum f8b_gemm_impl *im = NULL;
	bool *ot = NULL;
	size_t nsc = 0, nfa = 0, ndt = 0, nim = 0, nout_t = 0;
	int rc = f8b_shapes_parse(c->shapes_spec, &c->shapes);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->scaling_spec, "--scaling", sizeof *sc, parse_scaling,
		                    (void **)&sc, &nsc);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->fa_spec, "--fast-accum", sizeof *fa, parse_onoff,
		                    (void **)&fa, &nfa);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->dtypes_spec, "--dtypes", sizeof *dt, parse_pair,
		                    (void **)&dt, &ndt);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->impl_spec, "--impl", sizeof *im, parse_impl, (void **)&im,
		                    &nim);
	if (rc == F8B_OK)
		rc = f8b_parse_list(c->out_t_spec, "--out-t", sizeof *ot, parse_onoff, (void **)&ot,
		                    &nout_t);
	/* A ceilings file is bad input if it cannot be read: say so now,
	 * before any results file exists. */
	if (rc == F8B_OK && c->ceilings_path) {
		struct f8b_ceilings probe;
		int crc = f8b_ceilings_read(c->ceilings_path, NULL, &probe);
		if (crc != F8B_OK)
			rc = F8B_ERR(F8B_EINVAL, "--ceilings '%s': %s", c->ceilings_path,
			             f8b_last_error());
	}
	/* Per shape: the bf16 baseline case, then every fp8 combination, each
	 * with every implementation in turn and, within it, D alone then with
	 * D^T (side by side in one process). */
	size_t nfp8 = nsc * nfa * ndt * nim * nout_t;
	size_t per = 1 + nfp8;
	if (rc == F8B_OK && !(c->cases = calloc(c->shapes.n * per, sizeof *c->cases)))
		rc = F8B_ERR(F8B_ENOMEM, "%zu cases", c->shapes.n * per);
	if (rc == F8B_OK && !(c->base = calloc(c->shapes.n, sizeof *c->base)))
		rc = F8B_ERR(F8B_ENOMEM, "baselines");
	for (size_t s = 0; rc == F8B_OK && s < c->shapes.n; s++) {
		c->cases[c->ncases++] =
		    (struct gemm_case){.shape = s, .sc = SC_NONE, .dt = {F8B_BF16, F8B_BF16}};
		size_t dims[5] = {nsc, nfa, ndt, nim, nout_t}, idx[5];
		for (size_t j = 0; j < nfp8; j++) {
			f8b_cross_index(j, dims, 5, idx);
			c->cases[c->ncases++] = (struct gemm_case){.shape = s,
			                                           .sc = sc[idx[0]],
			                                           .fast_accum = fa[idx[1]],
			                                           .dt = dt[idx[2]],
			                                           .impl = im[idx[3]],
			                                           .out_t = ot[idx[4]]};
		}
	}
	free(sc);
	free(fa);
	free(dt);
	free(im);
	free(ot);
	*ncases = c->ncases;
	return rc;
}

void f8b_gemm_grans(enum scaling_kind sc, enum f8b_granularity *ga, enum f8b_granularity *gb)
{
	*ga = *gb = F8B_GRAN_TENSORWISE;
	if (sc == SC_AXISWISE)
		*ga = *gb = F8B_GRAN_AXISWISE;
	if (sc == SC_BLOCKWISE) {
		*ga = F8B_GRAN_BLOCK1X128;
		*gb = F8B_GRAN_BLOCK128X128;
	}
	if (sc == SC_BLOCKWISE_1X128)
		*ga = *gb = F8B_GRAN_BLOCK1X128;
}

void f8b_gemm_case_key(const void *cfg, size_t i, void *vrow)
{
	const struct gemm_cfg *c = cfg;
	const struct gemm_case *gc = &c->cases[i];
	const struct f8b_shape *s = &c->shapes.v[gc->shape];
	struct f8b_gemm_row *row = vrow;
	enum f8b_granularity ga, gb;
	row->m = s->m;
	row->k = s->k;
	row->n = s->n;
	/* Not measured (yet): NaN, so an unsupported or wrong row never reads
	 * as a time of zero. */
	row->time_median_s = row->time_min_s = row->time_max_s = row->time_noise = NAN;
	row->tflops = row->pct_peak = row->bf16_time_median_s = row->speedup_vs_bf16 = NAN;
	row->arith_intensity = row->predicted_time_s = row->pct_of_roofline = NAN;
	row->rel_error = row->tolerance = row->sqnr_db = row->heuristic_time_median_s = NAN;
	row->algo_id = row->algo_tile = row->algo_stages = row->algo_splitk = -1;
	row->algo_swizzle = row->algo_reduction = row->algo_custom = row->algo_cluster = -1;
	row->heuristic_rank = -1;
	f8b_gemm_setstr(row->label, sizeof row->label, s->label);
	f8b_gemm_setstr(row->scaling, sizeof row->scaling, scaling_names[gc->sc]);
	f8b_gemm_grans(gc->sc, &ga, &gb);
	f8b_gemm_setstr(row->a_gran, sizeof row->a_gran,
	                gc->sc == SC_NONE ? "none" : f8b_granularity_name(ga));
	f8b_gemm_setstr(row->b_gran, sizeof row->b_gran,
	                gc->sc == SC_NONE ? "none" : f8b_granularity_name(gb));
	row->fast_accum = gc->fast_accum;
	f8b_gemm_setstr(row->a_dtype, sizeof row->a_dtype, f8b_dtype_name(gc->dt.a));
	f8b_gemm_setstr(row->b_dtype, sizeof row->b_dtype, f8b_dtype_name(gc->dt.b));
	f8b_gemm_setstr(row->out_dtype, sizeof row->out_dtype,
	                f8b_dtype_name(gc->sc == SC_NONE ? F8B_BF16 : c->out_dtype));
	f8b_gemm_setstr(row->impl, sizeof row->impl, f8b_gemm_impl_name(gc->impl));
	row->out_t = gc->out_t;
}

/* A row's implementation; files written before the column existed read
 * "" there, which is what they ran: cuBLASLt (or the host reference). */
static const char *row_impl(const struct f8b_gemm_row *r)
{
	return r->impl[0] ? r->impl : "cublaslt";
}

bool f8b_gemm_same_case(const void *va, const void *vb)
{
	const struct f8b_gemm_row *a = va, *b = vb;
	return a->m == b->m && a->k == b->k && a->n == b->n && a->fast_accum == b->fast_accum &&
	       !strcmp(a->scaling, b->scaling) && !strcmp(a->a_dtype, b->a_dtype) &&
	       !strcmp(a->b_dtype, b->b_dtype) && !strcmp(a->out_dtype, b->out_dtype) &&
	       !strncmp(row_impl(a), row_impl(b), sizeof a->impl) && a->out_t == b->out_t;
}

void f8b_gemm_describe(const void *vrow, char *buf, size_t n)
{
	const struct f8b_gemm_row *r = vrow;
	if (!strcmp(r->scaling, "none"))
		snprintf(buf, n, "%lldx%lldx%lld bf16", (long long)r->m, (long long)r->k,
		         (long long)r->n);
	else
		snprintf(buf, n, "%lldx%lldx%lld %s fast_accum=%s %s:%s%s%.16s%s", (long long)r->m,
		         (long long)r->k, (long long)r->n, r->scaling, r->fast_accum ? "on" : "off",
		         r->a_dtype, r->b_dtype, strcmp(row_impl(r), "cublaslt") ? " impl=" : "",
		         strcmp(row_impl(r), "cublaslt") ? row_impl(r) : "",
		         r->out_t ? " +D^T" : "");
}

void f8b_gemm_summarize(const void *vrow, char *buf, size_t n)
{
	const struct f8b_gemm_row *r = vrow;
	char roof[48] = "no roofline for this device";
	if (!isnan(r->pct_of_roofline))
		snprintf(roof, sizeof roof, "%.0f%% of roofline", r->pct_of_roofline);
	snprintf(buf, n, "%.4g ms %.4g TFLOP/s %.2fx bf16, SQNR %.1f dB, AI %.0f, %s",
	         1e3 * r->time_median_s, r->tflops, r->speedup_vs_bf16, r->sqnr_db,
	         r->arith_intensity, roof);
}
