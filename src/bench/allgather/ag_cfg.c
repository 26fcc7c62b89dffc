/* ag_cfg.c - the allgather benchmark's options, its cases (weights x
 * tokens per rank x modes, bf16 first so the fp8 rows find their
 * baseline, each fp8 mode on every GEMM implementation of --gemm-impl) and the rows' key columns
 * (ag_rows.c: comparing and naming rows). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/allgather/ag_int.h"
#include "core/cases.h"

static const char *const mode_names[AG_NMODES] = {"bf16", "fp8-compute", "fp8-allgather",
                                                  "fp8-allgather-axiswise"};

const char *f8b_ag_mode_name(int mode)
{
	return mode >= 0 && mode < AG_NMODES ? mode_names[mode] : "?";
}

int f8b_ag_mode_of(const char *name)
{
	int m = 0;
	while (m < AG_NMODES && strcmp(name, mode_names[m]))
		m++;
	return m;
}

double f8b_ag_gather_bytes_of(int mode, int64_t n, int64_t k, bool fwd)
{
	bool fp8 = mode == AG_FP8_AG || (mode == AG_FP8_AG_AXIS && fwd);
	double b = (double)n * (double)k * (fp8 ? 1 : 2);
	return mode == AG_FP8_AG_AXIS && fwd ? b + 4.0 * (double)n : b;
}

enum {
	OPT_MODES = 3100,
	OPT_WEIGHTS,
	OPT_LAYERS,
	OPT_TOKENS,
	OPT_PREFETCH,
	OPT_RS_DTYPE,
	OPT_TIMEOUT,
	OPT_NCCL_BUFFERS,
	OPT_NCCL_CTA,
	OPT_IN_PLACE,
	OPT_COMM_PRIORITY,
	OPT_RS_BUFFERS,
	OPT_RS_MAX_CTAS,
	OPT_GEMM_SM_MARGIN,
	OPT_RS_STREAM,
	OPT_GEMM_IMPL,
};
enum { OPT_OPTIMIZER = 3150, OPT_UPDATE };

const struct f8b_option f8b_ag_options[] = {
    {"modes", OPT_MODES, 0, "LIST",
     "comma separated: bf16, fp8-compute, fp8-allgather,\nfp8-allgather-axiswise (default: all "
     "four; doc/allgather.md)"},
    {"weights", OPT_WEIGHTS, 0, "SPEC",
     "layer 0's weight [d_out, d_in] (odd layers are [d_in, d_out]):\nD (square), "
     "DOUTxDIN, or a shape set / file whose shapes'\nN x K are taken (llama3-8b...); comma "
     "separated\n(default 8192)"},
    {"layers", OPT_LAYERS, 0, "L", "linear layers in the stack, 1..64 (default 8)"},
    {"tokens", OPT_TOKENS, 0, "LIST",
     "tokens per rank, comma separated multiples of 16\n(default "
     "512,1024,2048,4096,8192,16384)"},
    {"prefetch", OPT_PREFETCH, 0, "N",
     "all-gathers issued ahead of the layer computing, 0..4\n(default 1)"},
    {"rs-dtype", OPT_RS_DTYPE, 0, "bf16|f32",
     "grad_weight's dtype and its reduce-scatter's (default bf16)"},
    {"optimizer", OPT_OPTIMIZER, 0, "VARIANT",
     "AdamW on each rank's shards (f8bench optim's op): none, fp32,\n"
     "bf16, fp8, fp8-master16; its cast is the fp8 shard the next\n"
     "step gathers (--modes fp8-allgather only) (default none)"},
    {"update", OPT_UPDATE, 0, "after|overlap",
     "--optimizer's update: after the backward, one pass over every\n"
     "layer; or overlap, each layer's pass behind its reduce-scatter\n"
     "on a low-priority queue of its own, the cast after the backward\n"
     "(default after)"},
    {"nccl-buffers", OPT_NCCL_BUFFERS, 0, "MODE",
     "buffers of every collective: plain (cudaMalloc), registered\n"
     "(ncclMemAlloc + ncclCommRegister), symmetric (ncclMemAlloc +\n"
     "a symmetric window) (default " AG_DEFAULT_BUFFERS ")"},
    {"nccl-cta-policy", OPT_NCCL_CTA, 0, "POLICY",
     "NCCL CTA policy: default, efficiency, zero (copy engines\n"
     "where NCCL can; symmetric buffers only) (default " AG_DEFAULT_CTA " on\n"
     "symmetric buffers, else default)"},
    {"in-place", OPT_IN_PLACE, 0, "on|off",
     "gather in place: each rank casts (fp8) or copies (bf16) its\n"
     "shard into its part of the gathered buffer, as FSDP does\n(default " AG_DEFAULT_IN_PLACE ")"},
    {"comm-priority", OPT_COMM_PRIORITY, 0, "default|high",
     "the communication stream's priority: high runs its kernels\n"
     "ahead of the GEMMs' where both are ready (default default)"},
    {"rs-nccl-buffers", OPT_RS_BUFFERS, 0, "MODE",
     "the reduce-scatter's buffers (plain, registered, symmetric);\n"
     "other than --nccl-buffers: its own communicator (default: the\n"
     "same as --nccl-buffers; " AG_DEFAULT_RS_BUFFERS_OF_SYMMETRIC " where those are symmetric)"},
    {"rs-max-ctas", OPT_RS_MAX_CTAS, 0, "N",
     "at most N CTAs (SMs) for the reduce-scatter, 1..64, on its own\n"
     "communicator with NCCL's CTA policy (default 0: NCCL's choice)"},
    {"rs-stream", OPT_RS_STREAM, 0, "shared|own",
     "the reduce-scatters' queue: shared, behind the gathers on the\n"
     "communication queue; or own, a queue of their own (FSDP2's\n"
     "reduce-scatter stream; with --optimizer the amax all-reduce\n"
     "and the cast too), on their own communicator (default shared)"},
    {"gemm-sm-margin", OPT_GEMM_SM_MARGIN, 0, "N",
     "the step's GEMMs plan for N SMs fewer than the GPU has\n"
     "(cuBLASLt's SM count target), leaving them to NCCL's kernels,\n"
     "0..32 (default 0)"},
    {"gemm-impl", OPT_GEMM_IMPL, 0, "LIST",
     "the fp8 modes' GEMMs: cublaslt, f8b (f8bench's own sm_90a\nkernel), comma separated; "
     "each fp8 mode runs on each, side by\nside; the bf16 mode's GEMMs are cuBLASLt's (default "
     "cublaslt)"},
    {"timeout", OPT_TIMEOUT, 0, "SEC",
     "a collective or MPI wait that takes longer ends the job on\nevery rank with an error (a "
     "dead or stuck rank) (default 120)"},
    {0},
};

int f8b_ag_cfg_new(void **cfg)
{
	struct ag_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return F8B_ERR(F8B_ENOMEM, "allgather config");
	c->modes_spec = "bf16,fp8-compute,fp8-allgather,fp8-allgather-axiswise";
	c->weights_spec = "8192";
	c->tokens_spec = "512,1024,2048,4096,8192,16384";
	c->impl_spec = "cublaslt";
	c->layers = 8;
	c->prefetch = 1;
	c->timeout_s = 120;
	c->buffers =
	    f8b_coll_name_index(f8b_coll_buffers_names, F8B_COLL_BUF_N, AG_DEFAULT_BUFFERS);
	c->cta = f8b_coll_name_index(f8b_coll_cta_names, F8B_COLL_CTA_N, AG_DEFAULT_CTA);
	c->in_place = !strcmp(AG_DEFAULT_IN_PLACE, "on");
	c->rs_buffers = -1; /* the all-gather's */
	c->optim = -1;
	*cfg = c;
	return F8B_OK;
}

