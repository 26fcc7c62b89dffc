/* ceil_check.c - each ceiling checked once before it is timed: bandwidth
 * results against host sums of the same seeded data, GEMMs against a
 * double reference on a sampled block, collectives by position-weighted
 * checksums. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/reference.h"
#include "bench/ceilings/ceilings_int.h"
#include "bench/gemm/gemm_check.h"
#include "results/schema.h"

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
		F8B_TRY(f8b_ceil_check_prefix(s, s->a, s->buf, s->seed_a, ok, "the read buffer"));
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
		F8B_TRY(f8b_ceil_check_prefix(s, s->a, s->buf, s->seed_a, ok, "the copy's source"));
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
	int rc = f8b_coll_status(s->coll);
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

int f8b_ceil_check(void *vs, void *vrow, bool *ok)
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
