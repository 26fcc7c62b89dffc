/* ceil_setup.c - each ceiling's buffers, data and plans (outside timing),
 * its enqueue-only launch, and its teardown. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/reference.h"
#include "bench/ceilings/ceilings_int.h"
#include "bench/gemm/gemm_check.h"
#include "core/fp8.h"
#include "results/schema.h"

/* Seeds of the buffers of one case, apart from each other and from the
 * GEMM operands (seed*2+1, seed*2+2, as f8bench gemm uses). */
uint64_t f8b_ceil_seed_of(uint64_t seed, uint64_t stream)
{
	return seed * 0x100000u + 0x40000u + stream;
}

int f8b_ceil_fill_f32(struct ceil_state *s, void *p, size_t bytes, uint64_t seed)
{
	struct f8b_tensor t = {
	    .data = p, .dtype = F8B_F32, .rows = 1, .cols = (int64_t)(bytes / 4)};
	struct f8b_fill_spec f = {.seed = seed, .mean = 0, .std = 1};
	return s->run->ops->fill(s->run->be, &t, &f);
}

/* The host backend's fill of the first n floats of a buffer filled with
 * `seed` (element i depends only on seed and i: backend.h), the bit-exact
 * reference a device fill is compared with. */
int f8b_ceil_ref_prefix(struct ceil_state *s, uint64_t seed, int64_t n, float *out)
{
	struct f8b_backend *hbe = s->run->be;
	if (s->run->ops != &f8b_backend_host) {
		if (!s->cfg->href)
			F8B_TRY(f8b_backend_host.open(-1, &s->cfg->href, NULL));
		hbe = s->cfg->href;
	}
	struct f8b_tensor t = {.data = out, .dtype = F8B_F32, .rows = 1, .cols = n};
	struct f8b_fill_spec f = {.seed = seed, .mean = 0, .std = 1};
	return f8b_backend_host.fill(hbe, &t, &f);
}

/* The seeded data really is in buffer p: its first floats equal the host
 * fill bit for bit (the "never timed on zeros" guard). */
int f8b_ceil_check_prefix(struct ceil_state *s, const void *p, size_t bytes, uint64_t seed,
                          bool *ok, const char *what)
{
	int64_t n = (int64_t)(bytes / 4) < PREFIX_FLOATS ? (int64_t)(bytes / 4) : PREFIX_FLOATS;
	float want[PREFIX_FLOATS], got[PREFIX_FLOATS];
	F8B_TRY(f8b_ceil_ref_prefix(s, seed, n, want));
	F8B_TRY(s->run->ops->download(s->run->be, got, p, sizeof *got * (size_t)n));
	*ok = memcmp(want, got, sizeof *got * (size_t)n) == 0;
	if (!*ok)
		snprintf(
		    s->row->message, sizeof s->row->message,
		    "%s does not hold the seeded fill (first %lld floats differ from the host's)",
		    what, (long long)n);
	return F8B_OK;
}

static int launch_bw(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	switch (s->cs.kind) {
	case K_READ: return ops->bw_read(s->run->be, s->a, s->buf, s->passes, s->partial);
	case K_WRITE: return ops->bw_write(s->run->be, s->a, s->buf, s->passes, s->pattern);
	default: return ops->bw_copy(s->run->be, s->b, s->a, s->buf, s->passes);
	}
}

static int launch_empty(struct ceil_state *s)
{
	for (int j = 0; j < s->cfg->launches; j++)
		F8B_TRY(s->run->ops->launch_empty(s->run->be));
	return F8B_OK;
}

int f8b_ceil_launch(void *vs)
{
	struct ceil_state *s = vs;
	switch (s->cs.kind) {
	case K_GEMM: return s->run->ops->gemm(s->run->be, s->plan, &s->args);
	case K_LAUNCH: return launch_empty(s);
	case K_ALLGATHER: return f8b_coll_run(s->coll, F8B_COLL_ALLGATHER, s->send, s->b, s->count);
	case K_ALLREDUCE: return f8b_coll_run(s->coll, F8B_COLL_ALLREDUCE, s->send, s->b, s->count);
	default: return launch_bw(s);
	}
}

