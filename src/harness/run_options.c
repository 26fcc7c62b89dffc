/* run_options.c - the options every benchmark takes (--backend, -o,
 * --append/--resume, the measurement knobs...), their help text beside
 * them, and the parse of a benchmark's command line: common options, the
 * driver's own, then the driver's finalize (its case list). */
#define _POSIX_C_SOURCE 200809L
#include "harness/run_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	OPT_BACKEND = 1000,
	OPT_OUTPUT,
	OPT_APPEND,
	OPT_RESUME,
	OPT_SEED,
	OPT_DEVICE,
	OPT_WARMUP,
	OPT_MIN_SAMPLES,
	OPT_MAX_SAMPLES,
	OPT_MIN_TIME,
	OPT_MAX_TIME,
	OPT_NOISE,
	OPT_NO_FLUSH,
	OPT_NO_HOLD,
	OPT_FLUSH_BY,
	OPT_BATCH,
	OPT_INTERLEAVE,
	OPT_QUIET,
	OPT_VERBOSE,
	OPT_SHARD,
	OPT_HELP,
};

static const struct f8b_option common_options[] = {
    {"backend", OPT_BACKEND, 0, "host|cuda",
     "where to run (default: cuda when a GPU is present, else host\nwith a notice)"},
    {"output", OPT_OUTPUT, 'o', "FILE",
     "HDF5 results file (default: BENCH-YYYYmmdd-HHMMSS.h5);\nrefuses an existing file unless "
     "--append or --resume"},
    {"append", OPT_APPEND, 0, NULL,
     "add this run's rows to an existing file (earlier rows untouched)"},
    {"resume", OPT_RESUME, 0, NULL, "like --append, and skip cases already in the file"},
    {"seed", OPT_SEED, 0, "N", "seed of the input data (default 1)"},
    {"device", OPT_DEVICE, 0, "N", "GPU ordinal (default: node-local rank modulo the GPU count)"},
    {"warmup", OPT_WARMUP, 0, "N", "untimed launches before sampling (default 3)"},
    {"min-samples", OPT_MIN_SAMPLES, 0, "N", "timed samples at least (default 10)"},
    {"max-samples", OPT_MAX_SAMPLES, 0, "N", "timed samples at most (default 1000)"},
    {"min-time", OPT_MIN_TIME, 0, "SEC", "timed seconds at least per measurement (default 0.5)"},
    {"max-time", OPT_MAX_TIME, 0, "SEC", "wall seconds at most per measurement (default 10)"},
    {"noise", OPT_NOISE, 0, "FRAC",
     "stop when the relative noise of the median is below this\n(default 0.005)"},
    {"no-flush", OPT_NO_FLUSH, 0, NULL,
     "do not flush the L2 cache before each sample\n(the default on the host backend)"},
    {"flush-by", OPT_FLUSH_BY, 0, "read|write",
     "flush L2 by writing a 2 x L2 buffer (default) or by\nreading it; asks for the flush on the "
     "host backend too"},
    {"no-hold", OPT_NO_HOLD, 0, NULL, "do not hold the GPU while a sample is queued"},
    {"batch", OPT_BATCH, 0, "N", "time N back-to-back launches per sample (no flush; default off)"},
    {"interleave", OPT_INTERLEAVE, 0, NULL,
     "gemm and lls (the others refuse it): measure the cases that\ndiffer only in "
     "implementation together, their samples in turn\n(gemm: --impl and --out-t of one case; "
     "lls: --gemm-impl of one\nshape and recipe), so that clock drift falls on each alike"},
    {"quiet", OPT_QUIET, 'q', NULL, "no progress lines"},
    {"verbose", OPT_VERBOSE, 'v', NULL,
     "more detail on stderr where the benchmark has it: gemm,\neach --autotune candidate's time; "
     "gemm and ceilings, why a\nmeasurement did not converge; optim, its bandwidth ceiling"},
    {"shard", OPT_SHARD, 0, "I/N",
     "run only shard I of N of the cases (i % N == I), e.g. one per\nSlurm array task; "
     "--resume skips what the file has of the shard"},
    {"help", OPT_HELP, 0, NULL, "this text"},
    {0},
};

