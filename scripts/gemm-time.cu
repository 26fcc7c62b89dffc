/* gemm-time.cu - the fp8 GEMM kernel timed alone, for ablations: one
 * tile's FAST, PROMOTE or BLOCK variant (kernels/gemm/), no f8bench
 * around it.  A study tool, not part of the build:
 *
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Isrc -Ikernels \
 *        [-DGT_BN=128 -DGT_STAGES=6] [-DGT_CL=2] [-DGT_F32] \
 *        scripts/gemm-time.cu -o gemm-time
 *   [GT_FILL=one] [GT_RUNS=N] ./gemm-time fast|promote|block [M N K]
 *
 * Runs the kernel on e4m3 operands filled at random (exponent field 4 to
 * 10, either sign: no zeros, no NaN; A and B from the same bytes; scales
 * 1), or every value 1.0 with GT_FILL=one (a low-power pattern), with a
 * persistent grid of one CTA per SM (GT_GRID CTAs if given; GT_CL: CTAs a
 * cluster, 2 sharing B)
 * and TMA stores of a bf16 D (f32 with GT_F32; stores from registers with
 * GT_DIRECT=1 or where BN is not a multiple of 64): five untimed launches,
 * then GT_RUNS (10) timed back to back with CUDA events, the median
 * printed.  L2 is not flushed, so its rates are above f8bench's; the
 * results are not checked (ablation patches compute wrong sums on
 * purpose): tests/gpu/test_f8b_gemm.c checks the kernels.  A hash of D
 * is printed, so variants that must agree bit for bit can be compared.
 * The tile is GT_BN wide (256, 4 stages, unless GT_BN and GT_STAGES are given).
 * Ablations: build it against a patched copy of kernels/ (the patches
 * live with each study under results/h100/experiments/).
 *
 * GT_PAIR=rand|one: two instances of the kernel, X (filled as GT_FILL
 * says) and Y (filled as GT_PAIR says), each with its own buffers, timed
 * the way f8bench samples (an L2 flush, then one launch between two
 * events, then a wait for it), in four phases of GT_RUNS (200) samples
 * each: one instance after the other (X's samples, then Y's), in turn
 * (X Y, Y X, ... as --interleave rotates), one after the other again, in
 * turn again.  Each phase's medians are printed.  With Y like X, a gap
 * between the phases comes from the alternation itself (buffers, caches);
 * with a low-power Y, from the power the other instance drew. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cudaTypedefs.h>

#include "gemm/sm90_fp8_gemm_kernel.cuh"

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#ifndef GT_BN
#define GT_BN 256
#define GT_STAGES 4
#endif
constexpr int BN = GT_BN, STAGES = GT_STAGES;
#ifndef GT_CL
#define GT_CL 1 /* CTAs a cluster: 2 shares B between two tile rows (multicast) */
#endif
#ifdef GT_F32
typedef float gt_out; /* D in f32: TMA boxes of 32 columns */
#else
typedef __nv_bfloat16 gt_out;
#endif

static PFN_cuTensorMapEncodeTiled_v12000 encoder()
{
	void *p = nullptr;
	cudaDriverEntryPointQueryResult q;
	CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
	                                       cudaEnableDefault, &q));
	if (q != cudaDriverEntryPointSuccess || !p) {
		fprintf(stderr, "gemm-time: no cuTensorMapEncodeTiled\n");
		exit(1);
	}
	return (PFN_cuTensorMapEncodeTiled_v12000)p;
}

/* An fp8 operand [rows, k]: box {128 bytes, box_rows}, 128-byte swizzle,
 * as src/backend/cuda_gemm_f8b.c encodes it. */
static CUtensorMap map_op(PFN_cuTensorMapEncodeTiled_v12000 fn, void *p, int rows, int k,
                          int box_rows)
{
	CUtensorMap m;
	cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)k};
	cuuint32_t box[2] = {128, (cuuint32_t)box_rows}, estr[2] = {1, 1};
	if (fn(&m, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, p, dims, strides, box, estr,
	       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
	       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) !=
	    CUDA_SUCCESS) {
		fprintf(stderr, "gemm-time: encoding an operand map failed\n");
		exit(1);
	}
	return m;
}