void f8b_ceil_teardown(void *vs)
{
	struct ceil_state *s = vs;
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	if (s->plan)
		ops->gemm_plan_free(be, s->plan);
	f8b_tensor_free(ops, be, &s->a_hp);
	f8b_tensor_free(ops, be, &s->b_hp);
	f8b_tensor_free(ops, be, &s->a_q);
	f8b_tensor_free(ops, be, &s->b_q);
	f8b_tensor_free(ops, be, &s->d);
	if (s->coll_bufs) {
		/* Registered buffers are freed in the same order on every rank. */
		f8b_coll_free(s->coll, s->b);
		f8b_coll_free(s->coll, s->a);
		s->a = s->b = NULL;
	}
	void *bufs[] = {s->a,       s->b,       s->partial, s->amax_a, s->amax_b,
	                s->scale_a, s->scale_b, s->sinv_a,  s->sinv_b};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (bufs[i])
			ops->free(be, bufs[i]);
	free(s);
}

/* The default lists follow a visible GPU (gpu_visible()); a host run on a
 * GPU machine that kept them would spend hours on a 4 GiB sweep or an
 * 8192^3 GEMM, so those cases are skipped with the option to use. */
static int host_too_big(const struct ceil_state *s)
{
	const struct ceil_cfg *c = s->cfg;
	const struct ceil_case *cs = &s->cs;
	if (strcmp(s->run->ops->name, "host") || !c->gpu_defaults)
		return F8B_OK;
	if (is_bw(cs->kind) && !c->sizes_spec && cs->bytes > HOST_MAX_SIZE)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "default working sets are sized for a GPU; on the host give --sizes "
		               "(e.g. " HOST_SIZES ")");
	if (is_coll(cs->kind) && !c->coll_spec && cs->bytes > HOST_MAX_COLL)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "default message sizes are sized for a GPU; on the host give "
		               "--coll-sizes (e.g. " HOST_COLL_SIZES ")");
	if (cs->kind == K_GEMM && !c->shapes_spec &&
	    2.0 * (double)s->row->m * (double)s->row->k * (double)s->row->n > HOST_MAX_GEMM_FLOPS)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "the default GEMM shape is sized for a GPU; on the host give "
		               "--gemm-shapes (e.g. " HOST_SHAPES ")");
	return F8B_OK;
}

static int setup_bw(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	int64_t ws = s->cs.bytes;
	int64_t lb = s->cfg->launch_bytes;
	if (lb <= 0)
		lb = strcmp(ops->name, "host") ? GPU_LAUNCH_BYTES : HOST_LAUNCH_BYTES;
	int64_t passes = (lb + ws - 1) / ws;
	s->passes = passes < 1 ? 1 : passes > INT_MAX ? INT_MAX : (int)passes;
	/* The copy's working set is its source and destination together, so
	 * every kind at one size touches the same number of bytes per pass. */
	s->buf = (size_t)(s->cs.kind == K_COPY ? ws / 2 : ws);
	s->seed_a = f8b_ceil_seed_of(s->run->seed, 1);
	F8B_TRY(ops->alloc(be, s->buf, &s->a));
	/* Seeded data everywhere, never zeros: what the read sums, what the
	 * write must overwrite, what the copy moves and what it replaces. */
	F8B_TRY(f8b_ceil_fill_f32(s, s->a, s->buf, s->seed_a));
	if (s->cs.kind == K_COPY) {
		F8B_TRY(ops->alloc(be, s->buf, &s->b));
		F8B_TRY(f8b_ceil_fill_f32(s, s->b, s->buf, f8b_ceil_seed_of(s->run->seed, 2)));
	}
	if (s->cs.kind == K_READ)
		F8B_TRY(ops->alloc(be, sizeof *s->partial * F8B_BW_PARTIALS, (void **)&s->partial));
	/* A word no fill of f32 normals produces in both halves at once. */
	s->pattern = 0xF8B0C0DEF8B0C0DEull ^ (s->run->seed << 1);
	return F8B_OK;
}

static int alloc_float(struct ceil_state *s, float **p)
{
	return s->run->ops->alloc(s->run->be, sizeof(float), (void **)p);
}

