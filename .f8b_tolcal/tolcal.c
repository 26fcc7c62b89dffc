/* Scratch (not part of f8bench): measure cuBLASLt GEMM relative error vs a
 * double reference on identical fp8/bf16 inputs, to calibrate
 * f8b_gemm_tolerance().  Removed after use. */
#define _POSIX_C_SOURCE 200809L
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fp8.h"
#include "reference.h"

#define CK(x) do { int e_ = (int)(x); if (e_) { fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, e_); exit(1);} } while (0)

static uint64_t st = 88172645463325252ull;
static double urand(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return ((st >> 11) + 0.5) * 0x1p-53; }
static double nrand(void) { return sqrt(-2 * log(urand())) * cos(6.283185307179586 * urand()); }

static cublasLtHandle_t lt;
static void *ws; static size_t wss = 64 << 20;

/* D[M,N] row-major = A[M,K] B[N,K]^T; cuBLASLt col-major: D^T = B * A^T (TN). */
static int gemm(int fp8, int adt, int bdt, int out, int fast, int M, int N, int K,
		void *dA, void *dB, void *dD, float *dsc, int cand)
{
	cublasLtMatmulDesc_t op; cublasLtMatrixLayout_t la, lb, lc;
	cublasOperation_t T = CUBLAS_OP_T, Nn = CUBLAS_OP_N;
	CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &T, sizeof T));
	CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &Nn, sizeof Nn));
	if (fp8) {
		int8_t f = (int8_t)fast;
		CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &f, sizeof f));
		CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &dsc, sizeof dsc));
		CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &dsc, sizeof dsc));
	}
	cudaDataType_t ta = fp8 ? (bdt ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3) : CUDA_R_16BF;
	cudaDataType_t tb = fp8 ? (adt ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3) : CUDA_R_16BF;
	cudaDataType_t td = out ? CUDA_R_32F : CUDA_R_16BF;
	CK(cublasLtMatrixLayoutCreate(&la, ta, K, N, K));
	CK(cublasLtMatrixLayoutCreate(&lb, tb, K, M, K));
	CK(cublasLtMatrixLayoutCreate(&lc, td, N, M, N));
	cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref));
	CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wss, sizeof wss));
	cublasLtMatmulHeuristicResult_t h[8]; int nres = 0;
	int rc = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, h, &nres);
	if (rc || nres <= cand) return -1;
	float one = 1, zero = 0;
	CK(cublasLtMatmul(lt, op, &one, dB, la, dA, lb, &zero, dD, lc, dD, lc, &h[cand].algo, ws, wss, 0));
	CK(cudaDeviceSynchronize());
	cublasLtMatmulPreferenceDestroy(pref); cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc); cublasLtMatmulDescDestroy(op);
	return nres;
}

int main(int argc, char **argv)
{
	int M = 256, N = 256;
	static const int Ks[] = {32, 128, 256, 1024, 4096, 16384, 65536};
	CK(cublasLtCreate(&lt)); CK(cudaMalloc(&ws, wss));
	float *dsc; float onef = 1; CK(cudaMalloc((void **)&dsc, 4)); CK(cudaMemcpy(dsc, &onef, 4, cudaMemcpyHostToDevice));
	int maxK = 65536;
	uint8_t *qa = malloc((size_t)M * maxK), *qb = malloc((size_t)N * maxK);
	uint16_t *ha = malloc((size_t)M * maxK * 2), *hb = malloc((size_t)N * maxK * 2);
	float *fa = malloc((size_t)M * maxK * 4), *fb = malloc((size_t)N * maxK * 4), *dout = malloc((size_t)M * N * 4);
	uint16_t *dout16 = malloc((size_t)M * N * 2);
	double *ref = malloc((size_t)M * N * 8);
	void *dA, *dB, *dD; CK(cudaMalloc(&dA, (size_t)M * maxK * 2)); CK(cudaMalloc(&dB, (size_t)N * maxK * 2)); CK(cudaMalloc(&dD, (size_t)M * N * 4));
	double means[] = {0.0, 1.0};
	printf("%-5s %-9s %-4s %-4s %5s %6s  %-10s %-10s %-10s\n", "mean", "types", "out", "fast", "cand", "K", "relerr", "maxabs/rms", "tol");
	for (int mi = 0; mi < 2; mi++)
	for (int ty = 0; ty < 3; ty++) {           /* 0 bf16, 1 e4m3xe4m3, 2 e5m2(grad) x e4m3 */
		for (int ki = 0; ki < 7; ki++) {
			int K = Ks[ki];
			int fp8 = ty > 0;
			/* inputs: N(mean,1) * 4, quantized (values ~ within e4m3 range) */
			for (size_t i = 0; i < (size_t)M * K; i++) {
				float v = (float)((means[mi] + nrand()) * 4);
				if (!fp8) { ha[i] = f8b_f32_to_bf16(v); fa[i] = f8b_bf16_to_f32(ha[i]); }
				else { enum f8b_dtype t = ty == 2 ? F8B_E5M2 : F8B_E4M3; qa[i] = f8b_f32_to_fp8(v, t); fa[i] = f8b_fp8_to_f32(qa[i], t); }
			}
			for (size_t i = 0; i < (size_t)N * K; i++) {
				float v = (float)((means[mi] + nrand()) * 4);
				if (!fp8) { hb[i] = f8b_f32_to_bf16(v); fb[i] = f8b_bf16_to_f32(hb[i]); }
				else { qb[i] = f8b_f32_to_e4m3(v); fb[i] = f8b_e4m3_to_f32(qb[i]); }
			}
			CK(cudaMemcpy(dA, fp8 ? (void *)qa : (void *)ha, (size_t)M * K * (fp8 ? 1 : 2), cudaMemcpyHostToDevice));
			CK(cudaMemcpy(dB, fp8 ? (void *)qb : (void *)hb, (size_t)N * K * (fp8 ? 1 : 2), cudaMemcpyHostToDevice));
			f8b_ref_gemm(fa, fb, M, N, K, ref);
			double rms = 0; for (int i = 0; i < M * N; i++) rms += ref[i] * ref[i]; rms = sqrt(rms / (M * N));
			for (int out = 0; out < 2; out++)
			for (int fast = 0; fast < (fp8 ? 2 : 1); fast++)
			for (int cand = 0; cand < 8; cand++) {
				int nres = gemm(fp8, ty == 2, 0, out, fast, M, N, K, dA, dB, dD, dsc, cand);
				if (nres < 0) { if (cand == 0) printf("unsupported ty=%d out=%d fast=%d K=%d\n", ty, out, fast, K); break; }
				if (out) CK(cudaMemcpy(dout, dD, (size_t)M * N * 4, cudaMemcpyDeviceToHost));
				else { CK(cudaMemcpy(dout16, dD, (size_t)M * N * 2, cudaMemcpyDeviceToHost)); f8b_to_f32(dout16, F8B_BF16, dout, (size_t)M * N); }
				double e = f8b_rel_error(dout, ref, (size_t)M * N), mx = 0;
				for (int i = 0; i < M * N; i++) mx = fmax(mx, fabs(dout[i] - ref[i]));
				printf("%-5.1f %-9s %-4s %-4d %5d %6d  %-10.3g %-10.3g %-10.3g\n", means[mi],
				       ty == 0 ? "bf16" : ty == 1 ? "e4m3" : "e5m2xe4m3", out ? "f32" : "bf16", fast, cand, K, e, mx / rms,
				       f8b_gemm_tolerance(K, out ? F8B_F32 : F8B_BF16, fast));
				if (cand + 1 >= nres) break;
			}
			fflush(stdout);
		}
	}
	return 0;
}
