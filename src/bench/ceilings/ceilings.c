/* ceilings.c - `f8bench ceilings`: the machine's roofline ceilings,
 * measured with the same harness as every benchmark and written one row per
 * ceiling beside its datasheet value (doc/roofline.md, "Measuring the
 * ceilings"; the Empirical Roofline Toolkit does the same per memory
 * level).  This file is the driver: its options, rows and descriptor; the
 * case list is built in ceilings_cfg.c, each ceiling is set up and launched
 * in ceil_setup.c and checked in ceil_check.c.
 *
 * Cases, in this order (all collective: every rank runs every case at the
 * same time on its own GPU, and each sample is the slowest rank's time):
 *   read, write, copy  bandwidth over working sets (bytes read + written /
 *                      time); small sets sit in L2, large ones show HBM
 *   gemm               bf16 and fp8 (e4m3, tensorwise, fast_accum) GEMM
 *                      peaks through the backend's GEMM: 2MNK / time, over
 *                      several shapes and the heuristic's first algorithms
 *   launch             the cost of one empty kernel launch, back to back
 *   allgather,         collective bus bandwidth (nccl-tests' busbw), only
 *   allreduce          with more than one rank
 * Every case is checked once before it is timed: bandwidth results against
 * host sums of the same seeded data, GEMMs against a double reference on a
 * sampled block, collectives by position-weighted checksums.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/ceilings/ceilings_int.h"
#include "report/report.h"
#include "results/schema.h"

const char *const f8b_ceil_kind_names[K_COUNT] = {"read",   "write",     "copy",     "gemm",
                                                  "launch", "allgather", "allreduce"};
static const struct f8b_option ceil_options[] = {
    {"kinds", OPT_KINDS, 0, "LIST",
     "ceilings to measure: read, write, copy, gemm, launch,\n"
     "allgather, allreduce (default all; the last two only\nunder mpiexec with > 1 rank)"},
    {"sizes", OPT_SIZES, 0, "LIST|MIN:MAX",
     "read/write/copy working sets in bytes, K/M/G suffixes\n"
     "(x1024), multiples of 256; MIN:MAX steps x4 (default\n" GPU_SIZES " with a GPU, " HOST_SIZES
     " on the host)"},
    {"launch-bytes", OPT_LAUNCH_BYTES, 0, "N",
     "bytes each bandwidth launch moves at least: a smaller\n"
     "working set is swept several times per launch (default\n1G with a GPU, 64M on the host)"},
    {"gemm-shapes", OPT_GEMM_SHAPES, 0, "SPEC",
     "GEMM shapes as gemm --shapes takes them, each run in bf16\n"
     "and e4m3 (default " GPU_SHAPES "\nwith a GPU, " HOST_SHAPES " on the host)"},
    {"gemm-algos", OPT_GEMM_ALGOS, 0, "N",
     "time the heuristic's first N GEMM algorithms of each\nshape and dtype: the peak is the "
     "best row (default 4\nwith a GPU, 1 on the host)"},
    {"launches", OPT_LAUNCHES, 0, "N",
     "empty launches timed back to back per sample\n(default 1000)"},
    {"coll-sizes", OPT_COLL_SIZES, 0, "LIST|MIN:MAX",
     "all-gather / all-reduce message sizes in bytes, as\n--sizes (default " GPU_COLL_SIZES
     " with a GPU, " HOST_COLL_SIZES " on the host)"},
    {"nccl-buffers", OPT_NCCL_BUFFERS, 0, "LIST",
     "collectives' buffers: plain (cudaMalloc), registered\n"
     "(ncclMemAlloc + ncclCommRegister), symmetric (ncclMemAlloc\n"
     "+ a symmetric window); each a row (default plain)"},
    {"nccl-cta-policy", OPT_NCCL_CTA, 0, "LIST",
     "NCCL CTA policy: default, efficiency, zero (copy\n"
     "engines, symmetric buffers only); each a row (default\ndefault)"},
    {"in-place", OPT_IN_PLACE, 0, "LIST",
     "collectives in place (on: the all-gather's input is\n"
     "the rank's part of its output, as FSDP gathers) and/or\nout of place (off) (default on,off)"},
    {"timeout", OPT_TIMEOUT, 0, "SEC",
     "NCCL init and each collective must finish within SEC\n"
     "seconds, else the run ends naming the cause (default 120)"},
    {0},
};

/* ------------------------------------------------------------ rows */

