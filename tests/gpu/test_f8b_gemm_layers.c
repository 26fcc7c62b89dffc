/* test_f8b_gemm_layers.c - the layers of f8bench's own sm_90a fp8 GEMM
 * (kernels/gemm/ptx_selftest.cu, one CTA each), so that a wrong GEMM
 * (tests/gpu/test_f8b_gemm) can be traced to the layer that is wrong: a TMA
 * box and its swizzle, an output box stored with TMA in the epilogue's
 * swizzles, one wgmma per K step and N, a non-tensor bulk copy, the mbarrier
 * ring over many wraps, a 2-CTA cluster (rank, multicast box, the remote
 * arrive), the named barriers, setmaxnreg.  doc/gemm-kernels.md, "Checks".
 *
 * Without a GPU: "1..0 # SKIP no CUDA GPU: why" and exit 77; on a GPU that
 * is not sm_90 a TAP skip naming why.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "backend/backend.h"
#include "backend/cuda_internal.h" /* f8b_cuda_kgemm_encode, _encode_out */
#include "kernels/gemm/gemm.h"
#include "core/fp8.h"

static const struct f8b_backend_ops *ops = &f8b_backend_cuda;
static struct f8b_backend *be;

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

static int upload_bytes(const uint8_t *h, size_t n, void **d)
{
	F8B_TRY(ops->alloc(be, n, d));
	return ops->upload(be, *d, h, n);
}

/* The tensor the TMA load tests (tma, cluster) read boxes of: [TT_ROWS,
 * TT_K] bytes, never 0, in h (TT_ROWS x TT_K bytes), uploaded to *dx, with
 * the tensor map of its 128 x 128-byte boxes; and the places they read a
 * box at, {row, k}: the origin, and past both edges. */
enum { TT_ROWS = 200, TT_K = 176, TT_BOX = 128 * 128 };
static const int tt_at[][2] = {{0, 0}, {128, 128}};

static int tma_tensor(uint8_t *h, void **dx, unsigned char *map)
{
	for (int r = 0; r < TT_ROWS; r++)
		for (int k = 0; k < TT_K; k++)
			h[r * TT_K + k] = (uint8_t)(r * 131 + k * 7 + 1) | 1;
	F8B_TRY(upload_bytes(h, TT_ROWS * TT_K, dx));
	return f8b_cuda_kgemm_encode(*dx, TT_ROWS, TT_K, 128, map);
}

/* The bytes of `got`, a box as it lay in shared memory, that differ from
 * the box at (k c0, row c1) of tma_tensor's h 128B-swizzled (chunk c of
 * row r at c ^ (r % 8)), zeros outside the tensor; *first: the first of
 * them (-1: none), *as_plain: the bytes an unswizzled layout would match
 * (either may be NULL). */
static int box_wrong(const uint8_t *got, const uint8_t *h, int c0, int c1, int *first,
                     int *as_plain)
{
	int bad = 0, f = -1, plain = 0;
	for (int r = 0; r < 128; r++)
		for (int c = 0; c < 8; c++)
			for (int b = 0; b < 16; b++) {
				const int gr = c1 + r, gk = c0 + 16 * c + b;
				const uint8_t want =
				    gr < TT_ROWS && gk < TT_K ? h[gr * TT_K + gk] : 0;
				const int i = r * 128 + ((c ^ (r & 7)) * 16) + b;
				if (got[i] != want && bad++ == 0)
					f = i;
				plain += got[r * 128 + 16 * c + b] == want;
			}
	if (first)
		*first = f;
	if (as_plain)
		*as_plain = plain;
	return bad;
}

/* One TMA box (128 rows x 128 bytes, 128-byte swizzle) of tma_tensor's
 * [200, 176] uint8 tensor at two places, one of them past both edges. */