struct parse_ctx {
	const struct f8b_bench *b;
	struct f8b_common_cfg *cc;
	void *cfg;
};

static int parse_long(const char *opt, const char *arg, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 0);
	if (errno || end == arg || *end || v < lo || v > hi)
		return F8B_ERR(F8B_EINVAL, "--%s '%s': expected an integer in [%lld, %lld]", opt,
		               arg, lo, hi);
	*out = v;
	return F8B_OK;
}

static int parse_double(const char *opt, const char *arg, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi))
		return F8B_ERR(F8B_EINVAL, "--%s '%s': expected a number in [%g, %g]", opt, arg, lo,
		               hi);
	*out = v;
	return F8B_OK;
}

static int on_option(void *vctx, int table, int key, const char *arg)
{
	struct parse_ctx *ctx = vctx;
	struct f8b_common_cfg *c = ctx->cc;
	long long v;
	if (table == -1 || key == OPT_HELP) {
		c->help = true;
		return F8B_OK;
	}
	if (table == 1)
		return ctx->b->cfg_option(ctx->cfg, key, arg);
	switch (key) {
	case OPT_BACKEND:
		if (strcmp(arg, "host") && strcmp(arg, "cuda"))
			return F8B_ERR(F8B_EINVAL, "--backend '%s': accepted: host, cuda", arg);
		c->backend = arg;
		return F8B_OK;
	case OPT_OUTPUT:
		if (!arg[0])
			return F8B_ERR(F8B_EINVAL, "-o/--output: empty file name");
		c->output = arg;
		return F8B_OK;
	case OPT_APPEND: c->append = true; return F8B_OK;
	case OPT_RESUME: c->resume = c->append = true; return F8B_OK;
	case OPT_SEED: F8B_TRY(parse_long("seed", arg, 0, INT64_MAX, &c->seed)); return F8B_OK;
	case OPT_DEVICE:
		F8B_TRY(parse_long("device", arg, 0, 1023, &v));
		c->device = (int)v;
		return F8B_OK;
	case OPT_WARMUP:
		F8B_TRY(parse_long("warmup", arg, 0, 100000, &v));
		c->m.warmup = (int)v;
		return F8B_OK;
	case OPT_MIN_SAMPLES:
		F8B_TRY(parse_long("min-samples", arg, 1, 1000000, &v));
		c->m.min_samples = (int)v;
		return F8B_OK;
	case OPT_MAX_SAMPLES:
		F8B_TRY(parse_long("max-samples", arg, 1, 1000000, &v));
		c->m.max_samples = (int)v;
		return F8B_OK;
	case OPT_MIN_TIME: return parse_double("min-time", arg, 0, 3600, &c->m.min_time_s);
	case OPT_MAX_TIME: return parse_double("max-time", arg, 0, 86400, &c->m.max_time_s);
	case OPT_NOISE: return parse_double("noise", arg, 0, 1, &c->m.max_noise);
	case OPT_NO_FLUSH: c->flush_asked = -1; return F8B_OK;
	case OPT_NO_HOLD: c->m.hold = false; return F8B_OK;
	case OPT_FLUSH_BY:
		if (!strcmp(arg, "read"))
			c->m.flush_how = F8B_FLUSH_READ;
		else if (!strcmp(arg, "write"))
			c->m.flush_how = F8B_FLUSH_WRITE;
		else
			return F8B_ERR(F8B_EINVAL, "--flush-by: '%s' (accepted: read, write)", arg);
		if (!c->flush_asked)
			c->flush_asked = 1; /* --no-flush wins, in either order */
		return F8B_OK;
	case OPT_BATCH:
		F8B_TRY(parse_long("batch", arg, 1, 100000, &v));
		c->m.batch = (int)v;
		return F8B_OK;
	case OPT_INTERLEAVE: c->interleave = true; return F8B_OK;
	case OPT_QUIET: c->quiet = true; return F8B_OK;
	case OPT_VERBOSE: c->verbose = true; return F8B_OK;
	case OPT_SHARD: return f8b_shard_parse(arg, &c->shard);
	}
	return F8B_ERR(F8B_EINTERNAL, "unhandled option key %d", key);
}