static const char *unit_of(enum kind k)
{
	return k == K_GEMM ? "FLOP/s" : k == K_LAUNCH ? "s" : "B/s";
}

static void case_key(const void *cfg, size_t i, void *vrow)
{
	const struct ceil_cfg *c = cfg;
	const struct ceil_case *cs = &c->cases[i];
	struct f8b_ceilings_row *row = vrow;
	setstr(row->kind, sizeof row->kind, f8b_ceil_kind_names[cs->kind]);
	setstr(row->dtype, sizeof row->dtype, cs->kind == K_GEMM ? f8b_dtype_name(cs->dtype) : "");
	setstr(row->unit, sizeof row->unit, unit_of(cs->kind));
	row->bytes = is_bw(cs->kind) || is_coll(cs->kind) ? cs->bytes : 0;
	row->m = row->k = row->n = 0;
	if (cs->kind == K_GEMM) {
		row->m = c->shapes.v[cs->shape].m;
		row->k = c->shapes.v[cs->shape].k;
		row->n = c->shapes.v[cs->shape].n;
	}
	row->ranks = c->nranks;
	row->candidate = cs->kind == K_GEMM ? cs->algo : 0;
	row->in_place = is_coll(cs->kind) && cs->in_place;
	setstr(row->nccl_buffers, sizeof row->nccl_buffers,
	       is_coll(cs->kind) ? f8b_coll_buffers_names[cs->buffers] : "");
	setstr(row->cta_policy, sizeof row->cta_policy,
	       is_coll(cs->kind) ? f8b_coll_cta_names[cs->cta] : "");
	/* Not measured (yet): NaN, never a time or rate of zero. */
	row->time_median_s = row->time_min_s = row->time_max_s = row->time_noise = NAN;
	row->value = row->datasheet_value = NAN;
}

/* A collective row written before the buffer and policy columns was
 * plain, default and out of place: "" reads as those. */
static bool same_name(const char *a, const char *b, const char *dflt, bool coll)
{
	if (coll) {
		a = *a ? a : dflt;
		b = *b ? b : dflt;
	}
	return !strcmp(a, b);
}

static bool same_case(const void *va, const void *vb)
{
	const struct f8b_ceilings_row *a = va, *b = vb;
	bool coll = !strcmp(a->kind, "allgather") || !strcmp(a->kind, "allreduce");
	return !strcmp(a->kind, b->kind) && !strcmp(a->dtype, b->dtype) && a->bytes == b->bytes &&
	       a->m == b->m && a->k == b->k && a->n == b->n && a->ranks == b->ranks &&
	       a->candidate == b->candidate && a->in_place == b->in_place &&
	       same_name(a->nccl_buffers, b->nccl_buffers, "plain", coll) &&
	       same_name(a->cta_policy, b->cta_policy, "default", coll);
}

/* "64 KiB", "1 MiB", "4 GiB", or bytes when not a whole unit. */
static void fmt_bytes(int64_t b, char *buf, size_t n)
{
	if (b >= GIB && b % GIB == 0)
		snprintf(buf, n, "%lld GiB", (long long)(b / GIB));
	else if (b >= MIB && b % MIB == 0)
		snprintf(buf, n, "%lld MiB", (long long)(b / MIB));
	else if (b >= KIB && b % KIB == 0)
		snprintf(buf, n, "%lld KiB", (long long)(b / KIB));
	else
		snprintf(buf, n, "%lld B", (long long)b);
}

