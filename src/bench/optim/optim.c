/* optim.c - `f8bench optim`: the optimizer step of fp8 training, AdamW
 * over every parameter tensor of a model in one fused multi-tensor launch
 * with fp32, bf16 or fp8 states, writing the next forward's fp8 weight
 * with a dynamic (two launches, or one with a grid barrier: dynamic-sync),
 * delayed or predicted scale (doc/optim.md).
 *
 * A case: lay the tensors out and cut them into chunks, fill the initial
 * weights, run the trajectory of --steps steps on the seeded gradient
 * stream beside an fp64 AdamW of a sample of the elements (the SQNRs),
 * capture the step as a graph (--graph on); the harness then runs one
 * step, which the check compares bit for bit with the host reference from
 * the same state, and times the step.  finish() also times the split
 * sequence (update, amax, cast as three launches) in the same process and
 * places the step against the copy bandwidth.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/optim/optim_int.h"
#include "report/report.h"

static void teardown(void *vs)
{
	struct optim_state *s = vs;
	if (!s)
		return;
	f8b_optim_free(s);
	free(s);
}

static int load_roofline(struct f8b_run *run, struct optim_cfg *c)
{
	f8b_peaks_lookup(&run->dev, &c->peaks);
	struct f8b_ceilings sheet;
	f8b_ceilings_datasheet(&c->peaks, &sheet);
	c->ceilings = sheet;
	if (c->ceilings_path)
		F8B_TRY(f8b_ceilings_read(c->ceilings_path, &sheet, &c->ceilings));
	if (run->rank == 0 && run->verbose)
		fprintf(stderr, "f8bench optim: copy bandwidth: %s (%s)\n", c->ceilings.source,
		        c->ceilings.detail);
	c->roof_done = true;
	return F8B_OK;
}

static int setup(struct f8b_run *run, size_t i, void *vrow, void **state)
{
	struct optim_cfg *c = run->cfg;
	struct f8b_optim_row *row = vrow;
	*state = NULL;
	f8b_setstr(row->backend, sizeof row->backend, run->ops->name);
	f8b_setstr(row->gpu, sizeof row->gpu, run->dev.name);
	row->seed = (int64_t)run->seed;
	row->rank = run->rank;
	row->device = run->dev.device;
	if (!c->roof_done)
		F8B_TRY(load_roofline(run, c));
	if (!run->ops->optim_pass)
		return F8B_ERR(F8B_EUNSUPPORTED, "the %s backend has no optim op", run->ops->name);
	struct optim_state *s = calloc(1, sizeof *s);
	if (!s)
		return F8B_ERR(F8B_ENOMEM, "optim state");
	*state = s;
	s->run = run;
	s->cfg = c;
	s->cs = c->cases[i];
	F8B_TRY(f8b_optim_alloc(s));
	row->chunks = (int32_t)s->a.nchunks;
	row->launches = f8b_optim_launches(s->cs.scaling);
	row->peak_mem_bytes = s->allocated;
	F8B_TRY(f8b_optim_trajectory(s));
	F8B_TRY(f8b_optim_accuracy(s, row));
	if (s->cs.graph) {
		/* the eager step above initialised everything; capture runs nothing */
		F8B_TRY(run->ops->graph_capture(run->be, f8b_optim_step_ops, s, &s->graph));
	}
	return F8B_OK;
}

static struct optim_base *find_base(struct optim_cfg *c, const struct optim_case *k)
{
	for (size_t i = 0; i < c->nbase; i++) {
		const struct optim_case *b = &c->base[i].key;
		if (b->scaling == k->scaling && b->gran == k->gran && b->steps == k->steps &&
		    b->graph == k->graph)
			return &c->base[i];
	}
	return NULL;
}

