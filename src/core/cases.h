/* cases.h - shapes, shape sets and files, sweep cross products, rank split.
 *
 * A GEMM shape is M K N: A[M,K] @ B[N,K]^T -> D[M,N].
 * Shape files: one "M K N" per line (whitespace separated, "x" also
 * accepted: "4096x8192x1024"), '#' starts a comment, blank lines ignored,
 * an optional 4th token is a label ("llama3-8b.attn.wqkv").
 * A shape spec (--shapes) is a comma list whose items are each
 *   - a set name: a file inputs/shapes/NAME.txt (pow2, square, llama2-70b,
 *     llama3-8b, quick, ...), searched in $F8B_INPUTS, then the installed
 *     data directory, then the source tree;
 *   - a path to a shape file (contains '/' or ends in .txt);
 *   - MxKxN.
 * Every dimension must be a positive multiple of 16 (fp8 GEMM alignment),
 * at most F8B_MAX_DIM, and M*K, K*N, M*N must fit in int64.
 */
#ifndef F8B_CASES_H
#define F8B_CASES_H

#include "core/common.h"
#include "core/scaling.h"

#define F8B_MAX_DIM (1LL << 20)

struct f8b_shape {
	int64_t m, k, n;
	char label[48]; /* "" when none */
};

struct f8b_shapes {
	struct f8b_shape *v;
	size_t n;
};

/* Validates one shape; on error names the dimension and the source
 * ("shape 100x256x256 (from --shapes): M=100 is not a multiple of 16"). */
int f8b_shape_validate(const struct f8b_shape *s, const char *origin);
int f8b_shapes_parse(const char *spec, struct f8b_shapes *out);
int f8b_shapes_load_file(const char *path, struct f8b_shapes *out); /* appends */
void f8b_shapes_free(struct f8b_shapes *s);
/* Directory of the named shape sets actually used (for messages/--help). */
const char *f8b_inputs_dir(void);

/* Comma-list parsing helpers for sweep axes: each item is looked up with
 * parse(); errors name the option (`what`, e.g. "--scaling"). */
int f8b_parse_list(const char *spec, const char *what, size_t elem_size,
                   int (*parse)(const char *item, void *out), void **items, size_t *n);

/* Mixed-radix decode of case index i over axes of sizes dims[0..ndim-1]
 * (the last axis varies fastest). */
void f8b_cross_index(size_t i, const size_t *dims, int ndim, size_t *idx);
size_t f8b_cross_count(const size_t *dims, int ndim); /* 0 if overflow */

/* Which rank runs case i of n (round robin), and how many a rank runs. */
int f8b_case_owner(size_t i, int nranks);
size_t f8b_cases_of_rank(size_t n, int rank, int nranks);

/* --shard I/N: shard I (0-based) of N takes the cases i with i % N == I,
 * before the rank split and before --resume's skip.  Strided rather than
 * in blocks: the case lists run shape by shape in the order of the shape
 * set (pow2 and square grow by 8x in flops per step), so contiguous blocks
 * would hand the last shard all the largest shapes; strided, every shard
 * gets every shape and their run times differ by at most about one case.
 * {0, 1} (no option) takes every case. */
struct f8b_shard {
	int index, count;
};
/* Parses "I/N" with 0 <= I < N <= F8B_MAX_SHARDS; errors name --shard. */
#define F8B_MAX_SHARDS 100000
int f8b_shard_parse(const char *arg, struct f8b_shard *out);
bool f8b_shard_has(const struct f8b_shard *s, size_t i);
size_t f8b_shard_size(const struct f8b_shard *s, size_t n); /* cases of n it takes */

#endif
