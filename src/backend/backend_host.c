/* backend_host.c - the host backend: every op of backend.h in portable C.
 *
 * This is the golden reference the cuda backend is checked against and the
 * backend CI runs, so every op follows the formula in backend.h / scaling.h
 * literally; speed matters only as far as tests and host sweeps stay quick.
 * All ops run synchronously in the calling thread, so "enqueue" means "do".
 * Backend memory is plain host memory from malloc().
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sysconf */

/* The fill and the GEMM round every fp32 operation separately (backend.h):
 * a fused multiply-add would change the fill's bits on CPUs with FMA and
 * make the host results depend on -march.  GCC in GNU C modes contracts
 * across statements and ignores the STDC pragma, so each compiler gets the
 * switch it honours. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "backend/backend.h"
#include "backend/lls_ops.h"
#include "backend/optim_ops.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/host_internal.h"
#include "core/fp8.h"
#include "core/scaling.h"

/* 64 MiB: larger than the last-level cache of current server CPUs
 * (tens of MiB per socket), so writing it evicts the GEMM operands. */
#define FLUSH_BYTES ((size_t)64 << 20)

struct f8b_backend {
	unsigned char *flush_buf;
	unsigned flush_count; /* varies the flush byte so no write is redundant */
};

struct f8b_event {
	struct timespec ts;
	bool recorded;
};

/* ------------------------------------------------------------ open/close */

/* "model name : Intel(R) Xeon(R) ..." from /proc/cpuinfo (x86); other
 * architectures may not have the line, hence the fallback. */
static void cpu_model_name(char *buf, size_t n)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, n, "host CPU");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10) != 0)
			continue;
		char *p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = '\0';
		if (*p)
			snprintf(buf, n, "%s", p);
		break;
	}
	fclose(f);
}

/* Largest cache of cpu0 from sysfs ("36864K"), 0 when unknown: reported in
 * l2_bytes, the field that means "the cache a flush must evict". */
static size_t cpu_llc_bytes(void)
{
	size_t best = 0;

	for (int i = 0; i < 16; i++) {
		char path[96], text[64];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		FILE *f = fopen(path, "r");
		if (!f)
			break;
		if (fgets(text, sizeof text, f)) {
			char *end;
			unsigned long long v = strtoull(text, &end, 10);
			if (*end == 'K')
				v <<= 10;
			else if (*end == 'M')
				v <<= 20;
			if (v > best)
				best = (size_t)v;
		}
		fclose(f);
	}
	return best;
}

static int host_open(int device, struct f8b_backend **out, struct f8b_device_info *info)
{
	(void)device; /* one host */
	struct f8b_backend *be = calloc(1, sizeof *be);

	if (!be)
		return F8B_ERR(F8B_ENOMEM, "host backend: out of memory (%zu bytes)", sizeof *be);
	be->flush_buf = malloc(FLUSH_BYTES);
	if (!be->flush_buf) {
		free(be);
		return F8B_ERR(F8B_ENOMEM,
		               "host backend: cannot allocate the %zu-byte cache flush buffer",
		               FLUSH_BYTES);
	}
	/* Touch it once so the first timed flush does not pay page faults. */
	memset(be->flush_buf, 0, FLUSH_BYTES);

	if (info) {
		long pages = sysconf(_SC_PHYS_PAGES);
		long page = sysconf(_SC_PAGESIZE);

		memset(info, 0, sizeof *info);
		cpu_model_name(info->name, sizeof info->name);
		info->device = -1;
		info->mem_bytes = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
		info->l2_bytes = cpu_llc_bytes();
	}
	*out = be;
	return F8B_OK;
}

static void host_close(struct f8b_backend *be)
{
	if (!be)
		return;
	free(be->flush_buf);
	free(be);
}

/* ------------------------------------------------------------ memory */

static int host_alloc(struct f8b_backend *be, size_t bytes, void **ptr)
{
	(void)be;
	/* malloc(0) may return NULL; one byte keeps "NULL = failure" true. */
	*ptr = malloc(bytes ? bytes : 1);
	if (!*ptr)
		return F8B_ERR(F8B_ENOMEM, "host backend: cannot allocate %zu bytes", bytes);
	return F8B_OK;
}

static void host_free(struct f8b_backend *be, void *ptr)
{
	(void)be;
	free(ptr);
}

static int host_copy(struct f8b_backend *be, void *dst, const void *src, size_t bytes)
{
	(void)be;
	if (bytes)
		memcpy(dst, src, bytes);
	return F8B_OK;
}

static int host_memset(struct f8b_backend *be, void *dst, int byte, size_t bytes)
{
	(void)be;
	if (bytes)
		memset(dst, byte, bytes);
	return F8B_OK;
}

/* ------------------------------------------------------------ fill */

