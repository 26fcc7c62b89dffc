/* ceilings_cfg.c - the ceilings driver's options and its case list. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/ceilings/ceilings_int.h"
#include "core/fp8.h"

/* ------------------------------------------------------------ options */

int f8b_ceil_cfg_new(void **cfg)
{
	struct ceil_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "ceilings config");
	c->launches = 1000;
	c->timeout_s = 120;
	*cfg = c;
	return F8B_OK;
}

void f8b_ceil_cfg_free(void *cfg)
{
	struct ceil_cfg *c = cfg;
	for (int p = 0; p < F8B_COLL_CTA_N; p++)
		f8b_coll_close(c->coll_h[p]);
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
		if (!strcasecmp(s, f8b_ceil_kind_names[k])) {
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

int f8b_ceil_cfg_option(void *cfg, int key, const char *arg)
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
	case OPT_GEMM_ALGOS: {
		errno = 0;
		long n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1 || n > 64)
			return F8B_ERR(F8B_EINVAL,
			               "--gemm-algos '%s': expected an integer in [1, 64]", arg);
		c->gemm_algos = (int)n;
		return F8B_OK;
	}
	case OPT_TIMEOUT: return f8b_parse_timeout(arg, &c->timeout_s);
	case OPT_NCCL_BUFFERS: c->buffers_spec = arg; return F8B_OK;
	case OPT_NCCL_CTA: c->cta_spec = arg; return F8B_OK;
	case OPT_IN_PLACE: c->in_place_spec = arg; return F8B_OK;
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

/* A comma-separated list of names, each marked in want[] (first use
 * wins order: the sweep runs in names[] order). */
static int parse_names(const char *spec, const char *opt, const char *const *names, int n,
                       bool *want)
{
	char buf[256], *save = NULL;
	if (strlen(spec) >= sizeof buf)
		return F8B_ERR(F8B_EINVAL, "%s '%.40s...': too long", opt, spec);
	snprintf(buf, sizeof buf, "%s", spec);
	int got = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i = f8b_coll_name_index(names, n, t);
		if (i < 0) {
			char acc[96];
			f8b_coll_name_list(names, n, acc, sizeof acc);
			return F8B_ERR(F8B_EINVAL, "%s: unknown value '%s' (accepted: %s)", opt, t,
			               acc);
		}
		want[i] = true;
		got++;
	}
	if (!got)
		return F8B_ERR(F8B_EINVAL, "%s '%s': no value", opt, spec);
	return F8B_OK;
}

static const char *const place_names[2] = {"off", "on"};

/* The collectives' buffer modes x CTA policies x placements. */
static int parse_coll_axes(struct ceil_cfg *c)
{
	F8B_TRY(parse_names(c->buffers_spec ? c->buffers_spec : "plain", "--nccl-buffers",
	                    f8b_coll_buffers_names, F8B_COLL_BUF_N, c->want_buf));
	F8B_TRY(parse_names(c->cta_spec ? c->cta_spec : "default", "--nccl-cta-policy",
	                    f8b_coll_cta_names, F8B_COLL_CTA_N, c->want_cta));
	F8B_TRY(parse_names(c->in_place_spec ? c->in_place_spec : "on,off", "--in-place",
	                    place_names, 2, c->want_place));
	/* NCCL's copy-engine path works on symmetric windows only. */
	if (c->want_cta[F8B_COLL_CTA_ZERO] && !c->want_buf[F8B_COLL_BUF_SYMMETRIC])
		return F8B_ERR(F8B_EINVAL, "--nccl-cta-policy zero (copy-engine collectives) needs "
		                           "--nccl-buffers symmetric among the buffer modes");
	return F8B_OK;
}

static int add_case(struct ceil_cfg *c, size_t cap, struct ceil_case cs)
{
	if (c->ncases >= cap)
		return F8B_ERR(F8B_EINTERNAL, "ceilings case list overflow");
	c->cases[c->ncases++] = cs;
	return F8B_OK;
}

int f8b_ceil_cfg_finalize(void *cfg, size_t *ncases)
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
				            f8b_ceil_kind_names[kinds[i]]);
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
	if (rc == F8B_OK)
		rc = parse_coll_axes(c);
	if (rc != F8B_OK)
		return rc;

	if (!c->gemm_algos)
		c->gemm_algos = c->gpu_defaults ? GPU_ALGOS : 1;
	size_t variants = (size_t)F8B_COLL_BUF_N * F8B_COLL_CTA_N * 2;
	size_t cap =
	    3 * c->nsizes + 2 * c->shapes.n * (size_t)c->gemm_algos + 1 + 2 * c->ncoll * variants;
	if (!(c->cases = calloc(cap, sizeof *c->cases)))
		return F8B_ERR(F8B_ENOMEM, "%zu cases", cap);
	for (enum kind k = K_READ; k <= K_COPY; k++)
		for (size_t i = 0; c->want[k] && i < c->nsizes && rc == F8B_OK; i++)
			rc = add_case(c, cap, (struct ceil_case){.kind = k, .bytes = c->sizes[i]});
	for (size_t i = 0; c->want[K_GEMM] && i < c->shapes.n && rc == F8B_OK; i++)
		for (int d = 0; d < 2 && rc == F8B_OK; d++)
			for (int a = 0; a < c->gemm_algos && rc == F8B_OK; a++)
				rc = add_case(c, cap,
				              (struct ceil_case){.kind = K_GEMM,
				                                 .shape = i,
				                                 .dtype = d ? F8B_E4M3 : F8B_BF16,
				                                 .algo = a});
	if (c->want[K_LAUNCH] && rc == F8B_OK)
		rc = add_case(c, cap, (struct ceil_case){.kind = K_LAUNCH});
	/* Collectives: each size in every buffer mode, policy and placement
	 * asked for, except zero CTAs on non-symmetric buffers (NCCL runs its
	 * copy engines on symmetric windows only). */
	for (enum kind k = K_ALLGATHER; k <= K_ALLREDUCE; k++)
		for (int b = 0; b < F8B_COLL_BUF_N; b++)
			for (int p = 0; p < F8B_COLL_CTA_N; p++)
				for (int ip = 1; ip >= 0; ip--) {
					if (!c->want_buf[b] || !c->want_cta[p] ||
					    !c->want_place[ip] ||
					    (p == F8B_COLL_CTA_ZERO && b != F8B_COLL_BUF_SYMMETRIC))
						continue;
					for (size_t i = 0;
					     c->want[k] && i < c->ncoll && rc == F8B_OK; i++)
						rc =
						    add_case(c, cap,
						             (struct ceil_case){.kind = k,
						                                .bytes = c->coll[i],
						                                .buffers = b,
						                                .cta = p,
						                                .in_place = ip});
				}
	*ncases = c->ncases;
	return rc;
}