void f8b_ag_cfg_free(void *cfg)
{
	struct ag_cfg *c = cfg;
	if (!c)
		return;
	f8b_coll_close(c->rs_coll);
	f8b_coll_close(c->coll);
	if (c->hb)
		f8b_backend_host.close(c->hb);
	free(c->base.y);
	free(c->base.gx);
	free(c->base.gw);
	free(c->w);
	free(c->tokens);
	free(c->cases);
	free(c->wchecked);
	free(c->rschecked);
	free(c);
}

static int parse_int(const char *arg, const char *opt, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi)
		return F8B_ERR(F8B_EINVAL, "--%s '%s': expected an integer in %ld..%ld", opt, arg,
		               lo, hi);
	*out = (int)v;
	return F8B_OK;
}

/* One of names[], or an error listing them. */
static int pick(const char *arg, const char *opt, const char *const *names, int n, int *out)
{
	int i = f8b_coll_name_index(names, n, arg);
	if (i >= 0) {
		*out = i;
		return F8B_OK;
	}
	char acc[96];
	f8b_coll_name_list(names, n, acc, sizeof acc);
	return F8B_ERR(F8B_EINVAL, "--%s '%s' (accepted: %s)", opt, arg, acc);
}

/* An option of two words: *out is whether arg is the second. */
static int pick_two(const char *arg, const char *opt, const char *no, const char *yes, bool *out)
{
	const char *const names[] = {no, yes};
	int v = 0;
	F8B_TRY(pick(arg, opt, names, 2, &v));
	*out = v == 1;
	return F8B_OK;
}