static void test_tma(void)
{
	uint8_t *h = tap_xcalloc(TT_ROWS * TT_K, 1), *got = tap_xcalloc(TT_BOX, 1);
	void *dx = NULL, *dout = NULL;
	_Alignas(128) unsigned char map[128];
	int rc;

	rc = tma_tensor(h, &dx, map);
	if (rc == F8B_OK)
		rc = ops->alloc(be, TT_BOX, &dout);
	if (!tap_ok(rc == F8B_OK, "layer tma: upload, encode the tensor map%s%s", rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		goto out;
	for (size_t t = 0; t < COUNT(tt_at); t++) {
		int c0 = tt_at[t][1], c1 = tt_at[t][0]; /* (k, row) */
		rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_tma(
		                         map, dout, 128, c0, c1, (cudaStream_t)f8b_cuda_stream(be)),
		                     "f8b_kgemm_selftest_tma", __FILE__, __LINE__);
		if (rc == F8B_OK)
			rc = ops->sync(be);
		if (rc == F8B_OK)
			rc = ops->download(be, got, dout, TT_BOX);
		if (!tap_ok(rc == F8B_OK, "layer tma: box at row %d, k %d ran%s%s", c1, c0,
		            rc ? ": " : "", rc ? f8b_last_error() : ""))
			continue;
		int first, as_plain;
		const int bad = box_wrong(got, h, c0, c1, &first, &as_plain);
		tap_ok(
		    bad == 0,
		    "layer tma: box at row %d, k %d lies in shared memory 128B-swizzled (chunk c "
		    "of row r at c ^ (r %% 8)), zeros outside the tensor: %d of 16384 bytes wrong "
		    "(first at byte %d; %d bytes would match an unswizzled layout)",
		    c1, c0, bad, first, as_plain);
	}
out:
	ops->free(be, dx);
	ops->free(be, dout);
	free(h);
	free(got);
}

/* One output box stored with TMA (ptx_selftest.cu's tma_store) into a
 * tensor filled with 0xEE, at the tensor's origin and past both of its
 * edges: D's boxes (bf16 and f32, 128 bytes a row, 128-byte swizzle) and
 * an e4m3 D^T's (64 bytes, 64-byte swizzle).  Every byte inside both the
 * box and the tensor must hold the box's byte, every other one 0xEE. */
static void test_tma_store(void)
{
	static const struct {
		const char *what;
		int dtype, rows, cols, box_cols, at[2][2]; /* at: {col, row} */
	} cases[] = {
	    {"bf16, 128-byte swizzle", F8B_BF16, 100, 200, 64, {{0, 0}, {160, 64}}},
	    {"f32, 128-byte swizzle", F8B_F32, 100, 200, 32, {{0, 0}, {192, 64}}},
	    {"e4m3, 64-byte swizzle", F8B_E4M3, 100, 208, 64, {{0, 0}, {176, 64}}},
	};
	for (size_t c = 0; c < COUNT(cases); c++) {
		const int es = (int)f8b_dtype_size(cases[c].dtype);
		const int rows = cases[c].rows, row_bytes = cases[c].box_cols * es;
		const size_t ld = (size_t)cases[c].cols * (size_t)es, bytes = (size_t)rows * ld;
		uint8_t *fill = tap_xcalloc(bytes, 1), *got = tap_xcalloc(bytes, 1);
		void *dx = NULL;
		_Alignas(128) unsigned char map[128];
		memset(fill, 0xEE, bytes);
		int rc = ops->alloc(be, bytes, &dx);
		if (rc == F8B_OK)
			rc = f8b_cuda_kgemm_encode_out(dx, rows, cases[c].cols, cases[c].dtype,
			                               cases[c].box_cols, map);
		if (!tap_ok(rc == F8B_OK,
		            "layer tma store, %s: allocate, encode the tensor map%s%s",
		            cases[c].what, rc ? ": " : "", rc ? f8b_last_error() : "")) {
			ops->free(be, dx);
			free(fill);
			free(got);
			continue;
		}
		for (int t = 0; t < 2; t++) {
			const int c0 = cases[c].at[t][0], c1 = cases[c].at[t][1];
			rc = ops->upload(be, dx, fill, bytes);
			if (rc == F8B_OK)
				rc = f8b_cuda_status(
				    (cudaError_t)f8b_kgemm_selftest_tma_store(
				        map, row_bytes, c0, c1, (cudaStream_t)f8b_cuda_stream(be)),
				    "f8b_kgemm_selftest_tma_store", __FILE__, __LINE__);
			if (rc == F8B_OK)
				rc = ops->sync(be);
			if (rc == F8B_OK)
				rc = ops->download(be, got, dx, bytes);
			if (!tap_ok(rc == F8B_OK,
			            "layer tma store, %s: box at row %d, column %d ran%s%s",
			            cases[c].what, c1, c0, rc ? ": " : "",
			            rc ? f8b_last_error() : ""))
				continue;
			/* bad: bytes wrong (a swizzle other than the map's shows
			 * here); inside: bytes the box covers in the tensor */
			long bad = 0, inside = 0;
			for (int r = 0; r < rows; r++)
				for (size_t b = 0; b < ld; b++) {
					const int br = r - c1, bb = (int)b - c0 * es;
					const bool in =
					    br >= 0 && br < 64 && bb >= 0 && bb < row_bytes;
					const uint8_t want =
					    in ? F8B_KGEMM_SELFTEST_BYTE(br, bb) : 0xEE;
					inside += in;
					bad += got[(size_t)r * ld + b] != want;
				}
			tap_ok(bad == 0 && inside > 0,
			       "layer tma store, %s: box of 64 x %d bytes at row %d, column %d "
			       "lies in "
			       "the tensor [%d, %d] unswizzled, clipped at its edges, nothing else "
			       "written: %ld of %zu bytes wrong (%ld inside the box)",
			       cases[c].what, row_bytes, c1, c0, rows, cases[c].cols, bad, bytes,
			       inside);
		}
		ops->free(be, dx);
		free(fill);
		free(got);
	}
}

/* One wgmma m64nNk32 per K step, on e4m3 values in {0, +-0.5, +-1, +-1.5,
 * +-2}: every product and sum is exact, so D must equal the host's. */
static void test_wgmma(void)
{
	static const uint8_t codes[] = {0x00, 0x30, 0x38, 0x3C, 0x40, 0xB0, 0xB8, 0xBC, 0xC0};
	uint8_t *ha = tap_xcalloc(128 * 128, 1), *hb = tap_xcalloc(256 * 128, 1);
	float *got = tap_xcalloc(64 * 256, sizeof(float));
	void *da = NULL, *db = NULL, *dd = NULL;
	_Alignas(128) unsigned char ma[128], mb128[128], mb256[128];
	uint64_t x = 12345;
	int rc;

	for (int i = 0; i < 128 * 128; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ha[i] = codes[(x >> 33) % COUNT(codes)];
	}
	for (int i = 0; i < 256 * 128; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		hb[i] = codes[(x >> 33) % COUNT(codes)];
	}
	rc = upload_bytes(ha, 128 * 128, &da);
	if (rc == F8B_OK)
		rc = upload_bytes(hb, 256 * 128, &db);
	if (rc == F8B_OK)
		rc = ops->alloc(be, 64 * 256 * sizeof(float), &dd);
	if (rc == F8B_OK)
		rc = f8b_cuda_kgemm_encode(da, 128, 128, 128, ma);
	if (rc == F8B_OK)
		rc = f8b_cuda_kgemm_encode(db, 256, 128, 128, mb128);
	if (rc == F8B_OK)
		rc = f8b_cuda_kgemm_encode(db, 256, 128, 256, mb256);
	if (!tap_ok(rc == F8B_OK, "layer wgmma: upload, encode the tensor maps%s%s", rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		goto out;
	for (int n = 128; n <= 256; n += 128)
		for (int ks = 0; ks < 4; ks++) {
			rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_wgmma(
			                         ma, n == 128 ? mb128 : mb256, dd, n, ks,
			                         (cudaStream_t)f8b_cuda_stream(be)),
			                     "f8b_kgemm_selftest_wgmma", __FILE__, __LINE__);
			if (rc == F8B_OK)
				rc = ops->sync(be);
			if (rc == F8B_OK)
				rc = ops->download(be, got, dd, 64 * (size_t)n * sizeof(float));
			if (!tap_ok(rc == F8B_OK, "layer wgmma: m64n%dk32, K step %d ran%s%s", n,
			            ks, rc ? ": " : "", rc ? f8b_last_error() : ""))
				continue;
			int bad = 0, fr = -1, fc = -1;
			float fw = 0, fg = 0;
			for (int r = 0; r < 64; r++)
				for (int c = 0; c < n; c++) {
					float want = 0;
					for (int k = 32 * ks; k < 32 * ks + 32; k++)
						want += f8b_fp8_to_f32(ha[r * 128 + k], F8B_E4M3) *
						        f8b_fp8_to_f32(hb[c * 128 + k], F8B_E4M3);
					if (got[r * n + c] != want && bad++ == 0) {
						fr = r;
						fc = c;
						fw = want;
						fg = got[r * n + c];
					}
				}
			tap_ok(bad == 0,
			       "layer wgmma: m64n%dk32 K step %d equals the host's sums exactly "
			       "(descriptors, K advance, fragment layout): %d of %d wrong (first "
			       "D[%d][%d] = %g, want %g)",
			       n, ks, bad, 64 * n, fr, fc, fg, fw);
		}
out:
	ops->free(be, da);
	ops->free(be, db);
	ops->free(be, dd);
	free(ha);
	free(hb);
	free(got);
}

/* The non-tensor bulk copy (BLOCK_1X128's column scales): 1024, 512 and 64
 * bytes from 64 bytes into a buffer (a row of the scales, N floats with N
 * a multiple of 16, starts at a multiple of 64 bytes) land whole, and the
 * rest of the 1 KiB region keeps its 0xFF. */
static void test_bulk(void)
{
	enum { SRC = 64 + F8B_KGEMM_SELFTEST_BULK };
	static const int sizes[] = {F8B_KGEMM_SELFTEST_BULK, 512, 64};
	uint8_t h[SRC], got[F8B_KGEMM_SELFTEST_BULK];
	void *dx = NULL, *dout = NULL;
	for (int i = 0; i < SRC; i++)
		h[i] = (uint8_t)((i * 37 + 11) & 0x7F); /* never 0xFF */
	int rc = upload_bytes(h, SRC, &dx);
	if (rc == F8B_OK)
		rc = ops->alloc(be, F8B_KGEMM_SELFTEST_BULK, &dout);
	if (!tap_ok(rc == F8B_OK, "layer bulk: upload%s%s", rc ? ": " : "",
	            rc ? f8b_last_error() : ""))
		goto out;
	for (size_t t = 0; t < COUNT(sizes); t++) {
		const int n = sizes[t];
		rc = f8b_cuda_status(
		    (cudaError_t)f8b_kgemm_selftest_bulk((const uint8_t *)dx + 64, dout, n,
		                                         (cudaStream_t)f8b_cuda_stream(be)),
		    "f8b_kgemm_selftest_bulk", __FILE__, __LINE__);
		if (rc == F8B_OK)
			rc = ops->sync(be);
		if (rc == F8B_OK)
			rc = ops->download(be, got, dout, F8B_KGEMM_SELFTEST_BULK);
		int bad = 0, over = 0;
		for (int i = 0; rc == F8B_OK && i < F8B_KGEMM_SELFTEST_BULK; i++) {
			if (i < n)
				bad += got[i] != h[64 + i];
			else
				over += got[i] != 0xFF;
		}
		tap_ok(rc == F8B_OK && bad == 0 && over == 0,
		       "layer bulk: %d bytes from offset 64 through cp.async.bulk: %d wrong, %d "
		       "written past them%s%s",
		       n, bad, over, rc ? ": " : "", rc ? f8b_last_error() : "");
	}
out:
	ops->free(be, dx);
	ops->free(be, dout);
}

/* The GEMM's full/empty protocol, 4 stages, 4003 uses (1000 wraps); half
 * the consumers test the next stage ahead (mbarrier.test_wait). */
static void test_ring(void)
{
	unsigned *derr = NULL, errors = 1;
	int rc = ops->alloc(be, sizeof errors, (void **)&derr);
	if (rc == F8B_OK)
		rc = ops->memset(be, derr, 0, sizeof errors);
	if (rc == F8B_OK)
		rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_ring(
		                         4003, derr, (cudaStream_t)f8b_cuda_stream(be)),
		                     "f8b_kgemm_selftest_ring", __FILE__, __LINE__);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (rc == F8B_OK)
		rc = ops->download(be, &errors, derr, sizeof errors);
	tap_ok(rc == F8B_OK && errors == 0,
	       "layer ring: 4003 uses of a 4-stage full/empty mbarrier ring, 256 consumer threads "
	       "(128 testing the next stage ahead): %u stale words%s%s",
	       errors, rc ? ": " : "", rc ? f8b_last_error() : "");
	ops->free(be, derr);
}

/* A 2-CTA cluster (ptx/cluster.cuh): ranks 0 and 1, one TMA box multicast
 * by rank 0 into both CTAs (the box of test_tma's tensor, at the origin
 * and past both edges), and an arrival on each CTA's mbarrier from its
 * peer (mapa; without it the kernel would not finish). */
static void test_cluster(void)
{
	uint8_t *h = tap_xcalloc(TT_ROWS * TT_K, 1), *got = tap_xcalloc(2 * TT_BOX, 1);
	void *dx = NULL, *dout = NULL;
	unsigned *dinfo = NULL, info[2];
	_Alignas(128) unsigned char map[128];
	int rc;

	rc = tma_tensor(h, &dx, map);
	if (rc == F8B_OK)
		rc = ops->alloc(be, 2 * TT_BOX, &dout);
	if (rc == F8B_OK)
		rc = ops->alloc(be, sizeof info, (void **)&dinfo);
	if (!tap_ok(rc == F8B_OK, "layer cluster: upload, encode the tensor map%s%s",
	            rc ? ": " : "", rc ? f8b_last_error() : ""))
		goto out;
	for (size_t t = 0; t < COUNT(tt_at); t++) {
		const int c0 = tt_at[t][1], c1 = tt_at[t][0]; /* (k, row) */
		rc = ops->memset(be, dout, 0xA5, 2 * TT_BOX);
		if (rc == F8B_OK)
			rc = ops->memset(be, dinfo, 0xFF, sizeof info);
		if (rc == F8B_OK)
			rc = f8b_cuda_status(
			    (cudaError_t)f8b_kgemm_selftest_cluster(
			        map, dout, dinfo, c0, c1, (cudaStream_t)f8b_cuda_stream(be)),
			    "f8b_kgemm_selftest_cluster", __FILE__, __LINE__);
		if (rc == F8B_OK)
			rc = ops->sync(be);
		if (rc == F8B_OK)
			rc = ops->download(be, got, dout, 2 * TT_BOX);
		if (rc == F8B_OK)
			rc = ops->download(be, info, dinfo, sizeof info);
		if (!tap_ok(rc == F8B_OK,
		            "layer cluster: a cluster of 2 CTAs, box at row %d, k %d, ran (each "
		            "CTA's peer arrival came)%s%s",
		            c1, c0, rc ? ": " : "", rc ? f8b_last_error() : ""))
			continue;
		tap_ok(info[0] == 0 && info[1] == 1,
		       "layer cluster: %%cluster_ctarank of CTAs 0 and 1: %u and %u", info[0],
		       info[1]);
		for (int cta = 0; cta < 2; cta++) {
			const int bad = box_wrong(got + cta * TT_BOX, h, c0, c1, NULL, NULL);
			tap_ok(
			    bad == 0,
			    "layer cluster: the box at row %d, k %d, multicast by rank 0, lies in "
			    "CTA %d's shared memory 128B-swizzled, zeros outside the tensor: %d of "
			    "%d bytes wrong",
			    c1, c0, cta, bad, TT_BOX);
		}
	}
out:
	ops->free(be, dx);
	ops->free(be, dout);
	ops->free(be, dinfo);
	free(h);
	free(got);
}

/* Named barriers (ptx/barrier.cuh): 1000 rounds between two warpgroups,
 * whose tickets must come in turn (bar.arrive / bar.sync, 256 threads)
 * and whose shared buffer must arrive whole (bar.sync, 256), and a
 * warpgroup's own barrier (bar.sync, 128) around an exchange inside it. */
static void test_named_bar(void)
{
	enum { ROUNDS = 1000 };
	unsigned *dw = NULL, w[2] = {0, 1};
	int rc = ops->alloc(be, sizeof w, (void **)&dw);
	if (rc == F8B_OK)
		rc = ops->memset(be, dw, 0, sizeof w);
	if (rc == F8B_OK)
		rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_named_bar(
		                         ROUNDS, dw, (cudaStream_t)f8b_cuda_stream(be)),
		                     "f8b_kgemm_selftest_named_bar", __FILE__, __LINE__);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (rc == F8B_OK)
		rc = ops->download(be, w, dw, sizeof w);
	tap_ok(rc == F8B_OK && w[0] == 256u * ROUNDS && w[1] == 0,
	       "layer named bars: %d rounds between two warpgroups (tickets in turn through "
	       "bar.arrive / bar.sync, 256 threads; a shared buffer through bar.sync, 256) and "
	       "inside one (bar.sync, 128): %u tickets of %u, %u out of order or stale%s%s",
	       ROUNDS, w[0], 256u * ROUNDS, w[1], rc ? ": " : "", rc ? f8b_last_error() : "");
	ops->free(be, dw);
}

