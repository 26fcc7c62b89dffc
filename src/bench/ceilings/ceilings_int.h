/* ceilings_int.h - what the ceilings driver's files share (ceilings.c,
 * ceilings_cfg.c, ceil_setup.c, ceil_check.c). */
#ifndef F8B_CEILINGS_INT_H
#define F8B_CEILINGS_INT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "core/cases.h"
#include "harness/bench.h"
#include "harness/comm.h"
#include "model/peaks.h"

#include "backend/reference.h"
#include "results/schema.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
#define GIB ((int64_t)1 << 30)
/* Sizes are whole 256-byte units: the copy's two halves then stay multiples
 * of the 16-byte vectors the kernels move, with room to spare. */
#define SIZE_UNIT 256
#define MAX_SIZE  ((int64_t)1 << 40)
/* Host memory used at a time when a check walks a large device buffer. */
#define CHECK_CHUNK ((size_t)64 << 20)
/* Seeded floats compared bit for bit with the host backend's fill. */
#define PREFIX_FLOATS 4096
/* GEMM check: a sampled block of D, last row and column included. */
#define CHECK_ROWS 16
#define CHECK_COLS 64

/* Defaults.  On a GPU the sweep reaches well past L2 (50 MiB on an H100)
 * into HBM; on the host it stays small enough for CI. */
#define GPU_SIZES       "1M:4G"
#define HOST_SIZES      "1M:256M"
#define HOST_MAX_SIZE   (256 * MIB)
#define GPU_COLL_SIZES  "1M:1G"
#define HOST_COLL_SIZES "1M:64M"
#define HOST_MAX_COLL   (64 * MIB)
/* The GEMM peaks: the best of a few large shapes (the H100 sweep in
 * results/h100 reached its best bf16 and fp8 rates at 16384x8192x10240,
 * 8192x8192x57344 and 16384^3, not at 8192^3) and of the heuristic's first
 * GPU_ALGOS algorithms for each. */
#define GPU_SHAPES          "8192x8192x8192,16384x8192x10240,8192x8192x57344,16384x16384x16384"
#define GPU_ALGOS           4
#define HOST_SHAPES         "512x512x512"
#define HOST_MAX_GEMM_FLOPS (2.0 * 1024 * 1024 * 1024)
/* Bytes one bandwidth launch moves at least: 1 GiB is ~300 us of HBM or
 * ~100 us of L2 traffic on an H100, against a launch cost of a few us. */
#define GPU_LAUNCH_BYTES GIB
/* Collectives: unless --batch is given, a sample times enough back-to-back
 * calls to cover about 1 ms of GPU time (nccl-tests times 20 in a row),
 * at most COLL_BATCH_MAX: a 1 MiB all-gather (~14 us on an H200 pair) is
 * timed 64 at a time, a 1 GiB one (~2 ms) alone.  Every call of a sample
 * is queued behind the stream gate before the GPU starts (measure.c), and
 * 64 NCCL launches stay far below what a CUDA stream queues. */
#define COLL_BATCH_TARGET_S 1e-3
#define COLL_BATCH_MAX      64
/* Working sets at least this many times L2 are compared with HBM. */
#define L2_MARGIN         4
#define HOST_LAUNCH_BYTES (64 * MIB)

enum kind { K_READ, K_WRITE, K_COPY, K_GEMM, K_LAUNCH, K_ALLGATHER, K_ALLREDUCE, K_COUNT };
extern const char *const f8b_ceil_kind_names[K_COUNT]; /* "read", ... (ceilings.c) */

static inline bool is_bw(enum kind k)
{
	return k == K_READ || k == K_WRITE || k == K_COPY;
}

static inline bool is_coll(enum kind k)
{
	return k == K_ALLGATHER || k == K_ALLREDUCE;
}

struct ceil_case {
	enum kind kind;
	int64_t bytes;        /* working set (bandwidth) or message size (collectives) */
	size_t shape;         /* gemm: index into cfg->shapes */
	enum f8b_dtype dtype; /* gemm: bf16 or e4m3 */
	int algo;             /* gemm: the heuristic's candidate (0 its first choice) */
	int buffers, cta;     /* collectives: enum f8b_coll_buffers, f8b_coll_cta */
	bool in_place;        /* collectives */
};

