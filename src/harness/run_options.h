/* run_options.h - the options every benchmark takes and the parse of a
 * benchmark's command line (harness-internal: runner.c). */
#ifndef F8B_RUN_OPTIONS_H
#define F8B_RUN_OPTIONS_H

#include <stdio.h>

#include "core/cases.h"
#include "harness/bench.h"

struct f8b_common_cfg {
	const char *backend; /* "host", "cuda" or NULL (pick) */
	const char *output;
	bool append, resume, help, quiet, verbose;
	bool interleave; /* --interleave: groups measured together (bench.h) */
	long long seed;
	int device; /* -1: node-local rank modulo the GPU count */
	struct f8b_measure_opts m;
	int flush_asked;        /* 0: the backend's default, 1: --flush-by, -1: --no-flush */
	struct f8b_shard shard; /* --shard I/N: {0, 1} runs every case */
	char outbuf[256];       /* the default output name */
};

/* Parses argv: the common options and b's, then b->cfg_finalize (the case
 * list).  Every rank parses the same argv, so every rank agrees on the case
 * list without communication.  *cfg is the driver's configuration whenever
 * it was allocated (free it with b->cfg_free, also after a failure).  With
 * --help, cc->help is set and nothing else is checked. */
int f8b_run_options_parse(const struct f8b_bench *b, int argc, char **argv,
                          struct f8b_common_cfg *cc, void **cfg, size_t *ncases);
/* Settles what depends on the backend that will run (its name): the cache
 * flush before each cold sample is on by default for cuda and off for host
 * (its timings mean little, and flushing a CPU cache dominated them);
 * --flush-by asks for it on any backend, --no-flush turns it off. */
void f8b_run_options_backend(struct f8b_common_cfg *cc, const char *backend);
/* The --help text: b's options, the common ones, the exit statuses. */
void f8b_run_usage(const struct f8b_bench *b, FILE *f);
/* b's section of the man page (f8bench man) from the same text and table;
 * b NULL: the section of the options every benchmark takes. */
void f8b_run_man(FILE *f, const struct f8b_bench *b);

#endif