static int finish(void *vs, const struct f8b_measure_result *m, void *vrow)
{
	struct optim_state *s = vs;
	struct optim_cfg *c = s->cfg;
	struct f8b_optim_row *row = vrow;
	row->time_median_s = m->median_s;
	row->time_min_s = m->min_s;
	row->time_max_s = m->max_s;
	row->time_noise = m->noise;
	row->samples = m->samples;
	row->converged = m->converged;
	row->throttled = m->throttled;
	if (s->cs.variant == F8B_OPTIM_FP32) {
		struct optim_base *b = find_base(c, &s->cs);
		if (!b)
			b = &c->base[c->nbase++];
		*b = (struct optim_base){.key = s->cs, .median_s = m->median_s};
	}
	struct optim_base *b = find_base(c, &s->cs);
	row->fp32_time_median_s = b ? b->median_s : NAN;
	row->speedup_vs_fp32 = row->fp32_time_median_s / m->median_s;
	/* The split sequence, same state, same process. */
	struct f8b_measure_result sm;
	if (s->cs.graph)
		F8B_TRY(f8b_optim_run_split(s)); /* captures its graph, outside timing */
	F8B_TRY(f8b_measure(s->run->ops, s->run->be, f8b_optim_run_split, s, &s->run->mopts, &sm,
	                    NULL));
	row->time_split_s = sm.median_s;
	row->fused_speedup = sm.median_s / m->median_s;
	/* bytes against the copy ceiling (doc/optim.md) */
	row->gbps = row->min_bytes / m->median_s / 1e9;
	row->copy_bw_gbps =
	    c->ceilings.hbm_bytes_per_s > 0 ? c->ceilings.hbm_bytes_per_s / 1e9 : NAN;
	row->pct_of_copy_bw = 100.0 * row->gbps / row->copy_bw_gbps;
	f8b_setstr(row->roofline_source, sizeof row->roofline_source, c->ceilings.source);
	if (!m->converged && !row->message[0])
		snprintf(row->message, sizeof row->message, "timing not converged: %.70s",
		         m->unmet);
	return F8B_OK;
}

static const char *const optim_key_columns[] = {
    "variant", "scaling", "granularity", "label",       "params",
    "steps",   "graph",   "stochastic",  "chunk_bytes", NULL,
};
/* The accuracy compare gates: the fp8 weight's and the master's SQNR
 * against the fp64 AdamW. */
static const struct f8b_gate_column optim_accuracy[] = {
    {"sqnr_w8_db", +1},
    {"sqnr_w_db", +1},
    {0},
};

const struct f8b_bench f8b_bench_optim = {
    .name = "optim",
    .summary = "the fp8 optimizer step: fused multi-tensor AdamW, fp32/bf16/fp8 states\n"
               "Updates every parameter tensor in one launch per step (chunked by bytes),\n"
               "writes the next forward's fp8 weight with a dynamic (two launches, or one\n"
               "with a grid barrier), delayed or predicted scale, checks the step bit for bit "
               "against the host reference and the\n"
               "trajectory against an fp64 AdamW, then times it beside the copy bandwidth.",
    .schema = &f8b_optim_schema,
    .options = f8b_optim_options,
    .cfg_new = f8b_optim_cfg_new,
    .cfg_option = f8b_optim_cfg_option,
    .cfg_finalize = f8b_optim_cfg_finalize,
    .cfg_free = f8b_optim_cfg_free,
    .case_key = f8b_optim_case_key,
    .same_case = f8b_optim_same_case,
    .describe = f8b_optim_describe,
    .summarize = f8b_optim_summarize,
    .off_status = offsetof(struct f8b_optim_row, status),
    .off_message = offsetof(struct f8b_optim_row, message),
    .off_run_id = offsetof(struct f8b_optim_row, run_id),
    .case_bytes = f8b_optim_case_bytes,
    .setup = setup,
    .launch = f8b_optim_run_step,
    .check = f8b_optim_check,
    .finish = finish,
    .teardown = teardown,
    .key_columns = optim_key_columns,
    .time_column = "time_median_s",
    .noise_column = "time_noise",
    .throttled_column = "throttled",
    .accuracy = optim_accuracy,
    .report = &f8b_optim_report,
};
