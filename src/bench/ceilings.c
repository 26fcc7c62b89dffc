/* ceilings.c - `f8bench ceilings`: the machine's roofline ceilings,
 * measured with the same harness as every benchmark and written one row per
 * ceiling beside its datasheet value (doc/roofline.md, "Measuring the
 * ceilings"; the Empirical Roofline Toolkit does the same per memory
 * level).
 *
 * Cases, in this order (all collective: every rank runs every case at the
 * same time on its own GPU, and each sample is the slowest rank's time):
 *   read, write, copy  bandwidth over working sets (bytes read + written /
 *                      time); small sets sit in L2, large ones show HBM
 *   gemm               bf16 and fp8 (e4m3, tensorwise, fast_accum) GEMM
 *                      peaks through the backend's GEMM: 2MNK / time
 *   launch             the cost of one empty kernel launch, back to back
 *   allgather,         collective bus bandwidth (nccl-tests' busbw), only
 *   allreduce          with more than one rank
 * Every case is checked once before it is timed: bandwidth results against
 * host sums of the same seeded data, GEMMs against a double reference on a
 * sampled block, collectives by position-weighted checksums.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness/bench.h"
#include "report/report.h"
#include "bench/gemm_check.h"
#include "core/cases.h"
#include "harness/comm.h"
#include "core/fp8.h"
#include "model/peaks.h"
#include "backend/reference.h"
#include "results/schema.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
#define GIB ((int64_t)1 << 30)
/* Sizes are whole 256-byte units: the copy's two halves then stay multiples
 * of the 16-byte vectors the kernels move, with room to spare. */
#define SIZE_UNIT 256
#define MAX_SIZE  ((int64_t)1 << 40)
/* Host memory used at a time when a check walks a large device buffer. */
#define CHECK_CHUNK ((size_t)64 << 20)
/* Seeded floats compared bit for bit with the host backend's fill. */
#define PREFIX_FLOATS 4096
/* GEMM check: a sampled block of D, last row and column included. */
#define CHECK_ROWS 16
#define CHECK_COLS 64

/* Defaults.  On a GPU the sweep reaches well past L2 (50 MiB on an H100)
 * into HBM; on the host it stays small enough for CI. */
#define GPU_SIZES           "1M:4G"
#define HOST_SIZES          "1M:256M"
#define HOST_MAX_SIZE       (256 * MIB)
#define GPU_COLL_SIZES      "1M:1G"
#define HOST_COLL_SIZES     "1M:64M"
#define HOST_MAX_COLL       (64 * MIB)
#define GPU_SHAPES          "8192x8192x8192"
#define HOST_SHAPES         "512x512x512"
#define HOST_MAX_GEMM_FLOPS (2.0 * 1024 * 1024 * 1024)
/* Bytes one bandwidth launch moves at least: 1 GiB is ~300 us of HBM or
 * ~100 us of L2 traffic on an H100, against a launch cost of a few us. */
#define GPU_LAUNCH_BYTES GIB
/* Working sets at least this many times L2 are compared with HBM. */
#define L2_MARGIN         4
#define HOST_LAUNCH_BYTES (64 * MIB)

enum kind { K_READ, K_WRITE, K_COPY, K_GEMM, K_LAUNCH, K_ALLGATHER, K_ALLREDUCE, K_COUNT };
static const char *const kind_names[K_COUNT] = {"read",   "write",     "copy",     "gemm",
                                                "launch", "allgather", "allreduce"};

static bool is_bw(enum kind k)
{
	return k == K_READ || k == K_WRITE || k == K_COPY;
}

static bool is_coll(enum kind k)
{
	return k == K_ALLGATHER || k == K_ALLREDUCE;
}

struct ceil_case {
	enum kind kind;
	int64_t bytes;        /* working set (bandwidth) or message size (collectives) */
	size_t shape;         /* gemm: index into cfg->shapes */
	enum f8b_dtype dtype; /* gemm: bf16 or e4m3 */
};

struct ceil_cfg {
	const char *kinds_spec, *sizes_spec, *coll_spec, *shapes_spec;
	int64_t launch_bytes; /* 0: the backend's default, chosen in setup */
	int launches;
	double timeout_s;
	int nranks;
	/* Default lists are sized for a GPU when one is visible; see
	 * host_too_big(). */
	bool gpu_defaults;
	bool want[K_COUNT];
	int64_t *sizes, *coll;
	size_t nsizes, ncoll;
	struct f8b_shapes shapes;
	struct ceil_case *cases;
	size_t ncases;
	struct f8b_peaks peaks;
	bool peaks_done;
	struct f8b_coll *coll_h;  /* opened by the first collective case */
	int coll_rc;              /* its failure, kept so later cases fail at once */
	struct f8b_backend *href; /* host backend for reference fills (cuda runs) */
};

enum {
	OPT_KINDS = 3000,
	OPT_SIZES,
	OPT_LAUNCH_BYTES,
	OPT_GEMM_SHAPES,
	OPT_LAUNCHES,
	OPT_COLL_SIZES,
	OPT_TIMEOUT,
};

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
    {"launches", OPT_LAUNCHES, 0, "N",
     "empty launches timed back to back per sample\n(default 1000)"},
    {"coll-sizes", OPT_COLL_SIZES, 0, "LIST|MIN:MAX",
     "all-gather / all-reduce message sizes in bytes, as\n--sizes (default " GPU_COLL_SIZES
     " with a GPU, " HOST_COLL_SIZES " on the host)"},
    {"timeout", OPT_TIMEOUT, 0, "SEC",
     "NCCL init and each collective must finish within SEC\n"
     "seconds, else the run ends naming the cause (default 120)"},
    {0},
};

