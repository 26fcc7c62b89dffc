/* test_interleave.c - --interleave in the harness (runner.c) on the host
 * backend: a sweep whose groups have several measured members.  The host
 * backend refuses the f8b implementation, so gemm's own groups (its
 * implementations) have one measured member there; this test runs the
 * gemm benchmark with a grouping of its own, every fp8 case of a shape
 * together, so that the group path measures several cases at once.  It
 * checks that every case is written once, ok, with its own time; that
 * the members of a group were sampled in turn (the same number of samples
 * each, where measured one after the other they stop apart); under
 * --resume and sharding the same holds; and the provenance records the
 * flag.  MPI splitting of groups is in tests/mpi_gemm.sh. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/gemm/gemm_int.h"
#include "harness/bench.h"
#include "harness/provenance.h"
#include "results/results.h"
#include "results/schema.h"
#include "tap.h"

/* every fp8 case of one shape together, the baseline alone */
static bool by_shape(const void *vcfg, size_t i, size_t j)
{
	const struct gemm_cfg *c = vcfg;
	return c->cases[i].sc != SC_NONE && c->cases[i].shape == c->cases[j].shape;
}

/* gemm's setup, but the device is lost at the second fp8 case set up:
 * the rest of that case's group is not run, and the sweep stops. */
static int (*gemm_setup)(struct f8b_run *, size_t, void *, void **);
static int fp8_setups;
static int losing_setup(struct f8b_run *run, size_t i, void *row, void **state)
{
	const struct gemm_cfg *c = run->cfg;
	if (c->cases[i].sc != SC_NONE && ++fp8_setups == 2)
		return F8B_ERR(F8B_EDEVICE, "test: the device is lost");
	return gemm_setup(run, i, row, state);
}

/* f8b_run_bench in a child process (MPI, which it initialises and
 * finalises, starts once a process); its exit status. */
static int run_argv(const struct f8b_bench *b, int argc, char **argv)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(f8b_run_bench(b, argc, argv));
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int run(const struct f8b_bench *b, const char *out, const char *extra)
{
	char *argv[32];
	int argc = 0;
	static char buf[512];
	snprintf(
	    buf, sizeof buf,
	    "gemm --backend host --shapes 64x64x64,32x64x96 --scaling tensorwise,axiswise "
	    "--fast-accum on,off --min-samples 20 --max-samples 400 --min-time 0 --noise 0.001 "
	    "-q -o %s %s",
	    out, extra);
	for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	return run_argv(b, argc, argv);
}

/* The rows of a file, n of them (free *rows). */
static struct f8b_gemm_row *rows_of(const char *path, size_t *n)
{
	void *rows = NULL;
	*n = 0;
	if (f8b_results_read(path, &f8b_gemm_schema, &rows, n) != F8B_OK)
		return NULL;
	return rows;
}

