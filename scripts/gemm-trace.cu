/* gemm-trace.cu - where the fp8 GEMM kernel's warpgroups spend their
 * cycles, K-block by K-block: the 128x256 tile (FAST, PROMOTE in halves,
 * or BLOCK in halves) built with the event hooks of kernels/gemm/trace.cuh.
 * A study tool, not part of the build:
 *
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DF8B_KG_TRACE \
 *        -Isrc -Ikernels scripts/gemm-trace.cu -o gemm-trace
 *   ./gemm-trace MODE [M N K [RAW]]      MODE: fast, promote or block
 *
 * Runs the kernel on random e4m3 operands (no zeros, no NaN; scales 1)
 * with a persistent grid of one CTA per SM and TMA stores of a bf16 D:
 * five untimed launches, then ten timed with CUDA events (the median
 * printed), the last one's trace read back.  The first two CTAs record, with clock64 (one SM's clock),
 * each event of the producer's thread 0 and of each consumer
 * warpgroup's first thread.  Prints the launch's time and TFLOP/s, then
 * for each role the cycles between consecutive events summed by
 * transition ("FULL_OK > ISSUED #0": from a stage found full to the
 * first group issued; #n counts the wait_groups returned since the
 * stage was found full), each as a share of the role's span.  RAW: a
 * file for every event, "cta role index clock code".  A K-block's
 * tensor work takes 1024 cycles at the dense fp8 rate (128 x 256 x 128
 * multiply-adds, 4096 an SM a cycle), so a consumer's cycles per K-block
 * against 1024 is how busy the tile keeps the tensor cores. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <cudaTypedefs.h>

#include "gemm/sm90_fp8_gemm_kernel.cuh"

#ifdef F8B_KG_TRACE
#define F8B_TRACED 1
#else
#define F8B_TRACED 0 /* built without the hooks: the timing only */
#endif

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#ifdef F8B_KG_TRACE
static const char *ev_name(unsigned c)
{
	switch (c) {
	case F8B_KG_EV_FULL_WAIT: return "FULL_WAIT";
	case F8B_KG_EV_FULL_OK: return "FULL_OK";
	case F8B_KG_EV_ISSUED: return "ISSUED";
	case F8B_KG_EV_DONE: return "DONE";
	case F8B_KG_EV_KB_END: return "KB_END";
	case F8B_KG_EV_EPI: return "EPI";
	case F8B_KG_EV_EPI_END: return "EPI_END";
	case F8B_KG_EV_EMPTY_WAIT: return "EMPTY_WAIT";
	case F8B_KG_EV_LOADS: return "LOADS";
	default: return "?";
	}
}
#endif

constexpr int BN = 256, STAGES = 4;

static PFN_cuTensorMapEncodeTiled_v12000 encoder()
{
	void *p = nullptr;
	cudaDriverEntryPointQueryResult q;
	CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
	                                       cudaEnableDefault, &q));
	if (q != cudaDriverEntryPointSuccess || !p) {
		fprintf(stderr, "gemm-trace: no cuTensorMapEncodeTiled\n");
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
		fprintf(stderr, "gemm-trace: encoding an operand map failed\n");
		exit(1);
	}
	return m;
}