/* ------------------------------------------------------------ options */

static int cfg_new(void **cfg)
{
	struct ceil_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "ceilings config");
	c->launches = 1000;
	c->timeout_s = 120;
	*cfg = c;
	return F8B_OK;
}

static void cfg_free(void *cfg)
{
	struct ceil_cfg *c = cfg;
	f8b_coll_close(c->coll_h);
	if (c->href)
		f8b_backend_host.close(c->href);
	f8b_shapes_free(&c->shapes);
	free(c->sizes);
	free(c->coll);
	free(c->cases);
	free(c);
}

/* "4096", "64K", "1M", "4G", "1GiB" -> bytes (binary multiples). */
static int parse_size(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	int64_t mul = 1;
	if (end != s && *end) {
		switch (*end) {
		case 'k':
		case 'K': mul = KIB; break;
		case 'm':
		case 'M': mul = MIB; break;
		case 'g':
		case 'G': mul = GIB; break;
		case 't':
		case 'T': mul = GIB * 1024; break;
		default: mul = 0;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
	}
	int64_t b;
	if (errno || end == s || *end || mul == 0 || v <= 0 || f8b_mul_overflows(v, mul, &b))
		return F8B_ERR(F8B_EINVAL,
		               "size '%s' (accepted: a positive byte count with an optional "
		               "K/M/G/T suffix, e.g. 4096, 64K, 1M, 4G)",
		               s);
	if (b % SIZE_UNIT || b > MAX_SIZE)
		return F8B_ERR(F8B_EINVAL,
		               "size '%s' = %lld bytes (accepted: a multiple of %d, at most 1T)", s,
		               (long long)b, SIZE_UNIT);
	*out = b;
	return F8B_OK;
}

static int parse_size_item(const char *s, void *out)
{
	return parse_size(s, out);
}

/* "LIST" or "MIN:MAX" (MIN, 4 MIN, 16 MIN, ... up to MAX). */
static int parse_sizes(const char *spec, const char *what, int64_t **v, size_t *n)
{
	const char *colon = strchr(spec, ':');
	if (!colon)
		return f8b_parse_list(spec, what, sizeof **v, parse_size_item, (void **)v, n);
	char lo_s[64];
	int64_t lo, hi;
	if ((size_t)(colon - spec) >= sizeof lo_s)
		return F8B_ERR(F8B_EINVAL, "%s '%s': expected LIST or MIN:MAX", what, spec);
	snprintf(lo_s, sizeof lo_s, "%.*s", (int)(colon - spec), spec);
	if (parse_size(lo_s, &lo) != F8B_OK || parse_size(colon + 1, &hi) != F8B_OK)
		return F8B_ERR(F8B_EINVAL, "%s '%s': %s", what, spec, f8b_last_error());
	if (hi < lo)
		return F8B_ERR(F8B_EINVAL, "%s '%s': MAX is below MIN", what, spec);
	size_t cnt = 0;
	for (int64_t b = lo; b <= hi; b *= 4)
		cnt++;
	if (!(*v = calloc(cnt, sizeof **v)))
		return F8B_ERR(F8B_ENOMEM, "%s: %zu sizes", what, cnt);
	*n = 0;
	for (int64_t b = lo; b <= hi; b *= 4)
		(*v)[(*n)++] = b;
	return F8B_OK;
}

static int parse_kind(const char *s, void *out)
{
	for (int k = 0; k < K_COUNT; k++) {
		if (!strcasecmp(s, kind_names[k])) {
			*(enum kind *)out = (enum kind)k;
			return F8B_OK;
		}
	}
	return F8B_ERR(
	    F8B_EINVAL,
	    "unknown ceiling '%s' (accepted: read, write, copy, gemm, launch, allgather, "
	    "allreduce)",
	    s);
}

static int cfg_option(void *cfg, int key, const char *arg)
{
	struct ceil_cfg *c = cfg;
	int64_t v;
	char *end;
	switch (key) {
	case OPT_KINDS: c->kinds_spec = arg; return F8B_OK;
	case OPT_SIZES: c->sizes_spec = arg; return F8B_OK;
	case OPT_COLL_SIZES: c->coll_spec = arg; return F8B_OK;
	case OPT_GEMM_SHAPES: c->shapes_spec = arg; return F8B_OK;
	case OPT_LAUNCH_BYTES:
		if (parse_size(arg, &v) != F8B_OK)
			return F8B_ERR(F8B_EINVAL, "--launch-bytes: %s", f8b_last_error());
		c->launch_bytes = v;
		return F8B_OK;
	case OPT_LAUNCHES: {
		errno = 0;
		long n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1 || n > 1000000)
			return F8B_ERR(F8B_EINVAL,
			               "--launches '%s': expected an integer in [1, 1000000]", arg);
		c->launches = (int)n;
		return F8B_OK;
	}
	case OPT_TIMEOUT:
		errno = 0;
		c->timeout_s = strtod(arg, &end);
		if (errno || end == arg || *end || !(c->timeout_s > 0 && c->timeout_s <= 86400))
			return F8B_ERR(F8B_EINVAL, "--timeout '%s': expected seconds in (0, 86400]",
			               arg);
		return F8B_OK;
	}
	return F8B_ERR(F8B_EINTERNAL, "ceilings option %d", key);
}

