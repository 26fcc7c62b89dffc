/* allgather.c - the FSDP fp8 all-gather, emulated over NCCL and MPI
 * (doc/allgather.md): a stack of linear layers whose weights are sharded
 * over the ranks and gathered before each use, in bf16 or in fp8, with
 * the gathers overlapped with compute.
 *
 * A case (every rank runs every case together): set up the step
 * (ag_step.c), the harness launches it once, the checks (ag_check.c) run,
 * the step is timed (each sample the slowest rank's); then finish() times
 * the same step without its collectives (compute-only), a few
 * instrumented steps (events around every collective and GEMM), and each
 * collective alone at the same bytes.  The bf16 step of the case is the
 * baseline, measured in the same run.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/allgather/ag_int.h"
#include "report/report.h"

#define AG_INSTR_STEPS 5 /* instrumented steps; their medians are kept */

static void teardown(void *vs)
{
	struct ag_state *s = vs;
	if (!s)
		return;
	f8b_ag_free(s);
	free(s);
}

/* The communicator, the hosts and what the collectives run over: once. */
static int open_comm(struct f8b_run *run, struct ag_cfg *c)
{
	c->coll_tried = true;
	struct f8b_coll_opts o = {.cta_policy = c->cta,
	                          .blocking = c->buffers == F8B_COLL_BUF_SYMMETRIC};
	c->coll_rc = f8b_coll_open(run->ops, run->be, c->timeout_s, &o, &c->coll);
	if (c->coll_rc != F8B_OK)
		return c->coll_rc;
	/* The reduce-scatter's own: NCCL's CTA policy (a reduction needs SMs),
	 * at most --rs-max-ctas of them, its own buffers. */
	if (c->rs_own_comm) {
		struct f8b_coll_opts ro = {.cta_policy = F8B_COLL_CTA_DEFAULT,
		                           .max_ctas = c->rs_max_ctas,
		                           .blocking = c->rs_buffers == F8B_COLL_BUF_SYMMETRIC};
		c->coll_rc = f8b_coll_open(run->ops, run->be, c->timeout_s, &ro, &c->rs_coll);
		if (c->coll_rc != F8B_OK)
			return c->coll_rc;
	}
	char host[64] = {0}, *all = calloc((size_t)run->nranks, sizeof host);
	if (!all)
		return F8B_ERR(F8B_ENOMEM, "host names");
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "unknown");
	int rc = f8b_comm_allgather(host, all, sizeof host);
	c->nodes = 0;
	for (int r = 0; rc == F8B_OK && r < run->nranks; r++) {
		int seen = 0;
		for (int q = 0; q < r && !seen; q++)
			seen =
			    !strcmp(all + (size_t)q * sizeof host, all + (size_t)r * sizeof host);
		c->nodes += !seen;
	}
	free(all);
	const char *p2p = getenv("NCCL_P2P_DISABLE"), *shm = getenv("NCCL_SHM_DISABLE");
	bool netonly = p2p && !strcmp(p2p, "1") && shm && !strcmp(shm, "1");
	const char *t = "MPI (host memory)";
	if (strcmp(f8b_coll_library(c->coll), "MPI"))
		t = run->nranks == 1 ? "none (1 rank)"
		    : netonly ? (c->nodes > 1 ? "net (P2P+SHM off)" : "net on 1 node (P2P+SHM off)")
		    : c->nodes > 1 ? "intra-node P2P/SHM + net"
		                   : "intra-node P2P/SHM";
	f8b_setstr(c->transport, sizeof c->transport, t);
	return rc;
}