/* What --help and the man page say beside the option tables. */
static const char exit_status[] =
    "Exit status: 0 every case ok (or unsupported), 1 a case was wrong or failed,\n"
    "2 bad input, 130 interrupted (rerun with --resume).\n";

static void usage_head(const struct f8b_bench *b, char *buf, size_t n)
{
	snprintf(buf, n,
	         "usage: f8bench %s [options]\n       mpiexec -n N f8bench %s [options]\n\n%s\n",
	         b->name, b->name, b->summary);
}

void f8b_run_usage(const struct f8b_bench *b, FILE *f)
{
	char head[4096];
	usage_head(b, head, sizeof head);
	fprintf(f, "%s\n%s options:\n", head, b->name);
	f8b_options_help(f, b->options);
	fprintf(f, "\ncommon options:\n");
	f8b_options_help(f, common_options);
	fprintf(f, "\n%s", exit_status);
}

void f8b_run_man(FILE *f, const struct f8b_bench *b)
{
	if (!b) {
		fprintf(f, ".SS \"Options of every benchmark\"\n");
		f8b_options_man(f, common_options);
		f8b_roff_block(f, exit_status);
		return;
	}
	char head[4096];
	usage_head(b, head, sizeof head);
	fprintf(f, ".SS \"f8bench %s\"\n", b->name);
	f8b_roff_block(f, head);
	fprintf(f, ".PP\nOptions of %s (and those of every benchmark, below):\n", b->name);
	f8b_options_man(f, b->options);
}

void f8b_run_options_backend(struct f8b_common_cfg *cc, const char *backend)
{
	if (cc->flush_asked)
		cc->m.flush = cc->flush_asked > 0;
	else
		cc->m.flush = strcmp(backend, "host") != 0;
}

/* Default output name that never collides with an earlier run's. */
static void default_output(const char *bench, char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	char ts[32];
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, n, "%s-%s.h5", bench, ts);
}

int f8b_run_options_parse(const struct f8b_bench *b, int argc, char **argv,
                          struct f8b_common_cfg *cc, void **cfg, size_t *ncases)
{
	*cc = (struct f8b_common_cfg){.seed = 1, .device = -1, .shard = {0, 1}};
	f8b_measure_defaults(&cc->m);
	*cfg = NULL;
	*ncases = 0;
	struct parse_ctx pc = {.b = b, .cc = cc};
	F8B_TRY(b->cfg_new(&pc.cfg));
	*cfg = pc.cfg;
	char **pos = calloc((size_t)argc + 1, sizeof *pos);
	int npos = 0;
	const struct f8b_option *tables[] = {common_options, b->options, NULL};
	if (!pos)
		return F8B_ERR(F8B_ENOMEM, "argv");
	int rc = f8b_options_parse(argc, argv, tables, on_option, &pc, &pos, &npos);
	if (rc == F8B_OK && cc->help)
		goto out; /* nothing else is checked: the user asked what to type */
	if (rc == F8B_OK && npos > 0)
		rc = F8B_ERR(F8B_EINVAL, "unexpected argument '%s' (see f8bench %s --help)", pos[0],
		             b->name);
	if (rc == F8B_OK && cc->m.max_samples < cc->m.min_samples)
		rc = F8B_ERR(F8B_EINVAL, "--max-samples %d is below --min-samples %d",
		             cc->m.max_samples, cc->m.min_samples);
	if (rc == F8B_OK && cc->interleave && (!b->same_group || b->collective))
		rc = F8B_ERR(F8B_EINVAL,
		             "--interleave: f8bench %s has no cases to measure together "
		             "(gemm and lls have: their implementations)",
		             b->name);
	if (rc == F8B_OK)
		rc = b->cfg_finalize(pc.cfg, ncases);
	if (rc == F8B_OK && !cc->output) {
		default_output(b->name, cc->outbuf, sizeof cc->outbuf);
		cc->output = cc->outbuf;
	}
out:
	free(pos);
	return rc;
}