static inline uint64_t splitmix_mix(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xBF58476D1CE4E5B9ull;
	z ^= z >> 27;
	z *= 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z;
}

/* u(c) in [0,1): the top 24 bits of the hash, exactly representable. */
static inline float fill_unit(uint64_t seed, uint64_t c)
{
	uint64_t h = splitmix_mix(seed + (c + 1) * 0x9E3779B97F4A7C15ull);
	return (float)(h >> 40) * 0x1p-24f;
}

/* Element i of the seeded fill, the formula of core/fill.h verbatim; one
 * rounding per statement (contraction is off for this file, see top). */
static float fill_value(const struct f8b_fill_spec *s, uint64_t i)
{
	uint64_t c = 5 * i;
	float u0 = fill_unit(s->seed, c), u1 = fill_unit(s->seed, c + 1);
	float u2 = fill_unit(s->seed, c + 2), u3 = fill_unit(s->seed, c + 3);
	float u4 = fill_unit(s->seed, c + 4);
	float t, z, x;

	t = u0 + u1;
	t = t + u2;
	t = t + u3;
	t = t - 2.0f;
	z = t * 1.7320508f; /* sqrt(3): Irwin-Hall(4) has variance 4/12 */
	x = z * s->std;
	x = x + s->mean;
	if (u4 < s->outlier_frac)
		x = x * s->outlier_scale;
	return x;
}

static int host_fill(struct f8b_backend *be, struct f8b_tensor *x, const struct f8b_fill_spec *spec)
{
	(void)be;
	F8B_TRY(f8b_check_wide_input(x, "fill"));
	if (!spec)
		return F8B_ERR(F8B_EINVAL, "fill: no fill spec");

	uint64_t n = (uint64_t)x->rows * (uint64_t)x->cols;
	if (x->dtype == F8B_F32) {
		float *p = x->data;
		for (uint64_t i = 0; i < n; i++)
			p[i] = fill_value(spec, spec->offset + i);
	} else {
		uint16_t *p = x->data;
		for (uint64_t i = 0; i < n; i++)
			p[i] = f8b_f32_to_bf16(fill_value(spec, spec->offset + i));
	}
	return F8B_OK;
}

/* ------------------------------------------------------------ amax/scale/cast */

static int host_amax(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                     float *amax)
{
	(void)be;
	F8B_TRY(f8b_check_wide_input(x, "amax"));
	F8B_TRY(f8b_check_gran(g, "amax"));

	if (x->dtype == F8B_F32) {
		f8b_amax_f32(x->data, x->rows, x->cols, g, amax);
		return F8B_OK;
	}
	/* bf16: widen (exactly) once and reuse the one amax implementation;
	 * amax is outside every timed GEMM, and host casts are not tuned. */
	size_t n = (size_t)x->rows * (size_t)x->cols;
	float *tmp = malloc(n * sizeof *tmp);
	if (!tmp)
		return F8B_ERR(F8B_ENOMEM, "amax: cannot allocate %zu bytes to widen bf16",
		               n * sizeof *tmp);
	f8b_to_f32(x->data, F8B_BF16, tmp, n);
	f8b_amax_f32(tmp, x->rows, x->cols, g, amax);
	free(tmp);
	return F8B_OK;
}

static int host_scales(struct f8b_backend *be, const float *amax, int64_t n, enum f8b_dtype target,
                       const struct f8b_scale_opts *o, float *scale, float *scale_inv)
{
	(void)be;
	if (!f8b_dtype_is_fp8(target))
		return F8B_ERR(F8B_EINVAL, "scales: target dtype %s (accepted: e4m3, e5m2)",
		               f8b_dtype_name(target));
	if (n < 0)
		return F8B_ERR(F8B_EINVAL, "scales: count %lld (must be >= 0)", (long long)n);
	for (int64_t i = 0; i < n; i++) {
		float s = f8b_amax_to_scale(amax[i], target, o);
		if (scale)
			scale[i] = s;
		if (scale_inv)
			scale_inv[i] = isnan(s) ? s : 1.0f / s; /* IEEE division, as the kernel */
	}
	return F8B_OK;
}

/* The (block row, block col) of scale for element row r, K-block kb, of a
 * rows x cols operand; kb is 0 for the unblocked granularities.  The cast
 * here and the GEMM (host_gemm.c) read scales through it. */
int64_t f8b_host_scale_at(enum f8b_granularity g, int64_t rows, int64_t cols, int64_t r, int64_t kb)
{
	switch (g) {
	case F8B_GRAN_TENSORWISE: return 0;
	case F8B_GRAN_AXISWISE: return f8b_scale_index(g, rows, cols, r, 0);
	case F8B_GRAN_BLOCK1X128: return f8b_scale_index(g, rows, cols, r, kb);
	case F8B_GRAN_BLOCK128X128: return f8b_scale_index(g, rows, cols, r / F8B_BLOCK, kb);
	default: return 0;
	}
}