/* D [m, n] bf16 row-major: box {64 columns (128 bytes), 64 rows}. */
static CUtensorMap map_d(PFN_cuTensorMapEncodeTiled_v12000 fn, void *p, int m, int n)
{
	CUtensorMap t;
	const int es = (int)sizeof(gt_out);
	cuuint64_t dims[2] = {(cuuint64_t)n, (cuuint64_t)m}, strides[1] = {(cuuint64_t)n * es};
	cuuint32_t box[2] = {(cuuint32_t)(128 / es), 64}, estr[2] = {1, 1};
	if (fn(&t, es == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, p, dims, strides, box, estr,
	       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
	       CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
		fprintf(stderr, "gemm-time: encoding D's map failed\n");
		exit(1);
	}
	return t;
}

static cudaError_t launch(f8b_kgemm_fn fn, int grid, void **kargs, int smem)
{
	cudaLaunchAttribute attr[1];
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = GT_CL;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)grid);
	cfg.blockDim = dim3(F8B_KG_THREADS);
	cfg.dynamicSmemBytes = (size_t)smem;
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	return cudaLaunchKernelExC(&cfg, (const void *)fn, kargs);
}

/* One problem: its operands, D, scales, maps and kernel arguments (kargs
 * points into the struct, so it stays where it was made). */
struct inst {
	uint8_t *a, *b;
	void *d;
	float *sa, *sb;
	CUtensorMap ta, tb, td, tt;
	f8b_kgemm_args p;
	void *kargs[5];
};

/* e4m3 values 2^-3 to 2^3 of either sign (exponent field 4..10, no zeros,
 * no NaN), or with fill "one" every value 1.0 (0x38), a low-power
 * pattern; A and B from the same bytes; every scale 1. */
