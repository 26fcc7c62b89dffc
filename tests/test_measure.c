/* test_measure.c - the timing harness: statistics, the stopping rule and
 * its caps, batch mode and the order in which a sample is queued behind the
 * stream gate, on a backend whose events read a virtual clock
 * that each launch advances by a programmed duration, so no assertion
 * depends on how loaded the machine is; then one launch of known duration
 * on the host backend's real clock, judged only in ways load cannot break
 * (load only lengthens a sample). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "harness/measure.h"
#include "tap.h"

struct sleeper {
	long ns;
	int calls;
};

/* A launch of known duration: spin on the monotonic clock (a sleep could
 * oversleep by a scheduler tick).  Preemption on a loaded machine can only
 * lengthen a sample, so the tests judge durations by the minimum. */
static int sleep_launch(void *ctx)
{
	struct sleeper *s = ctx;
	double end = f8b_now() + 1e-9 * (double)s->ns;
	s->calls++;
	while (f8b_now() < end)
		;
	return F8B_OK;
}

/* ---- the virtual clock */

struct f8b_event {
	double t;
};
static double vclock; /* seconds */

static int v_event_create(struct f8b_backend *be, struct f8b_event **ev)
{
	(void)be;
	*ev = calloc(1, sizeof **ev);
	return *ev ? F8B_OK : F8B_ERR(F8B_ENOMEM, "event");
}
static void v_event_destroy(struct f8b_backend *be, struct f8b_event *ev)
{
	(void)be;
	free(ev);
}
/* What the harness enqueued, in order: H hold, e event, L launch, R
 * release (the stream gate's order is what the test checks). */
static char vlog[64];
static void vlog_add(char c)
{
	size_t n = strlen(vlog);
	if (n + 1 < sizeof vlog) {
		vlog[n] = c;
		vlog[n + 1] = '\0';
	}
}
static int v_event_record(struct f8b_backend *be, struct f8b_event *ev)
{
	(void)be;
	ev->t = vclock;
	vlog_add('e');
	return F8B_OK;
}
static int v_hold(struct f8b_backend *be, double timeout_s)
{
	(void)be;
	(void)timeout_s;
	vlog_add('H');
	return F8B_OK;
}
static int v_release(struct f8b_backend *be)
{
	(void)be;
	vlog_add('R');
	return F8B_OK;
}
static int logged_launch(void *ctx)
{
	(void)ctx;
	vlog_add('L');
	return F8B_OK;
}
static int v_event_elapsed(struct f8b_backend *be, struct f8b_event *a, struct f8b_event *b,
                           double *seconds)
{
	(void)be;
	*seconds = b->t - a->t;
	return F8B_OK;
}
static int v_nothing(struct f8b_backend *be)
{
	(void)be;
	return F8B_OK;
}
static int v_flush(struct f8b_backend *be, int how)
{
	(void)be;
	(void)how;
	vlog_add('F');
	return F8B_OK;
}

/* Launches that take durations[calls % n] of virtual time. */
struct program {
	const double *durations;
	int n, calls;
};
static int virtual_launch(void *ctx)
{
	struct program *p = ctx;
	vclock += p->durations[p->calls++ % p->n];
	return F8B_OK;
}

/* A two-rank run seen from one rank: the barrier does nothing and the
 * other rank is always twice as slow, so the slowest rank's time is 2t. */
static int fake_sync(void *ctx)
{
	(void)ctx;
	return F8B_OK;
}
static int fake_reduce(void *ctx, double v[2])
{
	(void)ctx;
	v[0] *= 2;
	return F8B_OK;
}

/* Launches whose duration grows with the virtual clock, as a GPU slows
 * when it heats under a power cap: base * (1 + drift * vclock), logging
 * its letter. */
struct drifting {
	double base, drift;
	char letter;
	int calls;
};
static int drifting_launch(void *ctx)
{
	struct drifting *d = ctx;
	vlog_add(d->letter);
	vclock += d->base * (1.0 + d->drift * vclock);
	d->calls++;
	return F8B_OK;
}

static int failing_launch(void *ctx)
{
	(void)ctx;
	return F8B_ERR(F8B_EDEVICE, "planted failure");
}

