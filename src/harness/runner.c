/* runner.c - the harness every benchmark runs under (after nccl-tests'
 * common.cu, without its globals): common options, backend and device
 * choice, provenance, the sweep split over MPI ranks, correctness before
 * timing, measurement, progress, and rank 0 writing one results file.
 *
 * The sweep runs in rounds: in round r rank k runs case todo[r*size + k],
 * then every rank's row is gathered to rank 0, which appends the round's
 * rows and flushes the file.  A kill loses at most the round in flight;
 * --resume skips the cases already in the file. */
#define _POSIX_C_SOURCE 200809L
#include "harness/bench.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/cases.h"
#include "harness/comm.h"
#include "harness/progress.h"
#include "harness/provenance.h"
#include "results/schema.h"

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
	OPT_BATCH,
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
    {"no-flush", OPT_NO_FLUSH, 0, NULL, "do not flush the L2 cache before each sample"},
    {"batch", OPT_BATCH, 0, "N", "time N back-to-back launches per sample (no flush; default off)"},
    {"quiet", OPT_QUIET, 'q', NULL, "no progress lines"},
    {"verbose", OPT_VERBOSE, 'v', NULL, "more detail (algorithm chosen, unmet criteria)"},
    {"shard", OPT_SHARD, 0, "I/N",
     "run only shard I of N of the cases (i % N == I), e.g. one per\nSlurm array task; "
     "--resume skips what the file has of the shard"},
    {"help", OPT_HELP, 0, NULL, "this text"},
    {0},
};

struct common_cfg {
	const char *backend;
	const char *output;
	bool append, resume, help, quiet, verbose;
	long long seed;
	int device;
	struct f8b_measure_opts m;
	struct f8b_shard shard;
};

struct parse_ctx {
	const struct f8b_bench *b;
	struct common_cfg *cc;
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
	struct common_cfg *c = ctx->cc;
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
	case OPT_NO_FLUSH: c->m.flush = false; return F8B_OK;
	case OPT_BATCH:
		F8B_TRY(parse_long("batch", arg, 1, 100000, &v));
		c->m.batch = (int)v;
		return F8B_OK;
	case OPT_QUIET: c->quiet = true; return F8B_OK;
	case OPT_VERBOSE: c->verbose = true; return F8B_OK;
	case OPT_SHARD: return f8b_shard_parse(arg, &c->shard);
	}
	return F8B_ERR(F8B_EINTERNAL, "unhandled option key %d", key);
}

static void usage(const struct f8b_bench *b, FILE *f)
{
	fprintf(f,
	        "usage: f8bench %s [options]\n       mpiexec -n N f8bench %s [options]\n\n%s\n\n",
	        b->name, b->name, b->summary);
	fprintf(f, "%s options:\n", b->name);
	f8b_options_help(f, b->options);
	fprintf(f, "\ncommon options:\n");
	f8b_options_help(f, common_options);
	fprintf(f,
	        "\nExit status: 0 every case ok (or unsupported), 1 a case was wrong or failed,\n"
	        "2 bad input, 130 interrupted (rerun with --resume).\n");
}

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
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

static int pick_backend(const struct common_cfg *cc, const struct f8b_comm *comm,
                        const struct f8b_backend_ops **ops, int *device)
{
	char why[256] = "f8bench was built without CUDA";
	int ngpu = 0;
#ifdef F8B_HAVE_CUDA
	ngpu = f8b_cuda_device_count(why, sizeof why);
#endif
	const char *name = cc->backend;
	if (!name) {
		name = ngpu > 0 ? "cuda" : "host";
		if (ngpu == 0 && comm->rank == 0)
			fprintf(stderr,
			        "f8bench: notice: no usable GPU (%s); using the host backend\n",
			        why);
	} else if (!strcmp(name, "cuda") && ngpu == 0) {
		return F8B_ERR(F8B_EINVAL, "--backend cuda: no usable GPU (%s); use --backend host",
		               why);
	}
	F8B_TRY(f8b_backend_find(name, ops));
	*device = cc->device >= 0 ? cc->device : (ngpu > 0 ? comm->local_rank % ngpu : -1);
	if (ngpu > 0 && *device >= ngpu)
		return F8B_ERR(F8B_EINVAL, "--device %d: only %d GPU(s) visible", *device, ngpu);
	return F8B_OK;
}

/* Collective benchmarks: a barrier before each sample, the slowest
 * rank's time after it (measure.h). */
static int comm_sync(void *ctx)
{
	(void)ctx;
	return f8b_comm_barrier();
}

static int comm_reduce(void *ctx, double v[2])
{
	(void)ctx;
	return f8b_comm_max_double(v, 2);
}