int f8b_ag_cfg_option(void *cfg, int key, const char *arg)
{
	struct ag_cfg *c = cfg;
	switch (key) {
	case OPT_MODES:
		c->modes_spec = arg;
		c->modes_set = true;
		return F8B_OK;
	case OPT_WEIGHTS: c->weights_spec = arg; return F8B_OK;
	case OPT_TOKENS: c->tokens_spec = arg; return F8B_OK;
	case OPT_GEMM_IMPL: c->impl_spec = arg; return F8B_OK;
	case OPT_LAYERS: return parse_int(arg, "layers", 1, AG_MAX_LAYERS, &c->layers);
	case OPT_PREFETCH: return parse_int(arg, "prefetch", 0, AG_MAX_PREFETCH, &c->prefetch);
	case OPT_RS_DTYPE:
		if (strcmp(arg, "bf16") && strcmp(arg, "f32"))
			return F8B_ERR(F8B_EINVAL, "--rs-dtype '%s' (accepted: bf16, f32)", arg);
		c->rs_f32 = !strcmp(arg, "f32");
		return F8B_OK;
	case OPT_TIMEOUT: return f8b_parse_timeout(arg, &c->timeout_s);
	case OPT_NCCL_BUFFERS:
		return pick(arg, "nccl-buffers", f8b_coll_buffers_names, F8B_COLL_BUF_N,
		            &c->buffers);
	case OPT_NCCL_CTA:
		c->cta_set = true;
		return pick(arg, "nccl-cta-policy", f8b_coll_cta_names, F8B_COLL_CTA_N, &c->cta);
	case OPT_OPTIMIZER: {
		enum f8b_optim_variant v;
		c->optim = -1;
		if (!strcmp(arg, "none"))
			return F8B_OK;
		if (f8b_optim_variant_parse(arg, &v) != F8B_OK)
			return F8B_ERR(F8B_EINVAL,
			               "--optimizer '%s' (accepted: none, fp32, bf16, fp8, "
			               "fp8-master16)",
			               arg);
		c->optim = (int)v;
		return F8B_OK;
	}
	case OPT_UPDATE:
		F8B_TRY(pick_two(arg, "update", "after", "overlap", &c->overlap));
		c->update_set = true;
		return F8B_OK;
	case OPT_IN_PLACE: return pick_two(arg, "in-place", "off", "on", &c->in_place);
	case OPT_COMM_PRIORITY:
		return pick_two(arg, "comm-priority", "default", "high", &c->comm_high);
	case OPT_RS_STREAM: return pick_two(arg, "rs-stream", "shared", "own", &c->rs_stream);
	case OPT_RS_BUFFERS:
		return pick(arg, "rs-nccl-buffers", f8b_coll_buffers_names, F8B_COLL_BUF_N,
		            &c->rs_buffers);
	case OPT_GEMM_SM_MARGIN:
		return parse_int(arg, "gemm-sm-margin", 0, AG_MAX_SM_MARGIN, &c->sm_margin);
	case OPT_RS_MAX_CTAS:
		return parse_int(arg, "rs-max-ctas", 0, AG_MAX_RS_CTAS, &c->rs_max_ctas);
	}
	return F8B_ERR(F8B_EINTERNAL, "allgather option %d", key);
}

