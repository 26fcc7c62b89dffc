/* measure.c - the timing harness: warm-up, cold or batch samples timed with
 * backend events, a noise-based stopping rule with caps, clock tracking.
 * Nothing is allocated, synchronised or queried between the two event
 * records of a sample: the sync happens in event_elapsed, after e1 (and,
 * for collectives behind a stream gate, the barrier after e1 is queued). */
#include "harness/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void f8b_measure_defaults(struct f8b_measure_opts *o)
{
	o->warmup = 3;
	o->min_samples = 10;
	o->max_samples = 1000;
	o->min_time_s = 0.5;
	o->max_time_s = 10.0;
	o->max_noise = 0.005;
	o->flush = true;
	o->flush_how = F8B_FLUSH_WRITE;
	o->hold = true;
	o->batch = 0;
	o->batch_target_s = 0.0;
	o->batch_max = 64;
	o->hold_timeout_s = 60.0;
	o->sync = NULL;
	o->reduce = NULL;
	o->comm_ctx = NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double f8b_median_sorted(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double f8b_median(double *v, int n)
{
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, cmp_double);
	return f8b_median_sorted(v, n);
}

/* Relative standard error of the median from the median absolute
 * deviation: sigma ~ 1.4826 MAD for normal data, and the median's standard
 * error is sqrt(pi/2) = 1.2533 times the mean's (doc/formulas.md). */
double f8b_noise_of_median(double *v, int n)
{
	if (n < 2)
		return INFINITY;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	double med = f8b_median_sorted(v, n);
	if (!(med > 0))
		return INFINITY;
	for (int i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	double mad = f8b_median_sorted(v, n);
	return 1.2533 * 1.4826 * mad / sqrt((double)n) / med;
}

static void note_clock(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                       struct f8b_measure_result *r)
{
	struct f8b_clock_state c;
	if (!ops->clock_state || ops->clock_state(be, &c) != F8B_OK || !c.valid)
		return;
	if (c.throttled)
		r->throttled++;
	r->throttle_reasons |= c.throttle_reasons;
	if (r->sm_mhz_min == 0 || c.sm_mhz < r->sm_mhz_min)
		r->sm_mhz_min = c.sm_mhz;
	if (c.sm_mhz > r->sm_mhz_max)
		r->sm_mhz_max = c.sm_mhz;
}

/* One sample: e0..e1 around `batch` launches.  Collective benchmarks
 * (o->sync set) must start the timed work together on every rank: on a
 * backend with a stream gate the GPU is held before e0, every rank queues
 * its whole sample (all `batch` collectives), the ranks meet in a barrier,
 * and then each releases its GPU, so the GPU runs the batch back to back
 * and neither the host's enqueue time nor the ranks' skew is timed
 * (doc/formulas.md, "Collective samples").  Everything queued behind a
 * hold must fit in the stream's queue, or the enqueue would wait for the
 * held GPU (until the hold gives up): hence batch_max.  Without a gate
 * (host) the barrier comes first, as the launch itself is the work.  An
 * independent cold sample (o->hold) goes behind the gate the same way,
 * without the barrier: the GPU idles at e0 until the host has queued the
 * launch, so a launch slower to queue than the flush is to run does not
 * time the host's enqueue. */
static int take_sample(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                       f8b_launch_fn launch, void *ctx, const struct f8b_measure_opts *o, int batch,
                       bool flush, struct f8b_event *e0, struct f8b_event *e1, double *t)
{
	/* Collectives always go behind the gate; independent cold samples
	 * when asked (batch samples queue too much to hold). */
	bool gate = ops->hold && ops->release && (o->sync || (o->hold && batch == 1));
	int rc = F8B_OK;

	if (flush)
		F8B_TRY(ops->flush_cache(be, o->flush_how));
	if (gate)
		F8B_TRY(ops->hold(be, o->hold_timeout_s));
	else if (o->sync)
		F8B_TRY(o->sync(o->comm_ctx));
	rc = ops->event_record(be, e0);
	for (int b = 0; b < batch && rc == F8B_OK; b++)
		rc = launch(ctx);
	if (rc == F8B_OK)
		rc = ops->event_record(be, e1);
	if (gate) {
		/* Every rank meets in the barrier, as it did before a sample
		 * without a gate, and releases whatever happened: a held GPU
		 * is never left waiting. */
		int rs = o->sync ? o->sync(o->comm_ctx) : F8B_OK;
		int rr = ops->release(be);
		rc = rc != F8B_OK ? rc : rs != F8B_OK ? rs : rr;
	}
	if (rc == F8B_OK)
		rc = ops->event_elapsed(be, e0, e1, t);
	return rc;
}

int f8b_measure_cold(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     f8b_launch_fn launch, void *ctx, const struct f8b_measure_opts *o, int beside,
                     struct f8b_event *e0, struct f8b_event *e1, double *t)
{
	return take_sample(ops, be, launch, ctx, o, 1, beside <= 1 && o->flush, e0, e1, t);
}

/* One sample as every rank keeps it: take_sample, then (collectives) the
 * slowest rank's time and whether any rank is past its time cap. */
static int timed_sample(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                        f8b_launch_fn launch, void *ctx, const struct f8b_measure_opts *o,
                        int batch, struct f8b_event *e0, struct f8b_event *e1, double t_start,
                        double *t, bool *over)
{
	F8B_TRY(take_sample(ops, be, launch, ctx, o, batch, batch == 1 && o->flush, e0, e1, t));
	*over = f8b_now() - t_start > o->max_time_s;
	if (o->reduce) {
		double v[2] = {*t, *over ? 1.0 : 0.0};
		F8B_TRY(o->reduce(o->comm_ctx, v));
		*t = v[0];
		*over = v[1] > 0;
	}
	return F8B_OK;
}

/* Adaptive batch: the shortest of three samples of a single launch, not
 * kept, sets how many back-to-back launches a sample needs to cover
 * batch_target_s.  Under MPI each of those times is already the slowest
 * rank's, so every rank computes the same batch.  A 1 MiB all-gather of
 * ~14 us on an H200 pair gets min(64, ceil(1 ms / 14 us)) = 64; a 1 GiB
 * one (~2 ms) stays at 1. */
static int pick_batch(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                      f8b_launch_fn launch, void *ctx, const struct f8b_measure_opts *o,
                      struct f8b_event *e0, struct f8b_event *e1, int *batch)
{
	double t1 = INFINITY, t;
	bool over;
	int cap = o->batch_max > 1 ? o->batch_max : 1;
	for (int i = 0; i < 3; i++) {
		F8B_TRY(timed_sample(ops, be, launch, ctx, o, 1, e0, e1, f8b_now(), &t, &over));
		t1 = t < t1 ? t : t1;
	}
	/* A ratio a rounding error above a whole number is that number. */
	double want = t1 > 0 ? ceil(o->batch_target_s / t1 - 1e-6) : (double)cap;
	*batch = want >= cap ? cap : want > 1 ? (int)want : 1;
	return F8B_OK;
}

/* r's statistics from its n samples buf (work: scratch of n), and, when it
 * did not converge, every criterion that was not met, so a user knows
 * which cap to raise. */
static void summarize(struct f8b_measure_result *r, const double *buf, double *work, int n,
                      const struct f8b_measure_opts *o, const char *stop)
{
	memcpy(work, buf, sizeof *buf * (size_t)n);
	qsort(work, (size_t)n, sizeof *work, cmp_double);
	r->samples = n;
	r->min_s = work[0];
	r->max_s = work[n - 1];
	r->median_s = f8b_median_sorted(work, n);
	r->mean_s = r->total_s / n;
	r->noise = f8b_noise_of_median(work, n);
	if (r->converged)
		return;
	char *u = r->unmet;
	size_t left = sizeof r->unmet;
	int k = 0;
	if (n < o->min_samples)
		k += snprintf(u + k, left - k, "samples %d < %d; ", n, o->min_samples);
	if (r->gpu_s < o->min_time_s && (size_t)k < left)
		k += snprintf(u + k, left - k, "time %.3gs < %.3gs; ", r->gpu_s, o->min_time_s);
	if (!(r->noise <= o->max_noise) && (size_t)k < left)
		k += snprintf(u + k, left - k, "noise %.2f%% > %.2f%%; ", 100 * r->noise,
		              100 * o->max_noise);
	if ((size_t)k < left)
		snprintf(u + k, left - k, "stopped %s",
		         stop                  ? stop
		         : n >= o->max_samples ? "at max-samples"
		                               : "at max-time");
}

/* The options a measurement needs: 1 <= min_samples <= max_samples. */
static int check_opts(const struct f8b_measure_opts *o)
{
	if (o->min_samples < 1 || o->max_samples < o->min_samples)
		return F8B_ERR(F8B_EINVAL,
		               "measurement needs 1 <= --min-samples (%d) <= --max-samples (%d)",
		               o->min_samples, o->max_samples);
	return F8B_OK;
}

/* Launches a sample of launch(ctx) takes: o->batch when it asks for more
 * than one, else the adaptive batch when it is on (pick_batch), else 1. */
static int sample_batch(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                        f8b_launch_fn launch, void *ctx, const struct f8b_measure_opts *o,
                        struct f8b_event *e0, struct f8b_event *e1, int *batch)
{
	*batch = o->batch > 1 ? o->batch : 1;
	if (o->batch <= 1 && o->batch_target_s > 0)
		return pick_batch(ops, be, launch, ctx, o, e0, e1, batch);
	return F8B_OK;
}

/* Keeps a sample of t seconds over `batch` launches as buf[(*n)++] (the
 * time of one launch) and in r's sums and clock. */
static void keep_sample(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                        struct f8b_measure_result *r, double *buf, int *n, int batch, double t)
{
	buf[(*n)++] = t / batch;
	r->total_s += t / batch;
	r->gpu_s += t;
	note_clock(ops, be, r);
}

/* The stopping rule on n samples buf (work: scratch of n): at least
 * min_samples and min_time_s of GPU time, and the median's noise at most
 * max_noise. */
static bool rule_met(const struct f8b_measure_result *r, const double *buf, double *work, int n,
                     const struct f8b_measure_opts *o)
{
	if (n < o->min_samples || r->gpu_s < o->min_time_s)
		return false;
	memcpy(work, buf, sizeof *buf * (size_t)n);
	return f8b_noise_of_median(work, n) <= o->max_noise;
}

int f8b_measure(const struct f8b_backend_ops *ops, struct f8b_backend *be, f8b_launch_fn launch,
                void *ctx, const struct f8b_measure_opts *o, struct f8b_measure_result *r,
                double *samples)
{
	memset(r, 0, sizeof *r);
	F8B_TRY(check_opts(o));

	struct f8b_event *e0 = NULL, *e1 = NULL;
	double *buf = samples, *work = NULL;
	int rc = ops->event_create(be, &e0);
	if (rc == F8B_OK)
		rc = ops->event_create(be, &e1);
	if (rc == F8B_OK && !buf && !(buf = malloc(sizeof *buf * (size_t)o->max_samples)))
		rc = F8B_ERR(F8B_ENOMEM, "%d timing samples", o->max_samples);
	if (rc == F8B_OK && !(work = malloc(sizeof *work * (size_t)o->max_samples)))
		rc = F8B_ERR(F8B_ENOMEM, "%d timing samples", o->max_samples);

	for (int w = 0; rc == F8B_OK && w < o->warmup; w++)
		rc = launch(ctx);
	if (rc == F8B_OK)
		rc = ops->sync(be);

	int batch = 1;
	if (rc == F8B_OK)
		rc = sample_batch(ops, be, launch, ctx, o, e0, e1, &batch);
	r->batch = batch;
	double t_start = f8b_now();
	int n = 0;
	while (rc == F8B_OK && n < o->max_samples) {
		double t;
		bool over;
		if ((rc = timed_sample(ops, be, launch, ctx, o, batch, e0, e1, t_start, &t,
		                       &over)) != F8B_OK)
			break;
		keep_sample(ops, be, r, buf, &n, batch, t);
		if ((r->converged = rule_met(r, buf, work, n, o)) || over)
			break;
	}

	if (rc == F8B_OK && n > 0)
		summarize(r, buf, work, n, o, NULL);
	if (e0)
		ops->event_destroy(be, e0);
	if (e1)
		ops->event_destroy(be, e1);
	if (buf != samples)
		free(buf);
	free(work);
	return rc;
}

/* A group measured together (--interleave): the members' samples are
 * taken in turn, one each a round, the round's order rotated by one each
 * time (AB, BA for two), so that the clock, the temperature and the power
 * cap drift under every member alike and no member always follows the
 * same other one.  Warm-up launches are interleaved the same way.  Each
 * member has its own options (its batch, its caps); the group goes on
 * until every member meets its stopping rule, and stops as a whole when a
 * member reaches its max_samples or the group's wall time passes the sum
 * of the members' max_time_s.  Independent cases only: a collective
 * (o->sync) is refused. */
int f8b_measure_group(const struct f8b_backend_ops *ops, struct f8b_backend *be, int n,
                      const f8b_launch_fn *launch, void *const *ctx,
                      const struct f8b_measure_opts *o, struct f8b_measure_result *r)
{
	if (n < 1)
		return F8B_ERR(F8B_EINVAL, "an interleaved group of %d members", n);
	double cap_s = 0;
	int warm = 0;
	for (int i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof r[i]);
		F8B_TRY(check_opts(&o[i]));
		if (o[i].sync || o[i].reduce)
			return F8B_ERR(F8B_EINVAL, "--interleave: collective samples are not "
			                           "interleaved");
		cap_s += o[i].max_time_s;
		warm = o[i].warmup > warm ? o[i].warmup : warm;
	}
	struct f8b_event *e0 = NULL, *e1 = NULL;
	double **buf = calloc((size_t)n, sizeof *buf), *work = NULL;
	int *batch = calloc((size_t)n, sizeof *batch), *ns = calloc((size_t)n, sizeof *ns);
	int maxs = 0, rc = F8B_OK;
	for (int i = 0; i < n; i++)
		maxs = o[i].max_samples > maxs ? o[i].max_samples : maxs;
	if (!buf || !batch || !ns || !(work = malloc(sizeof *work * (size_t)maxs)))
		rc = F8B_ERR(F8B_ENOMEM, "an interleaved group's samples");
	for (int i = 0; rc == F8B_OK && i < n; i++)
		if (!(buf[i] = malloc(sizeof *buf[i] * (size_t)o[i].max_samples)))
			rc = F8B_ERR(F8B_ENOMEM, "%d timing samples", o[i].max_samples);
	if (rc == F8B_OK)
		rc = ops->event_create(be, &e0);
	if (rc == F8B_OK)
		rc = ops->event_create(be, &e1);

	for (int w = 0; rc == F8B_OK && w < warm; w++)
		for (int i = 0; rc == F8B_OK && i < n; i++)
			if (w < o[i].warmup)
				rc = launch[i](ctx[i]);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	for (int i = 0; rc == F8B_OK && i < n; i++) {
		rc = sample_batch(ops, be, launch[i], ctx[i], &o[i], e0, e1, &batch[i]);
		r[i].batch = batch[i];
	}

	double t_start = f8b_now();
	for (int round = 0; rc == F8B_OK; round++) {
		bool over = false, all = true;
		for (int j = 0; rc == F8B_OK && j < n; j++) {
			const int i = (round + j) % n;
			double t;
			bool past; /* its own cap: the group keeps cap_s */
			rc = timed_sample(ops, be, launch[i], ctx[i], &o[i], batch[i], e0, e1,
			                  t_start, &t, &past);
			if (rc != F8B_OK)
				break;
			keep_sample(ops, be, &r[i], buf[i], &ns[i], batch[i], t);
			over = over || ns[i] >= o[i].max_samples;
		}
		if (rc != F8B_OK)
			break;
		for (int i = 0; i < n; i++) {
			r[i].converged = rule_met(&r[i], buf[i], work, ns[i], &o[i]);
			all = all && r[i].converged;
		}
		if (all || over || f8b_now() - t_start > cap_s)
			break;
	}
	/* a member stopped by another's sample cap says so */
	const bool late = f8b_now() - t_start > cap_s;
	for (int i = 0; rc == F8B_OK && i < n; i++)
		if (ns[i] > 0)
			summarize(&r[i], buf[i], work, ns[i], &o[i],
			          ns[i] < o[i].max_samples && !late
			              ? "with its group, at another member's max-samples"
			              : NULL);
	if (e0)
		ops->event_destroy(be, e0);
	if (e1)
		ops->event_destroy(be, e1);
	for (int i = 0; buf && i < n; i++)
		free(buf[i]);
	free(buf);
	free(batch);
	free(ns);
	free(work);
	return rc;
}
