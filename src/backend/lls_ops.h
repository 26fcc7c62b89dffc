/* lls_ops.h - the lls ops of backend.h (LayerNorm, sigmoid, transposed and
 * fused casts) as the two backends define them, and the argument checks
 * both make the same way.  Included by the two ops-table initialisers
 * (backend_host.c, backend_cuda.c) and by the files that define the ops:
 * host_lls.c (the golden twins) and cuda_lls.c (kernels/ wiring).
 */
#ifndef F8B_LLS_OPS_H
#define F8B_LLS_OPS_H

#include "backend/backend.h"

/* host_lls.c */
int f8b_host_layernorm_fwd(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                           struct f8b_tensor *y, float *mean, float *rstd);
int f8b_host_layernorm_bwd(struct f8b_backend *be, const struct f8b_tensor *dy,
                           const struct f8b_tensor *x, const float *mean, const float *rstd,
                           struct f8b_tensor *dx);
int f8b_host_sigmoid_fwd(struct f8b_backend *be, const struct f8b_tensor *z, struct f8b_tensor *y);
int f8b_host_sigmoid_bwd(struct f8b_backend *be, const struct f8b_tensor *y,
                         const struct f8b_tensor *dy, struct f8b_tensor *dz);
int f8b_host_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                    float *amax);
int f8b_host_cast_transpose(struct f8b_backend *be, const struct f8b_tensor *x,
                            enum f8b_granularity g, const float *scale, const float *scale_t,
                            struct f8b_tensor *out, struct f8b_tensor *out_t);
int f8b_host_layernorm_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, float *amax);
int f8b_host_layernorm_cast_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, const float *scale_t,
                              struct f8b_tensor *out_t);
int f8b_host_layernorm_fwd_cast(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                                struct f8b_tensor *y, float *mean, float *rstd,
                                const struct f8b_cast_spec *cast);
int f8b_host_sigmoid_bwd_cast(struct f8b_backend *be, const struct f8b_tensor *y,
                              const struct f8b_tensor *dy, struct f8b_tensor *dz,
                              const struct f8b_cast_spec *cast);
int f8b_host_cast_fused(struct f8b_backend *be, const struct f8b_tensor *x,
                        const struct f8b_cast_spec *cast);

/* host_graph.c: delayed scaling's history step and graphs (replays). */
#define F8B_HISTORY_MAX 1024
int f8b_check_history(float *hist, int len, const float *amax, enum f8b_dtype dtype, float *scale);
int f8b_host_history_scale(struct f8b_backend *be, float *hist, int len, const float *amax,
                           enum f8b_dtype dtype, const struct f8b_scale_opts *opts, float *scale);
int f8b_host_graph_capture(struct f8b_backend *be, int (*fn)(void *arg), void *arg,
                           struct f8b_graph **graph);
int f8b_host_graph_launch(struct f8b_backend *be, struct f8b_graph *graph);
void f8b_host_graph_free(struct f8b_backend *be, struct f8b_graph *graph);
/* host_graph.c: the stream ops (names only); host_lls.c: transpose_fp8. */
int f8b_host_stream_create(struct f8b_backend *be, int priority, struct f8b_stream **s);
void f8b_host_stream_destroy(struct f8b_backend *be, struct f8b_stream *s);
int f8b_host_stream_use(struct f8b_backend *be, struct f8b_stream *s);
int f8b_host_stream_wait(struct f8b_backend *be, struct f8b_event *ev);
int f8b_host_transpose_fp8(struct f8b_backend *be, const struct f8b_tensor *x,
                           struct f8b_tensor *out);

#ifdef F8B_HAVE_CUDA
/* cuda_lls.c */
int f8b_cuda_layernorm_fwd(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                           struct f8b_tensor *y, float *mean, float *rstd);
int f8b_cuda_layernorm_bwd(struct f8b_backend *be, const struct f8b_tensor *dy,
                           const struct f8b_tensor *x, const float *mean, const float *rstd,
                           struct f8b_tensor *dx);
