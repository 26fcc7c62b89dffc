/* runner.c - the harness every benchmark runs under (after nccl-tests'
 * common.cu, without its globals): backend and device choice, provenance,
 * the sweep split over MPI ranks, correctness before timing, measurement,
 * progress, and rank 0 writing one results file.  The common options are
 * in run_options.c, the memory check in memcheck.c, one case or group from
 * setup to its row in run_case.c.
 *
 * f8b_run_bench takes these steps: parse, open the backend, open the
 * results, plan the rounds, run them, finish, clean up.  The sweep runs in
 * rounds: in round r rank k runs case todo[r*size + k], then every rank's
 * row is gathered to rank 0, which appends the round's rows and flushes the
 * file.  A kill loses at most the round in flight; --resume skips the
 * cases already in the file; a run that appended no row leaves no new
 * file behind. */
#define _POSIX_C_SOURCE 200809L
#include "harness/bench.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/comm.h"
#include "harness/memcheck.h"
#include "harness/progress.h"
#include "harness/provenance.h"
#include "harness/run_case.h"
#include "harness/run_options.h"
#include "results/schema.h"

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int pick_backend(const struct f8b_common_cfg *cc, const struct f8b_comm *comm,
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

/* Everything one run holds, so that each step is a function of it. */
struct sweep {
	const struct f8b_bench *b;
	struct f8b_comm comm;
	struct f8b_common_cfg cc;
	struct f8b_run run;
	struct f8b_results *res; /* rank 0 */
	struct f8b_provenance prov;
	size_t ncases, ntodo, ndone;
	size_t written;      /* rows this run appended (rank 0) */
	unsigned char *done; /* [ncases]: already in the file (--resume) */
	size_t *todo;        /* [ntodo]: the cases to run, in order */
	/* units: what one rank runs in a round, each a run of todo: a case,
	 * or (--interleave) a group measured together, at most gmax cases */
	size_t *ustart, *ulen, nunits, gmax;
	/* this rank's part of a round: gmax slots, each a row, a "has a row"
	 * byte, the number of detail rows (uint32) and the detail rows */
	unsigned char *row;
	unsigned char *all; /* rank 0: every rank's part */
	size_t slot;        /* bytes of one slot (a multiple of 16) */
	size_t part;        /* bytes of one part: gmax slots */
	size_t doff;        /* where a slot's detail rows start (16-byte aligned) */
	struct f8b_progress prog;
	struct tally t;
	int fatal; /* a failure that ends the sweep (device lost, write failed) */
};

/* A wait past --timeout is about to end the job (comm.c): a results file
 * this run created and wrote nothing to goes (its temporary name would
 * stay behind), one with rows is closed with them. */
static void on_comm_abort(void *arg)
{
	struct sweep *sw = arg;
	if (!sw->res)
		return;
	if (sw->written == 0)
		f8b_results_abandon(sw->res);
	else
		(void)f8b_results_close(sw->res);
	sw->res = NULL;
}

/* Steps return a process exit status, or GO_ON. */
enum { GO_ON = -1 };

/* Options (every rank the same), then the run context the drivers see. */
static int parse_step(struct sweep *sw, int argc, char **argv)
{
	const struct f8b_bench *b = sw->b;
	int rc = f8b_run_options_parse(b, argc, argv, &sw->cc, &sw->run.cfg, &sw->ncases);
	if (rc == F8B_OK && sw->cc.help) {
		if (sw->comm.rank == 0)
			f8b_run_usage(b, stdout);
		return 0;
	}
	if (rc != F8B_OK) {
		if (sw->comm.rank == 0)
			fprintf(stderr, "f8bench %s: error: %s\n", b->name, f8b_last_error());
		return 2;
	}
	sw->run.mopts = sw->cc.m;
	if (b->collective) {
		sw->run.mopts.sync = comm_sync;
		sw->run.mopts.reduce = comm_reduce;
	}
	sw->run.seed = (uint64_t)sw->cc.seed;
	sw->run.verbose = sw->cc.verbose;
	return GO_ON;
}

/* Backend and device, each rank its own GPU. */
static int open_backend(struct sweep *sw)
{
	int device = -1;
	int rc = pick_backend(&sw->cc, &sw->comm, &sw->run.ops, &device);
	if (rc == F8B_OK) { /* the flush's default is the backend's */
		f8b_run_options_backend(&sw->cc, sw->run.ops->name);
		sw->run.mopts.flush = sw->cc.m.flush;
	}
	if (rc == F8B_OK)
		rc = sw->run.ops->open(device, &sw->run.be, &sw->run.dev);
	return any_rank_failed(sw->b, rc) ? 2 : GO_ON;
}

/* Provenance, the cases already done (--resume) and the results file, all
 * on rank 0; every rank then learns the run id and what is done. */
static int open_results(struct sweep *sw, int argc, char **argv)
{
	const struct f8b_bench *b = sw->b;
	const struct f8b_common_cfg *cc = &sw->cc;
	size_t n = sw->ncases ? sw->ncases : 1;
	int rc = f8b_provenance_collect(&sw->prov, &sw->comm, &sw->run.dev, sw->run.ops->name, argc,
	                                argv);
	sw->done = calloc(n, 1);
	if (rc == F8B_OK && !sw->done)
		rc = F8B_ERR(F8B_ENOMEM, "case list");
	if (sw->comm.rank == 0 && rc == F8B_OK) {
		f8b_prov_set(&sw->prov, "benchmark", "%s", b->name);
		f8b_prov_set(&sw->prov, "seed", "%lld", cc->seed);
		f8b_prov_set(&sw->prov, "shard", "%d/%d", cc->shard.index, cc->shard.count);
		f8b_prov_set(&sw->prov, "measure",
		             "warmup=%d min_samples=%d max_samples=%d min_time_s=%g "
		             "max_time_s=%g max_noise=%g flush=%d flush_by=%s hold=%d batch=%d "
		             "interleave=%d",
		             cc->m.warmup, cc->m.min_samples, cc->m.max_samples, cc->m.min_time_s,
		             cc->m.max_time_s, cc->m.max_noise, cc->m.flush,
		             cc->m.flush_how == F8B_FLUSH_READ ? "read" : "write", cc->m.hold,
		             cc->m.batch, cc->interleave);
		if (cc->resume)
			rc =
			    mark_done(b, sw->run.cfg, cc->output, sw->ncases, sw->done, &sw->ndone);
		if (rc == F8B_OK)
			rc = f8b_results_open(cc->output, cc->append, b->schema, &sw->prov,
			                      &sw->res, &sw->run.run_id);
		if (rc == F8B_OK && b->detail_schema && !b->collective)
			rc = f8b_results_add_table(sw->res, b->detail_schema);
		if (sw->res)
			f8b_comm_on_abort(on_comm_abort, sw);
	}
	if (any_rank_failed(b, rc))
		return 2;
	f8b_comm_bcast(&sw->run.run_id, sizeof sw->run.run_id);
	f8b_comm_bcast(sw->done, n);
	return GO_ON;
}

/* The cases left to run, the row buffers, the opening lines, progress. */
static int plan_rounds(struct sweep *sw)
{
	const struct f8b_bench *b = sw->b;
	const size_t rs = b->schema->row_size;
	sw->doff = (rs + 1 + sizeof(uint32_t) + 15) / 16 * 16;
	sw->slot = sw->doff;
	if (b->detail_schema && !b->collective)
		sw->slot += (b->detail_max * b->detail_schema->row_size + 15) / 16 * 16;
	size_t nc = sw->ncases ? sw->ncases : 1;
	sw->todo = malloc(sizeof *sw->todo * nc);
	sw->ustart = malloc(sizeof *sw->ustart * nc);
	sw->ulen = malloc(sizeof *sw->ulen * nc);
	if (!sw->todo || !sw->ustart || !sw->ulen) {
		fprintf(stderr, "f8bench: error: out of host memory for the case list\n");
		return 1;
	}
	for (size_t i = 0; i < sw->ncases; i++)
		if (!sw->done[i] && f8b_shard_has(&sw->cc.shard, i))
			sw->todo[sw->ntodo++] = i;
	/* Units: each case alone, or (--interleave) each run of cases the
	 * benchmark groups with the run's first, at most F8B_GROUP_MAX. */
	sw->gmax = 1;
	for (size_t k = 0; k < sw->ntodo; k++) {
		size_t u = sw->nunits;
		if (u > 0 && sw->cc.interleave && sw->ulen[u - 1] < F8B_GROUP_MAX &&
		    b->same_group(sw->run.cfg, sw->todo[sw->ustart[u - 1]], sw->todo[k])) {
			if (++sw->ulen[u - 1] > sw->gmax)
				sw->gmax = sw->ulen[u - 1];
			continue;
		}
		sw->ustart[u] = k;
		sw->ulen[u] = 1;
		sw->nunits++;
	}
	sw->part = sw->gmax * sw->slot;
	sw->row = calloc(1, sw->part);
	if (sw->comm.rank == 0)
		sw->all = calloc((size_t)sw->comm.size, sw->part);
	if (!sw->row || (sw->comm.rank == 0 && !sw->all)) {
		fprintf(stderr, "f8bench: error: out of host memory for the case list\n");
		return 1;
	}
	if (sw->comm.rank == 0) {
		fprintf(stderr, "f8bench %s: %zu cases%s on %d rank(s), backend %s (%s) -> %s\n",
		        b->name, sw->ntodo, sw->ndone ? " left" : "", sw->comm.size,
		        sw->run.ops->name, sw->run.dev.name, sw->cc.output);
		if (sw->ndone)
			fprintf(stderr, "f8bench %s: --resume: %zu cases already in %s\n", b->name,
			        sw->ndone, sw->cc.output);
		f8b_progress_init(&sw->prog, stderr, sw->ntodo, sw->cc.quiet);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	return GO_ON;
}

/* Round r: this rank's unit (if it has one), then every row to rank 0.
 * Independent cases: round r gives rank k unit r*size + k (a case, or a
 * group with --interleave).  Collective cases: every rank runs case r,
 * and only rank 0's row is kept.  False when the gather failed. */
static bool run_round(struct sweep *sw, size_t r)
{
	const struct f8b_bench *b = sw->b;
	const size_t rs = b->schema->row_size;
	size_t u = b->collective ? r : r * (size_t)sw->comm.size + (size_t)sw->comm.rank;
	memset(sw->row, 0, sw->part);
	if (u < sw->nunits && !sw->fatal) {
		const size_t n = sw->ulen[u];
		void *rows[F8B_GROUP_MAX], *detail[F8B_GROUP_MAX];
		uint32_t nd[F8B_GROUP_MAX] = {0}, *ndp[F8B_GROUP_MAX];
		for (size_t g = 0; g < n; g++) {
			unsigned char *slot = sw->row + g * sw->slot;
			rows[g] = slot;
			detail[g] = sw->slot > sw->doff ? slot + sw->doff : NULL;
			ndp[g] = &nd[g];
			slot[rs] = !b->collective || sw->comm.rank == 0; /* a row this round */
		}
		int rc = n == 1 ? f8b_run_case(b, &sw->run, sw->todo[sw->ustart[u]], rows[0],
		                               detail[0], &nd[0])
		                : f8b_run_group(b, &sw->run, sw->todo + sw->ustart[u], n, rows,
		                                detail, ndp);
		for (size_t g = 0; g < n; g++)
			memcpy(sw->row + g * sw->slot + rs + 1, &nd[g], sizeof nd[g]);
		if (rc != F8B_OK) {
			fprintf(stderr, "f8bench %s: error: %s (stopping)\n", b->name,
			        f8b_last_error());
			sw->fatal = 1;
		}
	}
	if (f8b_comm_gather(sw->row, sw->all, sw->part) != F8B_OK) {
		fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
		return false;
	}
	return true;
}

/* One gathered row: its tally and its progress line (rank 0). */
static void report_row(struct sweep *sw, const unsigned char *row)
{
	const struct f8b_bench *b = sw->b;
	const char *st = (const char *)row + b->off_status;
	char what[160], how[200];
	b->describe(row, what, sizeof what);
	if (!strcmp(st, F8B_ROW_OK)) {
		sw->t.ok++;
		b->summarize(row, how, sizeof how);
	} else {
		if (!strcmp(st, F8B_ROW_WRONG))
			sw->t.wrong++;
		else if (!strcmp(st, F8B_ROW_UNSUPPORTED))
			sw->t.unsupported++;
		else
			sw->t.error++;
		snprintf(how, sizeof how, "%s: %.150s", st, (const char *)row + b->off_message);
		char line[400];
		snprintf(line, sizeof line, "f8bench %s: %s: %s", b->name, what, how);
		f8b_progress_note(&sw->prog, line);
	}
	f8b_progress_step(&sw->prog, what, how);
}

/* Rank 0 appends the round's rows (each flushed to disk). */
static void write_rows(struct sweep *sw)
{
	const size_t rs = sw->b->schema->row_size;
	if (sw->comm.rank != 0)
		return;
	for (size_t q = 0; q < (size_t)sw->comm.size * sw->gmax; q++) {
		unsigned char *row = sw->all + q * sw->slot; /* rank q / gmax, slot q % gmax */
		uint32_t nd;
		if (!row[rs])
			continue;
		memcpy(&nd, row + rs + 1, sizeof nd);
		/* the detail rows first: a kill between the two leaves the case
		 * absent from the main table, so --resume runs it again */
		int rc = nd ? f8b_results_append_extra(sw->res, row + sw->doff, nd) : F8B_OK;
		if (rc == F8B_OK)
			rc = f8b_results_append(sw->res, row, 1);
		if (rc != F8B_OK) {
			fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
			sw->fatal = 1;
			break;
		}
		sw->written++;
		report_row(sw, row);
	}
}

/* After a round: stop together after a signal or a fatal error on any
 * rank.  Returns the exit status to stop with, or 0 to go on. */
static int stop_together(struct sweep *sw)
{
	int stop = interrupted || sw->fatal;
	f8b_comm_max_int(&stop);
	if (!stop)
		return 0;
	if (sw->comm.rank == 0) {
		f8b_progress_end(&sw->prog);
		fprintf(stderr,
		        "f8bench %s: %s after %zu of %zu cases; rows so far are in %s "
		        "(rerun with --resume to continue)\n",
		        sw->b->name, interrupted ? "interrupted" : "stopped", sw->prog.done,
		        sw->ntodo, sw->cc.output);
	}
	return interrupted ? 130 : 1;
}

/* The closing line and the exit status every rank agrees on. */
static int finish(struct sweep *sw, int exit_code)
{
	if (sw->comm.rank == 0) {
		f8b_progress_end(&sw->prog);
		if (!exit_code)
			fprintf(stderr,
			        "f8bench %s: wrote %zu rows to %s: %zu ok, %zu wrong, %zu "
			        "unsupported, %zu error\n",
			        sw->b->name, sw->prog.done, sw->cc.output, sw->t.ok, sw->t.wrong,
			        sw->t.unsupported, sw->t.error);
		if (!exit_code && (sw->t.wrong || sw->t.error))
			exit_code = 1;
	}
	f8b_comm_max_int(&exit_code);
	return exit_code;
}

static int run_rounds(struct sweep *sw)
{
	size_t per_round = sw->b->collective ? 1 : (size_t)sw->comm.size;
	size_t rounds = (sw->nunits + per_round - 1) / per_round;
	for (size_t r = 0; r < rounds; r++) {
		if (!run_round(sw, r))
			return 1;
		write_rows(sw);
		int code = stop_together(sw);
		if (code)
			return finish(sw, code);
	}
	return finish(sw, 0);
}

/* Closes what the steps opened.  A run that appended no row (an error, a
 * signal, a write that failed) takes back what it added: a file it created
 * is removed, an existing file (--append, --resume) loses only this run's
 * group, never earlier rows. */
static int cleanup(struct sweep *sw, int exit_code)
{
	f8b_comm_on_abort(NULL, NULL);
	if (sw->res && sw->written == 0) {
		f8b_results_abandon(sw->res);
		sw->res = NULL;
	}
	if (sw->res && f8b_results_close(sw->res) != F8B_OK) {
		fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
		exit_code = exit_code ? exit_code : 1;
	}
	if (sw->run.be)
		sw->run.ops->close(sw->run.be);
	if (sw->run.cfg)
		sw->b->cfg_free(sw->run.cfg);
	f8b_prov_free(&sw->prov);
	free(sw->done);
	free(sw->todo);
	free(sw->ustart);
	free(sw->ulen);
	free(sw->row);
	free(sw->all);
	f8b_comm_finalize();
	return exit_code;
}

int f8b_run_bench(const struct f8b_bench *b, int argc, char **argv)
{
	struct sweep sw = {.b = b};
	if (f8b_comm_init(&argc, &argv, &sw.comm) != F8B_OK) {
		fprintf(stderr, "f8bench: error: %s\n", f8b_last_error());
		return 2;
	}
	sw.run.rank = sw.comm.rank;
	sw.run.nranks = sw.comm.size;
	int code = GO_ON;
	if (f8b_comm_same_args(argc, argv, sw.comm.rank, sw.comm.size) != F8B_OK) {
		if (sw.comm.rank == 0)
			fprintf(stderr, "f8bench %s: error: %s\n", b->name, f8b_last_error());
		code = 2;
	}
	if (code == GO_ON)
		code = parse_step(&sw, argc, argv);
	if (code == GO_ON)
		code = open_backend(&sw);
	if (code == GO_ON)
		code = open_results(&sw, argc, argv);
	if (code == GO_ON)
		code = plan_rounds(&sw);
	if (code == GO_ON)
		code = run_rounds(&sw);
	return cleanup(&sw, code);
}