static int setup_gemm(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct f8b_ceilings_row *row = s->row;
	bool fp8 = s->cs.dtype != F8B_BF16;
	struct f8b_algo_info info;
	s->desc = (struct f8b_gemm_desc){.m = row->m,
	                                 .n = row->n,
	                                 .k = row->k,
	                                 .a_dtype = s->cs.dtype,
	                                 .b_dtype = s->cs.dtype,
	                                 .out_dtype = F8B_BF16,
	                                 .a_gran = F8B_GRAN_TENSORWISE,
	                                 .b_gran = F8B_GRAN_TENSORWISE,
	                                 .fast_accum = fp8};
	/* The operands f8bench gemm uses for this shape and seed. */
	struct f8b_fill_spec fa = {.seed = s->run->seed * 2 + 1, .mean = 0, .std = 1};
	struct f8b_fill_spec fb = fa;
	fb.seed = s->run->seed * 2 + 2;
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->a_hp, F8B_BF16, row->m, row->k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->b_hp, F8B_BF16, row->n, row->k));
	F8B_TRY(f8b_tensor_alloc(ops, be, &s->d, F8B_BF16, row->m, row->n));
	F8B_TRY(ops->fill(be, &s->a_hp, &fa));
	F8B_TRY(ops->fill(be, &s->b_hp, &fb));
	s->args = (struct f8b_gemm_args){.a = s->a_hp.data, .b = s->b_hp.data, .d = s->d.data};
	if (fp8) {
		struct f8b_scale_opts so = {0};
		F8B_TRY(f8b_tensor_alloc(ops, be, &s->a_q, s->cs.dtype, row->m, row->k));
		F8B_TRY(f8b_tensor_alloc(ops, be, &s->b_q, s->cs.dtype, row->n, row->k));
		F8B_TRY(alloc_float(s, &s->amax_a));
		F8B_TRY(alloc_float(s, &s->amax_b));
		F8B_TRY(alloc_float(s, &s->scale_a));
		F8B_TRY(alloc_float(s, &s->scale_b));
		F8B_TRY(alloc_float(s, &s->sinv_a));
		F8B_TRY(alloc_float(s, &s->sinv_b));
		/* Tensorwise: one amax, one scale per operand (scaling.h). */
		F8B_TRY(ops->amax(be, &s->a_hp, F8B_GRAN_TENSORWISE, s->amax_a));
		F8B_TRY(ops->scales(be, s->amax_a, 1, s->cs.dtype, &so, s->scale_a, s->sinv_a));
		F8B_TRY(ops->cast(be, &s->a_hp, F8B_GRAN_TENSORWISE, s->scale_a, &s->a_q));
		F8B_TRY(ops->amax(be, &s->b_hp, F8B_GRAN_TENSORWISE, s->amax_b));
		F8B_TRY(ops->scales(be, s->amax_b, 1, s->cs.dtype, &so, s->scale_b, s->sinv_b));
		F8B_TRY(ops->cast(be, &s->b_hp, F8B_GRAN_TENSORWISE, s->scale_b, &s->b_q));
		s->args = (struct f8b_gemm_args){.a = s->a_q.data,
		                                 .b = s->b_q.data,
		                                 .a_scale_inv = s->sinv_a,
		                                 .b_scale_inv = s->sinv_b,
		                                 .d = s->d.data};
	}
	/* The heuristic's candidate cs.algo (0: its first choice, as a framework
	 * would run it); a candidate the heuristic does not offer is unsupported. */
	return ops->gemm_plan(be, &s->desc, s->cs.algo, &s->plan, &info);
}