int main(void)
{
	/* ---- statistics */
	double v[] = {5, 1, 4, 2, 3};
	double w[] = {4, 1, 3, 2};
	tap_ok(f8b_median_sorted((double[]){1, 2, 3, 4, 5}, 5) == 3, "median of odd count");
	tap_ok(f8b_median_sorted((double[]){1, 2, 3, 4}, 4) == 2.5, "median of even count");
	tap_ok(isnan(f8b_median_sorted(v, 0)), "median of nothing is NaN");
	/* v: median 3, |v-3| = {2,2,1,1,0} -> MAD 1;
	 * noise = 1.2533*1.4826*1/sqrt(5)/3 = 0.27697 */
	double nz = f8b_noise_of_median(v, 5);
	tap_ok(fabs(nz - 1.2533 * 1.4826 / sqrt(5.0) / 3.0) < 1e-12,
	       "noise of median by hand (%.6f)", nz);
	tap_ok(f8b_noise_of_median((double[]){2, 2, 2, 2}, 4) == 0,
	       "identical samples: zero noise");
	tap_ok(isinf(f8b_noise_of_median(w, 1)), "one sample: infinite noise");

	/* ---- the harness on the host backend */
	const struct f8b_backend_ops *ops = &f8b_backend_host;
	struct f8b_backend *be;
	struct f8b_device_info info;
	if (ops->open(-1, &be, &info) != F8B_OK) {
		tap_ok(0, "host backend opens: %s", f8b_last_error());
		return tap_done();
	}
	struct f8b_measure_opts o;
	f8b_measure_defaults(&o);
	tap_ok(o.min_samples == 10 && o.max_noise == 0.005 && o.flush, "defaults as documented");

	/* The stopping rule on the virtual clock. */
	struct f8b_backend_ops vops = *ops;
	vops.event_create = v_event_create;
	vops.event_destroy = v_event_destroy;
	vops.event_record = v_event_record;
	vops.event_elapsed = v_event_elapsed;
	vops.flush_cache = v_flush;
	vops.sync = v_nothing;
	vops.clock_state = NULL;

	/* A 2 ms launch: exactly 2 ms, converged once min_samples and
	 * min_time are met (0.05 s of 2 ms samples: 25). */
	static const double two_ms[] = {2e-3};
	struct program s = {two_ms, 1, 0};
	struct f8b_measure_result r;
	o.min_time_s = 0.05;
	o.max_noise = 0.05;
	o.warmup = 2;
	double samples[1000];
	int rc = f8b_measure(&vops, be, virtual_launch, &s, &o, &r, samples);
	tap_ok(rc == F8B_OK, "measure a 2 ms launch");
	tap_ok(fabs(r.min_s - 2e-3) < 1e-12 && fabs(r.median_s - 2e-3) < 1e-12,
	       "min and median 2 ms (%.6f, %.6f ms)", 1e3 * r.min_s, 1e3 * r.median_s);
	tap_ok(r.samples == 25, "stops when min_samples and min_time are met (%d samples)",
	       r.samples);
	tap_ok(r.total_s >= o.min_time_s, "at least min_time of samples (%.3f s)", r.total_s);
	tap_ok(r.min_s <= r.median_s && r.median_s <= r.max_s, "min <= median <= max");
	tap_ok(s.calls == r.samples + o.warmup, "warm-up launches are not samples (%d calls)",
	       s.calls);
	tap_ok(r.converged && r.unmet[0] == '\0', "converged, nothing unmet");
	tap_ok(fabs(samples[0] - 2e-3) < 1e-12 && fabs(samples[r.samples - 1] - 2e-3) < 1e-12,
	       "raw samples kept");

	/* The sample cap: samples of 1 and 3 ms never reach a noise of 0, so
	 * the run stops at max_samples and says which criterion was not met. */
	static const double noisy[] = {1e-3, 3e-3, 2e-3};
	struct program q = {noisy, 3, 0};
	o.max_noise = 0;
	o.min_samples = 5;
	o.max_samples = 12;
	o.min_time_s = 0;
	rc = f8b_measure(&vops, be, virtual_launch, &q, &o, &r, NULL);
	tap_ok(rc == F8B_OK && r.samples == 12, "max_samples caps the run (%d)", r.samples);
	tap_ok(!r.converged, "not converged");
	tap_ok(strstr(r.unmet, "noise") && strstr(r.unmet, "max-samples"),
	       "unmet names noise and the cap: '%s'", r.unmet);

	/* The time cap (wall clock): the same noisy samples, no sample cap. */
	o.max_samples = 10000000;
	o.max_time_s = 0.05;
	double t0 = f8b_now();
	rc = f8b_measure(&vops, be, virtual_launch, &q, &o, &r, NULL);
	double took = f8b_now() - t0;
	tap_ok(rc == F8B_OK && !r.converged && strstr(r.unmet, "max-time"),
	       "max_time caps the run: '%s'", r.unmet);
	tap_ok(took < 5.0, "and returns (%.3f s for a 0.05 s cap)", took);

	/* Batch mode: per-launch time, batch launches per sample. */
	f8b_measure_defaults(&o);
	o.batch = 4;
	o.min_time_s = 0;
	o.max_noise = 0.05;
	o.warmup = 0;
	static const double one_ms[] = {1e-3};
	struct program bp = {one_ms, 1, 0};
	rc = f8b_measure(&vops, be, virtual_launch, &bp, &o, &r, NULL);
	tap_ok(rc == F8B_OK && fabs(r.min_s - 1e-3) < 1e-12,
	       "batch: per-launch min %.6f ms (median %.6f ms)", 1e3 * r.min_s, 1e3 * r.median_s);
	tap_ok(bp.calls == 4 * r.samples, "batch: 4 launches per sample (%d calls, %d samples)",
	       bp.calls, r.samples);
	tap_ok(r.batch == 4, "batch: recorded (%d)", r.batch);

	/* Adaptive batch: launches per sample chosen from the shortest of three
	 * single-launch samples to cover batch_target_s, capped at batch_max. */
	f8b_measure_defaults(&o);
	vclock = 0;            /* the time cap above ran it far on: keep its rounding small */
	o.min_time_s = 0.0095; /* ten 1 ms samples, below them (clock rounding) */
	o.max_noise = 0.05;
	o.warmup = 0;
	o.batch_target_s = 1e-3;
	static const double tenth_ms[] = {1e-4};
	struct program ap = {tenth_ms, 1, 0};
	rc = f8b_measure(&vops, be, virtual_launch, &ap, &o, &r, NULL);
	tap_ok(rc == F8B_OK && r.batch == 10 && fabs(r.median_s - 1e-4) < 1e-12,
	       "adaptive: 0.1 ms launches, 10 per sample (batch %d, median %.6f ms)", r.batch,
	       1e3 * r.median_s);
	tap_ok(ap.calls == 3 + 10 * r.samples,
	       "adaptive: 3 calibration launches, then batches "
	       "(%d calls, %d samples)",
	       ap.calls, r.samples);
	tap_ok(r.samples == 10 && fabs(r.gpu_s - 10 * 1e-3) < 1e-9,
	       "adaptive: min_time counts whole samples (%d samples, %.4f s)", r.samples, r.gpu_s);
	static const double tiny[] = {1e-6};
	struct program tp = {tiny, 1, 0};
	rc = f8b_measure(&vops, be, virtual_launch, &tp, &o, &r, NULL);
	tap_ok(rc == F8B_OK && r.batch == 64, "adaptive: capped at batch_max (%d)", r.batch);
	static const double three_ms[] = {3e-3};
	struct program lp = {three_ms, 1, 0};
	rc = f8b_measure(&vops, be, virtual_launch, &lp, &o, &r, NULL);
	tap_ok(rc == F8B_OK && r.batch == 1, "adaptive: a 3 ms launch alone (%d)", r.batch);
	o.sync = fake_sync;
	o.reduce = fake_reduce;
	rc = f8b_measure(&vops, be, virtual_launch, &ap, &o, &r, NULL);
	tap_ok(rc == F8B_OK && r.batch == 5 && fabs(r.median_s - 2e-4) < 1e-12,
	       "adaptive, collective: batch from the slowest rank's time (%d, %.6f ms)", r.batch,
	       1e3 * r.median_s);
	o.sync = NULL;
	o.reduce = NULL;
	o.batch = 5;
	rc = f8b_measure(&vops, be, virtual_launch, &ap, &o, &r, NULL);
	tap_ok(rc == F8B_OK && r.batch == 5, "adaptive: an explicit batch wins (%d)", r.batch);

	/* The stream gate: a cold sample is queued behind a hold and released
	 * after e1 (the GPU reaches e0 with the launch already queued); not
	 * with --no-hold, never for batch samples, never without a gate. */
	struct f8b_backend_ops gops = vops;
	gops.hold = v_hold;
	gops.release = v_release;
	f8b_measure_defaults(&o);
	tap_ok(o.hold, "cold samples are held by default");
	o.warmup = 0;
	o.min_samples = o.max_samples = 1;
	vlog[0] = '\0';
	rc = f8b_measure(&gops, be, logged_launch, NULL, &o, &r, NULL);
	tap_ok(rc == F8B_OK && !strcmp(vlog, "FHeLeR"), "held sample: %s (want FHeLeR)", vlog);
	o.hold = false;
	vlog[0] = '\0';
	rc = f8b_measure(&gops, be, logged_launch, NULL, &o, &r, NULL);
	tap_ok(rc == F8B_OK && !strcmp(vlog, "FeLe"), "--no-hold: %s (want FeLe)", vlog);
	o.hold = true;
	o.batch = 2;
	vlog[0] = '\0';
	rc = f8b_measure(&gops, be, logged_launch, NULL, &o, &r, NULL);
	tap_ok(rc == F8B_OK && !strcmp(vlog, "eLLe"),
	       "batch samples are neither flushed nor held: %s", vlog);
	o.batch = 0;
	vlog[0] = '\0';
	rc = f8b_measure(&vops, be, logged_launch, NULL, &o, &r, NULL);
	tap_ok(rc == F8B_OK && !strcmp(vlog, "FeLe"), "no gate (host): %s", vlog);

	/* f8b_measure_cold: one launch, flushed only beside cold samples
	 * (beside <= 1), held as o says. */
	struct f8b_event *c0, *c1;
	double ct = -1;
	tap_ok(vops.event_create(be, &c0) == F8B_OK && vops.event_create(be, &c1) == F8B_OK,
	       "events for f8b_measure_cold");
	const struct {
		int beside;
		bool flush, hold;
		const char *want;
	} cold[] = {
	    {1, true, true, "FHeLeR"}, {0, true, true, "FHeLeR"}, {4, true, true, "HeLeR"},
	    {1, false, true, "HeLeR"}, {1, true, false, "FeLe"},  {8, true, false, "eLe"},
	};
	for (size_t i = 0; i < sizeof cold / sizeof cold[0]; i++) {
		o.flush = cold[i].flush;
		o.hold = cold[i].hold;
		vlog[0] = '\0';
		rc = f8b_measure_cold(&gops, be, logged_launch, NULL, &o, cold[i].beside, c0, c1,
		                      &ct);
		tap_ok(rc == F8B_OK && !strcmp(vlog, cold[i].want) && ct >= 0,
		       "cold sample beside batch %d, flush %d, hold %d: %s (want %s)",
		       cold[i].beside, cold[i].flush, cold[i].hold, vlog, cold[i].want);
	}
	vops.event_destroy(be, c0);
	vops.event_destroy(be, c1);
	o.flush = true;
	o.hold = true;

	/* A group measured together (--interleave).  Two launches of 1 and
	 * 2 ms on a clock that slows them by 10% a virtual second: measured
	 * one after the other, the second member runs on a slower GPU and
	 * the ratio of medians is off; interleaved, the two share the drift
	 * and the ratio holds. */
	f8b_measure_defaults(&o);
	o.warmup = 1;
	o.min_samples = 200;
	o.max_samples = 200;
	o.min_time_s = 0;
	o.max_noise = 1;
	o.hold = false;
	vclock = 0;
	struct drifting da = {1e-3, 0.1, 'A', 0}, db = {2e-3, 0.1, 'B', 0};
	struct f8b_measure_result ra, rb, rg[2];
	rc = f8b_measure(&vops, be, drifting_launch, &da, &o, &ra, NULL);
	if (rc == F8B_OK)
		rc = f8b_measure(&vops, be, drifting_launch, &db, &o, &rb, NULL);
	const double seq = rb.median_s / ra.median_s;
	vclock = 0;
	vlog[0] = '\0';
	const f8b_launch_fn two[] = {drifting_launch, drifting_launch};
	void *const ctxs[] = {&da, &db};
	const struct f8b_measure_opts og[] = {o, o};
	int rg_rc = rc == F8B_OK ? f8b_measure_group(&vops, be, 2, two, ctxs, og, rg) : rc;
	const double grp = rg[1].median_s / rg[0].median_s;
	tap_ok(rg_rc == F8B_OK && fabs(grp - 2) < 2e-3 && fabs(seq - 2) > 2e-2,
	       "interleaved: the ratio of medians holds under drift (%.5f; one after the other "
	       "%.5f; exactly 2)",
	       grp, seq);
	char order[16] = "";
	for (size_t i = 0, k = 0; vlog[i] && k + 1 < sizeof order; i++)
		if (vlog[i] == 'A' || vlog[i] == 'B')
			order[k++] = vlog[i]; /* the launches, without the events */
	tap_ok(!strncmp(order, "ABABBAABBA", 10),
	       "interleaved: warm-up in turn, then the order rotated each round (%.10s, want "
	       "ABABBAABBA)",
	       order);
	tap_ok(rg[0].samples == 200 && rg[1].samples == 200 && rg[0].converged && rg[1].converged,
	       "interleaved: each member's own samples and stopping rule (%d, %d)", rg[0].samples,
	       rg[1].samples);
	/* One member noisy, the other steady: the group goes on until both meet
	 * the rule, and a member stopped by the other's cap says so. */
	static const double steady[] = {1e-3}, jumpy[] = {1e-3, 2e-3, 3e-3};
	struct program ps = {steady, 1, 0}, pj = {jumpy, 3, 0};
	const f8b_launch_fn vl[] = {virtual_launch, virtual_launch};
	void *const pc[] = {&ps, &pj};
	struct f8b_measure_opts on[2] = {o, o};
	on[0].min_samples = 5;
	on[0].max_samples = 1000;
	on[0].max_noise = 0.05;
	on[1].min_samples = 5;
	on[1].max_samples = 30;
	on[1].max_noise = 0;
	rc = f8b_measure_group(&vops, be, 2, vl, pc, on, rg);
	tap_ok(rc == F8B_OK && rg[0].samples == 30 && rg[1].samples == 30 && !rg[1].converged,
	       "interleaved: the steady member is sampled as long as the noisy one (%d, %d)",
	       rg[0].samples, rg[1].samples);
	tap_ok(strstr(rg[1].unmet, "max-samples") && rg[0].converged,
	       "interleaved: the noisy member stopped at its cap ('%s'), the steady one converged",
	       rg[1].unmet);
	on[0].min_time_s = 1e9; /* never met: the steady member is stopped by the other */
	rc = f8b_measure_group(&vops, be, 2, vl, pc, on, rg);
	tap_ok(rc == F8B_OK && strstr(rg[0].unmet, "with its group"),
	       "interleaved: a member stopped by the other's cap says so ('%s')", rg[0].unmet);
	on[1].sync = fake_sync;
	tap_ok(f8b_measure_group(&vops, be, 2, vl, pc, on, rg) == F8B_EINVAL,
	       "interleaved: collective samples are refused");
	on[1].sync = NULL;
	tap_ok(f8b_measure_group(&vops, be, 0, vl, pc, on, rg) == F8B_EINVAL,
	       "interleaved: an empty group is refused");

	/* The host backend's real clock: a spin of 2 ms is never timed shorter
	 * (load can only lengthen it), and the shortest of 10 is not 10 times
	 * longer. */
	struct sleeper b = {.ns = 2000000};
	f8b_measure_defaults(&o);
	o.min_time_s = 0;
	o.max_noise = 1;
	o.warmup = 1;
	rc = f8b_measure(ops, be, sleep_launch, &b, &o, &r, NULL);
	tap_ok(rc == F8B_OK && r.min_s >= 2e-3 && r.min_s < 20e-3,
	       "host clock: a 2 ms spin measures at least 2 ms (min %.3f ms)", 1e3 * r.min_s);

	/* Errors propagate, with the launch's message. */
	rc = f8b_measure(ops, be, failing_launch, NULL, &o, &r, NULL);
	tap_ok(rc == F8B_EDEVICE && strstr(f8b_last_error(), "planted"),
	       "a failing launch's status comes back");
	o.min_samples = 5;
	o.max_samples = 2;
	tap_ok(f8b_measure(ops, be, sleep_launch, &b, &o, &r, NULL) == F8B_EINVAL,
	       "max_samples < min_samples is refused");
	ops->close(be);
	return tap_done();
}
