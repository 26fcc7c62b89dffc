/* registry.c - the list of benchmarks.  Adding a benchmark adds its
 * descriptor here; nothing else outside its own files names it. */
#include "harness/bench.h"

const struct f8b_bench *const f8b_benches[] = {&f8b_bench_gemm,      &f8b_bench_lls,
                                               &f8b_bench_allgather, &f8b_bench_ceilings,
                                               &f8b_bench_optim,     NULL};
