/* schema.c - the columns of every results table: name, type, place in the
 * row struct and unit.  doc/results.md describes each column in words.
 *
 * Each table is one X-macro list, expanded twice: into the field array the
 * HDF5 code uses, and into compile-time checks that the list and the
 * struct in schema.h agree (every column's C type, and no member left out).
 */
#include "results/schema.h"

#include <stddef.h>

/* The C type a column type stands for, as a pointer to the member, so an
 * array member keeps its length: _Generic on &member needs no decay rules. */
#define F8B_PTR_I32(S, m) int32_t *
#define F8B_PTR_I64(S, m) int64_t *
#define F8B_PTR_F64(S, m) double *
#define F8B_PTR_STR(S, m) char(*)[sizeof(((S *)0)->m)]

#define F8B_MEMBER_SIZE(S, m) sizeof(((S *)0)->m)

/* One array entry per column. */
#define F8B_FIELD(S, m, t, unit) {#m, F8B_FT_##t, offsetof(S, m), F8B_MEMBER_SIZE(S, m), unit},

/* The member has the C type the column claims (a double listed as I64
 * would store garbage, and both are 8 bytes, so size checks miss it). */
#define F8B_CHECK_TYPE(S, m, t, unit)                                                              \
	_Static_assert(_Generic(&((S *)0)->m, F8B_PTR_##t(S, m) : 1, default : 0),                 \
	               #S "." #m " is not of column type " #t);

/* A mirror struct holding only the listed members, in list order.  It has
 * the row's size and every member at the row's offset only if the order is
 * the same and no member of the row is missing from the list - except a
 * member of at most 4 bytes put into one of f8b_gemm_row's alignment holes
 * (4 bytes after `status`, after `throttled`, and at the end), which C
 * cannot tell from padding: add such a member here by hand. */
#define F8B_MIRROR_I32(S, m)      int32_t m;
#define F8B_MIRROR_I64(S, m)      int64_t m;
#define F8B_MIRROR_F64(S, m)      double m;
#define F8B_MIRROR_STR(S, m)      char m[F8B_MEMBER_SIZE(S, m)];
#define F8B_MIRROR(S, m, t, unit) F8B_MIRROR_##t(S, m)

#define F8B_CHECK_OFFSET(M, S, m, t, unit)                                                         \
	_Static_assert(offsetof(M, m) == offsetof(S, m), #S "." #m " is out of order");

/* ---- gemm ------------------------------------------------------------- */

#define F8B_GEMM_COLUMNS(X, S)                                                                     \
	X(S, m, I64, "")                                                                           \
	X(S, k, I64, "")                                                                           \
	X(S, n, I64, "")                                                                           \
	X(S, label, STR, "")                                                                       \
	X(S, scaling, STR, "")                                                                     \
	X(S, a_gran, STR, "")                                                                      \
	X(S, b_gran, STR, "")                                                                      \
	X(S, fast_accum, I32, "")                                                                  \
	X(S, a_dtype, STR, "")                                                                     \
	X(S, b_dtype, STR, "")                                                                     \
	X(S, out_dtype, STR, "")                                                                   \
	X(S, backend, STR, "")                                                                     \
	X(S, impl, STR, "")                                                                        \
	X(S, out_t, I32, "")                                                                       \
	X(S, status, STR, "")                                                                      \
	X(S, time_median_s, F64, "s")                                                              \
	X(S, time_min_s, F64, "s")                                                                 \
	X(S, time_max_s, F64, "s")                                                                 \
	X(S, time_noise, F64, "")                                                                  \
	X(S, samples, I32, "")                                                                     \
	X(S, converged, I32, "")                                                                   \
	X(S, throttled, I32, "")                                                                   \
	X(S, throttle_reasons, I64, "")                                                            \
	X(S, sm_mhz_min, I32, "MHz")                                                               \
	X(S, sm_mhz_max, I32, "MHz")                                                               \
	X(S, tflops, F64, "TFLOP/s")                                                               \
	X(S, pct_peak, F64, "%")                                                                   \
	X(S, arith_intensity, F64, "flop/byte")                                                    \
	X(S, predicted_time_s, F64, "s")                                                           \
	X(S, pct_of_roofline, F64, "%")                                                            \
	X(S, roofline_source, STR, "")                                                             \
	X(S, bf16_time_median_s, F64, "s")                                                         \
	X(S, speedup_vs_bf16, F64, "")                                                             \
	X(S, rel_error, F64, "")                                                                   \
	X(S, tolerance, F64, "")                                                                   \
	X(S, sqnr_db, F64, "dB")                                                                   \
	X(S, algo_id, I32, "")                                                                     \
	X(S, algo_tile, I32, "")                                                                   \
	X(S, algo_stages, I32, "")                                                                 \
	X(S, algo_splitk, I32, "")                                                                 \
	X(S, algo_swizzle, I32, "")                                                                \
	X(S, algo_reduction, I32, "")                                                              \
	X(S, algo_custom, I32, "")                                                                 \
	X(S, algo_cluster, I32, "")                                                                \
	X(S, heuristic_rank, I32, "")                                                              \
	X(S, candidates_timed, I32, "")                                                            \
	X(S, heuristic_time_median_s, F64, "s")                                                    \
	X(S, workspace_bytes, I64, "bytes")                                                        \
	X(S, seed, I64, "")                                                                        \
	X(S, run_id, I32, "")                                                                      \
	X(S, rank, I32, "")                                                                        \
	X(S, device, I32, "")                                                                      \
	X(S, gpu, STR, "")                                                                         \
	X(S, message, STR, "")

F8B_GEMM_COLUMNS(F8B_CHECK_TYPE, struct f8b_gemm_row)

struct f8b_gemm_row_mirror {
	F8B_GEMM_COLUMNS(F8B_MIRROR, struct f8b_gemm_row)
};
#define F8B_CHECK_GEMM_OFFSET(S, m, t, unit)                                                       \
	F8B_CHECK_OFFSET(struct f8b_gemm_row_mirror, S, m, t, unit)
F8B_GEMM_COLUMNS(F8B_CHECK_GEMM_OFFSET, struct f8b_gemm_row)
_Static_assert(sizeof(struct f8b_gemm_row_mirror) == sizeof(struct f8b_gemm_row),
               "struct f8b_gemm_row has a member that F8B_GEMM_COLUMNS does not list");

static const struct f8b_field gemm_fields[] = {F8B_GEMM_COLUMNS(F8B_FIELD, struct f8b_gemm_row)};
/* impl: "" in files from before --impl, which all ran cuBLASLt (or the
 * host reference); out_t: 0 in files from before --out-t, which wrote D
 * alone: doc/results.md. */
static const char *const gemm_late[] = {"impl", "out_t", NULL};

const struct f8b_table_schema f8b_gemm_schema = {
    .name = "gemm",
    .title = "f8bench gemm: one row per GEMM case (shape x recipe x dtype)",
    .row_size = sizeof(struct f8b_gemm_row),
    .fields = gemm_fields,
    .nfields = sizeof gemm_fields / sizeof gemm_fields[0],
    .late_columns = gemm_late,
};

/* ---- ceilings ---------------------------------------------------------- */

/* value and datasheet_value carry the unit named in the row's own `unit`
 * column (B/s, FLOP/s or s), which differs from row to row. */
#define F8B_CEILINGS_COLUMNS(X, S)                                                                 \
	X(S, kind, STR, "")                                                                        \
	X(S, dtype, STR, "")                                                                       \
	X(S, bytes, I64, "bytes")                                                                  \
	X(S, m, I64, "")                                                                           \
	X(S, k, I64, "")                                                                           \
	X(S, n, I64, "")                                                                           \
	X(S, backend, STR, "")                                                                     \
	X(S, status, STR, "")                                                                      \
	X(S, time_median_s, F64, "s")                                                              \
	X(S, time_min_s, F64, "s")                                                                 \
	X(S, time_max_s, F64, "s")                                                                 \
	X(S, time_noise, F64, "")                                                                  \
	X(S, samples, I32, "")                                                                     \
	X(S, converged, I32, "")                                                                   \
	X(S, throttled, I32, "")                                                                   \
	X(S, value, F64, "see unit")                                                               \
	X(S, unit, STR, "")                                                                        \
	X(S, datasheet_value, F64, "see unit")                                                     \
	X(S, ranks, I32, "")                                                                       \
	X(S, candidate, I32, "")                                                                   \
	X(S, batch, I32, "")                                                                       \
	X(S, in_place, I32, "")                                                                    \
	X(S, nccl_buffers, STR, "")                                                                \
	X(S, cta_policy, STR, "")                                                                  \
	X(S, run_id, I32, "")                                                                      \
	X(S, rank, I32, "")                                                                        \
	X(S, device, I32, "")                                                                      \
	X(S, gpu, STR, "")                                                                         \
	X(S, message, STR, "")

F8B_CEILINGS_COLUMNS(F8B_CHECK_TYPE, struct f8b_ceilings_row)

/* The row has one alignment hole (4 bytes after `throttled`), which the
 * mirror has too: a 4-byte member added there would go unnoticed. */
struct f8b_ceilings_row_mirror {
	F8B_CEILINGS_COLUMNS(F8B_MIRROR, struct f8b_ceilings_row)
};
#define F8B_CHECK_CEILINGS_OFFSET(S, m, t, unit)                                                   \
	F8B_CHECK_OFFSET(struct f8b_ceilings_row_mirror, S, m, t, unit)
F8B_CEILINGS_COLUMNS(F8B_CHECK_CEILINGS_OFFSET, struct f8b_ceilings_row)
_Static_assert(sizeof(struct f8b_ceilings_row_mirror) == sizeof(struct f8b_ceilings_row),
               "struct f8b_ceilings_row has a member that F8B_CEILINGS_COLUMNS does not list");

static const struct f8b_field ceilings_fields[] = {
    F8B_CEILINGS_COLUMNS(F8B_FIELD, struct f8b_ceilings_row)};

const struct f8b_table_schema f8b_ceilings_schema = {
    .name = "ceilings",
    .title = "f8bench ceilings: one row per measured ceiling (bandwidth per working set, GEMM "
             "peak, launch cost, collective bus bandwidth) beside its datasheet value",
    .row_size = sizeof(struct f8b_ceilings_row),
    .fields = ceilings_fields,
    .nfields = sizeof ceilings_fields / sizeof ceilings_fields[0],
};

/* ---- lls ---------------------------------------------------------------- */

#define F8B_LLS_COLUMNS(X, S)                                                                      \
	X(S, m, I64, "")                                                                           \
	X(S, k, I64, "")                                                                           \
	X(S, n, I64, "")                                                                           \
	X(S, label, STR, "")                                                                       \
	X(S, recipe, STR, "")                                                                      \
	X(S, recipe_long, STR, "")                                                                 \
	X(S, graph, I32, "")                                                                       \
	X(S, lanes, I32, "")                                                                       \
	X(S, gemm_impl, STR, "")                                                                   \
	X(S, backend, STR, "")                                                                     \
	X(S, status, STR, "")                                                                      \
	X(S, time_median_s, F64, "s")                                                              \
	X(S, time_min_s, F64, "s")                                                                 \
	X(S, time_max_s, F64, "s")                                                                 \
	X(S, time_noise, F64, "")                                                                  \
	X(S, samples, I32, "")                                                                     \
	X(S, converged, I32, "")                                                                   \
	X(S, throttled, I32, "")                                                                   \
	X(S, launches, I32, "")                                                                    \
	X(S, throttle_reasons, I64, "")                                                            \
	X(S, sm_mhz_min, I32, "MHz")                                                               \
	X(S, sm_mhz_max, I32, "MHz")                                                               \
	X(S, bf16_time_median_s, F64, "s")                                                         \
	X(S, speedup_vs_bf16, F64, "")                                                             \
	X(S, kernels_time_s, F64, "s")                                                             \
	X(S, gemm_time_s, F64, "s")                                                                \
	X(S, traced_time_median_s, F64, "s")                                                       \
	X(S, predicted_time_s, F64, "s")                                                           \
	X(S, pct_of_roofline, F64, "%")                                                            \
	X(S, roofline_source, STR, "")                                                             \
	X(S, step_flops, F64, "flop")                                                              \
	X(S, step_bytes, F64, "bytes")                                                             \
	X(S, sqnr_y_db, F64, "dB")                                                                 \
	X(S, sqnr_grad_x_db, F64, "dB")                                                            \
	X(S, sqnr_grad_w_db, F64, "dB")                                                            \
	X(S, sqnr_min_db, F64, "dB")                                                               \
	X(S, reference, STR, "")                                                                   \
	X(S, casts_checked, I32, "")                                                               \
	X(S, history_len, I32, "")                                                                 \
	X(S, scale_staleness, F64, "")                                                             \
	X(S, peak_mem_bytes, I64, "bytes")                                                         \
	X(S, saved_bytes, I64, "bytes")                                                            \
	X(S, device_mem_bytes, I64, "bytes")                                                       \
	X(S, seed, I64, "")                                                                        \
	X(S, run_id, I32, "")                                                                      \
	X(S, rank, I32, "")                                                                        \
	X(S, device, I32, "")                                                                      \
	X(S, gpu, STR, "")                                                                         \
	X(S, message, STR, "")

F8B_LLS_COLUMNS(F8B_CHECK_TYPE, struct f8b_lls_row)

struct f8b_lls_row_mirror {
	F8B_LLS_COLUMNS(F8B_MIRROR, struct f8b_lls_row)
};
#define F8B_CHECK_LLS_OFFSET(S, m, t, unit)                                                        \
	F8B_CHECK_OFFSET(struct f8b_lls_row_mirror, S, m, t, unit)
F8B_LLS_COLUMNS(F8B_CHECK_LLS_OFFSET, struct f8b_lls_row)
_Static_assert(sizeof(struct f8b_lls_row_mirror) == sizeof(struct f8b_lls_row),
               "struct f8b_lls_row has a member that F8B_LLS_COLUMNS does not list");

static const struct f8b_field lls_fields[] = {F8B_LLS_COLUMNS(F8B_FIELD, struct f8b_lls_row)};
/* gemm_impl: "" in files from before --gemm-impl, whose fp8 GEMMs all ran
 * on cuBLASLt (or the host reference): read as cublaslt (doc/results.md).
 * The same for lls_kernels and allgather. */
static const char *const gemm_impl_late[] = {"gemm_impl", NULL};

const struct f8b_table_schema f8b_lls_schema = {
    .name = "lls",
    .title = "f8bench lls: one row per shape x recipe: the LayerNorm -> Linear -> Sigmoid training "
             "step, forward and backward",
    .row_size = sizeof(struct f8b_lls_row),
    .fields = lls_fields,
    .nfields = sizeof lls_fields / sizeof lls_fields[0],
    .late_columns = gemm_impl_late,
};

/* ---- lls_kernels: the lls table's detail ---------------------------------- */

#define F8B_LLS_KERNEL_COLUMNS(X, S)                                                               \
	X(S, m, I64, "")                                                                           \
	X(S, k, I64, "")                                                                           \
	X(S, n, I64, "")                                                                           \
	X(S, recipe, STR, "")                                                                      \
	X(S, gemm_impl, STR, "")                                                                   \
	X(S, index, I32, "")                                                                       \
	X(S, kernel, STR, "")                                                                      \
	X(S, tensor, STR, "")                                                                      \
	X(S, pass, STR, "")                                                                        \
	X(S, fuses, STR, "")                                                                       \
	X(S, dtype, STR, "")                                                                       \
	X(S, bytes, F64, "bytes")                                                                  \
	X(S, flops, F64, "flop")                                                                   \
	X(S, time_median_s, F64, "s")                                                              \
	X(S, time_noise, F64, "")                                                                  \
	X(S, in_step_median_s, F64, "s")                                                           \
	X(S, gbps, F64, "GB/s")                                                                    \
	X(S, pct_of_bw, F64, "%")                                                                  \
	X(S, tflops, F64, "TFLOP/s")                                                               \
	X(S, predicted_time_s, F64, "s")                                                           \
	X(S, pct_of_roofline, F64, "%")                                                            \
	X(S, status, STR, "")                                                                      \
	X(S, run_id, I32, "")                                                                      \
	X(S, rank, I32, "")                                                                        \
	X(S, gpu, STR, "")                                                                         \
	X(S, message, STR, "")

F8B_LLS_KERNEL_COLUMNS(F8B_CHECK_TYPE, struct f8b_lls_kernel_row)

struct f8b_lls_kernel_row_mirror {
	F8B_LLS_KERNEL_COLUMNS(F8B_MIRROR, struct f8b_lls_kernel_row)
};
#define F8B_CHECK_LLS_KERNEL_OFFSET(S, m, t, unit)                                                 \
	F8B_CHECK_OFFSET(struct f8b_lls_kernel_row_mirror, S, m, t, unit)
F8B_LLS_KERNEL_COLUMNS(F8B_CHECK_LLS_KERNEL_OFFSET, struct f8b_lls_kernel_row)
_Static_assert(sizeof(struct f8b_lls_kernel_row_mirror) == sizeof(struct f8b_lls_kernel_row),
               "struct f8b_lls_kernel_row has a member that F8B_LLS_KERNEL_COLUMNS does not list");

static const struct f8b_field lls_kernel_fields[] = {
    F8B_LLS_KERNEL_COLUMNS(F8B_FIELD, struct f8b_lls_kernel_row)};

const struct f8b_table_schema f8b_lls_kernel_schema = {
    .name = "lls_kernels",
    .title = "f8bench lls: one row per kernel of each case's step, timed alone",
    .row_size = sizeof(struct f8b_lls_kernel_row),
    .fields = lls_kernel_fields,
    .nfields = sizeof lls_kernel_fields / sizeof lls_kernel_fields[0],
    .late_columns = gemm_impl_late,
};

/* ---- allgather ------------------------------------------------------------ */

#define F8B_ALLGATHER_COLUMNS(X, S)                                                                \
	X(S, mode, STR, "")                                                                        \
	X(S, d_out, I64, "")                                                                       \
	X(S, d_in, I64, "")                                                                        \
	X(S, layers, I32, "")                                                                      \
	X(S, label, STR, "")                                                                       \
	X(S, tokens_per_rank, I64, "")                                                             \
	X(S, ranks, I32, "")                                                                       \
	X(S, nodes, I32, "")                                                                       \
	X(S, prefetch, I32, "")                                                                    \
	X(S, rs_dtype, STR, "")                                                                    \
	X(S, nccl_buffers, STR, "")                                                                \
	X(S, cta_policy, STR, "")                                                                  \
	X(S, in_place, I32, "")                                                                    \
	X(S, comm_priority, STR, "")                                                               \
	X(S, rs_nccl_buffers, STR, "")                                                             \
	X(S, rs_max_ctas, I32, "")                                                                 \
	X(S, gemm_sm_margin, I32, "")                                                              \
	X(S, gemm_impl, STR, "")                                                                   \
	X(S, backend, STR, "")                                                                     \
	X(S, library, STR, "")                                                                     \
	X(S, transport, STR, "")                                                                   \
	X(S, status, STR, "")                                                                      \
	X(S, time_median_s, F64, "s")                                                              \
	X(S, time_min_s, F64, "s")                                                                 \
	X(S, time_max_s, F64, "s")                                                                 \
	X(S, time_noise, F64, "")                                                                  \
	X(S, samples, I32, "")                                                                     \
	X(S, converged, I32, "")                                                                   \
	X(S, throttled, I32, "")                                                                   \
	X(S, throttle_reasons, I64, "")                                                            \
	X(S, sm_mhz_min, I32, "MHz")                                                               \
	X(S, sm_mhz_max, I32, "MHz")                                                               \
	X(S, fwd_time_s, F64, "s")                                                                 \
	X(S, bwd_time_s, F64, "s")                                                                 \
	X(S, compute_time_s, F64, "s")                                                             \
	X(S, exposed_comm_s, F64, "s")                                                             \
	X(S, exposed_pct, F64, "%")                                                                \
	X(S, comm_time_s, F64, "s")                                                                \
	X(S, overlap_efficiency, F64, "")                                                          \
	X(S, ag_per_step, I32, "")                                                                 \
	X(S, ag_bytes, F64, "bytes")                                                               \
	X(S, ag_bytes_per_step, F64, "bytes")                                                      \
	X(S, ag_time_s, F64, "s")                                                                  \
	X(S, ag_algbw_gbps, F64, "GB/s")                                                           \
	X(S, ag_busbw_gbps, F64, "GB/s")                                                           \
	X(S, ag_overlap_time_s, F64, "s")                                                          \
	X(S, ag_overlap_busbw_gbps, F64, "GB/s")                                                   \
	X(S, ag_busbw_kept_pct, F64, "%")                                                          \
	X(S, rs_bytes, F64, "bytes")                                                               \
	X(S, rs_time_s, F64, "s")                                                                  \
	X(S, rs_busbw_gbps, F64, "GB/s")                                                           \
	X(S, rs_overlap_time_s, F64, "s")                                                          \
	X(S, rs_overlap_busbw_gbps, F64, "GB/s")                                                   \
	X(S, amax_allreduce_s, F64, "s")                                                           \
	X(S, gemm_time_s, F64, "s")                                                                \
	X(S, gemm_tflops, F64, "TFLOP/s")                                                          \
	X(S, gemm_overlap_time_s, F64, "s")                                                        \
	X(S, gemm_overlap_tflops, F64, "TFLOP/s")                                                  \
	X(S, gemm_kept_pct, F64, "%")                                                              \
	X(S, step_flops, F64, "flop")                                                              \
	X(S, bf16_time_median_s, F64, "s")                                                         \
	X(S, speedup_vs_bf16, F64, "")                                                             \
	X(S, sqnr_out_db, F64, "dB")                                                               \
	X(S, sqnr_grad_x_db, F64, "dB")                                                            \
	X(S, sqnr_grad_w_db, F64, "dB")                                                            \
	X(S, sqnr_min_db, F64, "dB")                                                               \
	X(S, checks, I32, "")                                                                      \
	X(S, peak_mem_bytes, I64, "bytes")                                                         \
	X(S, weight_mem_bytes, I64, "bytes")                                                       \
	X(S, seed, I64, "")                                                                        \
	X(S, run_id, I32, "")                                                                      \
	X(S, rank, I32, "")                                                                        \
	X(S, device, I32, "")                                                                      \
	X(S, gpu, STR, "")                                                                         \
	X(S, message, STR, "")                                                                     \
	X(S, optimizer, STR, "")                                                                   \
	X(S, update, STR, "")                                                                      \
	X(S, optim_bytes, F64, "bytes")                                                            \
	X(S, ag_wait_s, F64, "s")                                                                  \
	X(S, rs_wait_s, F64, "s")                                                                  \
	X(S, rs_stream, STR, "")

F8B_ALLGATHER_COLUMNS(F8B_CHECK_TYPE, struct f8b_allgather_row)

struct f8b_allgather_row_mirror {
	F8B_ALLGATHER_COLUMNS(F8B_MIRROR, struct f8b_allgather_row)
};
#define F8B_CHECK_ALLGATHER_OFFSET(S, m, t, unit)                                                  \
	F8B_CHECK_OFFSET(struct f8b_allgather_row_mirror, S, m, t, unit)
F8B_ALLGATHER_COLUMNS(F8B_CHECK_ALLGATHER_OFFSET, struct f8b_allgather_row)
_Static_assert(sizeof(struct f8b_allgather_row_mirror) == sizeof(struct f8b_allgather_row),
               "struct f8b_allgather_row has a member that F8B_ALLGATHER_COLUMNS does not list");

static const struct f8b_field allgather_fields[] = {
    F8B_ALLGATHER_COLUMNS(F8B_FIELD, struct f8b_allgather_row)};

const struct f8b_table_schema f8b_allgather_schema = {
    .name = "allgather",
    .title = "f8bench allgather: one row per mode x weight x tokens per rank x ranks: the "
             "emulated FSDP step with fp8 or bf16 weight all-gathers",
    .row_size = sizeof(struct f8b_allgather_row),
    .fields = allgather_fields,
    .nfields = sizeof allgather_fields / sizeof allgather_fields[0],
    .late_columns = gemm_impl_late,
};

/* ---- optim -------------------------------------------------------------- */

#define F8B_OPTIM_COLUMNS(X, S)                                                                    \
	X(S, variant, STR, "")                                                                     \
	X(S, scaling, STR, "")                                                                     \
	X(S, granularity, STR, "")                                                                 \
	X(S, label, STR, "")                                                                       \
	X(S, params, I64, "")                                                                      \
	X(S, tensors, I32, "")                                                                     \
	X(S, steps, I32, "")                                                                       \
	X(S, graph, I32, "")                                                                       \
	X(S, stochastic, I32, "")                                                                  \
	X(S, chunk_bytes, I64, "bytes")                                                            \
	X(S, chunks, I32, "")                                                                      \
	X(S, launches, I32, "")                                                                    \
	X(S, backend, STR, "")                                                                     \
	X(S, status, STR, "")                                                                      \
	X(S, time_median_s, F64, "s")                                                              \
	X(S, time_min_s, F64, "s")                                                                 \
	X(S, time_max_s, F64, "s")                                                                 \
	X(S, time_noise, F64, "")                                                                  \
	X(S, samples, I32, "")                                                                     \
	X(S, converged, I32, "")                                                                   \
	X(S, throttled, I32, "")                                                                   \
	X(S, history_len, I32, "")                                                                 \
	X(S, time_split_s, F64, "s")                                                               \
	X(S, fused_speedup, F64, "")                                                               \
	X(S, fp32_time_median_s, F64, "s")                                                         \
	X(S, speedup_vs_fp32, F64, "")                                                             \
	X(S, state_bytes_per_param, F64, "bytes")                                                  \
	X(S, step_bytes_per_param, F64, "bytes")                                                   \
	X(S, min_bytes, F64, "bytes")                                                              \
	X(S, gbps, F64, "GB/s")                                                                    \
	X(S, copy_bw_gbps, F64, "GB/s")                                                            \
	X(S, pct_of_copy_bw, F64, "%")                                                             \
	X(S, roofline_source, STR, "")                                                             \
	X(S, peak_mem_bytes, I64, "bytes")                                                         \
	X(S, sqnr_w_db, F64, "dB")                                                                 \
	X(S, sqnr_w8_db, F64, "dB")                                                                \
	X(S, sampled, I64, "")                                                                     \
	X(S, saturated, I64, "")                                                                   \
	X(S, saturated_steps, I32, "")                                                             \
	X(S, bitexact, I32, "")                                                                    \
	X(S, range_used, F64, "")                                                                  \
	X(S, range_used_min, F64, "")                                                              \
	X(S, nonfinite_grads, I64, "")                                                             \
	X(S, clipped, I64, "")                                                                     \
	X(S, lr, F64, "")                                                                          \
	X(S, weight_decay, F64, "")                                                                \
	X(S, seed, I64, "")                                                                        \
	X(S, run_id, I32, "")                                                                      \
	X(S, rank, I32, "")                                                                        \
	X(S, device, I32, "")                                                                      \
	X(S, gpu, STR, "")                                                                         \
	X(S, message, STR, "")

F8B_OPTIM_COLUMNS(F8B_CHECK_TYPE, struct f8b_optim_row)

struct f8b_optim_row_mirror {
	F8B_OPTIM_COLUMNS(F8B_MIRROR, struct f8b_optim_row)
};
#define F8B_CHECK_OPTIM_OFFSET(S, m, t, unit)                                                      \
	F8B_CHECK_OFFSET(struct f8b_optim_row_mirror, S, m, t, unit)
F8B_OPTIM_COLUMNS(F8B_CHECK_OPTIM_OFFSET, struct f8b_optim_row)
_Static_assert(sizeof(struct f8b_optim_row_mirror) == sizeof(struct f8b_optim_row),
               "struct f8b_optim_row has a member that F8B_OPTIM_COLUMNS does not list");

static const struct f8b_field optim_fields[] = {F8B_OPTIM_COLUMNS(F8B_FIELD, struct f8b_optim_row)};

const struct f8b_table_schema f8b_optim_schema = {
    .name = "optim",
    .title = "f8bench optim: one row per parameter set x variant x scaling x granularity x "
             "graph x steps: the fused AdamW step with the next forward's fp8 weight",
    .row_size = sizeof(struct f8b_optim_row),
    .fields = optim_fields,
    .nfields = sizeof optim_fields / sizeof optim_fields[0],
};