static int make_state(struct f8b_run *run, struct ag_cfg *c, const struct ag_case *ac, int mode,
                      enum f8b_gemm_impl impl, struct ag_state **out)
{
	struct ag_state *s = calloc(1, sizeof *s);
	if (!s)
		return F8B_ERR(F8B_ENOMEM, "allgather state");
	*out = s;
	const struct ag_weight *w = &c->w[ac->weight];
	s->run = run;
	s->c = c;
	s->mode = mode;
	s->impl = impl;
	s->L = c->layers;
	s->P = c->prefetch < 2 * c->layers ? c->prefetch : 2 * c->layers - 1;
	s->R = run->nranks;
	s->rank = run->rank;
	s->T = ac->tokens;
	s->gw_dtype = c->rs_f32 ? F8B_F32 : F8B_BF16;
	s->opt = c->optim >= 0 && mode == AG_FP8_AG;
	s->maxn = s->maxk = w->n > w->k ? w->n : w->k;
	for (int l = 0; l < s->L; l++) {
		s->n[l] = l % 2 ? w->k : w->n;
		s->k[l] = l % 2 ? w->n : w->k;
		s->rows[l] = s->n[l] / s->R;
		if (s->rows[l] > s->maxrows)
			s->maxrows = s->rows[l];
	}
	return f8b_ag_alloc(s);
}

/* Before a step's collectives: every rank learns whether any failed to
 * set up, so that none runs a collective the others do not. */
static int agree(int rc)
{
	int bad = rc != F8B_OK;
	if (f8b_comm_max_int(&bad) != F8B_OK)
		return F8B_EMPI;
	if (bad && rc == F8B_OK)
		return F8B_ERR(F8B_EDEVICE, "another rank failed to set this case up");
	return rc;
}

static bool base_matches(const struct ag_cfg *c, const struct ag_case *ac)
{
	const struct ag_weight *w = &c->w[ac->weight];
	return c->base.have && c->base.n == w->n && c->base.k == w->k &&
	       c->base.tokens == ac->tokens && c->base.rs_f32 == c->rs_f32 &&
	       isfinite(c->base.median_s);
}

/* The bf16 step of this case when --modes left it out: set up, checked
 * (which keeps its outputs for the SQNRs) and timed here. */
static int measure_baseline(struct f8b_run *run, struct ag_cfg *c, const struct ag_case *ac)
{
	struct ag_state *b = NULL;
	struct f8b_allgather_row row = {0};
	struct f8b_measure_result m;
	bool ok = false;
	int rc = agree(make_state(run, c, ac, AG_BF16, F8B_GEMM_IMPL_CUBLASLT, &b));
	if (rc == F8B_OK)
		rc = f8b_ag_step(b);
	if (rc == F8B_OK)
		rc = run->ops->sync(run->be);
	if (rc == F8B_OK)
		rc = f8b_ag_check(b, &row, &ok);
	if (rc == F8B_OK && ok)
		rc = f8b_measure(run->ops, run->be, f8b_ag_step, b, &run->mopts, &m, NULL);
	teardown(b);
	F8B_TRY(rc);
	if (!ok)
		return F8B_ERR(F8B_EDEVICE, "the bf16 step of this case was wrong: %s",
		               row.message);
	c->base.median_s = m.median_s;
	return F8B_OK;
}

static size_t free_now(struct f8b_run *run)
{
	size_t fr = 0, tot = 0;
	if (run->ops->mem_info(run->be, &fr, &tot) != F8B_OK)
		return 0;
	return fr;
}

static int setup(struct f8b_run *run, size_t i, void *vrow, void **state)
{
	struct ag_cfg *c = run->cfg;
	struct f8b_allgather_row *row = vrow;
	const struct ag_case *ac = &c->cases[i];
	*state = NULL;
	f8b_setstr(row->backend, sizeof row->backend, run->ops->name);
	f8b_setstr(row->gpu, sizeof row->gpu, run->dev.name);
	row->seed = (int64_t)run->seed;
	row->rank = run->rank;
	row->device = run->dev.device;
	if (!c->coll_tried)
		F8B_TRY(open_comm(run, c));
	if (c->coll_rc != F8B_OK)
		return F8B_ERR(c->coll_rc, "no collectives: opening the communicator failed (the "
		                           "first row says why)");
	F8B_TRY(f8b_coll_status(c->coll));
	if (c->rs_coll)
		F8B_TRY(f8b_coll_status(c->rs_coll));
	f8b_setstr(row->library, sizeof row->library, f8b_coll_library(c->coll));
	f8b_setstr(row->transport, sizeof row->transport, c->transport);
	row->nodes = c->nodes;
	if (ac->mode != AG_BF16 && !base_matches(c, ac))
		F8B_TRY(measure_baseline(run, c, ac));
	size_t before = free_now(run);
	struct ag_state *s = NULL;
	int rc = agree(make_state(run, c, ac, ac->mode, ac->impl, &s));
	*state = s;
	if (rc == F8B_OK)
		rc = f8b_ag_step(s); /* libraries initialise lazily: not in a timed step */
	if (rc == F8B_OK)
		rc = run->ops->sync(run->be);
	if (s) {
		size_t after = free_now(run);
		double peak = before > after ? (double)(before - after) : (double)s->allocated;
		if (!strcmp(run->ops->name, "host"))
			peak = (double)s->allocated;
		double w = (double)s->weight_bytes;
		double v[2] = {peak, w};
		int mrc = f8b_comm_max_double(v, 2);
		if (rc == F8B_OK)
			rc = mrc;
		row->peak_mem_bytes = (int64_t)v[0];
		row->weight_mem_bytes = (int64_t)v[1];
	}
	return rc;
}

