/* test_ag_ops.c - the backend ops the allgather benchmark added, on the
 * GPU against the host: the fill's offset (a shard is a slice of the
 * whole tensor), transpose_fp8 bit for bit, and second queues (a wait
 * orders work across queues, sync() waits for every queue, events on two
 * queues compare). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "backend/backend.h"
#include "../tap.h"

static const struct f8b_backend_ops *C = &f8b_backend_cuda, *H = &f8b_backend_host;
static struct f8b_backend *cb, *hb;

static bool ok_rc(int rc, const char *what)
{
	if (rc != F8B_OK)
		tap_ok(0, "%s: %s", what, f8b_last_error());
	return rc == F8B_OK;
}

static void test_fill_offset(void)
{
	const int64_t rows = 300, cols = 48, part = 100;
	for (int dt = 0; dt < 2; dt++) {
		enum f8b_dtype t = dt ? F8B_BF16 : F8B_F32;
		size_t es = f8b_dtype_size(t);
		void *whole = malloc((size_t)(rows * cols) * es),
		     *got = malloc((size_t)(part * cols) * es);
		struct f8b_tensor hw = {whole, t, rows, cols}, d = {0};
		struct f8b_fill_spec f = {
		    .seed = 99, .std = 0.5f, .outlier_frac = 0.01f, .outlier_scale = 50};
		if (!ok_rc(H->fill(hb, &hw, &f), "host fill") ||
		    !ok_rc(f8b_tensor_alloc(C, cb, &d, t, part, cols), "alloc"))
			continue;
		for (int r = 0; r < 3; r++) {
			f.offset = (uint64_t)(r * part * cols);
			if (ok_rc(C->fill(cb, &d, &f), "cuda fill") &&
			    ok_rc(C->download(cb, got, d.data, (size_t)(part * cols) * es),
			          "download"))
				tap_ok(
				    !memcmp(got, (char *)whole + (size_t)f.offset * es,
				            (size_t)(part * cols) * es),
				    "fill %s with offset %llu is rows %lld.. of the whole tensor",
				    f8b_dtype_name(t), (unsigned long long)f.offset,
				    (long long)(r * part));
		}
		f8b_tensor_free(C, cb, &d);
		free(whole);
		free(got);
	}
}

static void test_transpose_one(int64_t rows, int64_t cols, enum f8b_dtype t)
{
	size_t n = (size_t)(rows * cols);
	unsigned char *x = malloc(n), *want = malloc(n), *got = malloc(n);
	uint64_t z = 0x9E3779B97F4A7C15ull * (uint64_t)(rows + 3 * cols);
	for (size_t i = 0; i < n; i++) {
		z = z * 6364136223846793005ull + 1442695040888963407ull;
		x[i] = (unsigned char)(z >> 56);
	}
	struct f8b_tensor hx = {x, t, rows, cols}, hw = {want, t, cols, rows};
	struct f8b_tensor dx = {0}, dt_ = {0};
	if (ok_rc(H->transpose_fp8(hb, &hx, &hw), "host transpose_fp8") &&
	    ok_rc(f8b_tensor_alloc(C, cb, &dx, t, rows, cols), "alloc") &&
	    ok_rc(f8b_tensor_alloc(C, cb, &dt_, t, cols, rows), "alloc") &&
	    ok_rc(C->upload(cb, dx.data, x, n), "upload") &&
	    ok_rc(C->memset(cb, dt_.data, 0xA5, n), "memset") &&
	    ok_rc(C->transpose_fp8(cb, &dx, &dt_), "cuda transpose_fp8") &&
	    ok_rc(C->download(cb, got, dt_.data, n), "download")) {
		size_t bad = 0;
		while (bad < n && got[bad] == want[bad])
			bad++;
		tap_ok(bad == n, "transpose_fp8 %s %lldx%lld bit-exact%s", f8b_dtype_name(t),
		       (long long)rows, (long long)cols,
		       bad == n ? "" : " (first difference below)");
		if (bad < n)
			tap_diag("element %zu: got 0x%02x, want 0x%02x", bad, got[bad], want[bad]);
	}
	f8b_tensor_free(C, cb, &dx);
	f8b_tensor_free(C, cb, &dt_);
	free(x);
	free(want);
	free(got);
}

static void test_transpose(void)
{
	static const int64_t sh[][2] = {{16, 16},    {64, 64},     {80, 48},
	                                {1008, 208}, {4096, 2064}, {2048, 8192}};
	for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
		test_transpose_one(sh[i][0], sh[i][1], i % 2 ? F8B_E5M2 : F8B_E4M3);
	struct f8b_tensor a = {(void *)16, F8B_E4M3, 24, 32}, b = {(void *)16, F8B_E4M3, 32, 24};
	tap_ok(C->transpose_fp8(cb, &a, &b) == F8B_EUNSUPPORTED,
	       "transpose_fp8 refuses 24 rows (not a multiple of 16): %s", f8b_last_error());
	struct f8b_tensor c = {(void *)16, F8B_E4M3, 32, 32}, d = {(void *)16, F8B_E5M2, 32, 32};
	tap_ok(C->transpose_fp8(cb, &c, &d) == F8B_EINVAL, "transpose_fp8 refuses e4m3 to e5m2: %s",
	       f8b_last_error());
}

static void test_streams(int prio_want)
{
	struct f8b_stream *s = NULL;
	struct f8b_event *e0 = NULL, *e1 = NULL, *done = NULL;
	const size_t bytes = 1 << 20;
	void *buf = NULL, *dst = NULL;
	unsigned char *h = malloc(bytes);
	if (!ok_rc(C->stream_create(cb, prio_want, &s), "stream_create") ||
	    !ok_rc(C->alloc(cb, bytes, &buf), "alloc") ||
	    !ok_rc(C->alloc(cb, bytes, &dst), "alloc") ||
	    !ok_rc(C->event_create(cb, &e0), "event") ||
	    !ok_rc(C->event_create(cb, &e1), "event") ||
	    !ok_rc(C->event_create(cb, &done), "event"))
		goto out;
	/* The side queue spins 20 ms, then writes 1s; the main queue waits
	 * for it and copies: it must see the 1s. */
	C->memset(cb, buf, 0, bytes);
	C->memset(cb, dst, 0, bytes);
	C->sync(cb);
	C->event_record(cb, e0);
	C->stream_use(cb, s);
	C->stream_wait(cb, e0);
	f8b_k_spin(20000000ull, (cudaStream_t)f8b_cuda_stream(cb));
	C->memset(cb, buf, 1, bytes);
	C->event_record(cb, done);
	C->stream_use(cb, NULL);
	if (ok_rc(C->stream_wait(cb, done), "stream_wait") &&
	    ok_rc(C->bw_copy(cb, dst, buf, bytes, 1), "copy") &&
	    ok_rc(C->event_record(cb, e1), "ev")) {
		double t = 0;
		ok_rc(C->event_elapsed(cb, e0, e1, &t), "elapsed");
		ok_rc(C->download(cb, h, dst, bytes), "download");
		size_t ones = 0;
		for (size_t i = 0; i < bytes; i++)
			ones += h[i] == 1;
		tap_ok(ones == bytes,
		       "a wait orders the main queue after the side queue's work "
		       "(%zu of %zu bytes copied after it)",
		       ones, bytes);
		tap_ok(t > 0.018 && t < 0.5, "events on two queues compare: %.2f ms (20 ms spin)",
		       1e3 * t);
	}
	/* sync() waits for the side queue too. */
	C->stream_use(cb, s);
	f8b_k_spin(20000000ull, (cudaStream_t)f8b_cuda_stream(cb));
	C->memset(cb, buf, 2, bytes);
	C->stream_use(cb, NULL);
	ok_rc(C->sync(cb), "sync");
	cudaError_t q = cudaStreamQuery((cudaStream_t)f8b_cuda_stream(cb));
	C->stream_use(cb, s);
	cudaError_t qs = cudaStreamQuery((cudaStream_t)f8b_cuda_stream(cb));
	C->stream_use(cb, NULL);
	tap_ok(q == cudaSuccess && qs == cudaSuccess, "sync() leaves both queues idle");
	/* HIGH (--comm-priority high): the device's greatest priority (the
	 * lowest number); LOW: its least; DEFAULT: the own queue's, one
	 * above the least. */
	int least = 0, greatest = 0, prio = 1, own = 1;
	C->stream_use(cb, s);
	cudaError_t pe = cudaStreamGetPriority((cudaStream_t)f8b_cuda_stream(cb), &prio);
	C->stream_use(cb, NULL);
	cudaError_t oe = cudaStreamGetPriority((cudaStream_t)f8b_cuda_stream(cb), &own);
	cudaError_t re = cudaDeviceGetStreamPriorityRange(&least, &greatest);
	int want = prio_want > 0 ? greatest : prio_want < 0 ? least : own;
	tap_ok(pe == cudaSuccess && oe == cudaSuccess && re == cudaSuccess && prio == want &&
	           (greatest == least || own == least - 1),
	       "a %s-priority side queue has priority %d, the own queue %d (device range %d..%d)",
	       prio_want > 0   ? "high"
	       : prio_want < 0 ? "low"
	                       : "default",
	       prio, own, least, greatest);
	tap_ok(C->stream_use(cb, NULL) == F8B_OK && f8b_cuda_stream(cb) != NULL,
	       "stream_use(NULL) returns to the backend's own queue");
out:
	if (e0)
		C->event_destroy(cb, e0);
	if (e1)
		C->event_destroy(cb, e1);
	if (done)
		C->event_destroy(cb, done);
	if (buf)
		C->free(cb, buf);
	if (dst)
		C->free(cb, dst);
	if (s)
		C->stream_destroy(cb, s);
	free(h);
}

int main(void)
{
	char why[256];
	if (f8b_cuda_device_count(why, sizeof why) <= 0)
		return tap_skip_all(why);
	struct f8b_device_info info;
	if (C->open(0, &cb, &info) != F8B_OK || H->open(-1, &hb, NULL) != F8B_OK) {
		tap_ok(0, "backends open: %s", f8b_last_error());
		return tap_done();
	}
	tap_diag("device: %s", info.name);
	test_fill_offset();
	test_transpose();
	test_streams(F8B_STREAM_DEFAULT);
	test_streams(F8B_STREAM_HIGH);
	test_streams(F8B_STREAM_LOW);
	C->close(cb);
	H->close(hb);
	return tap_done();
}
