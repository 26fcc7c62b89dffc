/* test_harness_gpu.c - harness self-test on the GPU: a kernel of known
 * duration (spinning on %globaltimer) measured through the CUDA backend's
 * events must come back at its duration, cold and batched. */
#include <math.h>
#include <stdio.h>

#include "kernels/kernels.h"
#include "backend/backend.h"
#include "harness/measure.h"
#include "../tap.h"

struct spin {
	struct f8b_backend *be;
	uint64_t ns;
};

static int spin_launch(void *ctx)
{
	struct spin *s = ctx;
	int e = f8b_k_spin(s->ns, (cudaStream_t)f8b_cuda_stream(s->be));
	return e ? F8B_ERR(F8B_EDEVICE, "f8b_k_spin: CUDA error %d", e) : F8B_OK;
}

int main(void)
{
	char why[256];
	if (f8b_cuda_device_count(why, sizeof why) <= 0)
		return tap_skip_all(why);
	const struct f8b_backend_ops *ops = &f8b_backend_cuda;
	struct f8b_backend *be;
	struct f8b_device_info info;
	if (ops->open(0, &be, &info) != F8B_OK) {
		tap_ok(0, "cuda backend opens: %s", f8b_last_error());
		return tap_done();
	}
	tap_diag("device: %s, driver %s, runtime %s, cuBLASLt %s", info.name, info.driver_version,
	         info.runtime_version, info.cublaslt_version);
	struct f8b_measure_opts o;
	f8b_measure_defaults(&o);
	o.min_time_s = 0.1;
	o.max_noise = 0.01;
	o.max_samples = 5000; /* 0.1 s of 50 us kernels is 2000 samples */
	struct f8b_measure_result r;
	const uint64_t durations[] = {50000, 500000, 2000000}; /* 50 us, 0.5 ms, 2 ms */
	for (int i = 0; i < 3; i++) {
		struct spin s = {be, durations[i]};
		int rc = f8b_measure(ops, be, spin_launch, &s, &o, &r, NULL);
		double want = 1e-9 * (double)durations[i];
		/* Launch overhead adds a few microseconds to a cold sample. */
		double tol = 0.03 * want + 10e-6;
		tap_ok(rc == F8B_OK && fabs(r.median_s - want) < tol,
		       "cold: %.0f us kernel measured %.2f us (noise %.3f%%, %d samples, clocks "
		       "%u-%u MHz, %d throttled)",
		       1e6 * want, 1e6 * r.median_s, 100 * r.noise, r.samples, r.sm_mhz_min,
		       r.sm_mhz_max, r.throttled);
		tap_ok(r.samples >= o.min_samples && r.total_s >= o.min_time_s,
		       "cold: stopping rule held");
	}
	o.batch = 20;
	struct spin s = {be, 100000};
	int rc = f8b_measure(ops, be, spin_launch, &s, &o, &r, NULL);
	tap_ok(rc == F8B_OK && fabs(r.median_s - 100e-6) < 5e-6,
	       "batch of 20: 100 us kernel measured %.2f us per launch", 1e6 * r.median_s);
	struct f8b_clock_state c;
	if (ops->clock_state) {
		rc = ops->clock_state(be, &c);
		tap_ok(rc == F8B_OK, "clock state readable (valid=%d, SM %u MHz, reasons 0x%llx)",
		       c.valid, c.sm_mhz, c.throttle_reasons);
	}
	ops->close(be);
	return tap_done();
}
