/* host_graph.c - the host backend's delayed-scaling history step, its
 * "graphs" (the host has no launch cost, so a graph is the sequence's
 * function, replayed on every launch) and its queues, which are names
 * only (backend.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/lls_ops.h"

int f8b_check_history(float *hist, int len, const float *amax, enum f8b_dtype dtype, float *scale)
{
	if (!f8b_dtype_is_fp8(dtype))
		return F8B_ERR(F8B_EINVAL, "history_scale: target dtype %s (accepted: e4m3, e5m2)",
		               f8b_dtype_name(dtype));
	if (len < 1 || len > F8B_HISTORY_MAX)
		return F8B_ERR(F8B_EINVAL, "history_scale: history length %d (accepted: 1..%d)",
		               len, F8B_HISTORY_MAX);
	if (!hist || !amax || !scale)
		return F8B_ERR(F8B_EINVAL, "history_scale: missing history, amax or scale buffer");
	return F8B_OK;
}

int f8b_host_history_scale(struct f8b_backend *be, float *hist, int len, const float *amax,
                           enum f8b_dtype dtype, const struct f8b_scale_opts *opts, float *scale)
{
	(void)be;
	F8B_TRY(f8b_check_history(hist, len, amax, dtype, scale));
	memmove(hist + 1, hist, sizeof *hist * (size_t)(len - 1));
	hist[0] = amax[0];
	/* newest first, a NaN sticks (kernels/scale.cu does the same) */
	float m = 0.0f;
	for (int i = 0; i < len; i++) {
		if (isnan(hist[i]) || isnan(m))
			m = NAN;
		else if (hist[i] > m)
			m = hist[i];
	}
	scale[0] = f8b_amax_to_scale(m, dtype, opts);
	return F8B_OK;
}

struct f8b_graph {
	int (*fn)(void *arg);
	void *arg;
};

int f8b_host_graph_capture(struct f8b_backend *be, int (*fn)(void *arg), void *arg,
                           struct f8b_graph **graph)
{
	(void)be;
	*graph = NULL;
	if (!fn)
		return F8B_ERR(F8B_EINVAL, "graph_capture: no function to capture");
	struct f8b_graph *g = malloc(sizeof *g);
	if (!g)
		return F8B_ERR(F8B_ENOMEM, "graph_capture: no host memory");
	g->fn = fn;
	g->arg = arg;
	*graph = g;
	return F8B_OK;
}

int f8b_host_graph_launch(struct f8b_backend *be, struct f8b_graph *graph)
{
	(void)be;
	if (!graph)
		return F8B_ERR(F8B_EINVAL, "graph_launch: no graph");
	return graph->fn(graph->arg);
}

void f8b_host_graph_free(struct f8b_backend *be, struct f8b_graph *graph)
{
	(void)be;
	free(graph);
}

/* ---- Streams: the host runs each op when it is called, so a queue is a
 * name and a wait has nothing to wait for (backend.h). */
struct f8b_stream {
	int unused;
};

int f8b_host_stream_create(struct f8b_backend *be, int priority, struct f8b_stream **s)
{
	(void)be;
	(void)priority;
	*s = calloc(1, sizeof **s);
	return *s ? F8B_OK : F8B_ERR(F8B_ENOMEM, "stream_create: %zu bytes", sizeof **s);
}

void f8b_host_stream_destroy(struct f8b_backend *be, struct f8b_stream *s)
{
	(void)be;
	free(s);
}

int f8b_host_stream_use(struct f8b_backend *be, struct f8b_stream *s)
{
	(void)be;
	(void)s;
	return F8B_OK;
}

int f8b_host_stream_wait(struct f8b_backend *be, struct f8b_event *ev)
{
	(void)be;
	return ev ? F8B_OK : F8B_ERR(F8B_EINVAL, "stream_wait: no event");
}