/* setmaxnreg (ptx/regs.cuh): one warpgroup down to 40 registers, two up to
 * 232, holding more values live than a 384-thread launch's 168 allow
 * (tests/ptx_selftest_regs.sh); their sums equal the host's exactly. */
static void test_setmaxnreg(void)
{
	enum { T = 384, LIVE = F8B_KGEMM_SELFTEST_NREG_LIVE };
	float in[T], got[T], v[LIVE];
	void *din = NULL, *dout = NULL;
	for (int i = 0; i < T; i++)
		in[i] = 0.5f + (float)((i * 37) % 64) / 128.0f; /* [0.5, 1) */
	int rc = ops->alloc(be, sizeof in, &din);
	if (rc == F8B_OK)
		rc = ops->upload(be, din, in, sizeof in);
	if (rc == F8B_OK)
		rc = ops->alloc(be, sizeof got, &dout);
	if (rc == F8B_OK)
		rc = f8b_cuda_status((cudaError_t)f8b_kgemm_selftest_setmaxnreg(
		                         din, dout, (cudaStream_t)f8b_cuda_stream(be)),
		                     "f8b_kgemm_selftest_setmaxnreg", __FILE__, __LINE__);
	if (rc == F8B_OK)
		rc = ops->sync(be);
	if (rc == F8B_OK)
		rc = ops->download(be, got, dout, sizeof got);
	if (tap_ok(rc == F8B_OK,
	           "layer setmaxnreg: 384 threads, warpgroup 0 down to 40 registers, 1 and 2 "
	           "up to 232, ran%s%s",
	           rc ? ": " : "", rc ? f8b_last_error() : "")) {
		int bad = 0, first = -1;
		for (int t = 0; t < T; t++) {
			float want;
			if (t < 128)
				want = 2.0f * in[t];
			else {
				for (int i = 0; i < LIVE; i++)
					v[i] = in[(t + i) % T];
				for (int it = 0; it < F8B_KGEMM_SELFTEST_NREG_ITERS; it++)
					for (int i = 0; i < LIVE; i++)
						v[i] = fmaf(v[i], v[(i + 1) % LIVE], 0.5f);
				want = 0.0f;
				for (int i = 0; i < LIVE; i++)
					want += v[i];
			}
			if (got[t] != want && bad++ == 0)
				first = t;
		}
		tap_ok(bad == 0,
		       "layer setmaxnreg: every thread's result equals the host's (%d live values "
		       "a thread in warpgroups 1 and 2): %d of %d wrong (first thread %d)",
		       LIVE, bad, T, first);
	}
	ops->free(be, din);
	ops->free(be, dout);
}