/* The case list is fixed before the backend is chosen, so the defaults
 * follow what the run will most likely use: a GPU when one is visible. */
static bool gpu_visible(void)
{
#ifdef F8B_HAVE_CUDA
	return f8b_cuda_device_count(NULL, 0) > 0;
#else
	return false;
#endif
}

static int add_case(struct ceil_cfg *c, size_t cap, struct ceil_case cs)
{
	if (c->ncases >= cap)
		return F8B_ERR(F8B_EINTERNAL, "ceilings case list overflow");
	c->cases[c->ncases++] = cs;
	return F8B_OK;
}

static int cfg_finalize(void *cfg, size_t *ncases)
{
	struct ceil_cfg *c = cfg;
	enum kind *kinds = NULL;
	size_t nk = 0;
	int rc = F8B_OK;

	c->nranks = f8b_comm_size();
	c->gpu_defaults = gpu_visible();
	if (c->kinds_spec) {
		rc = f8b_parse_list(c->kinds_spec, "--kinds", sizeof *kinds, parse_kind,
		                    (void **)&kinds, &nk);
		for (size_t i = 0; rc == F8B_OK && i < nk; i++) {
			if (is_coll(kinds[i]) && c->nranks < 2)
				rc =
				    F8B_ERR(F8B_EINVAL,
				            "--kinds %s: a collective needs more than one MPI rank "
				            "(run under mpiexec -n N, N >= 2)",
				            kind_names[kinds[i]]);
			else
				c->want[kinds[i]] = true;
		}
		free(kinds);
	} else {
		for (int k = 0; k < K_COUNT; k++)
			c->want[k] = !is_coll((enum kind)k) || c->nranks > 1;
	}
	if (rc == F8B_OK)
		rc = parse_sizes(c->sizes_spec     ? c->sizes_spec
		                 : c->gpu_defaults ? GPU_SIZES
		                                   : HOST_SIZES,
		                 "--sizes", &c->sizes, &c->nsizes);
	if (rc == F8B_OK)
		rc = parse_sizes(c->coll_spec      ? c->coll_spec
		                 : c->gpu_defaults ? GPU_COLL_SIZES
		                                   : HOST_COLL_SIZES,
		                 "--coll-sizes", &c->coll, &c->ncoll);
	if (rc == F8B_OK)
		rc = f8b_shapes_parse(c->shapes_spec    ? c->shapes_spec
		                      : c->gpu_defaults ? GPU_SHAPES
		                                        : HOST_SHAPES,
		                      &c->shapes);
	if (rc != F8B_OK)
		return rc;

	size_t cap = 3 * c->nsizes + 2 * c->shapes.n + 1 + 2 * c->ncoll;
	if (!(c->cases = calloc(cap, sizeof *c->cases)))
		return F8B_ERR(F8B_ENOMEM, "%zu cases", cap);
	for (enum kind k = K_READ; k <= K_COPY; k++)
		for (size_t i = 0; c->want[k] && i < c->nsizes && rc == F8B_OK; i++)
			rc = add_case(c, cap, (struct ceil_case){.kind = k, .bytes = c->sizes[i]});
	for (size_t i = 0; c->want[K_GEMM] && i < c->shapes.n && rc == F8B_OK; i++) {
		rc = add_case(c, cap,
		              (struct ceil_case){.kind = K_GEMM, .shape = i, .dtype = F8B_BF16});
		if (rc == F8B_OK)
			rc = add_case(
			    c, cap,
			    (struct ceil_case){.kind = K_GEMM, .shape = i, .dtype = F8B_E4M3});
	}
	if (c->want[K_LAUNCH] && rc == F8B_OK)
		rc = add_case(c, cap, (struct ceil_case){.kind = K_LAUNCH});
	for (enum kind k = K_ALLGATHER; k <= K_ALLREDUCE; k++)
		for (size_t i = 0; c->want[k] && i < c->ncoll && rc == F8B_OK; i++)
			rc = add_case(c, cap, (struct ceil_case){.kind = k, .bytes = c->coll[i]});
	*ncases = c->ncases;
	return rc;
}

/* ------------------------------------------------------------ rows */

static void setstr(char *dst, size_t n, const char *s)
{
	memset(dst, 0, n);
	snprintf(dst, n, "%s", s);
}

static const char *unit_of(enum kind k)
{
	return k == K_GEMM ? "FLOP/s" : k == K_LAUNCH ? "s" : "B/s";
}

static void case_key(const void *cfg, size_t i, void *vrow)
{
	const struct ceil_cfg *c = cfg;
	const struct ceil_case *cs = &c->cases[i];
	struct f8b_ceilings_row *row = vrow;
	setstr(row->kind, sizeof row->kind, kind_names[cs->kind]);
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
	/* Not measured (yet): NaN, never a time or rate of zero. */
	row->time_median_s = row->time_min_s = row->time_max_s = row->time_noise = NAN;
	row->value = row->datasheet_value = NAN;
}