static int host_cast(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                     const float *scale, struct f8b_tensor *out)
{
	(void)be;
	F8B_TRY(f8b_check_cast(x, g, scale, out));

	const int64_t rows = x->rows, cols = x->cols;
	const int64_t nkb = (cols + F8B_BLOCK - 1) / F8B_BLOCK;
	uint8_t *q = out->data;
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t kb = 0; kb < nkb; kb++) {
			int64_t c0 = kb * F8B_BLOCK;
			int64_t c1 = c0 + F8B_BLOCK < cols ? c0 + F8B_BLOCK : cols;
			float s = scale[f8b_host_scale_at(g, rows, cols, r, kb)];
			for (int64_t c = c0; c < c1; c++) {
				float v = x->dtype == F8B_F32
				              ? ((const float *)x->data)[r * cols + c]
				              : f8b_bf16_to_f32(
				                    ((const uint16_t *)x->data)[r * cols + c]);
				float y = v * s;
				q[r * cols + c] = f8b_f32_to_fp8(y, out->dtype);
			}
		}
	}
	return F8B_OK;
}

/* ------------------------------------------------------------ timing */

static int host_event_create(struct f8b_backend *be, struct f8b_event **ev)
{
	(void)be;
	*ev = calloc(1, sizeof **ev);
	if (!*ev)
		return F8B_ERR(F8B_ENOMEM, "event: cannot allocate %zu bytes", sizeof **ev);
	return F8B_OK;
}

static void host_event_destroy(struct f8b_backend *be, struct f8b_event *ev)
{
	(void)be;
	free(ev);
}

/* Host ops are synchronous, so "the time the stream reaches the event" is
 * simply now. */
static int host_event_record(struct f8b_backend *be, struct f8b_event *ev)
{
	(void)be;
	if (!ev)
		return F8B_ERR(F8B_EINVAL, "event record: no event");
	if (clock_gettime(CLOCK_MONOTONIC, &ev->ts) != 0)
		return F8B_ERR(F8B_EDEVICE, "event record: clock_gettime(CLOCK_MONOTONIC): %s",
		               strerror(errno));
	ev->recorded = true;
	return F8B_OK;
}

static int host_event_elapsed(struct f8b_backend *be, struct f8b_event *a, struct f8b_event *b,
                              double *seconds)
{
	(void)be;
	if (!a || !b || !a->recorded || !b->recorded)
		return F8B_ERR(F8B_EINVAL, "event elapsed: an event was never recorded");
	*seconds =
	    (double)(b->ts.tv_sec - a->ts.tv_sec) + 1e-9 * (double)(b->ts.tv_nsec - a->ts.tv_nsec);
	return F8B_OK;
}

static int host_flush_cache(struct f8b_backend *be, int how)
{
	(void)how; /* a read could leave lines shared; writing is certain */
	/* A different byte each time: every line is dirtied, never skipped. */
	memset(be->flush_buf, (int)(++be->flush_count & 0xFF), FLUSH_BYTES);
	return F8B_OK;
}

static int host_sync(struct f8b_backend *be)
{
	(void)be; /* every op already finished when it returned */
	return F8B_OK;
}

/* ------------------------------------------------------------ ceilings
 *
 * Plain loops over 8-byte words.  Between passes an empty asm with a
 * memory clobber tells the compiler that memory may have changed, so it
 * can neither fold the passes of the read into one sum times `passes` nor
 * drop the earlier passes' stores as dead. */
#define F8B_COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

static int host_bw_read(struct f8b_backend *be, const void *src, size_t bytes, int passes,
                        uint64_t *partial)
{
	(void)be;
	F8B_TRY(f8b_check_bw(src, NULL, false, bytes, passes, 8, "bw_read"));
	if (!partial)
		return F8B_ERR(F8B_EINVAL, "bw_read: no partial-sum buffer");
	const uint64_t *w = src;
	const size_t n = bytes / 8;
	uint64_t s0 = 0, s1 = 0; /* two chains: an add does not wait on the last */
	for (int p = 0; p < passes; p++) {
		for (size_t i = 0; i < n; i += 2) {
			s0 += w[i];
			s1 += w[i + 1];
		}
		F8B_COMPILER_BARRIER();
	}
	partial[0] = s0 + s1;
	for (size_t j = 1; j < F8B_BW_PARTIALS; j++)
		partial[j] = 0;
	return F8B_OK;
}