static int parse_modes(struct ag_cfg *c)
{
	char *copy = strdup(c->modes_spec), *save = NULL;
	if (!copy)
		return F8B_ERR(F8B_ENOMEM, "--modes");
	int rc = F8B_OK;
	for (char *t = strtok_r(copy, ",", &save); t && rc == F8B_OK;
	     t = strtok_r(NULL, ",", &save)) {
		t = f8b_trim(t);
		int m = f8b_ag_mode_of(t);
		if (m == AG_NMODES)
			rc = F8B_ERR(F8B_EINVAL,
			             "--modes: unknown mode '%s' (accepted: bf16, fp8-compute, "
			             "fp8-allgather, fp8-allgather-axiswise)",
			             t);
		for (int j = 0; rc == F8B_OK && j < c->nmodes; j++)
			if (c->modes[j] == m)
				rc = F8B_ERR(F8B_EINVAL, "--modes: '%s' is listed twice", t);
		if (rc == F8B_OK)
			c->modes[c->nmodes++] = m;
	}
	free(copy);
	if (rc == F8B_OK && c->nmodes == 0)
		rc = F8B_ERR(F8B_EINVAL, "--modes '%s': no mode", c->modes_spec);
	/* bf16 first: the fp8 rows' speedups and SQNRs are against it. */
	for (int j = 1; rc == F8B_OK && j < c->nmodes; j++)
		if (c->modes[j] == AG_BF16) {
			memmove(c->modes + 1, c->modes, sizeof c->modes[0] * (size_t)j);
			c->modes[0] = AG_BF16;
		}
	return rc;
}

static int add_weight(struct ag_cfg *c, int64_t n, int64_t k, const char *label, const char *origin)
{
	struct f8b_shape sh = {.m = 16, .k = k, .n = n};
	if (f8b_shape_validate(&sh, origin) != F8B_OK)
		return F8B_ERR(F8B_EINVAL, "--weights: %s", f8b_last_error());
	for (size_t i = 0; i < c->nw; i++)
		if (c->w[i].n == n && c->w[i].k == k)
			return F8B_OK; /* a model's repeated shapes: once */
	struct ag_weight *w = realloc(c->w, (c->nw + 1) * sizeof *w);
	if (!w)
		return F8B_ERR(F8B_ENOMEM, "--weights");
	c->w = w;
	w[c->nw] = (struct ag_weight){.n = n, .k = k};
	f8b_setstr(w[c->nw].label, sizeof w[c->nw].label, label);
	c->nw++;
	return F8B_OK;
}

static int parse_weights(struct ag_cfg *c)
{
	char *copy = strdup(c->weights_spec), *save = NULL;
	if (!copy)
		return F8B_ERR(F8B_ENOMEM, "--weights");
	int rc = F8B_OK;
	for (char *t = strtok_r(copy, ",", &save); t && rc == F8B_OK;
	     t = strtok_r(NULL, ",", &save)) {
		t = f8b_trim(t);
		long long n = 0, k = 0;
		char tail = 0;
		if (sscanf(t, "%lld%c", &n, &tail) == 1) {
			rc = add_weight(c, n, n, "", "--weights");
		} else if (isdigit((unsigned char)t[0]) &&
		           sscanf(t, "%lldx%lld%c", &n, &k, &tail) == 2) {
			rc = add_weight(c, n, k, "", "--weights");
		} else {
			struct f8b_shapes sh = {0};
			rc = f8b_shapes_parse(t, &sh);
			if (rc != F8B_OK)
				rc = F8B_ERR(F8B_EINVAL,
				             "--weights '%s': not D, DOUTxDIN or a shape set (%s)",
				             t, f8b_last_error());
			for (size_t i = 0; rc == F8B_OK && i < sh.n; i++)
				rc = add_weight(c, sh.v[i].n, sh.v[i].k, sh.v[i].label, t);
			f8b_shapes_free(&sh);
		}
	}
	free(copy);
	if (rc == F8B_OK && c->nw == 0)
		rc = F8B_ERR(F8B_EINVAL, "--weights '%s': no weight", c->weights_spec);
	return rc;
}