static void describe(const void *vrow, char *buf, size_t n)
{
	const struct f8b_ceilings_row *r = vrow;
	char b[32];
	fmt_bytes(r->bytes, b, sizeof b);
	if (!strcmp(r->kind, "gemm") && r->candidate > 0)
		snprintf(buf, n, "gemm %s %lldx%lldx%lld algo #%d", r->dtype, (long long)r->m,
		         (long long)r->k, (long long)r->n, (int)r->candidate);
	else if (!strcmp(r->kind, "gemm"))
		snprintf(buf, n, "gemm %s %lldx%lldx%lld", r->dtype, (long long)r->m,
		         (long long)r->k, (long long)r->n);
	else if (!strcmp(r->kind, "launch"))
		snprintf(buf, n, "launch (empty kernel)");
	else if (!strcmp(r->kind, "allgather") || !strcmp(r->kind, "allreduce"))
		snprintf(buf, n, "%s %s on %d ranks, %s buffers, %s CTAs, %s", r->kind, b,
		         (int)r->ranks, *r->nccl_buffers ? r->nccl_buffers : "plain",
		         *r->cta_policy ? r->cta_policy : "default",
		         r->in_place ? "in place" : "out of place");
	else
		snprintf(buf, n, "%s %s", r->kind, b);
}

static void summarize(const void *vrow, char *buf, size_t n)
{
	const struct f8b_ceilings_row *r = vrow;
	char pct[48] = "";
	if (isfinite(r->datasheet_value) && r->datasheet_value > 0)
		snprintf(pct, sizeof pct, " (%.0f%% of datasheet)",
		         100.0 * r->value / r->datasheet_value);
	if (!strcmp(r->unit, "FLOP/s"))
		snprintf(buf, n, "%.4g TFLOP/s%s", r->value / 1e12, pct);
	else if (!strcmp(r->unit, "s"))
		snprintf(buf, n, "%.3g us per launch", r->value * 1e6);
	else
		snprintf(buf, n, "%.4g GB/s%s%s", r->value / 1e9,
		         !strcmp(r->kind, "allgather") || !strcmp(r->kind, "allreduce") ? " busbw"
		                                                                        : "",
		         pct);
}

/* ------------------------------------------------------------ results */

static int finish(void *vs, const struct f8b_measure_result *m, void *vrow)
{
	struct ceil_state *s = vs;
	struct ceil_cfg *c = s->cfg;
	struct f8b_ceilings_row *row = vrow;
	double t = m->median_s;
	row->time_median_s = t;
	row->time_min_s = m->min_s;
	row->time_max_s = m->max_s;
	row->time_noise = m->noise;
	row->samples = m->samples;
	row->batch = m->batch;
	row->converged = m->converged;
	row->throttled = m->throttled;
	switch (s->cs.kind) {
	case K_GEMM:
		row->value = 2.0 * (double)row->m * (double)row->n * (double)row->k / t;
		row->datasheet_value = 1e12 * f8b_peak_tflops(&c->peaks, s->cs.dtype);
		break;
	case K_LAUNCH: row->value = t / c->launches; break;
	case K_ALLGATHER:
	case K_ALLREDUCE:
		/* A peer that died mid-measurement aborted the communicator:
		 * the samples after it are not collectives. */
		F8B_TRY(f8b_coll_status(s->coll));
		/* busbw = algbw x factor (nccl-tests, doc/roofline.md). */
		row->value = s->moved / t * s->factor;
		snprintf(row->message, sizeof row->message, "%s; algbw %.4g GB/s",
		         f8b_coll_library(s->coll), s->moved / t / 1e9);
		break;
	default:
		/* Every pass moves the whole working set once (read + written). */
		row->value = (double)s->passes * (double)s->cs.bytes / t;
		/* Well beyond L2 the sweep runs from device memory and the
		 * datasheet's HBM figure is the comparable number.  Just beyond
		 * it is not: L2 is not LRU, so part of a set a little larger
		 * stays resident (an H100, 50 MiB L2, read 64 MiB at 137% of
		 * HBM), hence the margin of L2_MARGIN. */
		if (c->peaks.known && c->peaks.hbm_tbs > 0 && s->run->dev.l2_bytes > 0 &&
		    (double)s->cs.bytes >= L2_MARGIN * (double)s->run->dev.l2_bytes)
			row->datasheet_value = c->peaks.hbm_tbs * 1e12;
		break;
	}
	if (!m->converged && s->run->verbose)
		fprintf(stderr, "f8bench ceilings: %s: not converged: %s\n", row->kind, m->unmet);
	/* The unmet criterion replaces the check's note; a collective keeps
	 * the name of the library that ran it. */
	if (!m->converged && is_coll(s->cs.kind))
		snprintf(row->message, sizeof row->message, "%s; timing not converged: %.60s",
		         f8b_coll_library(s->coll), m->unmet);
	else if (!m->converged)
		snprintf(row->message, sizeof row->message, "timing not converged: %.70s",
		         m->unmet);
	return F8B_OK;
}