int f8b_cuda_sigmoid_fwd(struct f8b_backend *be, const struct f8b_tensor *z, struct f8b_tensor *y);
int f8b_cuda_sigmoid_bwd(struct f8b_backend *be, const struct f8b_tensor *y,
                         const struct f8b_tensor *dy, struct f8b_tensor *dz);
int f8b_cuda_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, enum f8b_granularity g,
                    float *amax);
int f8b_cuda_cast_transpose(struct f8b_backend *be, const struct f8b_tensor *x,
                            enum f8b_granularity g, const float *scale, const float *scale_t,
                            struct f8b_tensor *out, struct f8b_tensor *out_t);
int f8b_cuda_layernorm_amax_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, float *amax);
int f8b_cuda_layernorm_cast_t(struct f8b_backend *be, const struct f8b_tensor *x, const float *mean,
                              const float *rstd, enum f8b_granularity g, const float *scale_t,
                              struct f8b_tensor *out_t);
int f8b_cuda_layernorm_fwd_cast(struct f8b_backend *be, const struct f8b_tensor *x, float eps,
                                struct f8b_tensor *y, float *mean, float *rstd,
                                const struct f8b_cast_spec *cast);
int f8b_cuda_sigmoid_bwd_cast(struct f8b_backend *be, const struct f8b_tensor *y,
                              const struct f8b_tensor *dy, struct f8b_tensor *dz,
                              const struct f8b_cast_spec *cast);
int f8b_cuda_cast_fused(struct f8b_backend *be, const struct f8b_tensor *x,
                        const struct f8b_cast_spec *cast);
/* cuda_graph.c */
int f8b_cuda_history_scale(struct f8b_backend *be, float *hist, int len, const float *amax,
                           enum f8b_dtype dtype, const struct f8b_scale_opts *opts, float *scale);
int f8b_cuda_graph_capture(struct f8b_backend *be, int (*fn)(void *arg), void *arg,
                           struct f8b_graph **graph);
int f8b_cuda_graph_launch(struct f8b_backend *be, struct f8b_graph *graph);
void f8b_cuda_graph_free(struct f8b_backend *be, struct f8b_graph *graph);
#endif

/* lls_check.c: every backend checks the lls ops' arguments with these, so a
 * bad call fails with the same message everywhere (F8B_EINVAL). */
/* t present, of dtype dt and shape rows x cols; `what` names it. */
int f8b_lls_check_shape(const struct f8b_tensor *t, enum f8b_dtype dt, int64_t rows, int64_t cols,
                        const char *op, const char *what);
int f8b_lls_check_layernorm(const struct f8b_tensor *x, float eps, const struct f8b_tensor *y,
                            bool y_optional, const float *mean, const float *rstd, const char *op);
int f8b_lls_check_layernorm_bwd(const struct f8b_tensor *dy, const struct f8b_tensor *x,
                                const float *mean, const float *rstd, const struct f8b_tensor *dx);
/* a (and b when not NULL, and out unless out_optional) bf16 of a's shape. */
int f8b_lls_check_elementwise(const struct f8b_tensor *a, const struct f8b_tensor *b,
                              const struct f8b_tensor *out, bool out_optional, const char *op);
int f8b_lls_check_cast_transpose(const struct f8b_tensor *x, enum f8b_granularity g,
                                 const float *scale, const float *scale_t,
                                 const struct f8b_tensor *out, const struct f8b_tensor *out_t);
/* layernorm_amax_t (out_t NULL: amax required) and layernorm_cast_t. */
int f8b_lls_check_ln_t(const struct f8b_tensor *x, const float *mean, const float *rstd,
                       enum f8b_granularity g, const float *scale_t, const struct f8b_tensor *out_t,
                       const float *amax, const char *op);
/* The cast spec of a fused cast of an [rows, cols] value tensor; amax_given
 * is cast_fused's alone (the others make the values they cast). */
int f8b_lls_check_cast_spec(const struct f8b_cast_spec *cs, int64_t rows, int64_t cols,
                            const char *op);
int f8b_lls_check_cast_fused_spec(const struct f8b_cast_spec *cs, int64_t rows, int64_t cols);

#endif