static int parse_tokens(struct ag_cfg *c)
{
	size_t max = 1;
	for (const char *p = c->tokens_spec; *p; p++)
		max += *p == ',';
	char *copy = strdup(c->tokens_spec), *save = NULL;
	c->tokens = calloc(max, sizeof *c->tokens);
	if (!copy || !c->tokens) {
		free(copy);
		return F8B_ERR(F8B_ENOMEM, "--tokens");
	}
	int rc = F8B_OK;
	for (char *t = strtok_r(copy, ",", &save); t && rc == F8B_OK;
	     t = strtok_r(NULL, ",", &save)) {
		t = f8b_trim(t);
		char *end;
		errno = 0;
		long long v = strtoll(t, &end, 10);
		if (errno || end == t || *end || v < 16 || v % 16 || v > F8B_MAX_DIM)
			rc = F8B_ERR(F8B_EINVAL,
			             "--tokens: '%s' (each a multiple of 16 in 16..%lld)", t,
			             (long long)F8B_MAX_DIM);
		else
			c->tokens[c->ntok++] = v;
	}
	free(copy);
	if (rc == F8B_OK && c->ntok == 0)
		rc = F8B_ERR(F8B_EINVAL, "--tokens '%s': no value", c->tokens_spec);
	return rc;
}

/* --optimizer and --update: what each needs (doc/allgather.md "The
 * optimizer"). */
static int check_optimizer(struct ag_cfg *c)
{
	if (c->optim < 0) {
		if (c->update_set)
			return F8B_ERR(F8B_EINVAL,
			               "--update %s: there is no update to schedule "
			               "without --optimizer (give one: fp32, bf16, "
			               "fp8, fp8-master16)",
			               c->overlap ? "overlap" : "after");
		return F8B_OK;
	}
	const char *v = f8b_optim_variant_name((enum f8b_optim_variant)c->optim);
	if (c->rs_f32)
		return F8B_ERR(F8B_EINVAL,
		               "--optimizer %s reads bf16 gradients: --rs-dtype f32 "
		               "is not accepted with it",
		               v);
	if (!c->modes_set)
		c->modes_spec = "fp8-allgather";
	else if (strcmp(c->modes_spec, "fp8-allgather"))
		return F8B_ERR(F8B_EINVAL,
		               "--optimizer %s with --modes '%s': the optimizer's fp8 cast is the "
		               "shard fp8-allgather gathers, so --modes fp8-allgather only (the "
		               "bf16 baseline is measured anyway, without an optimizer)",
		               v, c->modes_spec);
	return F8B_OK;
}