static void inst_make(inst &I, PFN_cuTensorMapEncodeTiled_v12000 enc, int m, int n, int k,
                      const char *fill, bool tma_store)
{
	std::vector<uint8_t> h((size_t)(m > n ? m : n) * k);
	srand(1);
	for (auto &b : h)
		b = fill && !strcmp(fill, "one")
		        ? (uint8_t)0x38
		        : (uint8_t)(((rand() & 1) << 7) | ((4 + rand() % 7) << 3) | (rand() & 7));
	const int kb = k / 128;
	std::vector<float> ones((size_t)(m > n ? m : n) * kb, 1.0f);
	CHECK(cudaMalloc(&I.a, (size_t)m * k));
	CHECK(cudaMalloc(&I.b, (size_t)n * k));
	CHECK(cudaMalloc(&I.d, (size_t)m * n * sizeof(gt_out)));
	CHECK(cudaMalloc(&I.sa, ones.size() * 4));
	CHECK(cudaMalloc(&I.sb, ones.size() * 4));
	CHECK(cudaMemcpy(I.a, h.data(), (size_t)m * k, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(I.b, h.data(), (size_t)n * k, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(I.sa, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(I.sb, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice));
	I.ta = map_op(enc, I.a, m, k, F8B_KG_BM);
	I.tb = map_op(enc, I.b, n, k, BN / GT_CL);
	I.td = map_d(enc, I.d, m, n);
	I.tt = CUtensorMap{}; /* no D^T (p.tma_t = 0) */
	I.p = f8b_kgemm_args{};
	I.p.a_scale_inv = I.sa;
	I.p.b_scale_inv = I.sb;
	I.p.d = I.d;
	I.p.m = m;
	I.p.n = n;
	I.p.k = k;
	I.p.b_scale_ld = kb; /* block128x128: kb scales a 128-row block of B */
	I.p.tma_store = tma_store;
	I.kargs[0] = &I.ta;
	I.kargs[1] = &I.tb;
	I.kargs[2] = &I.td;
	I.kargs[3] = &I.tt;
	I.kargs[4] = &I.p;
}

static float median_of(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	const size_t n = v.size();
	return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

/* GT_PAIR: the four phases (see the top of the file). */
static int pair(f8b_kgemm_fn fn, int grid, int smem, inst &x, inst &y, int runs, const char *mode,
                int m, int n, int k, const char *fx, const char *fy)
{
	int l2 = 0;
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
	void *flush;
	const size_t fb = 2 * (size_t)l2; /* f8bench's flush: 2 x L2 written */
	CHECK(cudaMalloc(&flush, fb));
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	auto sample = [&](inst &I) {
		CHECK(cudaMemsetAsync(flush, 0, fb));
		CHECK(cudaEventRecord(e0));
		CHECK(launch(fn, grid, I.kargs, smem));
		CHECK(cudaEventRecord(e1));
		CHECK(cudaEventSynchronize(e1));
		float ms;
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		return ms;
	};
	for (int i = 0; i < 5; i++) {
		CHECK(launch(fn, grid, x.kargs, smem));
		CHECK(launch(fn, grid, y.kargs, smem));
	}
	CHECK(cudaDeviceSynchronize());
	printf("gemm-time %s %dx%dx%d (M N K), %dx%d tile, grid %d: X filled %s, Y %s, %d samples "
	       "each a phase, medians in ms\n",
	       mode, m, n, k, F8B_KG_BM, BN, grid, fx, fy, runs);
	for (int ph = 0; ph < 4; ph++) {
		std::vector<float> tx, ty;
		if (ph % 2 == 0) {
			for (int i = 0; i < runs; i++)
				tx.push_back(sample(x));
			for (int i = 0; i < runs; i++)
				ty.push_back(sample(y));
		} else {
			for (int i = 0; i < runs; i++) {
				if (i % 2 == 0) {
					tx.push_back(sample(x));
					ty.push_back(sample(y));
				} else {
					ty.push_back(sample(y));
					tx.push_back(sample(x));
				}
			}
		}
		const float mx = median_of(tx), my = median_of(ty);
		printf("phase %d, %-16s X %.4f  Y %.4f  X/Y %.4f  (fastest X %.4f Y %.4f)\n", ph + 1,
		       ph % 2 ? "in turn:" : "one after other:", mx, my, mx / my,
		       *std::min_element(tx.begin(), tx.end()), *std::min_element(ty.begin(), ty.end()));
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "fast") && strcmp(argv[1], "promote") &&
	                 strcmp(argv[1], "block"))) {
		fprintf(stderr, "usage: gemm-time fast|promote|block [M N K]\n");
		return 2;
	}
	const int mode = !strcmp(argv[1], "fast")      ? F8B_KGEMM_FAST
	                 : !strcmp(argv[1], "promote") ? F8B_KGEMM_PROMOTE
	                                               : F8B_KGEMM_BLOCK;
	const int m = argc > 2 ? atoi(argv[2]) : 8192, n = argc > 3 ? atoi(argv[3]) : 8192,
	          k = argc > 4 ? atoi(argv[4]) : 8192;
	if (m < F8B_KG_BM || n < BN || k < 128 || m % F8B_KG_BM || n % BN || k % 128) {
		fprintf(stderr, "gemm-time: M a multiple of 128, N of %d, K of 128\n", BN);
		return 2;
	}
	f8b_kgemm_fn fn = mode == F8B_KGEMM_FAST
	                      ? f8b_fp8_gemm_kernel<BN, STAGES, GT_CL, F8B_KG_COOP, F8B_KGEMM_FAST,
	                                            F8B_WG_E4M3, F8B_WG_E4M3, gt_out>
	                  : mode == F8B_KGEMM_PROMOTE
	                      ? f8b_fp8_gemm_kernel<BN, STAGES, GT_CL, F8B_KG_COOP, F8B_KGEMM_PROMOTE,
	                                            F8B_WG_E4M3, F8B_WG_E4M3, gt_out>
	                      : f8b_fp8_gemm_kernel<BN, STAGES, GT_CL, F8B_KG_COOP, F8B_KGEMM_BLOCK,
	                                            F8B_WG_E4M3, F8B_WG_E4M3, gt_out>;
	const int smem = f8b_kg_smem_bytes(BN, STAGES, 0);
	CHECK(cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           smem));
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	/* GT_GRID: fewer CTAs than SMs (a multiple of GT_CL), e.g. 1: one SM
	 * alone, away from the power cap and the other SMs' L2 traffic */
	const int grid = getenv("GT_GRID") ? atoi(getenv("GT_GRID")) : prop.multiProcessorCount;
	if (grid < GT_CL || grid > prop.multiProcessorCount || grid % GT_CL) {
		fprintf(stderr, "gemm-time: GT_GRID: 1 to %d CTAs, a multiple of %d\n",
		        prop.multiProcessorCount, GT_CL);
		return 2;
	}
	/* GT_RUNS timed launches back to back (10) */
	const int RUNS = getenv("GT_RUNS") ? atoi(getenv("GT_RUNS")) : 10;
	if (RUNS < 1) {
		fprintf(stderr, "gemm-time: GT_RUNS must be at least 1\n");
		return 2;
	}

	PFN_cuTensorMapEncodeTiled_v12000 enc = encoder();
	/* GT_DIRECT=1, or a tile width that 64-column boxes do not tile (a
	 * study patch's 144): D stored from registers */
	const bool tma_store = !(getenv("GT_DIRECT") && !strcmp(getenv("GT_DIRECT"), "1")) && BN % 64 == 0;
	static inst x, y;
	inst_make(x, enc, m, n, k, getenv("GT_FILL"), tma_store);
	void **kargs = x.kargs;
	void *d = x.d;
	if (getenv("GT_PAIR")) {
		const char *py = getenv("GT_PAIR");
		if (strcmp(py, "rand") && strcmp(py, "one")) {
			fprintf(stderr, "gemm-time: GT_PAIR is rand or one\n");
			return 2;
		}
		inst_make(y, enc, m, n, k, py, tma_store);
		return pair(fn, grid, smem, x, y, getenv("GT_RUNS") ? RUNS : 200, argv[1], m, n,
		            k, getenv("GT_FILL") ? getenv("GT_FILL") : "rand", py);
	}
	for (int i = 0; i < 5; i++)
		CHECK(launch(fn, grid, kargs, smem));
	CHECK(cudaDeviceSynchronize());
	std::vector<cudaEvent_t> ev(RUNS + 1);
	for (auto &e : ev)
		CHECK(cudaEventCreate(&e));
	CHECK(cudaEventRecord(ev[0]));
	for (int i = 0; i < RUNS; i++) {
		CHECK(launch(fn, grid, kargs, smem));
		CHECK(cudaEventRecord(ev[i + 1]));
	}
	CHECK(cudaEventSynchronize(ev[RUNS]));
	std::vector<float> t(RUNS);
	for (int i = 0; i < RUNS; i++)
		CHECK(cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]));
	std::sort(t.begin(), t.end());
	const float ms = t[RUNS / 2];
	/* a hash of D's bytes (FNV-1a, 64 bits): not a check, but two variants
	 * that must compute the same sums in the same order (an overlap that
	 * only moves when a group is issued) print the same hash */
	std::vector<uint8_t> hd((size_t)m * n * sizeof(gt_out));
	CHECK(cudaMemcpy(hd.data(), d, hd.size(), cudaMemcpyDeviceToHost));
	unsigned long long fnv = 14695981039346656037ull;
	for (uint8_t v : hd)
		fnv = (fnv ^ v) * 1099511628211ull;
	printf("gemm-time %s %dx%dx%d (M N K), %dx%d tile, grid %d, %s: median of %d launches "
	       "%.4f ms, %.0f TFLOP/s, D hash %016llx\n",
	       argv[1], m, n, k, F8B_KG_BM, BN, grid, prop.name, RUNS, ms,
	       2.0 * m * n * (double)k / (ms * 1e9), fnv);

	return 0;
}