static bool same_case(const void *va, const void *vb)
{
	const struct f8b_ceilings_row *a = va, *b = vb;
	return !strcmp(a->kind, b->kind) && !strcmp(a->dtype, b->dtype) && a->bytes == b->bytes &&
	       a->m == b->m && a->k == b->k && a->n == b->n && a->ranks == b->ranks;
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
	if (!strcmp(r->kind, "gemm"))
		snprintf(buf, n, "gemm %s %lldx%lldx%lld", r->dtype, (long long)r->m,
		         (long long)r->k, (long long)r->n);
	else if (!strcmp(r->kind, "launch"))
		snprintf(buf, n, "launch (empty kernel)");
	else if (!strcmp(r->kind, "allgather") || !strcmp(r->kind, "allreduce"))
		snprintf(buf, n, "%s %s on %d ranks", r->kind, b, (int)r->ranks);
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

/* ------------------------------------------------------------ one case */

struct ceil_state {
	struct f8b_run *run;
	struct ceil_cfg *cfg;
	struct ceil_case cs;
	struct f8b_ceilings_row *row;
	/* bandwidth: a is read / written / the copy's source, b the copy's
	 * destination; buf = bytes of each */
	void *a, *b;
	uint64_t *partial;
	size_t buf;
	int passes;
	uint64_t pattern;
	uint64_t seed_a;
	/* gemm */
	struct f8b_tensor a_hp, b_hp, a_q, b_q, d;
	float *amax_a, *amax_b, *scale_a, *scale_b, *sinv_a, *sinv_b;
	struct f8b_gemm_desc desc;
	struct f8b_gemm_plan *plan;
	struct f8b_gemm_args args;
	/* collectives: count uint32 words per rank, moved = the bytes busbw
	 * is computed from (nccl-tests' "size"), factor its busbw factor */
	size_t count;
	double moved, factor;
};

/* Seeds of the buffers of one case, apart from each other and from the
 * GEMM operands (seed*2+1, seed*2+2, as f8bench gemm uses). */
static uint64_t seed_of(uint64_t seed, uint64_t stream)
{
	return seed * 0x100000u + 0x40000u + stream;
}

static int fill_f32(struct ceil_state *s, void *p, size_t bytes, uint64_t seed)
{
	struct f8b_tensor t = {
	    .data = p, .dtype = F8B_F32, .rows = 1, .cols = (int64_t)(bytes / 4)};
	struct f8b_fill_spec f = {.seed = seed, .mean = 0, .std = 1};
	return s->run->ops->fill(s->run->be, &t, &f);
}

/* The host backend's fill of the first n floats of a buffer filled with
 * `seed` (element i depends only on seed and i: backend.h), the bit-exact
 * reference a device fill is compared with. */
static int ref_prefix(struct ceil_state *s, uint64_t seed, int64_t n, float *out)
{
	struct f8b_backend *hbe = s->run->be;
	if (s->run->ops != &f8b_backend_host) {
		if (!s->cfg->href)
			F8B_TRY(f8b_backend_host.open(-1, &s->cfg->href, NULL));
		hbe = s->cfg->href;
	}
	struct f8b_tensor t = {.data = out, .dtype = F8B_F32, .rows = 1, .cols = n};
	struct f8b_fill_spec f = {.seed = seed, .mean = 0, .std = 1};
	return f8b_backend_host.fill(hbe, &t, &f);
}

/* The seeded data really is in buffer p: its first floats equal the host
 * fill bit for bit (the "never timed on zeros" guard). */
static int check_prefix(struct ceil_state *s, const void *p, size_t bytes, uint64_t seed, bool *ok,
                        const char *what)
{
	int64_t n = (int64_t)(bytes / 4) < PREFIX_FLOATS ? (int64_t)(bytes / 4) : PREFIX_FLOATS;
	float want[PREFIX_FLOATS], got[PREFIX_FLOATS];
	F8B_TRY(ref_prefix(s, seed, n, want));
	F8B_TRY(s->run->ops->download(s->run->be, got, p, sizeof *got * (size_t)n));
	*ok = memcmp(want, got, sizeof *got * (size_t)n) == 0;
	if (!*ok)
		snprintf(
		    s->row->message, sizeof s->row->message,
		    "%s does not hold the seeded fill (first %lld floats differ from the host's)",
		    what, (long long)n);
	return F8B_OK;
}

static int launch_bw(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	switch (s->cs.kind) {
	case K_READ: return ops->bw_read(s->run->be, s->a, s->buf, s->passes, s->partial);
	case K_WRITE: return ops->bw_write(s->run->be, s->a, s->buf, s->passes, s->pattern);
	default: return ops->bw_copy(s->run->be, s->b, s->a, s->buf, s->passes);
	}
}

static int launch_empty(struct ceil_state *s)
{
	for (int j = 0; j < s->cfg->launches; j++)
		F8B_TRY(s->run->ops->launch_empty(s->run->be));
	return F8B_OK;
}

static int launch(void *vs)
{
	struct ceil_state *s = vs;
	switch (s->cs.kind) {
	case K_GEMM: return s->run->ops->gemm(s->run->be, s->plan, &s->args);
	case K_LAUNCH: return launch_empty(s);
	case K_ALLGATHER:
		return f8b_coll_run(s->cfg->coll_h, F8B_COLL_ALLGATHER, s->a, s->b, s->count);
	case K_ALLREDUCE:
		return f8b_coll_run(s->cfg->coll_h, F8B_COLL_ALLREDUCE, s->a, s->b, s->count);
	default: return launch_bw(s);
	}
}

static void teardown(void *vs)
{
	struct ceil_state *s = vs;
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	if (s->plan)
		ops->gemm_plan_free(be, s->plan);
	f8b_tensor_free(ops, be, &s->a_hp);
	f8b_tensor_free(ops, be, &s->b_hp);
	f8b_tensor_free(ops, be, &s->a_q);
	f8b_tensor_free(ops, be, &s->b_q);
	f8b_tensor_free(ops, be, &s->d);
	void *bufs[] = {s->a,       s->b,       s->partial, s->amax_a, s->amax_b,
	                s->scale_a, s->scale_b, s->sinv_a,  s->sinv_b};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (bufs[i])
			ops->free(be, bufs[i]);
	free(s);
}

/* The default lists follow a visible GPU (gpu_visible()); a host run on a
 * GPU machine that kept them would spend hours on a 4 GiB sweep or an
 * 8192^3 GEMM, so those cases are skipped with the option to use. */
static int host_too_big(const struct ceil_state *s)
{
	const struct ceil_cfg *c = s->cfg;
	const struct ceil_case *cs = &s->cs;
	if (strcmp(s->run->ops->name, "host") || !c->gpu_defaults)
		return F8B_OK;
	if (is_bw(cs->kind) && !c->sizes_spec && cs->bytes > HOST_MAX_SIZE)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "default working sets are sized for a GPU; on the host give --sizes "
		               "(e.g. " HOST_SIZES ")");
	if (is_coll(cs->kind) && !c->coll_spec && cs->bytes > HOST_MAX_COLL)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "default message sizes are sized for a GPU; on the host give "
		               "--coll-sizes (e.g. " HOST_COLL_SIZES ")");
	if (cs->kind == K_GEMM && !c->shapes_spec &&
	    2.0 * (double)s->row->m * (double)s->row->k * (double)s->row->n > HOST_MAX_GEMM_FLOPS)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "the default GEMM shape is sized for a GPU; on the host give "
		               "--gemm-shapes (e.g. " HOST_SHAPES ")");
	return F8B_OK;
}