/* Collective cases: every rank must reach the same verdict at each step, or
 * the ranks that went on would wait forever in the next collective. */
static int agree(const struct f8b_bench *b, int rc)
{
	if (!b->collective)
		return rc;
	int worst = rc;
	if (f8b_comm_max_int(&worst) != F8B_OK)
		return F8B_EMPI;
	if (worst != F8B_OK && rc == F8B_OK)
		return F8B_ERR(worst, "another rank failed this case (%s)", f8b_status_name(worst));
	return rc;
}

/* A step every rank takes: a rank that failed says why, and all of them
 * learn whether any did, so they stop together. */
static bool any_rank_failed(const struct f8b_bench *b, int rc)
{
	int bad = rc != F8B_OK;
	if (bad)
		fprintf(stderr, "f8bench %s: error: %s\n", b->name, f8b_last_error());
	f8b_comm_max_int(&bad);
	return bad;
}

/* Which cases are already in the file (--resume).  Rank 0 reads. */
static int mark_done(const struct f8b_bench *b, void *cfg, const char *path, size_t ncases,
                     unsigned char *done, size_t *ndone)
{
	void *rows = NULL;
	size_t n = 0;
	*ndone = 0;
	struct stat st;
	if (stat(path, &st) != 0)
		return F8B_OK; /* nothing to resume: a fresh file */
	F8B_TRY(f8b_results_read(path, b->schema, &rows, &n));
	unsigned char *key = calloc(1, b->schema->row_size);
	if (!key) {
		free(rows);
		return F8B_ERR(F8B_ENOMEM, "resume");
	}
	for (size_t i = 0; i < ncases; i++) {
		memset(key, 0, b->schema->row_size);
		b->case_key(cfg, i, key);
		for (size_t j = 0; j < n; j++) {
			const char *row = (const char *)rows + j * b->schema->row_size;
			if (b->same_case(key, row)) {
				done[i] = 1;
				(*ndone)++;
				break;
			}
		}
	}
	free(key);
	free(rows);
	return F8B_OK;
}

struct tally {
	size_t ok, wrong, unsupported, error;
};

static void set_str(void *row, size_t off, size_t size, const char *s)
{
	char *p = (char *)row + off;
	memset(p, 0, size);
	snprintf(p, size, "%s", s);
}

/* One case: setup, one checked launch, then measurement if it was right.
 * Returns a status only for failures that end the sweep (device lost). */
static int run_case(const struct f8b_bench *b, struct f8b_run *run, size_t i, void *row)
{
	const size_t ss = F8B_STR, ms = F8B_MSG; /* every table's status/message */
	void *state = NULL;
	bool ok = false;
	b->case_key(run->cfg, i, row);
	*(int32_t *)((char *)row + b->off_run_id) = run->run_id;
	f8b_clear_error();
	int rc = agree(b, b->setup(run, i, row, &state));
	if (rc == F8B_OK)
		rc = b->launch(state);
	if (rc == F8B_OK)
		rc = run->ops->sync(run->be);
	if (rc == F8B_OK)
		rc = b->check(state, row, &ok);
	rc = agree(b, rc);
	if (b->collective && rc == F8B_OK) {
		int wrong = !ok; /* wrong on any rank is wrong */
		rc = f8b_comm_max_int(&wrong) == F8B_OK ? F8B_OK : F8B_EMPI;
		ok = !wrong;
	}
	if (rc == F8B_OK && ok) {
		struct f8b_measure_result m;
		rc = f8b_measure(run->ops, run->be, b->launch, state, &run->mopts, &m, NULL);
		if (rc == F8B_OK)
			rc = b->finish(state, &m, row);
	}
	if (state)
		b->teardown(state);

	if (rc == F8B_OK) {
		set_str(row, b->off_status, ss, ok ? F8B_ROW_OK : F8B_ROW_WRONG);
		return F8B_OK;
	}
	set_str(row, b->off_status, ss,
	        rc == F8B_EUNSUPPORTED ? F8B_ROW_UNSUPPORTED : F8B_ROW_ERROR);
	set_str(row, b->off_message, ms, f8b_last_error());
	/* A device error can leave the context unusable: stop the sweep. */
	return rc == F8B_EDEVICE ? rc : F8B_OK;
}