int main(void)
{
	char why[256], msg[320];
	struct f8b_device_info info;
	int n, rc;

	n = f8b_cuda_device_count(why, sizeof why);
	if (n <= 0) {
		snprintf(msg, sizeof msg, "no CUDA GPU: %s", why);
		return tap_skip_all(msg);
	}
	rc = ops->open(0, &be, &info);
	if (rc == F8B_EUNSUPPORTED) {
		snprintf(msg, sizeof msg, "no usable CUDA GPU: %s", f8b_last_error());
		return tap_skip_all(msg);
	}
	if (!tap_ok(rc == F8B_OK, "open device 0%s%s", rc ? ": " : "", rc ? f8b_last_error() : ""))
		return tap_done();
	tap_diag("device 0: %s, sm_%d%d, %d SMs", info.name, info.cc_major, info.cc_minor,
	         info.sm_count);
	if (info.cc_major == 9 && info.cc_minor == 0) {
		test_tma();
		test_tma_store();
		test_wgmma();
		test_bulk();
		test_ring();
		test_cluster();
		test_named_bar();
		test_setmaxnreg();
	} else {
		tap_n++;
		printf("ok %d # SKIP the layers are sm_90a code; this GPU is sm_%d%d\n", tap_n,
		       info.cc_major, info.cc_minor);
	}
	ops->close(be);
	return tap_done();
}