int f8b_ag_cfg_finalize(void *cfg, size_t *ncases)
{
	struct ag_cfg *c = cfg;
	/* Other buffers than the default's keep NCCL's own CTA policy unless
	 * one is asked for: zero CTAs need symmetric windows. */
	if (!c->cta_set && c->buffers != F8B_COLL_BUF_SYMMETRIC)
		c->cta = F8B_COLL_CTA_DEFAULT;
	if (c->cta == F8B_COLL_CTA_ZERO && c->buffers != F8B_COLL_BUF_SYMMETRIC)
		return F8B_ERR(
		    F8B_EINVAL,
		    "--nccl-cta-policy zero (copy-engine collectives) needs --nccl-buffers "
		    "symmetric (given: %s)",
		    f8b_coll_buffers_names[c->buffers]);
	/* The reduce-scatter's own communicator, when its buffers or its CTA
	 * bound differ from the all-gather's (doc/allgather.md, "Two
	 * communicators"). */
	if (c->rs_buffers < 0)
		c->rs_buffers = c->buffers != F8B_COLL_BUF_SYMMETRIC
		                    ? c->buffers
		                    : f8b_coll_name_index(f8b_coll_buffers_names, F8B_COLL_BUF_N,
		                                          AG_DEFAULT_RS_BUFFERS_OF_SYMMETRIC);
	/* A queue of their own needs a communicator of their own: NCCL runs
	 * a communicator's collectives in the order each rank queued them,
	 * and two queues would let the GPUs of two ranks take them in two
	 * orders. */
	c->rs_own_comm = c->rs_buffers != c->buffers || c->rs_max_ctas > 0 || c->rs_stream;
	/* Bound every MPI wait from here on: a rank that died before the
	 * first collective must not leave the others waiting. */
	f8b_comm_set_timeout(c->timeout_s);
	F8B_TRY(check_optimizer(c));
	F8B_TRY(parse_modes(c));
	F8B_TRY(parse_weights(c));
	F8B_TRY(parse_tokens(c));
	F8B_TRY(f8b_gemm_impl_list_parse(c->impl_spec, "--gemm-impl", c->impls, &c->nimpls));
	/* f8bench's own GEMM is persistent over every SM and has no SM
	 * margin yet (src/backend/cuda_gemm.c): say so now, not in a row of
	 * every case after the run. */
	for (int j = 0; j < c->nimpls; j++)
		if (c->impls[j] == F8B_GEMM_IMPL_F8B && c->sm_margin > 0)
			return F8B_ERR(
			    F8B_EINVAL,
			    "--gemm-impl f8b with --gemm-sm-margin %d: f8bench's own GEMM "
			    "takes every SM (no SM margin yet); drop one of the two",
			    c->sm_margin);
	int R = f8b_comm_size();
	for (size_t i = 0; i < c->nw; i++) {
		int64_t n = c->w[i].n, k = c->w[i].k;
		/* Rows are sharded: n rows on even layers, k on odd ones. */
		if (n % R || (c->layers > 1 && k % R))
			return F8B_ERR(
			    F8B_EINVAL,
			    "--weights %lldx%lld on %d ranks: each layer's rows (%lld%s) "
			    "must divide evenly over the ranks (doc/allgather.md)",
			    (long long)n, (long long)k, R, (long long)n,
			    c->layers > 1 ? (k == n ? "" : " and, on odd layers, its d_in") : "");
	}
	/* bf16 once (its GEMMs are cuBLASLt's), every fp8 mode per impl */
	int per = 0;
	for (int m = 0; m < c->nmodes; m++)
		per += c->modes[m] == AG_BF16 ? 1 : c->nimpls;
	c->ncases = c->nw * c->ntok * (size_t)per;
	c->cases = calloc(c->ncases + 1, sizeof *c->cases);
	c->wchecked = calloc(c->nw * AG_NMODES + 1, sizeof *c->wchecked);
	c->rschecked = calloc(c->nw + 1, sizeof *c->rschecked);
	if (!c->cases || !c->wchecked || !c->rschecked)
		return F8B_ERR(F8B_ENOMEM, "%zu cases", c->ncases);
	size_t i = 0;
	for (size_t w = 0; w < c->nw; w++)
		for (size_t t = 0; t < c->ntok; t++)
			for (int m = 0; m < c->nmodes; m++) {
				bool bf16 = c->modes[m] == AG_BF16;
				for (int j = 0; j < (bf16 ? 1 : c->nimpls); j++)
					c->cases[i++] = (struct ag_case){
					    (int)w, c->tokens[t], c->modes[m],
					    bf16 ? F8B_GEMM_IMPL_CUBLASLT : c->impls[j]};
			}
	*ncases = c->ncases;
	return F8B_OK;
}