static int setup_bw(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int64_t ws = s->cs.bytes;
	int64_t lb = s->cfg->launch_bytes;
	if (lb <= 0)
		lb = strcmp(ops->name, "host") ? GPU_LAUNCH_BYTES : HOST_LAUNCH_BYTES;
	int64_t passes = (lb + ws - 1) / ws;
	s->passes = passes < 1 ? 1 : passes > INT_MAX ? INT_MAX : (int)passes;
	/* The copy's working set is its source and destination together, so
	 * every kind at one size touches the same number of bytes per pass. */
	s->buf = (size_t)(s->cs.kind == K_COPY ? ws / 2 : ws);
	s->seed_a = seed_of(s->run->seed, 1);
	F8B_TRY(ops->alloc(be, s->buf, &s->a));
	/* Seeded data everywhere, never zeros: what the read sums, what the
	 * write must overwrite, what the copy moves and what it replaces. */
	F8B_TRY(fill_f32(s, s->a, s->buf, s->seed_a));
	if (s->cs.kind == K_COPY) {
		F8B_TRY(ops->alloc(be, s->buf, &s->b));
		F8B_TRY(fill_f32(s, s->b, s->buf, seed_of(s->run->seed, 2)));
	}
	if (s->cs.kind == K_READ)
		F8B_TRY(ops->alloc(be, sizeof *s->partial * F8B_BW_PARTIALS, (void **)&s->partial));
	/* A word no fill of f32 normals produces in both halves at once. */
	s->pattern = 0xF8B0C0DEF8B0C0DEull ^ (s->run->seed << 1);
	return F8B_OK;
}

static int alloc_float(struct ceil_state *s, float **p)
{
	return s->run->ops->alloc(s->run->be, sizeof(float), (void **)p);
}

static int setup_gemm(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct f8b_ceilings_row *row = s->row;
	bool fp8 = s->cs.dtype != F8B_BF16;
	struct f8b_algo_info info;
	s->desc = (struct f8b_gemm_desc){.m = row->m,
	                                 .n = row->n,
	                                 .k = row->k,
	                                 .a_dtype = s->cs.dtype,
	                                 .b_dtype = s->cs.dtype,
	                                 .out_dtype = F8B_BF16,
	                                 .a_gran = F8B_GRAN_TENSORWISE,
	                                 .b_gran = F8B_GRAN_TENSORWISE,
	                                 .fast_accum = fp8};
	/* The operands f8bench gemm uses for this shape and seed. */
	struct f8b_fill_spec fa = {.seed = s->run->seed * 2 + 1, .mean = 0, .std = 1};
	struct f8b_fill_spec fb = fa;
	fb.seed = s->run->seed * 2 + 2;
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->a_hp, F8B_BF16, row->m, row->k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->b_hp, F8B_BF16, row->n, row->k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->d, F8B_BF16, row->m, row->n));
	F8B_TRY(ops->fill(be, &s->a_hp, &fa));
	F8B_TRY(ops->fill(be, &s->b_hp, &fb));
	s->args = (struct f8b_gemm_args){.a = s->a_hp.data, .b = s->b_hp.data, .d = s->d.data};
	if (fp8) {
		struct f8b_scale_opts so = {0};
		F8B_TRY(f8b_tensor_alloc(ops, be, &s->a_q, s->cs.dtype, row->m, row->k));
		F8B_TRY(f8b_tensor_alloc(ops, be, &s->b_q, s->cs.dtype, row->n, row->k));
		F8B_TRY(alloc_float(s, &s->amax_a));
		F8B_TRY(alloc_float(s, &s->amax_b));
		F8B_TRY(alloc_float(s, &s->scale_a));
		F8B_TRY(alloc_float(s, &s->scale_b));
		F8B_TRY(alloc_float(s, &s->sinv_a));
		F8B_TRY(alloc_float(s, &s->sinv_b));
		/* Tensorwise: one amax, one scale per operand (scaling.h). */
		F8B_TRY(ops->amax(be, &s->a_hp, F8B_GRAN_TENSORWISE, s->amax_a));
		F8B_TRY(ops->scales(be, s->amax_a, 1, s->cs.dtype, &so, s->scale_a, s->sinv_a));
		F8B_TRY(ops->cast(be, &s->a_hp, F8B_GRAN_TENSORWISE, s->scale_a, &s->a_q));
		F8B_TRY(ops->amax(be, &s->b_hp, F8B_GRAN_TENSORWISE, s->amax_b));
		F8B_TRY(ops->scales(be, s->amax_b, 1, s->cs.dtype, &so, s->scale_b, s->sinv_b));
		F8B_TRY(ops->cast(be, &s->b_hp, F8B_GRAN_TENSORWISE, s->scale_b, &s->b_q));
		s->args = (struct f8b_gemm_args){.a = s->a_q.data,
		                                 .b = s->b_q.data,
		                                 .a_scale_inv = s->sinv_a,
		                                 .b_scale_inv = s->sinv_b,
		                                 .d = s->d.data};
	}
	/* The heuristic's first choice, as a framework would run it. */
	return ops->gemm_plan(be, &s->desc, 0, &s->plan, &info);
}

