/* measure.h - the timing harness every benchmark uses (after nvbench).
 *
 * Cold mode (default): each sample is
 *     flush_cache ; hold ; record e0 ; launch() ; record e1 ; release ;
 *     elapsed(e0,e1)
 * all enqueued on the backend's stream, so the timed region holds only the
 * launch's work; the cache flush keeps cache-resident repeats from
 * flattering the result, and the hold (the backend's stream gate, where it
 * has one) keeps the GPU from reaching e0 before the host has queued the
 * launch, so the host's enqueue time is not timed (nvbench's blocking
 * kernel does the same).  Batch mode: record e0,
 * `batch` back-to-back launches, record e1, time/batch per sample (hides
 * launch gaps, no flush).  Adaptive batch (batch_target_s > 0, batch <= 1):
 * after the warm-up one single-launch sample t1 sets
 *     batch = min(batch_max, ceil(batch_target_s / t1))
 * so that a sample of short launches covers batch_target_s of GPU time
 * (collectives: t1 is the slowest rank's, so every rank picks the same
 * batch).  Warm-up launches run first and are not kept.
 *
 * Stopping rule: keep sampling until samples >= min_samples AND timed GPU
 * time (whole samples, every launch of a batch) >= min_time_s AND noise <=
 * max_noise; stop anyway at max_samples or when
 * wall time exceeds max_time_s, and then say which criterion was unmet.
 * noise = relative standard error of the median, estimated robustly:
 *     noise = 1.2533 * (1.4826 * MAD) / sqrt(n) / median
 * (doc/formulas.md).  Samples taken while the backend reports an SM clock
 * throttle are counted (throttled) and kept; the result says so.
 */
#ifndef F8B_MEASURE_H
#define F8B_MEASURE_H

#include "backend/backend.h"
#include "core/common.h"

struct f8b_measure_opts {
	int warmup;        /* launches before sampling (default 3) */
	int min_samples;   /* default 10 */
	int max_samples;   /* cap (default 1000) */
	double min_time_s; /* GPU time to accumulate at least (default 0.5 s) */
	double max_time_s; /* wall-clock cap per measurement (default 10 s) */
	double max_noise;  /* target relative noise of the median (default 0.005) */
	bool flush;        /* flush cache before each cold sample (default on) */
	int flush_how;     /* F8B_FLUSH_WRITE (default) or _READ (backend.h, doc/formulas.md) */
	/* Hold the stream (ops->hold) across the enqueue of each cold sample
	 * (default on; no effect where the backend has no gate, e.g. host).
	 * Off: e0..e1 also holds whatever part of the host's enqueue the GPU
	 * waited for.  Collective samples (sync set) are always held. */
	bool hold;
	int batch; /* 0/1 = cold samples; >1 = launches per batch sample */
	/* Adaptive batch: with batch <= 1 and batch_target_s > 0, launches
	 * per sample are chosen to cover about batch_target_s (at most
	 * batch_max, default 64; a sample of one launch when that alone is
	 * longer).  0 (default): off. */
	double batch_target_s;
	int batch_max;
	/* Collective benchmarks (every MPI rank times the same operation):
	 * sync() is a barrier in each sample (before it, or with a stream gate
	 * after its work is queued), and reduce() after it
	 * turns v[0] = this rank's sample time, v[1] = "my time cap is hit"
	 * into their maxima over ranks, so every rank keeps the slowest
	 * rank's time and all stop together.  NULL for independent cases. */
	int (*sync)(void *ctx);
	int (*reduce)(void *ctx, double v[2]);
	/* With sync set and a backend stream gate (ops->hold), the GPU is
	 * held before e0 and released after the barrier (measure.c); a hold
	 * gives up after this long (default 60 s). */
	double hold_timeout_s;
	void *comm_ctx;
};

struct f8b_measure_result {
	int samples;
	double median_s, min_s, max_s, mean_s;
	double noise;                        /* as above */
	double total_s;                      /* sum of sample times (per launch) */
	double gpu_s;                        /* timed time: sum of whole samples */
	int batch;                           /* launches per sample used (1 = cold) */
	int throttled;                       /* samples during which the SM clock was throttled */
	unsigned sm_mhz_min, sm_mhz_max;     /* 0 when no clock data */
	unsigned long long throttle_reasons; /* OR of the reasons over all samples */
	bool converged;
	char unmet[96]; /* "" or e.g. "noise 1.2% > 0.5% after max_samples=1000" */
};

/* The enqueue-only region being timed. */
typedef int (*f8b_launch_fn)(void *ctx);

void f8b_measure_defaults(struct f8b_measure_opts *o);
/* Keeps raw samples in `samples` (may be NULL) of capacity max_samples. */
int f8b_measure(const struct f8b_backend_ops *ops, struct f8b_backend *be, f8b_launch_fn launch,
                void *ctx, const struct f8b_measure_opts *o, struct f8b_measure_result *r,
                double *samples);

/* n cases measured together, their samples taken in turn, one each a
 * round, the order rotated each round (--interleave; measure.c): o[i],
 * launch[i](ctx[i]) and r[i] are member i's.  Independent cases only. */
int f8b_measure_group(const struct f8b_backend_ops *ops, struct f8b_backend *be, int n,
                      const f8b_launch_fn *launch, void *const *ctx,
                      const struct f8b_measure_opts *o, struct f8b_measure_result *r);

/* One sample of a single launch(ctx) taken as f8b_measure takes a cold
 * one (flush, hold, e0, launch, e1, release; the hold as o says), its
 * time in *t, to stand beside a measurement whose samples were of
 * `beside` launches each (f8b_measure_result.batch): flushed as those
 * were, so only when beside <= 1 and o->flush (a batch sample is never
 * flushed).  e0 and e1 are the caller's, so it can read events the
 * launch recorded between them (the lls step's in-step times). */
int f8b_measure_cold(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     f8b_launch_fn launch, void *ctx, const struct f8b_measure_opts *o, int beside,
                     struct f8b_event *e0, struct f8b_event *e1, double *t);

/* Statistics on an array (sorted in place): exposed for tests and compare. */
double f8b_median_sorted(const double *v, int n);
double f8b_median(double *v, int n);          /* sorts v; NaN when n <= 0 */
double f8b_noise_of_median(double *v, int n); /* sorts v */

#endif