static int check(void *vs, void *vrow, bool *ok)
{
	return f8b_ag_check(vs, vrow, ok);
}

static int launch(void *vs)
{
	return f8b_ag_step(vs);
}

static double elapsed(struct ag_state *s, struct f8b_event *a, struct f8b_event *b)
{
	double t = NAN;
	if (s->run->ops->event_elapsed(s->run->be, a, b, &t) != F8B_OK)
		return NAN;
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Instrumented steps: v = {forward, backward, all-gathers, reduce-scatters,
 * GEMMs, all-gather waits, reduce-scatter waits} of the step, each the
 * median over AG_INSTR_STEPS steps.  A collective ends on every rank at
 * once but starts on each when that rank gets to it, so each one's time
 * is taken on the rank that started it last (the minimum over ranks: the
 * transfer), and what the others spent waiting for it (maximum minus
 * minimum) is summed apart. */
enum { IN_FWD, IN_BWD, IN_AG, IN_RS, IN_GEMM, IN_AG_WAIT, IN_RS_WAIT, IN_N };

static int instrumented(struct ag_state *s, bool no_coll, double v[IN_N])
{
	double t[IN_N][AG_INSTR_STEPS];
	double lo[AG_MAX_USES + AG_MAX_LAYERS], hi[AG_MAX_USES + AG_MAX_LAYERS];
	int nag = 2 * s->L, n = nag + s->L;
	s->instr = true;
	s->no_coll = no_coll;
	int rc = F8B_OK;
	for (int r = 0; r < AG_INSTR_STEPS && rc == F8B_OK; r++) {
		rc = f8b_comm_barrier();
		if (rc == F8B_OK)
			rc = f8b_ag_step(s);
		if (rc == F8B_OK)
			rc = s->run->ops->sync(s->run->be);
		if (rc != F8B_OK)
			break;
		for (int u = 0; u < nag; u++)
			lo[u] = elapsed(s, s->t_ag[u][0], s->t_ag[u][1]);
		for (int l = 0; l < s->L; l++)
			lo[nag + l] = elapsed(s, s->t_rs[l][0], s->t_rs[l][1]);
		memcpy(hi, lo, sizeof lo[0] * (size_t)n);
		rc = f8b_comm_min_double(lo, n);
		if (rc == F8B_OK)
			rc = f8b_comm_max_double(hi, n);
		if (rc != F8B_OK)
			break;
		double gm = 0;
		for (int i = IN_AG; i < IN_N; i++)
			t[i][r] = 0;
		for (int i = 0; i < n; i++) {
			bool ag = i < nag;
			t[ag ? IN_AG : IN_RS][r] += lo[i];
			t[ag ? IN_AG_WAIT : IN_RS_WAIT][r] += hi[i] - lo[i];
		}
		for (int j = 0; j < 3 * s->L; j++)
			gm += elapsed(s, s->t_gemm[j][0], s->t_gemm[j][1]);
		t[IN_FWD][r] = elapsed(s, s->t_mark[TM_START], s->t_mark[TM_FWD_END]);
		t[IN_BWD][r] = elapsed(s, s->t_mark[TM_FWD_END], s->t_mark[TM_END]);
		t[IN_GEMM][r] = gm;
	}
	s->instr = false;
	s->no_coll = false;
	F8B_TRY(rc);
	for (int i = 0; i < IN_N; i++) {
		qsort(t[i], AG_INSTR_STEPS, sizeof(double), cmp_double);
		v[i] = t[i][AG_INSTR_STEPS / 2];
	}
	return F8B_OK;
}

static int solo(struct ag_state *s, int which, double *median)
{
	struct f8b_measure_result m;
	s->solo = which;
	F8B_TRY(f8b_measure(s->run->ops, s->run->be, f8b_ag_solo, s, &s->run->mopts, &m, NULL));
	*median = m.median_s;
	return F8B_OK;
}

static int finish(void *vs, const struct f8b_measure_result *m, void *vrow)
{
	struct ag_state *s = vs;
	struct f8b_allgather_row *row = vrow;
	struct ag_cfg *c = s->c;
	double R = s->R, bus = (R - 1) / R;
	row->time_median_s = m->median_s;
	row->time_min_s = m->min_s;
	row->time_max_s = m->max_s;
	row->time_noise = m->noise;
	row->samples = m->samples;
	row->converged = m->converged;
	row->throttled = m->throttled;
	row->throttle_reasons = (int64_t)m->throttle_reasons;
	row->sm_mhz_min = (int32_t)m->sm_mhz_min;
	row->sm_mhz_max = (int32_t)m->sm_mhz_max;
	if (s->mode == AG_BF16)
		c->base.median_s = m->median_s;
	if (c->base.have && c->base.n == s->n[0] && c->base.k == s->k[0] &&
	    c->base.tokens == s->T) {
		row->bf16_time_median_s = c->base.median_s;
		row->speedup_vs_bf16 = c->base.median_s / m->median_s;
	}

	/* The same step without its collectives. */
	struct f8b_measure_result cm;
	s->no_coll = true;
	int rc = f8b_measure(s->run->ops, s->run->be, f8b_ag_step, s, &s->run->mopts, &cm, NULL);
	s->no_coll = false;
	F8B_TRY(rc);
	row->compute_time_s = cm.median_s;

	/* Inside the step, and the GEMMs without collectives beside them:
	 * the slowest rank's. */
	double in[IN_N], alone[IN_N];
	F8B_TRY(instrumented(s, false, in));
	F8B_TRY(instrumented(s, true, alone));
	/* the collectives' times are already the same on every rank */
	double v[3] = {in[IN_FWD], in[IN_BWD], in[IN_GEMM]}, gemm_alone = alone[IN_GEMM];
	F8B_TRY(f8b_comm_max_double(v, 3));
	F8B_TRY(f8b_comm_max_double(&gemm_alone, 1));
	row->fwd_time_s = v[0];
	row->bwd_time_s = v[1];

	/* Each collective alone at the step's largest sizes. */
	double ag_t, rs_t, ar_t = NAN;
	F8B_TRY(solo(s, 0, &ag_t));
	F8B_TRY(solo(s, 1, &rs_t));
	if (s->mode == AG_FP8_AG)
		F8B_TRY(solo(s, 2, &ar_t));

	/* f8b_ag_solo's sizes: layer 0's data (every layer has n*k elements) */
	double e = s->mode == AG_FP8_AG || s->mode == AG_FP8_AG_AXIS ? 1 : 2;
	double ag_step = 0, rs_step = 0;
	for (int u = 0; u < 2 * s->L; u++)
		ag_step += f8b_ag_gather_bytes(s, u);
	for (int j = 0; j < s->L; j++)
		rs_step += f8b_ag_rs_bytes(s, j);
	row->ag_per_step = 2 * s->L;
	row->ag_bytes = (double)s->n[0] * (double)s->k[0] * e;
	row->ag_bytes_per_step = ag_step;
	row->ag_time_s = ag_t;
	row->ag_algbw_gbps = row->ag_bytes / ag_t / 1e9;
	row->ag_busbw_gbps = row->ag_algbw_gbps * bus;
	row->ag_overlap_time_s = in[IN_AG] / (2 * s->L);
	row->ag_overlap_busbw_gbps = ag_step / in[IN_AG] * bus / 1e9;
	row->ag_wait_s = in[IN_AG_WAIT] / (2 * s->L);
	row->ag_busbw_kept_pct = 100.0 * row->ag_overlap_busbw_gbps / row->ag_busbw_gbps;
	row->rs_bytes = f8b_ag_rs_bytes(s, 0);
	row->rs_time_s = rs_t;
	row->rs_busbw_gbps = row->rs_bytes / rs_t * bus / 1e9;
	row->rs_overlap_time_s = in[IN_RS] / s->L;
	row->rs_overlap_busbw_gbps = rs_step / in[IN_RS] * bus / 1e9;
	row->rs_wait_s = in[IN_RS_WAIT] / s->L;
	row->amax_allreduce_s = ar_t;
	/* The step's collectives at their standalone speed (bytes scaled). */
	row->comm_time_s = ag_t * ag_step / row->ag_bytes + rs_t * rs_step / row->rs_bytes +
	                   (isnan(ar_t) ? 0 : ar_t);
	row->exposed_comm_s = row->time_median_s - row->compute_time_s;
	row->exposed_pct = 100.0 * row->exposed_comm_s / row->time_median_s;
	row->overlap_efficiency = 1.0 - row->exposed_comm_s / row->comm_time_s;

	double flops = 0;
	for (int j = 0; j < s->L; j++)
		flops += 3 * 2.0 * (double)s->T * (double)s->n[j] * (double)s->k[j];
	row->step_flops = flops;
	if (s->opt)
		row->optim_bytes = f8b_ag_optim_bytes(s);
	row->gemm_time_s = gemm_alone;
	row->gemm_tflops = flops / gemm_alone / 1e12;
	row->gemm_overlap_time_s = v[2];
	row->gemm_overlap_tflops = flops / v[2] / 1e12;
	row->gemm_kept_pct = 100.0 * row->gemm_overlap_tflops / row->gemm_tflops;
	if (!m->converged && !row->message[0])
		snprintf(row->message, sizeof row->message, "timing not converged: %.70s",
		         m->unmet);
	return F8B_OK;
}

static const char *const ag_key_columns[] = {
    "mode",  "d_out",    "d_in",     "layers",    "label", "tokens_per_rank",
    "ranks", "prefetch", "rs_dtype", "gemm_impl", NULL,
};
static const struct f8b_gate_column ag_accuracy[] = {
    {"sqnr_min_db", +1}, {"sqnr_out_db", +1}, {"sqnr_grad_x_db", +1}, {"sqnr_grad_w_db", +1}, {0},
};

const struct f8b_bench f8b_bench_allgather = {
    .name = "allgather",
    .summary = "FSDP fp8 all-gather, emulated over NCCL and MPI, beside bf16\n"
               "Runs the forward and backward of a stack of linear layers whose weights are\n"
               "sharded over the ranks and gathered before each use - in bf16, in bf16 cast\n"
               "to fp8 after, or cast to fp8 before (one all-reduce for every amax) - with\n"
               "the gathers overlapped with compute; checks every gathered byte, then times\n"
               "the step, the same step without collectives, and each collective alone.\n"
               "The fp8 GEMMs run on cuBLASLt, or on f8bench's own kernel (--gemm-impl f8b).\n"
               "Run it with one rank per GPU (mpiexec -n R).",
    .schema = &f8b_allgather_schema,
    .options = f8b_ag_options,
    .collective = true,
    .cfg_new = f8b_ag_cfg_new,
    .cfg_option = f8b_ag_cfg_option,
    .cfg_finalize = f8b_ag_cfg_finalize,
    .cfg_free = f8b_ag_cfg_free,
    .case_key = f8b_ag_case_key,
    .same_case = f8b_ag_same_case,
    .describe = f8b_ag_describe,
    .summarize = f8b_ag_summarize,
    .off_status = offsetof(struct f8b_allgather_row, status),
    .off_message = offsetof(struct f8b_allgather_row, message),
    .off_run_id = offsetof(struct f8b_allgather_row, run_id),
    .case_bytes = f8b_ag_case_bytes,
    .setup = setup,
    .launch = launch,
    .check = check,
    .finish = finish,
    .teardown = teardown,
    .key_columns = ag_key_columns,
    .time_column = "time_median_s",
    .noise_column = "time_noise",
    .throttled_column = "throttled",
    .accuracy = ag_accuracy,
    .report = &f8b_allgather_report,
};