/* D [m, n] bf16 row-major: box {64 columns (128 bytes), 64 rows}. */
static CUtensorMap map_d(PFN_cuTensorMapEncodeTiled_v12000 fn, void *p, int m, int n)
{
	CUtensorMap t;
	cuuint64_t dims[2] = {(cuuint64_t)n, (cuuint64_t)m}, strides[1] = {(cuuint64_t)n * 2};
	cuuint32_t box[2] = {64, 64}, estr[2] = {1, 1};
	if (fn(&t, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, p, dims, strides, box, estr,
	       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
	       CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
		fprintf(stderr, "gemm-trace: encoding D's map failed\n");
		exit(1);
	}
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "fast") && strcmp(argv[1], "promote") &&
	                 strcmp(argv[1], "block"))) {
		fprintf(stderr, "usage: gemm-trace fast|promote|block [M N K [RAW]]\n");
		return 2;
	}
	const int mode = !strcmp(argv[1], "fast")      ? F8B_KGEMM_FAST
	                 : !strcmp(argv[1], "promote") ? F8B_KGEMM_PROMOTE
	                                               : F8B_KGEMM_BLOCK;
	const int m = argc > 2 ? atoi(argv[2]) : 8192, n = argc > 3 ? atoi(argv[3]) : 8192,
	          k = argc > 4 ? atoi(argv[4]) : 8192;
	if (m < 128 || n < 256 || k < 128 || m % 128 || n % 256 || k % 128) {
		fprintf(stderr, "gemm-trace: M a multiple of 128, N of 256, K of 128\n");
		return 2;
	}
	f8b_kgemm_fn fn = mode == F8B_KGEMM_FAST
	                      ? f8b_fp8_gemm_kernel<BN, STAGES, 1, F8B_KG_COOP, F8B_KGEMM_FAST,
	                                            F8B_WG_E4M3, F8B_WG_E4M3, __nv_bfloat16>
	                  : mode == F8B_KGEMM_PROMOTE
	                      ? f8b_fp8_gemm_kernel<BN, STAGES, 1, F8B_KG_COOP, F8B_KGEMM_PROMOTE,
	                                            F8B_WG_E4M3, F8B_WG_E4M3, __nv_bfloat16>
	                      : f8b_fp8_gemm_kernel<BN, STAGES, 1, F8B_KG_COOP, F8B_KGEMM_BLOCK,
	                                            F8B_WG_E4M3, F8B_WG_E4M3, __nv_bfloat16>;
	const int smem = f8b_kg_smem_bytes(BN, STAGES, 0);
	CHECK(cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           smem));
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));

	/* e4m3 values 2^-3 to 2^3 of either sign: exponent field 4..10 */
	std::vector<uint8_t> h((size_t)(m > n ? m : n) * k);
	srand(1);
	for (auto &b : h)
		b = (uint8_t)(((rand() & 1) << 7) | ((4 + rand() % 7) << 3) | (rand() & 7));
	const int kb = k / 128;
	std::vector<float> ones((size_t)(m > n ? m : n) * kb, 1.0f);
	uint8_t *a, *b;
	void *d;
	float *sa, *sb;
	CHECK(cudaMalloc(&a, (size_t)m * k));
	CHECK(cudaMalloc(&b, (size_t)n * k));
	CHECK(cudaMalloc(&d, (size_t)m * n * 2));
	CHECK(cudaMalloc(&sa, ones.size() * 4));
	CHECK(cudaMalloc(&sb, ones.size() * 4));
	CHECK(cudaMemcpy(a, h.data(), (size_t)m * k, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(b, h.data(), (size_t)n * k, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(sa, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(sb, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice));

	PFN_cuTensorMapEncodeTiled_v12000 enc = encoder();
	CUtensorMap ta = map_op(enc, a, m, k, 128), tb = map_op(enc, b, n, k, BN),
	            td = map_d(enc, d, m, n);
	f8b_kgemm_args p = {};
	p.a_scale_inv = sa;
	p.b_scale_inv = sb;
	p.d = d;
	p.m = m;
	p.n = n;
	p.k = k;
	p.b_scale_ld = kb; /* block128x128: kb scales a 128-row block of B */
	p.tma_store = 1;
	void *kargs[] = {&ta, &tb, &td, &p};
	const int grid = prop.multiProcessorCount;
	for (int i = 0; i < 5; i++)
		CHECK(cudaLaunchKernel((const void *)fn, dim3(grid), dim3(F8B_KG_THREADS), kargs,
		                       (size_t)smem, 0));
	CHECK(cudaDeviceSynchronize());
	/* Ten timed launches back to back; the trace is the last one's. */
	constexpr int RUNS = 10;
	cudaEvent_t ev[RUNS + 1];
	for (auto &e : ev)
		CHECK(cudaEventCreate(&e));
	CHECK(cudaEventRecord(ev[0]));
	for (int i = 0; i < RUNS; i++) {
		CHECK(cudaLaunchKernel((const void *)fn, dim3(grid), dim3(F8B_KG_THREADS), kargs,
		                       (size_t)smem, 0));
		CHECK(cudaEventRecord(ev[i + 1]));
	}
	CHECK(cudaEventSynchronize(ev[RUNS]));
	std::vector<float> t(RUNS);
	for (int i = 0; i < RUNS; i++)
		CHECK(cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]));
	std::sort(t.begin(), t.end());
	const float ms = t[RUNS / 2];
	printf("gemm-trace %s %dx%dx%d (M N K), 128x256 tile, grid %d, %s: median of %d launches "
	       "%.4f ms, %.0f TFLOP/s (%s build)\n",
	       argv[1], m, n, k, grid, prop.name, RUNS, ms,
	       2.0 * m * n * (double)k / (ms * 1e9), F8B_TRACED ? "traced" : "untraced");

#ifdef F8B_KG_TRACE
	static unsigned cnt[F8B_KG_TRACE_CTAS][3];
	CHECK(cudaMemcpyFromSymbol(cnt, f8b_kg_trace_n, sizeof cnt));
	std::vector<unsigned long long> tr((size_t)F8B_KG_TRACE_CTAS * 3 * F8B_KG_TRACE_N);
	CHECK(cudaMemcpyFromSymbol(tr.data(), f8b_kg_trace, tr.size() * 8));
	FILE *raw = argc > 5 ? fopen(argv[5], "w") : nullptr;
	if (argc > 5 && !raw) {
		perror(argv[5]);
		return 1;
	}
	for (int c = 0; c < F8B_KG_TRACE_CTAS; c++)
		for (int r = 0; r < 3; r++) {
			const unsigned nev = cnt[c][r] < (unsigned)F8B_KG_TRACE_N ? cnt[c][r]
			                                                          : F8B_KG_TRACE_N;
			const unsigned long long *ev =
			    tr.data() + ((size_t)c * 3 + r) * F8B_KG_TRACE_N;
			if (raw)
				for (unsigned i = 0; i < nev; i++)
					fprintf(raw, "%d %d %u %llu %u\n", c, r, i, ev[i] >> 8,
					        (unsigned)(ev[i] & 255));
			if (nev < 2)
				continue;
			/* cycles summed by transition */
			std::map<std::string, std::pair<unsigned long long, unsigned>> sum;
			unsigned done = 0, kbs = 0;
			for (unsigned i = 1; i < nev; i++) {
				const unsigned pc = ev[i - 1] & 255, cc = ev[i] & 255;
				if (pc == F8B_KG_EV_FULL_OK)
					done = 0;
				char key[64];
				snprintf(key, sizeof key, "%s > %s #%u", ev_name(pc), ev_name(cc),
				         done);
				auto &s = sum[key];
				s.first += (ev[i] >> 8) - (ev[i - 1] >> 8);
				s.second++;
				if (cc == F8B_KG_EV_DONE)
					done++;
				if (cc == F8B_KG_EV_FULL_OK || cc == F8B_KG_EV_LOADS)
					kbs++;
			}
			const unsigned long long span = (ev[nev - 1] >> 8) - (ev[0] >> 8);
			printf("cta %d %s: %u events%s, %u K-blocks, %llu cycles, %.1f a K-block\n",
			       c, r == 0 ? "producer" : r == 1 ? "consumer 0" : "consumer 1",
			       cnt[c][r], cnt[c][r] > nev ? " (list full: the first kept)" : "",
			       kbs, span, kbs ? (double)span / kbs : 0.0);
			for (const auto &kv : sum)
				if (kv.second.first * 200 >= span) /* 0.5% and more */
					printf("  %-28s %8u x %8.1f cycles = %5.1f%%\n",
					       kv.first.c_str(), kv.second.second,
					       (double)kv.second.first / kv.second.second,
					       100.0 * kv.second.first / span);
		}
	if (raw)
		fclose(raw);
#endif
	return 0;
}