int f8b_run_bench(const struct f8b_bench *b, int argc, char **argv)
{
	struct f8b_comm comm;
	if (f8b_comm_init(&argc, &argv, &comm) != F8B_OK) {
		fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
		return 2;
	}
	struct common_cfg cc = {.seed = 1, .device = -1, .shard = {0, 1}};
	f8b_measure_defaults(&cc.m);
	struct f8b_run run = {.rank = comm.rank, .nranks = comm.size};
	struct f8b_backend *be = NULL;
	struct f8b_results *res = NULL;
	struct f8b_provenance prov = {0};
	unsigned char *done = NULL, *rows = NULL, *all = NULL;
	size_t *todo = NULL;
	int exit_code = 0, rc;
	size_t ncases = 0, prog_rows = 0;
	char outbuf[256];

	/* ---- options: every rank parses the same argv, so every rank agrees
	 * on the case list without communication. */
	struct parse_ctx pc = {.b = b, .cc = &cc};
	rc = b->cfg_new(&pc.cfg);
	char **pos = rc == F8B_OK ? calloc((size_t)argc + 1, sizeof *pos) : NULL;
	int npos = 0;
	const struct f8b_option *tables[] = {common_options, b->options, NULL};
	if (rc == F8B_OK && !pos)
		rc = F8B_ERR(F8B_ENOMEM, "argv");
	if (rc == F8B_OK)
		rc = f8b_options_parse(argc, argv, tables, on_option, &pc, &pos, &npos);
	if (rc == F8B_OK && cc.help) {
		if (comm.rank == 0)
			usage(b, stdout);
		goto out;
	}
	if (rc == F8B_OK && npos > 0)
		rc = F8B_ERR(F8B_EINVAL, "unexpected argument '%s' (see f8bench %s --help)", pos[0],
		             b->name);
	if (rc == F8B_OK && cc.m.max_samples < cc.m.min_samples)
		rc = F8B_ERR(F8B_EINVAL, "--max-samples %d is below --min-samples %d",
		             cc.m.max_samples, cc.m.min_samples);
	if (rc == F8B_OK)
		rc = b->cfg_finalize(pc.cfg, &ncases);
	if (rc == F8B_OK && !cc.output) {
		default_output(b->name, outbuf, sizeof outbuf);
		cc.output = outbuf;
	}
	if (rc != F8B_OK) {
		if (comm.rank == 0)
			fprintf(stderr, "f8bench %s: error: %s\n", b->name, f8b_last_error());
		exit_code = 2;
		goto out;
	}
	run.cfg = pc.cfg;
	run.mopts = cc.m;
	if (b->collective) {
		run.mopts.sync = comm_sync;
		run.mopts.reduce = comm_reduce;
	}
	run.seed = (uint64_t)cc.seed;
	run.verbose = cc.verbose;

	/* ---- backend and device (each rank its own GPU) */
	int device = -1;
	rc = pick_backend(&cc, &comm, &run.ops, &device);
	if (rc == F8B_OK)
		rc = run.ops->open(device, &be, &run.dev);
	run.be = be;
	if (any_rank_failed(b, rc)) {
		exit_code = 2;
		goto out;
	}

	/* ---- provenance and the results file (rank 0) */
	rc = f8b_provenance_collect(&prov, &comm, &run.dev, run.ops->name, argc, argv);
	done = calloc(ncases ? ncases : 1, 1);
	size_t ndone = 0;
	if (rc == F8B_OK && !done)
		rc = F8B_ERR(F8B_ENOMEM, "case list");
	if (comm.rank == 0 && rc == F8B_OK) {
		f8b_prov_set(&prov, "benchmark", "%s", b->name);
		f8b_prov_set(&prov, "seed", "%lld", cc.seed);
		f8b_prov_set(&prov, "shard", "%d/%d", cc.shard.index, cc.shard.count);
		f8b_prov_set(&prov, "measure",
		             "warmup=%d min_samples=%d max_samples=%d min_time_s=%g "
		             "max_time_s=%g max_noise=%g flush=%d batch=%d",
		             cc.m.warmup, cc.m.min_samples, cc.m.max_samples, cc.m.min_time_s,
		             cc.m.max_time_s, cc.m.max_noise, cc.m.flush, cc.m.batch);
		if (cc.resume)
			rc = mark_done(b, pc.cfg, cc.output, ncases, done, &ndone);
		if (rc == F8B_OK)
			rc = f8b_results_open(cc.output, cc.append, b->schema, &prov, &res,
			                      &run.run_id);
	}
	if (any_rank_failed(b, rc)) {
		exit_code = 2;
		goto out;
	}
	f8b_comm_bcast(&run.run_id, sizeof run.run_id);
	f8b_comm_bcast(done, ncases ? ncases : 1);

	/* ---- the sweep */
	size_t ntodo = 0;
	todo = malloc(sizeof *todo * (ncases ? ncases : 1));
	const size_t rs = b->schema->row_size;
	rows = calloc(1, rs + 1);
	if (comm.rank == 0)
		all = calloc((size_t)comm.size, rs + 1);
	if (!todo || !rows || (comm.rank == 0 && !all)) {
		fprintf(stderr, "f8bench: error: out of host memory for the case list\n");
		exit_code = 1;
		goto out;
	}
	for (size_t i = 0; i < ncases; i++)
		if (!done[i] && f8b_shard_has(&cc.shard, i))
			todo[ntodo++] = i;

	struct f8b_progress prog;
	struct tally t = {0};
	if (comm.rank == 0) {
		fprintf(stderr, "f8bench %s: %zu cases%s on %d rank(s), backend %s (%s) -> %s\n",
		        b->name, ntodo, ndone ? " left" : "", comm.size, run.ops->name,
		        run.dev.name, cc.output);
		if (ndone)
			fprintf(stderr, "f8bench %s: --resume: %zu cases already in %s\n", b->name,
			        ndone, cc.output);
		f8b_progress_init(&prog, stderr, ntodo, cc.quiet);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	/* Independent cases: round r gives rank k case r*size + k.  Collective
	 * cases: every rank runs case r, and only rank 0's row is kept. */
	size_t per_round = b->collective ? 1 : (size_t)comm.size;
	size_t rounds = (ntodo + per_round - 1) / per_round;
	int fatal = 0;
	for (size_t r = 0; r < rounds; r++) {
		size_t k = b->collective ? r : r * (size_t)comm.size + (size_t)comm.rank;
		memset(rows, 0, rs + 1);
		if (k < ntodo && !fatal) {
			/* this rank has a row this round */
			rows[rs] = !b->collective || comm.rank == 0;
			if (run_case(b, &run, todo[k], rows) != F8B_OK) {
				fprintf(stderr, "f8bench %s: error: %s (stopping)\n", b->name,
				        f8b_last_error());
				fatal = 1;
			}
		}
		if (f8b_comm_gather(rows, all, rs + 1) != F8B_OK) {
			fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
			exit_code = 1;
			goto out;
		}
		if (comm.rank == 0) {
			for (int p = 0; p < comm.size; p++) {
				unsigned char *row = all + (size_t)p * (rs + 1);
				if (!row[rs])
					continue;
				if (f8b_results_append(res, row, 1) != F8B_OK) {
					fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
					fatal = 1;
					break;
				}
				prog_rows++;
				const char *st = (const char *)row + b->off_status;
				char what[160], how[200];
				b->describe(row, what, sizeof what);
				if (!strcmp(st, F8B_ROW_OK)) {
					t.ok++;
					b->summarize(row, how, sizeof how);
				} else {
					if (!strcmp(st, F8B_ROW_WRONG))
						t.wrong++;
					else if (!strcmp(st, F8B_ROW_UNSUPPORTED))
						t.unsupported++;
					else
						t.error++;
					snprintf(how, sizeof how, "%s: %.150s", st,
					         (const char *)row + b->off_message);
					char line[400];
					snprintf(line, sizeof line, "f8bench %s: %s: %s", b->name,
					         what, how);
					f8b_progress_note(&prog, line);
				}
				f8b_progress_step(&prog, what, how);
			}
		}
		/* Stop together after a signal or a fatal error on any rank. */
		int stop = interrupted || fatal;
		f8b_comm_max_int(&stop);
		if (stop) {
			if (comm.rank == 0) {
				f8b_progress_end(&prog);
				fprintf(
				    stderr,
				    "f8bench %s: %s after %zu of %zu cases; rows so far are in %s "
				    "(rerun with --resume to continue)\n",
				    b->name, interrupted ? "interrupted" : "stopped", prog.done,
				    ntodo, cc.output);
			}
			exit_code = interrupted ? 130 : 1;
			break;
		}
	}
	if (comm.rank == 0) {
		f8b_progress_end(&prog);
		if (!exit_code)
			fprintf(
			    stderr,
			    "f8bench %s: wrote %zu rows to %s: %zu ok, %zu wrong, %zu unsupported, "
			    "%zu error\n",
			    b->name, prog.done, cc.output, t.ok, t.wrong, t.unsupported, t.error);
		if (!exit_code && (t.wrong || t.error))
			exit_code = 1;
	}
	f8b_comm_max_int(&exit_code);

out:
	/* A failed run that wrote no row leaves no new file behind. */
	if (res && exit_code != 0 && prog_rows == 0) {
		f8b_results_abandon(res);
		res = NULL;
	}
	if (res && f8b_results_close(res) != F8B_OK) {
		fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
		exit_code = exit_code ? exit_code : 1;
	}
	if (be)
		run.ops->close(be);
	if (pc.cfg)
		b->cfg_free(pc.cfg);
	f8b_prov_free(&prov);
	free(pos);
	free(done);
	free(todo);
	free(rows);
	free(all);
	f8b_comm_finalize();
	return exit_code;
}