struct ceil_cfg {
	const char *kinds_spec, *sizes_spec, *coll_spec, *shapes_spec;
	int64_t launch_bytes; /* 0: the backend's default, chosen in setup */
	int launches;
	int gemm_algos; /* 0: GPU_ALGOS with a GPU, 1 on the host */
	double timeout_s;
	int nranks;
	/* Default lists are sized for a GPU when one is visible; see
	 * host_too_big(). */
	bool gpu_defaults;
	bool want[K_COUNT];
	int64_t *sizes, *coll;
	size_t nsizes, ncoll;
	struct f8b_shapes shapes;
	struct ceil_case *cases;
	size_t ncases;
	struct f8b_peaks peaks;
	bool peaks_done;
	/* Collectives: the buffer modes, CTA policies and placements swept
	 * (all three crossed with the sizes; zero needs symmetric buffers). */
	const char *buffers_spec, *cta_spec, *in_place_spec;
	bool want_buf[F8B_COLL_BUF_N], want_cta[F8B_COLL_CTA_N], want_place[2];
	/* One communicator per CTA policy (a policy is the communicator's),
	 * opened by the first collective case that needs it. */
	struct f8b_coll *coll_h[F8B_COLL_CTA_N];
	int coll_rc[F8B_COLL_CTA_N]; /* its failure, kept so later cases fail at once */
	struct f8b_backend *href;    /* host backend for reference fills (cuda runs) */
};

enum {
	OPT_KINDS = 3000,
	OPT_SIZES,
	OPT_LAUNCH_BYTES,
	OPT_GEMM_SHAPES,
	OPT_LAUNCHES,
	OPT_COLL_SIZES,
	OPT_TIMEOUT,
	OPT_GEMM_ALGOS,
	OPT_NCCL_BUFFERS,
	OPT_NCCL_CTA,
	OPT_IN_PLACE,
};

/* ------------------------------------------------------------ one case */

struct ceil_state {
	struct f8b_run *run;
	struct ceil_cfg *cfg;
	struct ceil_case cs;
	struct f8b_ceilings_row *row;
	/* bandwidth: a is read / written / the copy's source, b the copy's
	 * destination; buf = bytes of each */
	void *a, *b;
	uint64_t *partial;
	size_t buf;
	int passes;
	uint64_t pattern;
	uint64_t seed_a;
	/* gemm */
	struct f8b_tensor a_hp, b_hp, a_q, b_q, d;
	float *amax_a, *amax_b, *scale_a, *scale_b, *sinv_a, *sinv_b;
	struct f8b_gemm_desc desc;
	struct f8b_gemm_plan *plan;
	struct f8b_gemm_args args;
	/* collectives: count uint32 words per rank, moved = the bytes busbw
	 * is computed from (nccl-tests' "size"), factor its busbw factor */
	size_t count;
	double moved, factor;
	struct f8b_coll *coll; /* the communicator of the case's CTA policy */
	void *send;            /* a, or (in place) the rank's part of b */
	bool coll_bufs;        /* a and b came from f8b_coll_alloc */
};

/* The string column helpers every part uses. */
static inline void setstr(char *dst, size_t n, const char *s)
{
	size_t len = strnlen(s, n - 1); /* cut to the column, NUL-padded */
	memcpy(dst, s, len);
	memset(dst + len, 0, n - len);
}

/* ceilings_cfg.c */
int f8b_ceil_cfg_new(void **cfg);
void f8b_ceil_cfg_free(void *cfg);
int f8b_ceil_cfg_option(void *cfg, int key, const char *arg);
int f8b_ceil_cfg_finalize(void *cfg, size_t *ncases);
/* ceil_setup.c */
uint64_t f8b_ceil_seed_of(uint64_t seed, uint64_t stream);
int f8b_ceil_fill_f32(struct ceil_state *s, void *p, size_t bytes, uint64_t seed);
int f8b_ceil_ref_prefix(struct ceil_state *s, uint64_t seed, int64_t n, float *out);
int f8b_ceil_check_prefix(struct ceil_state *s, const void *p, size_t bytes, uint64_t seed,
                          bool *ok, const char *what);
int f8b_ceil_setup(struct f8b_run *run, size_t i, void *vrow, void **state);
int f8b_ceil_launch(void *vs);
void f8b_ceil_teardown(void *vs);
/* ceil_check.c */
int f8b_ceil_check(void *vs, void *vrow, bool *ok);

#endif