static int host_bw_write(struct f8b_backend *be, void *dst, size_t bytes, int passes,
                         uint64_t value)
{
	(void)be;
	F8B_TRY(f8b_check_bw(dst, NULL, false, bytes, passes, 8, "bw_write"));
	uint64_t *w = dst;
	const size_t n = bytes / 8;
	for (int p = 0; p < passes; p++) {
		for (size_t i = 0; i < n; i++)
			w[i] = value;
		F8B_COMPILER_BARRIER();
	}
	return F8B_OK;
}

static int host_bw_copy(struct f8b_backend *be, void *dst, const void *src, size_t bytes,
                        int passes)
{
	(void)be;
	F8B_TRY(f8b_check_bw(dst, src, true, bytes, passes, 8, "bw_copy"));
	uint64_t *d = dst;
	const uint64_t *s = src;
	const size_t n = bytes / 8;
	for (int p = 0; p < passes; p++) {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
		F8B_COMPILER_BARRIER();
	}
	return F8B_OK;
}

/* The host's "kernel launch": an indirect call the compiler cannot inline
 * or drop, the closest host analogue of dispatching a piece of work. */
static void empty_work(void)
{
}
static void (*volatile empty_work_ptr)(void) = empty_work;

static int host_launch_empty(struct f8b_backend *be)
{
	(void)be;
	empty_work_ptr();
	return F8B_OK;
}

/* MemAvailable: what the kernel can hand out without swapping (page cache
 * included), the figure an allocation of that size would survive. */
static int host_mem_info(struct f8b_backend *be, size_t *free_bytes, size_t *total_bytes)
{
	unsigned long long avail = 0, total = 0, v;
	char key[64];
	(void)be;
	FILE *f = fopen("/proc/meminfo", "r");
	while (f && fscanf(f, "%63s %llu kB", key, &v) == 2) {
		if (!strcmp(key, "MemAvailable:"))
			avail = v * 1024;
		else if (!strcmp(key, "MemTotal:"))
			total = v * 1024;
	}
	if (f)
		fclose(f);
	if (!avail) { /* no /proc: what sysconf knows */
		long pages = sysconf(_SC_AVPHYS_PAGES), all = sysconf(_SC_PHYS_PAGES);
		long psize = sysconf(_SC_PAGESIZE);
		avail = pages > 0 && psize > 0
		            ? (unsigned long long)pages * (unsigned long long)psize
		            : 0;
		total =
		    all > 0 && psize > 0 ? (unsigned long long)all * (unsigned long long)psize : 0;
	}
	if (!avail)
		return F8B_ERR(F8B_EUNSUPPORTED, "free host memory is unknown");
	*free_bytes = (size_t)avail;
	*total_bytes = (size_t)total;
	return F8B_OK;
}

const struct f8b_backend_ops f8b_backend_host = {
    .name = "host",
    .open = host_open,
    .close = host_close,
    .alloc = host_alloc,
    .free = host_free,
    .upload = host_copy,
    .download = host_copy,
    .memset = host_memset,
    .fill = host_fill,
    .amax = host_amax,
    .scales = host_scales,
    .cast = host_cast,
    .gemm_plan = f8b_host_gemm_plan,
    .gemm = f8b_host_gemm,
    .gemm_plan_free = f8b_host_gemm_plan_free,
    .event_create = host_event_create,
    .event_destroy = host_event_destroy,
    .event_record = host_event_record,
    .event_elapsed = host_event_elapsed,
    .flush_cache = host_flush_cache,
    .sync = host_sync,
    .clock_state = NULL,
    .bw_read = host_bw_read,
    .bw_write = host_bw_write,
    .bw_copy = host_bw_copy,
    .launch_empty = host_launch_empty,
    .mem_info = host_mem_info,
    .layernorm_fwd = f8b_host_layernorm_fwd,
    .layernorm_bwd = f8b_host_layernorm_bwd,
    .sigmoid_fwd = f8b_host_sigmoid_fwd,
    .sigmoid_bwd = f8b_host_sigmoid_bwd,
    .amax_t = f8b_host_amax_t,
    .cast_transpose = f8b_host_cast_transpose,
    .layernorm_amax_t = f8b_host_layernorm_amax_t,
    .layernorm_cast_t = f8b_host_layernorm_cast_t,
    .layernorm_fwd_cast = f8b_host_layernorm_fwd_cast,
    .sigmoid_bwd_cast = f8b_host_sigmoid_bwd_cast,
    .cast_fused = f8b_host_cast_fused,
    .history_scale = f8b_host_history_scale,
    .graph_capture = f8b_host_graph_capture,
    .graph_launch = f8b_host_graph_launch,
    .graph_free = f8b_host_graph_free,
    .stream_create = f8b_host_stream_create,
    .stream_destroy = f8b_host_stream_destroy,
    .stream_use = f8b_host_stream_use,
    .stream_wait = f8b_host_stream_wait,
    .transpose_fp8 = f8b_host_transpose_fp8,
    .optim_pass = f8b_host_optim_pass,
};