static int setup_coll(struct ceil_state *s)
{
	const struct f8b_backend_ops *ops = s->run->ops;
	struct f8b_backend *be = s->run->be;
	struct ceil_cfg *c = s->cfg;
	size_t n = (size_t)c->nranks;
	int p = s->cs.cta;
	/* One communicator per CTA policy for the whole sweep, opened by the
	 * first case that needs it; a failure is kept, so a missing peer
	 * costs one timeout, not one per case. */
	if (!c->coll_h[p] && c->coll_rc[p] == F8B_OK) {
		struct f8b_coll_opts o = {.cta_policy = p,
		                          .blocking = c->want_buf[F8B_COLL_BUF_SYMMETRIC]};
		c->coll_rc[p] = f8b_coll_open(ops, be, c->timeout_s, &o, &c->coll_h[p]);
		if (c->coll_rc[p] != F8B_OK)
			return c->coll_rc[p]; /* its message says why */
	}
	if (c->coll_rc[p] != F8B_OK)
		return F8B_ERR(c->coll_rc[p],
		               "no collectives: opening the %s communicator (CTA policy %s) "
		               "failed (the first such row says why)",
		               strcmp(ops->name, "host") ? "NCCL" : "MPI", f8b_coll_cta_names[p]);
	s->coll = c->coll_h[p];
	F8B_TRY(f8b_coll_status(s->coll));
	/* nccl-tests' sizes: the all-gather's is its output (every rank's
	 * part), the all-reduce's its buffer; counts round down to whole
	 * uint32 words per rank. */
	size_t send, recv;
	if (s->cs.kind == K_ALLGATHER) {
		s->count = (size_t)s->cs.bytes / (4 * n);
		send = 4 * s->count;
		recv = send * n;
		s->moved = (double)recv;
		s->factor = (double)(n - 1) / (double)n;
	} else {
		s->count = (size_t)s->cs.bytes / 4;
		send = recv = 4 * s->count;
		s->moved = (double)recv;
		s->factor = 2.0 * (double)(n - 1) / (double)n;
	}
	if (s->count == 0)
		return F8B_ERR(F8B_EINVAL,
		               "%s of %lld bytes over %d ranks: under one 4-byte word per rank",
		               f8b_ceil_kind_names[s->cs.kind], (long long)s->cs.bytes, c->nranks);
	s->seed_a = f8b_ceil_seed_of(s->run->seed, 0x100 + (uint64_t)s->run->rank);
	/* Every rank allocates the same sizes in the same order (registered
	 * buffers are collective calls); the in-place all-gather's input is
	 * the rank's part of its output, filled there after the stale fill,
	 * and a is the host-side copy the check sums. */
	s->coll_bufs = true;
	F8B_TRY(f8b_coll_alloc(s->coll, s->cs.buffers, send, &s->a));
	F8B_TRY(f8b_coll_alloc(s->coll, s->cs.buffers, recv, &s->b));
	F8B_TRY(f8b_ceil_fill_f32(s, s->a, send, s->seed_a));
	/* Stale output must not pass the check. */
	F8B_TRY(f8b_ceil_fill_f32(s, s->b, recv,
	                          f8b_ceil_seed_of(s->run->seed, 0x8000 + (uint64_t)s->run->rank)));
	s->send = s->a;
	if (s->cs.in_place) {
		size_t off = s->cs.kind == K_ALLGATHER ? (size_t)s->run->rank * send : 0;
		s->send = (unsigned char *)s->b + off;
		F8B_TRY(f8b_ceil_fill_f32(s, s->send, send, s->seed_a));
	}
	if (s->moved != (double)s->cs.bytes)
		snprintf(s->row->message, sizeof s->row->message,
		         "%s moves %.0f bytes (whole words per rank)",
		         f8b_ceil_kind_names[s->cs.kind], s->moved);
	return F8B_OK;
}

int f8b_ceil_setup(struct f8b_run *run, size_t i, void *vrow, void **state)
{
	struct ceil_cfg *c = run->cfg;
	struct f8b_ceilings_row *row = vrow;
	struct ceil_state *s = calloc(1, sizeof *s);
	if (!s)
		return F8B_ERR(F8B_ENOMEM, "ceilings state");
	*state = s;
	s->run = run;
	s->cfg = c;
	s->cs = c->cases[i];
	s->row = row;
	if (!c->peaks_done) {
		f8b_peaks_lookup(&run->dev, &c->peaks);
		c->peaks_done = true;
	}
	setstr(row->backend, sizeof row->backend, run->ops->name);
	setstr(row->gpu, sizeof row->gpu, run->dev.name);
	row->rank = run->rank;
	row->device = run->dev.device;
	F8B_TRY(host_too_big(s));
	if (!run->ops->bw_read || !run->ops->launch_empty)
		return F8B_ERR(F8B_EUNSUPPORTED, "the %s backend has no ceilings ops",
		               run->ops->name);
	switch (s->cs.kind) {
	case K_GEMM: return setup_gemm(s);
	case K_LAUNCH: return F8B_OK;
	case K_ALLGATHER:
	case K_ALLREDUCE: return setup_coll(s);
	default: return setup_bw(s);
	}
}