void f8b_ag_case_key(const void *cfg, size_t i, void *vrow)
{
	const struct ag_cfg *c = cfg;
	const struct ag_case *ac = &c->cases[i];
	const struct ag_weight *w = &c->w[ac->weight];
	struct f8b_allgather_row *r = vrow;
	f8b_setstr(r->mode, sizeof r->mode, mode_names[ac->mode]);
	r->d_out = w->n;
	r->d_in = w->k;
	r->layers = c->layers;
	f8b_setstr(r->label, sizeof r->label, w->label);
	r->tokens_per_rank = ac->tokens;
	r->ranks = f8b_comm_size();
	r->prefetch = c->prefetch;
	f8b_setstr(r->rs_dtype, sizeof r->rs_dtype, c->rs_f32 ? "f32" : "bf16");
	f8b_setstr(r->nccl_buffers, sizeof r->nccl_buffers, f8b_coll_buffers_names[c->buffers]);
	f8b_setstr(r->cta_policy, sizeof r->cta_policy, f8b_coll_cta_names[c->cta]);
	r->in_place = c->in_place;
	f8b_setstr(r->comm_priority, sizeof r->comm_priority, c->comm_high ? "high" : "default");
	f8b_setstr(r->rs_nccl_buffers, sizeof r->rs_nccl_buffers,
	           f8b_coll_buffers_names[c->rs_buffers]);
	r->rs_max_ctas = c->rs_max_ctas;
	f8b_setstr(r->rs_stream, sizeof r->rs_stream, c->rs_stream ? "own" : "shared");
	r->gemm_sm_margin = c->sm_margin;
	f8b_setstr(r->gemm_impl, sizeof r->gemm_impl, f8b_gemm_impl_name(ac->impl));
	bool opt = c->optim >= 0 && ac->mode == AG_FP8_AG;
	f8b_setstr(r->optimizer, sizeof r->optimizer,
	           opt ? f8b_optim_variant_name((enum f8b_optim_variant)c->optim) : "none");
	f8b_setstr(r->update, sizeof r->update, opt && c->overlap ? "overlap" : "after");
	/* Not measured (yet): NaN, never a time of zero. */
	double *nan_cols[] = {
	    &r->time_median_s,       &r->time_min_s,
	    &r->time_max_s,          &r->time_noise,
	    &r->fwd_time_s,          &r->bwd_time_s,
	    &r->compute_time_s,      &r->exposed_comm_s,
	    &r->exposed_pct,         &r->comm_time_s,
	    &r->overlap_efficiency,  &r->ag_bytes,
	    &r->ag_bytes_per_step,   &r->ag_time_s,
	    &r->ag_algbw_gbps,       &r->ag_busbw_gbps,
	    &r->ag_overlap_time_s,   &r->ag_overlap_busbw_gbps,
	    &r->ag_busbw_kept_pct,   &r->rs_bytes,
	    &r->rs_time_s,           &r->rs_busbw_gbps,
	    &r->rs_overlap_time_s,   &r->rs_overlap_busbw_gbps,
	    &r->amax_allreduce_s,    &r->gemm_time_s,
	    &r->gemm_tflops,         &r->gemm_overlap_time_s,
	    &r->gemm_overlap_tflops, &r->gemm_kept_pct,
	    &r->step_flops,          &r->bf16_time_median_s,
	    &r->speedup_vs_bf16,     &r->sqnr_out_db,
	    &r->sqnr_grad_x_db,      &r->sqnr_grad_w_db,
	    &r->sqnr_min_db,         &r->optim_bytes,
	    &r->ag_wait_s,           &r->rs_wait_s,
	};
	for (size_t j = 0; j < sizeof nan_cols / sizeof nan_cols[0]; j++)
		*nan_cols[j] = NAN;
}

int64_t f8b_ag_case_bytes(const void *cfg, size_t i)
{
	const struct ag_cfg *c = cfg;
	const struct ag_weight *w = &c->w[c->cases[i].weight];
	double R = f8b_comm_size(), L = c->layers, T = (double)c->cases[i].tokens;
	double d = (double)(w->n > w->k ? w->n : w->k), nk = (double)w->n * (double)w->k;
	double gwb = c->rs_f32 ? 4 : 2;
	double shards = L * nk / R * (2 + 1 + gwb);
	double slots = (c->prefetch + 1) * nk * 2 + 2 * nk + 2 * nk * gwb;
	double acts = (L + 1) * T * d * 2 + L * T * d + T * d * (2 * 2 + 2 + 1);
	if (c->optim >= 0) /* master, m, v, their block scales and the fp8 shard */
		shards +=
		    L * nk / R * (f8b_optim_state_bytes((enum f8b_optim_variant)c->optim) + 1);
	double need = shards + slots + acts + 64.0 * (double)(1 << 20);
	return need < 9e18 ? (int64_t)need : INT64_MAX;
}