static int setup_coll(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct ceil_cfg *c = s->cfg;
	size_t n = (size_t)c->nranks;
	/* One communicator for the whole sweep, opened by the first case; a
	 * failure is kept, so a missing peer costs one timeout, not one per
	 * case. */
	if (!c->coll_h && c->coll_rc == F8B_OK) {
		c->coll_rc = f8b_coll_open(ops, be, c->timeout_s, &c->coll_h);
		if (c->coll_rc != F8B_OK)
			return c->coll_rc; /* its message says why */
	}
	if (c->coll_rc != F8B_OK)
		return F8B_ERR(c->coll_rc,
		               "no collectives: opening the %s communicator failed "
		               "(the first collective row says why)",
		               strcmp(ops->name, "host") ? "NCCL" : "MPI");
	F8B_TRY(f8b_coll_status(c->coll_h));
	/* nccl-tests' sizes: the all-gather's is its output (every rank's
	 * part), the all-reduce's its buffer; counts round down to whole
	 * uint32 words per rank. */
	size_t send, recv;
	if (s->cs.kind == K_ALLGATHER) {
		s->count = (size_t)s->cs.bytes / (4 * n);
		send = 4 * s->count;
		recv = send * n;
		s->moved = (double)recv;
		s->factor = (double)(n - 1) / (double)n;
	} else {
		s->count = (size_t)s->cs.bytes / 4;
		send = recv = 4 * s->count;
		s->moved = (double)recv;
		s->factor = 2.0 * (double)(n - 1) / (double)n;
	}
	if (s->count == 0)
		return F8B_ERR(F8B_EINVAL,
		               "%s of %lld bytes over %d ranks: under one 4-byte word per rank",
		               kind_names[s->cs.kind], (long long)s->cs.bytes, c->nranks);
	s->seed_a = seed_of(s->run->seed, 0x100 + (uint64_t)s->run->rank);
	F8B_TRY(ops->alloc(be, send, &s->a));
	F8B_TRY(ops->alloc(be, recv, &s->b));
	F8B_TRY(fill_f32(s, s->a, send, s->seed_a));
	/* Stale output must not pass the check. */
	F8B_TRY(fill_f32(s, s->b, recv, seed_of(s->run->seed, 0x8000 + (uint64_t)s->run->rank)));
	if (s->moved != (double)s->cs.bytes)
		snprintf(s->row->message, sizeof s->row->message,
		         "%s moves %.0f bytes (whole words per rank)", kind_names[s->cs.kind],
		         s->moved);
	return F8B_OK;
}

static int setup(struct f8b_run *run, size_t i, void *vrow, void **state)
{
	struct ceil_cfg *c = run->cfg;
	struct f8b_ceilings_row *row = vrow;
	struct ceil_state *s = calloc(1, sizeof *s);
	if (!s)
		return F8B_ERR(F8B_ENOMEM, "ceilings state");
	*state = s;
	s->run = run;
	s->cfg = c;
	s->cs = c->cases[i];
	s->row = row;
	if (!c->peaks_done) {
		f8b_peaks_lookup(&run->dev, &c->peaks);
		c->peaks_done = true;
	}
	setstr(row->backend, sizeof row->backend, run->ops->name);
	setstr(row->gpu, sizeof row->gpu, run->dev.name);
	row->rank = run->rank;
	row->device = run->dev.device;
	F8B_TRY(host_too_big(s));
	if (!run->ops->bw_read || !run->ops->launch_empty)
		return F8B_ERR(F8B_EUNSUPPORTED, "the %s backend has no ceilings ops",
		               run->ops->name);
	switch (s->cs.kind) {
	case K_GEMM: return setup_gemm(s);
	case K_LAUNCH: return F8B_OK;
	case K_ALLGATHER:
	case K_ALLREDUCE: return setup_coll(s);
	default: return setup_bw(s);
	}
}

/* ------------------------------------------------------------ checks */

