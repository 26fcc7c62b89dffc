/* run_case.h - one case or one --interleave group from setup to its row
 * (harness-internal: runner.c). */
#ifndef F8B_RUN_CASE_H
#define F8B_RUN_CASE_H

#include "harness/bench.h"

/* Case i: the memory check, setup, one checked launch, then measurement
 * if it was right, into row (and detail, *ndetail rows).  Returns a status
 * only for failures that end the sweep (device lost). */
int f8b_run_case(const struct f8b_bench *b, struct f8b_run *run, size_t i, void *row, void *detail,
                 uint32_t *ndetail);
/* The n cases `cases` (n <= F8B_GROUP_MAX) measured together, their
 * samples in turn; rows[g], detail[g], ndetail[g]: case cases[g]'s.  A
 * case that fails keeps its own status; the others go on.  Returns as
 * f8b_run_case does. */
int f8b_run_group(const struct f8b_bench *b, struct f8b_run *run, const size_t *cases, size_t n,
                  void *const *rows, void *const *detail, uint32_t **ndetail);

#endif