/* Collectives time a batch of back-to-back calls per sample, sized to
 * cover COLL_BATCH_TARGET_S, unless --batch fixed it; other kinds keep the
 * run's options. */
static void tune(void *vs, struct f8b_measure_opts *o)
{
	const struct ceil_state *s = vs;
	if (!is_coll(s->cs.kind) || o->batch > 1)
		return;
	o->batch_target_s = COLL_BATCH_TARGET_S;
	o->batch_max = COLL_BATCH_MAX;
}

/* Backend memory case i allocates in setup(): bandwidth buffers (the copy's
 * two halves fit in its working set), GEMM operands, collective buffers
 * (send and the gathered receive).  Launch allocates nothing. */
static int64_t case_bytes(const void *cfg, size_t i)
{
	const struct ceil_cfg *c = cfg;
	const struct ceil_case *cs = &c->cases[i];
	if (is_bw(cs->kind))
		return cs->bytes + 4096 * 8;
	if (is_coll(cs->kind))
		return 2 * cs->bytes + (cs->buffers != F8B_COLL_BUF_PLAIN ? 4 << 20 : 0);
	if (cs->kind == K_GEMM) {
		const struct f8b_shape *s = &c->shapes.v[cs->shape];
		double mk = (double)s->m * (double)s->k, nk = (double)s->n * (double)s->k;
		return (int64_t)fmin(3 * (mk + nk) + 4 * (double)s->m * (double)s->n, 9e18);
	}
	return 0;
}

/* What case_key fills and same_case / describe read. */
static const char *const ceil_key_columns[] = {
    "kind",      "dtype",    "bytes",        "m",          "k", "n", "ranks", "unit",
    "candidate", "in_place", "nccl_buffers", "cta_policy", NULL};

const struct f8b_bench f8b_bench_ceilings = {
    .name = "ceilings",
    .summary = "roofline ceilings: bandwidth per working set, GEMM peaks, launch cost\n"
               "Measures read/write/copy bandwidth from L2-sized to HBM-sized working sets,\n"
               "the bf16 and fp8 GEMM peaks, the cost of one kernel launch and, under\n"
               "mpiexec, all-gather / all-reduce bus bandwidth; each beside its datasheet\n"
               "value, each checked before it is timed.",
    .schema = &f8b_ceilings_schema,
    .options = ceil_options,
    .collective = true,
    .cfg_new = f8b_ceil_cfg_new,
    .cfg_option = f8b_ceil_cfg_option,
    .cfg_finalize = f8b_ceil_cfg_finalize,
    .cfg_free = f8b_ceil_cfg_free,
    .case_key = case_key,
    .same_case = same_case,
    .describe = describe,
    .summarize = summarize,
    .off_status = offsetof(struct f8b_ceilings_row, status),
    .off_message = offsetof(struct f8b_ceilings_row, message),
    .off_run_id = offsetof(struct f8b_ceilings_row, run_id),
    .setup = f8b_ceil_setup,
    .launch = f8b_ceil_launch,
    .check = f8b_ceil_check,
    .tune = tune,
    .finish = finish,
    .teardown = f8b_ceil_teardown,
    .case_bytes = case_bytes,
    .key_columns = ceil_key_columns,
    .time_column = "time_median_s",
    .noise_column = "time_noise",
    .throttled_column = "throttled",
    .report = &f8b_ceilings_report,
};