/* Walks buffer p of `bytes` in host-sized chunks: fn(ctx, chunk, len, off). */
static int walk_buffer(struct ceil_state *s, const void *p, size_t bytes,
                       void (*fn)(void *ctx, const unsigned char *chunk, size_t len, size_t off),
                       void *ctx)
{
	size_t cap = bytes < CHECK_CHUNK ? bytes : CHECK_CHUNK;
	unsigned char *h = malloc(cap);
	if (!h)
		return F8B_ERR(F8B_ENOMEM, "check buffer of %zu bytes", cap);
	int rc = F8B_OK;
	for (size_t off = 0; off < bytes && rc == F8B_OK; off += cap) {
		size_t len = bytes - off < cap ? bytes - off : cap;
		rc = s->run->ops->download(s->run->be, h, (const unsigned char *)p + off, len);
		if (rc == F8B_OK)
			fn(ctx, h, len, off);
	}
	free(h);
	return rc;
}

static void sum_words(void *ctx, const unsigned char *chunk, size_t len, size_t off)
{
	uint64_t *sum = ctx, w;
	(void)off;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, chunk + i, 8);
		*sum += w;
	}
}

struct pattern_ctx {
	uint64_t pattern;
	size_t bad, first_bad;
};

static void count_pattern(void *vctx, const unsigned char *chunk, size_t len, size_t off)
{
	struct pattern_ctx *ctx = vctx;
	uint64_t w;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, chunk + i, 8);
		if (w != ctx->pattern && ctx->bad++ == 0)
			ctx->first_bad = off + i;
	}
}

/* Position-weighted checksum of uint32 words, mod 2^32: sum (i+1) * w_i.
 * It is linear mod 2^32, so the checksum of an all-reduce's output is the
 * sum of its inputs' checksums, and a word out of place changes it. */
struct csum_ctx {
	uint32_t sum;
	uint32_t index; /* words seen so far (the weight wraps like the sum) */
};

static void csum_words(void *vctx, const unsigned char *chunk, size_t len, size_t off)
{
	struct csum_ctx *ctx = vctx;
	uint32_t w;
	(void)off;
	for (size_t i = 0; i + 4 <= len; i += 4) {
		memcpy(&w, chunk + i, 4);
		ctx->index++;
		ctx->sum += ctx->index * w;
	}
}

/* The copy's destination compared with its source, chunk by chunk. */
static int compare_buffers(struct ceil_state *s, const void *x, const void *y, size_t bytes,
                           size_t *first_diff)
{
	size_t cap = bytes < CHECK_CHUNK ? bytes : CHECK_CHUNK;
	unsigned char *hx = malloc(cap), *hy = malloc(cap);
	int rc = hx && hy ? F8B_OK : F8B_ERR(F8B_ENOMEM, "check buffers of %zu bytes", 2 * cap);
	*first_diff = SIZE_MAX;
	for (size_t off = 0; off < bytes && rc == F8B_OK && *first_diff == SIZE_MAX; off += cap) {
		size_t len = bytes - off < cap ? bytes - off : cap;
		rc = s->run->ops->download(s->run->be, hx, (const unsigned char *)x + off, len);
		if (rc == F8B_OK)
			rc = s->run->ops->download(s->run->be, hy, (const unsigned char *)y + off,
			                           len);
		if (rc == F8B_OK && memcmp(hx, hy, len))
			for (size_t i = 0; i < len; i++)
				if (hx[i] != hy[i]) {
					*first_diff = off + i;
					break;
				}
	}
	free(hx);
	free(hy);
	return rc;
}

static int check_bw(struct ceil_state *s, bool *ok)
{
	struct f8b_ceilings_row *row = s->row;
	*ok = false;
	if (s->cs.kind == K_READ) {
		uint64_t part[F8B_BW_PARTIALS], got = 0, words = 0;
		F8B_TRY(check_prefix(s, s->a, s->buf, s->seed_a, ok, "the read buffer"));
		if (!*ok)
			return F8B_OK;
		F8B_TRY(s->run->ops->download(s->run->be, part, s->partial, sizeof part));
		for (size_t j = 0; j < F8B_BW_PARTIALS; j++)
			got += part[j];
		F8B_TRY(walk_buffer(s, s->a, s->buf, sum_words, &words));
		uint64_t want = words * (uint64_t)s->passes; /* both wrap mod 2^64 */
		*ok = got == want;
		if (!*ok)
			snprintf(row->message, sizeof row->message,
			         "read sum 0x%016llx, host sum 0x%016llx (%d passes)",
			         (unsigned long long)got, (unsigned long long)want, s->passes);
	} else if (s->cs.kind == K_WRITE) {
		struct pattern_ctx pc = {.pattern = s->pattern};
		F8B_TRY(walk_buffer(s, s->a, s->buf, count_pattern, &pc));
		*ok = pc.bad == 0;
		if (!*ok)
			snprintf(row->message, sizeof row->message,
			         "write left %zu of %zu words unwritten, first at byte %zu", pc.bad,
			         s->buf / 8, pc.first_bad);
	} else {
		size_t diff;
		F8B_TRY(check_prefix(s, s->a, s->buf, s->seed_a, ok, "the copy's source"));
		if (!*ok)
			return F8B_OK;
		F8B_TRY(compare_buffers(s, s->a, s->b, s->buf, &diff));
		*ok = diff == SIZE_MAX;
		if (!*ok)
			snprintf(row->message, sizeof row->message,
			         "copy differs from its source at byte %zu of %zu", diff, s->buf);
	}
	if (*ok && s->passes > 1)
		snprintf(row->message, sizeof row->message,
		         "%d passes over the working set per launch", s->passes);
	return F8B_OK;
}