int main(void)
{
	struct f8b_bench b = f8b_bench_gemm;
	b.same_group = by_shape;
	char dir[] = "/tmp/f8b-interleave-XXXXXX", path[300], p2[300];
	if (!mkdtemp(dir)) {
		tap_ok(0, "a temporary directory");
		return tap_done();
	}
	snprintf(path, sizeof path, "%s/a.h5", dir);
	tap_ok(run(&b, path, "--interleave") == 0, "an interleaved sweep runs");
	size_t n;
	struct f8b_gemm_row *r = rows_of(path, &n);
	/* 2 shapes x (1 baseline + 2 scalings x 2 fast_accum) */
	tap_ok(r && n == 10, "every case written once (%zu rows)", n);
	int ok = 0, same = 1;
	for (size_t i = 0; r && i < n; i++) {
		ok += !strcmp(r[i].status, "ok") && r[i].time_median_s > 0 && r[i].samples >= 20;
		/* the fp8 rows of a shape: one group, sampled in turn */
		for (size_t j = 0; j < n; j++)
			if (strcmp(r[i].scaling, "none") && strcmp(r[j].scaling, "none") &&
			    r[i].m == r[j].m && r[i].n == r[j].n && r[i].samples != r[j].samples)
				same = 0;
	}
	tap_ok(ok == (int)n, "every row ok, timed, at least --min-samples (%d of %zu)", ok, n);
	tap_ok(same, "the members of a group took the same number of samples (in turn)");
	struct f8b_provenance pv;
	memset(&pv, 0, sizeof pv);
	int rc = f8b_results_read_provenance(path, &pv);
	const char *m = rc == F8B_OK ? f8b_prov_get(&pv, "measure") : NULL;
	tap_ok(m && strstr(m, "interleave=1"), "the provenance says interleave=1 (%s)",
	       m ? m : "-");
	f8b_prov_free(&pv);
	free(r);

	/* A shard of the cases: groups are made of the shard's cases. */
	snprintf(p2, sizeof p2, "%s/s.h5", dir);
	tap_ok(run(&b, p2, "--interleave --shard 1/2") == 0, "an interleaved shard runs");
	r = rows_of(p2, &n);
	tap_ok(r && n == 5, "the shard's cases, once each (%zu rows)", n);
	free(r);
	/* --resume: the other shard's cases join the file, grouped again. */
	tap_ok(run(&b, p2, "--interleave --resume") == 0, "--resume of it runs");
	r = rows_of(p2, &n);
	ok = 0;
	for (size_t i = 0; r && i < n; i++)
		ok += !strcmp(r[i].status, "ok");
	tap_ok(r && n == 10 && ok == 10, "after --resume, every case once, ok (%zu rows, %d ok)", n,
	       ok);
	free(r);

	/* A device lost inside a group: the member that failed says why,
	 * those after it say they were not run, each with its own key. */
	struct f8b_bench lb = b;
	gemm_setup = b.setup;
	lb.setup = losing_setup;
	snprintf(p2, sizeof p2, "%s/d.h5", dir);
	tap_ok(run(&lb, p2, "--interleave") != 0, "a sweep that loses the device fails");
	r = rows_of(p2, &n);
	int lost = 0, notrun = 0, unmeasured = 0, untimed_ok = 0, keyed = 1;
	for (size_t i = 0; r && i < n; i++) {
		printf("# %s %s %s %lld: %s\n", r[i].scaling, r[i].fast_accum ? "fast" : "slow",
		       r[i].status, (long long)r[i].m, r[i].message);
		lost += strstr(r[i].message, "the device is lost") != NULL;
		notrun += !strcmp(r[i].status, "error") &&
		          strstr(r[i].message, "not run: a case") != NULL;
		unmeasured += !strcmp(r[i].status, "error") &&
		              strstr(r[i].message, "not measured: a case after") != NULL;
		untimed_ok += !strcmp(r[i].status, "ok") && !(r[i].time_median_s > 0);
		keyed &= r[i].m > 0 && r[i].run_id == r[0].run_id && strcmp(r[i].scaling, "") != 0;
	}
	tap_ok(r && lost == 1 && notrun == 2 && keyed,
	       "the lost case says why, the 2 after it in its group say not run, each keyed "
	       "(%zu rows, %d, %d)",
	       n, lost, notrun);
	tap_ok(unmeasured == 1 && untimed_ok == 0,
	       "the member set up before the loss says it was not measured (%d), no row is ok "
	       "untimed (%d)",
	       unmeasured, untimed_ok);
	free(r);
	unlink(p2);

	/* The benchmarks without groups refuse the flag. */
	snprintf(p2, sizeof p2, "%s/c.h5", dir);
	char *cargv[] = {"ceilings", "--backend", "host", "--interleave", "-o", p2, NULL};
	tap_ok(run_argv(&f8b_bench_ceilings, 6, cargv) == 2,
	       "ceilings --interleave: bad usage (exit 2)");
	tap_ok(access(p2, F_OK) != 0, "and no file");

	unlink(path);
	snprintf(p2, sizeof p2, "%s/s.h5", dir);
	unlink(p2);
	rmdir(dir);
	return tap_done();
}