/* A sampled block of D against a double GEMM of the very operands the
 * kernel read (gemm_check.h).  A wrong kernel, layout or scale is off by
 * O(1) nearly everywhere, so CHECK_ROWS x CHECK_COLS entries catch it for
 * about 16x64xK multiply-adds; f8bench gemm checks the same GEMMs on larger
 * samples. */
static int check_gemm(struct ceil_state *s, bool *ok)
{
	struct f8b_ceilings_row *row = s->row;
	bool fp8 = s->cs.dtype != F8B_BF16;
	struct f8b_gemm_data g = {
	    .desc = &s->desc,
	    .a = fp8 ? &s->a_q : &s->a_hp,
	    .b = fp8 ? &s->b_q : &s->b_hp,
	    .a_scale_inv = s->sinv_a,
	    .b_scale_inv = s->sinv_b,
	    .d = &s->d,
	};
	struct f8b_gemm_verdict v;
	F8B_TRY(
	    f8b_gemm_check(s->run->ops, s->run->be, &g, CHECK_ROWS, CHECK_COLS, s->run->seed, &v));
	*ok = v.ok;
	snprintf(row->message, sizeof row->message,
	         "%s %lldx%lld sample of D: rel_error %.3g %s %.3g",
	         v.ok ? "checked a" : "wrong:", (long long)v.rows, (long long)v.cols, v.rel_error,
	         v.ok ? "<=" : ">", v.tolerance);
	return F8B_OK;
}

static int check_coll(struct ceil_state *s, bool *ok)
{
	struct ceil_cfg *c = s->cfg;
	struct f8b_ceilings_row *row = s->row;
	size_t n = (size_t)c->nranks, wb = 4 * s->count;
	uint32_t *all = calloc(n, sizeof *all);
	struct csum_ctx mine = {0};
	if (!all)
		return F8B_ERR(F8B_ENOMEM, "%zu checksums", n);
	*ok = false;
	int rc = f8b_coll_status(c->coll_h);
	if (rc == F8B_OK)
		rc = walk_buffer(s, s->a, wb, csum_words, &mine);
	/* Every rank learns every rank's input checksum; a rank that failed
	 * above still takes part, so the others are not left waiting. */
	int arc = f8b_comm_allgather(&mine.sum, all, sizeof mine.sum);
	if (rc == F8B_OK)
		rc = arc;
	if (rc == F8B_OK && s->cs.kind == K_ALLGATHER) {
		size_t bad = n;
		for (size_t r = 0; r < n && rc == F8B_OK; r++) {
			struct csum_ctx got = {0};
			rc = walk_buffer(s, (const unsigned char *)s->b + r * wb, wb, csum_words,
			                 &got);
			if (rc == F8B_OK && got.sum != all[r] && bad == n)
				bad = r;
		}
		*ok = rc == F8B_OK && bad == n;
		if (rc == F8B_OK && !*ok)
			snprintf(row->message, sizeof row->message,
			         "all-gather: the part from rank %zu differs from what it sent",
			         bad);
	} else if (rc == F8B_OK) {
		struct csum_ctx got = {0};
		uint32_t want = 0;
		for (size_t r = 0; r < n; r++)
			want += all[r];
		rc = walk_buffer(s, s->b, wb, csum_words, &got);
		*ok = rc == F8B_OK && got.sum == want;
		if (rc == F8B_OK && !*ok)
			snprintf(row->message, sizeof row->message,
			         "all-reduce: output checksum 0x%08x, sum of inputs' 0x%08x",
			         (unsigned)got.sum, (unsigned)want);
	}
	free(all);
	return rc;
}

static int check(void *vs, void *vrow, bool *ok)
{
	struct ceil_state *s = vs;
	(void)vrow; /* s->row is the same row */
	switch (s->cs.kind) {
	case K_GEMM: return check_gemm(s, ok);
	case K_LAUNCH: *ok = true; return F8B_OK; /* it returned and synchronised */
	case K_ALLGATHER:
	case K_ALLREDUCE: return check_coll(s, ok);
	default: return check_bw(s, ok);
	}
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
		F8B_TRY(f8b_coll_status(c->coll_h));
		/* busbw = algbw x factor (nccl-tests, doc/roofline.md). */
		row->value = s->moved / t * s->factor;
		snprintf(row->message, sizeof row->message, "%s; algbw %.4g GB/s",
		         f8b_coll_library(c->coll_h), s->moved / t / 1e9);
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
		         f8b_coll_library(c->coll_h), m->unmet);
	else if (!m->converged)
		snprintf(row->message, sizeof row->message, "timing not converged: %.70s",
		         m->unmet);
	return F8B_OK;
}

/* What case_key fills and same_case / describe read. */
static const char *const ceil_key_columns[] = {"kind", "dtype", "bytes", "m", "k",
                                               "n",    "ranks", "unit",  NULL};

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
    .cfg_new = cfg_new,
    .cfg_option = cfg_option,
    .cfg_finalize = cfg_finalize,
    .cfg_free = cfg_free,
    .case_key = case_key,
    .same_case = same_case,
    .describe = describe,
    .summarize = summarize,
    .off_status = offsetof(struct f8b_ceilings_row, status),
    .off_message = offsetof(struct f8b_ceilings_row, message),
    .off_run_id = offsetof(struct f8b_ceilings_row, run_id),
    .setup = setup,
    .launch = launch,
    .check = check,
    .finish = finish,
    .teardown = teardown,
    .key_columns = ceil_key_columns,
    .time_column = "time_median_s",
    .noise_column = "time_noise",
    .throttled_column = "throttled",
    .report = &f8b_ceilings_report,
};
