/* cuda_gemm.c - the "cuda" backend's GEMM: cuBLASLt plans (matmul
 * descriptor, scale modes, layouts, the heuristic's choice of algorithm),
 * all made outside timing, and the enqueue-only launch.
 *
 * The GEMM mapping (row-major D = A @ B^T onto cuBLASLt's column-major
 * "TN" call, and which scale tensor lands on which cuBLASLt operand) is
 * derived in doc/gemm-layout.md; the comments below only point to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"
#include "kernels/kernels.h"

/* The heuristic is asked for this many algorithms; --autotune times them. */
#define HEURISTIC_MAX 16

struct f8b_gemm_plan {
	struct f8b_gemm_desc d;
	bool fp8;
	cublasLtMatmulDesc_t op;
	/* cuBLASLt operand A is our B, operand B is our A (doc/gemm-layout.md). */
	cublasLtMatrixLayout_t lay_a, lay_b, lay_d;
	/* e4m3 output: C's own layout, bf16 (cuBLASLt's fp8 type table pairs
	 * an e4m3 D with a bf16 or fp16 C); else C shares lay_d. */
	cublasLtMatrixLayout_t lay_c;
	cublasLtMatmulAlgo_t algo;
	/* Scale pointers currently set on op (our A's, our B's), and with e4m3
	 * output D's scale and amax. */
	const void *bound_a_scale, *bound_b_scale, *bound_d_scale, *bound_amax_d;
	/* Axiswise x tensorwise, which cuBLASLt has no mode for: the
	 * tensorwise operand's one scale is broadcast into a vector (one per
	 * row of that operand) before each call and read as an outer vector,
	 * as torchao expands a tensorwise scale for torch._scaled_mm. */
	float *bcast;
	bool bcast_a; /* our A's scale is broadcast (else our B's) */
	/* --impl f8b: f8bench's own kernel runs instead (cuda_gemm_f8b.c), and
	 * none of the cuBLASLt fields above is made. */
	struct f8b_kplan *own;
};

static cudaDataType_t cuda_dtype(enum f8b_dtype t)
{
	switch (t) {
	case F8B_E4M3: return CUDA_R_8F_E4M3;
	case F8B_E5M2: return CUDA_R_8F_E5M2;
	case F8B_BF16: return CUDA_R_16BF;
	default: return CUDA_R_32F;
	}
}

/* The cuBLASLt scale mode that reads our scale tensor of granularity g,
 * laid out by f8b_scale_index (doc/gemm-layout.md, "Scale tensors"). */
static int32_t scale_mode(enum f8b_granularity g)
{
	switch (g) {
	case F8B_GRAN_AXISWISE: return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
	case F8B_GRAN_BLOCK1X128: return CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
	case F8B_GRAN_BLOCK128X128: return CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
	default: return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
	}
}

static const char *scale_mode_name(int32_t m)
{
	switch (m) {
	case CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F: return "SCALAR_32F";
	case CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F: return "OUTER_VEC_32F";
	case CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F: return "VEC128_32F";
	case CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F: return "BLK128x128_32F";
	default: return "?";
	}
}

/* "M=1024 N=1024 K=1024 e4m3(block1x128) x e4m3(block128x128) -> bf16,
 * fast_accum on": names a configuration in every GEMM message. */
static void describe_gemm(const struct f8b_gemm_desc *d, char *buf, size_t n)
{
	bool fp8 = f8b_dtype_is_fp8(d->a_dtype) && f8b_dtype_is_fp8(d->b_dtype);

	if (fp8)
		snprintf(buf, n, "M=%lld N=%lld K=%lld %s(%s) x %s(%s) -> %s, fast_accum %s",
		         (long long)d->m, (long long)d->n, (long long)d->k,
		         f8b_dtype_name(d->a_dtype), f8b_granularity_name(d->a_gran),
		         f8b_dtype_name(d->b_dtype), f8b_granularity_name(d->b_gran),
		         f8b_dtype_name(d->out_dtype), d->fast_accum ? "on" : "off");
	else
		snprintf(buf, n, "M=%lld N=%lld K=%lld %s x %s -> %s", (long long)d->m,
		         (long long)d->n, (long long)d->k, f8b_dtype_name(d->a_dtype),
		         f8b_dtype_name(d->b_dtype), f8b_dtype_name(d->out_dtype));
}

void f8b_cuda_gemm_plan_free(struct f8b_backend *be, struct f8b_gemm_plan *p)
{
	(void)be;
	if (!p)
		return;
	if (p->lay_a)
		(void)cublasLtMatrixLayoutDestroy(p->lay_a);
	if (p->lay_b)
		(void)cublasLtMatrixLayoutDestroy(p->lay_b);
	if (p->lay_d)
		(void)cublasLtMatrixLayoutDestroy(p->lay_d);
	if (p->lay_c)
		(void)cublasLtMatrixLayoutDestroy(p->lay_c);
	if (p->op)
		(void)cublasLtMatmulDescDestroy(p->op);
	if (p->bcast)
		(void)cudaFree(p->bcast);
	f8b_cuda_kgemm_free(p->own);
	free(p);
}

/* Descriptors and layouts for D^T[N,M] = B[N,K] . A[M,K]^T in cuBLASLt's
 * column-major terms: operand A is our B (K x N, ld K, transposed),
 * operand B is our A (K x M, ld K, not transposed), D is N x M with ld N.
 * doc/gemm-layout.md derives it. */
static int build_descriptors(struct f8b_backend *be, struct f8b_gemm_plan *p)
{
	const struct f8b_gemm_desc *d = &p->d;
	/* A stored-transposed operand (bf16 only: d->b_t, d->a_t) is read
	 * with the other op: our B stored [K,N] is cuBLASLt's A as N x K
	 * column-major (ld N) without a transpose, our A stored [K,M] is its
	 * B as M x K (ld M) transposed. */
	int32_t op_a = d->b_t ? CUBLAS_OP_N : CUBLAS_OP_T;
	int32_t op_b = d->a_t ? CUBLAS_OP_T : CUBLAS_OP_N;

	F8B_LT_TRY(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	F8B_LT_TRY(
	    cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
	F8B_LT_TRY(
	    cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
	if (d->sm_margin > 0) {
		int sms = 0;
		F8B_CUDA_TRY(
		    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, be->device));
		if (d->sm_margin >= sms)
			return F8B_ERR(F8B_EINVAL, "a GEMM leaving %d of this GPU's %d SMs idle",
			               d->sm_margin, sms);
		int32_t target = sms - d->sm_margin;
		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
		    p->op, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &target, sizeof target));
	}
	if (p->fp8) {
		int8_t fast = d->fast_accum ? 1 : 0;
		enum f8b_granularity ga = p->bcast && p->bcast_a ? F8B_GRAN_AXISWISE : d->a_gran;
		enum f8b_granularity gb = p->bcast && !p->bcast_a ? F8B_GRAN_AXISWISE : d->b_gran;
		int32_t mode_a = scale_mode(gb); /* cuBLASLt A = our B */
		int32_t mode_b = scale_mode(ga); /* cuBLASLt B = our A */
		/* The real scale pointers are bound per call in f8b_cuda_gemm();
		 * until then any device address stands in, so the heuristic
		 * sees a scaled problem exactly as it will run. */
		const void *placeholder = be->workspace;

		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
		                                          &fast, sizeof fast));
		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
		                                          &mode_a, sizeof mode_a));
		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
		                                          &mode_b, sizeof mode_b));
		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
		    p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &placeholder, sizeof placeholder));
		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
		    p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &placeholder, sizeof placeholder));
		p->bound_a_scale = p->bound_b_scale = placeholder;
	}
	if (d->out_dtype == F8B_E4M3) {
		/* An fp8 D (doc/gemm.md "fp8 output"): D = e4m3(d_scale * v)
		 * and amax_d = max |v| before d_scale, both pointers bound per
		 * call like the operands' scales; a placeholder until then. */
		const void *placeholder = be->workspace;
		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
		    p->op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &placeholder, sizeof placeholder));
		F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
		    p->op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &placeholder, sizeof placeholder));
		p->bound_d_scale = p->bound_amax_d = placeholder;
		/* C: bf16, the same shape; never read (beta = 0). */
		F8B_LT_TRY(cublasLtMatrixLayoutCreate(&p->lay_c, CUDA_R_16BF, (uint64_t)d->n,
		                                      (uint64_t)d->m, d->n));
	}
	if (d->b_t)
		F8B_LT_TRY(cublasLtMatrixLayoutCreate(&p->lay_a, cuda_dtype(d->b_dtype),
		                                      (uint64_t)d->n, (uint64_t)d->k, d->n));
	else
		F8B_LT_TRY(cublasLtMatrixLayoutCreate(&p->lay_a, cuda_dtype(d->b_dtype),
		                                      (uint64_t)d->k, (uint64_t)d->n, d->k));
	if (d->a_t)
		F8B_LT_TRY(cublasLtMatrixLayoutCreate(&p->lay_b, cuda_dtype(d->a_dtype),
		                                      (uint64_t)d->m, (uint64_t)d->k, d->m));
	else
		F8B_LT_TRY(cublasLtMatrixLayoutCreate(&p->lay_b, cuda_dtype(d->a_dtype),
		                                      (uint64_t)d->k, (uint64_t)d->m, d->k));
	F8B_LT_TRY(cublasLtMatrixLayoutCreate(&p->lay_d, cuda_dtype(d->out_dtype), (uint64_t)d->n,
	                                      (uint64_t)d->m, d->n));
	return F8B_OK;
}

static int run_heuristic(struct f8b_backend *be, struct f8b_gemm_plan *p, const char *cfg,
                         cublasLtMatmulHeuristicResult_t *res, int *returned)
{
	cublasLtMatmulPreference_t pref = NULL;
	uint64_t ws = be->workspace_bytes;
	cublasStatus_t st;
	int rc;

	*returned = 0;
	F8B_LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
	rc = F8B_LT_CHECK(cublasLtMatmulPreferenceSetAttribute(
	    pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
	if (rc == F8B_OK) {
		/* C and D share one layout (beta = 0, D written in place),
		 * but for an e4m3 D, whose C is bf16. */
		st = cublasLtMatmulAlgoGetHeuristic(be->lt, p->op, p->lay_a, p->lay_b,
		                                    p->lay_c ? p->lay_c : p->lay_d, p->lay_d, pref,
		                                    HEURISTIC_MAX, res, returned);
		if (st != CUBLAS_STATUS_SUCCESS || *returned <= 0) {
			char why[96];
			size_t lv = be->lt_version;
			if (st != CUBLAS_STATUS_SUCCESS)
				snprintf(why, sizeof why, "heuristic: %s",
				         cublasLtGetStatusName(st));
			else
				snprintf(why, sizeof why, "the heuristic offers no algorithm");
			rc = F8B_ERR(
			    F8B_EUNSUPPORTED,
			    "gemm %s (cuBLASLt scale modes A=%s B=%s): not supported by "
			    "cuBLASLt %d.%d.%d on sm_%d%d (%s)",
			    cfg, p->fp8 ? scale_mode_name(scale_mode(p->d.b_gran)) : "none",
			    p->fp8 ? scale_mode_name(scale_mode(p->d.a_gran)) : "none",
			    F8B_CUBLASLT_VERSION_MAJOR(lv), F8B_CUBLASLT_VERSION_MINOR(lv),
			    F8B_CUBLASLT_VERSION_PATCH(lv), be->cc_major, be->cc_minor, why);
			*returned = 0;
		}
	}
	(void)cublasLtMatmulPreferenceDestroy(pref);
	return rc;
}

int f8b_cuda_gemm_plan(struct f8b_backend *be, const struct f8b_gemm_desc *d, int candidate,
                       struct f8b_gemm_plan **out, struct f8b_algo_info *info)
{
	char cfg[160];
	cublasLtMatmulHeuristicResult_t res[HEURISTIC_MAX];
	struct f8b_gemm_plan *p;
	int returned = 0, rc;

	*out = NULL;
	if (!d)
		return F8B_ERR(F8B_EINVAL, "gemm: no problem description");
	describe_gemm(d, cfg, sizeof cfg);
	/* The same rules as the host backend (a sweep fails alike on both), plus
	 * the fp8 alignment cuBLASLt needs. */
	F8B_TRY(f8b_check_gemm_desc(d, cfg));
	/* cublasLtMatmul fp8 requirements: 16-byte aligned pointers and
	 * leading dimensions (K bytes for the fp8 operands, N elements of the
	 * output), and the design's "every dimension a multiple of 16". */
	if (f8b_dtype_is_fp8(d->a_dtype) && (d->m % 16 || d->n % 16 || d->k % 16))
		return F8B_ERR(F8B_EINVAL,
		               "gemm %s: fp8 GEMM dimensions must be multiples of 16 (16-byte "
		               "aligned rows for the fp8 tensor cores)",
		               cfg);
	/* cuBLASLt's 128-element scale modes are used here only in the pairs
	 * DeepSeek-style recipes need (A 1x128 with B 1x128 or 128x128); a
	 * tensorwise or axiswise operand beside a blockwise one is refused
	 * (the host backend computes any pair, for its tests). */
	bool ablk = d->a_gran == F8B_GRAN_BLOCK1X128;
	bool bblk = d->b_gran == F8B_GRAN_BLOCK1X128 || d->b_gran == F8B_GRAN_BLOCK128X128;
	if (f8b_dtype_is_fp8(d->a_dtype) && ablk != bblk)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s: granularities %s x %s (the cuda backend pairs a blockwise "
		               "operand only with a blockwise one: block1x128 x block1x128 or "
		               "block1x128 x block128x128)",
		               cfg, f8b_granularity_name(d->a_gran),
		               f8b_granularity_name(d->b_gran));
	if (candidate < 0)
		return F8B_ERR(F8B_EINVAL, "gemm %s: algorithm candidate %d (must be >= 0)", cfg,
		               candidate);
	if (d->impl != F8B_GEMM_IMPL_CUBLASLT && d->impl != F8B_GEMM_IMPL_F8B)
		return F8B_ERR(F8B_EINVAL,
		               "gemm %s: GEMM implementation %d (accepted: cublaslt, f8b)", cfg,
		               (int)d->impl);
	if (d->epilogue != F8B_GEMM_EPI_NONE && d->impl != F8B_GEMM_IMPL_F8B)
		return F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "gemm %s: a fused sigmoid epilogue needs impl f8b (cuBLASLt has none)", cfg);
	if (d->out_t && d->impl != F8B_GEMM_IMPL_F8B)
		return F8B_ERR(F8B_EUNSUPPORTED,
		               "gemm %s: a transposed write of D (out_t) needs impl f8b (cuBLASLt "
		               "writes D alone)",
		               cfg);

	p = calloc(1, sizeof *p);
	if (!p)
		return F8B_ERR(F8B_ENOMEM, "gemm plan: cannot allocate %zu bytes", sizeof *p);
	p->d = *d;
	p->fp8 = f8b_dtype_is_fp8(d->a_dtype);
	if (d->impl == F8B_GEMM_IMPL_F8B) {
		rc = d->sm_margin > 0
		         ? F8B_ERR(F8B_EUNSUPPORTED, "impl f8b takes every SM (no SM margin yet)")
		         : f8b_cuda_kgemm_plan(be, d, candidate, cfg, &p->own, info);
		if (rc != F8B_OK) {
			f8b_cuda_gemm_plan_free(be, p);
			return rc;
		}
		*out = p;
		return F8B_OK;
	}
	memset(res, 0, sizeof res);
	rc = F8B_OK;
	if (p->fp8 && ((d->a_gran == F8B_GRAN_AXISWISE && d->b_gran == F8B_GRAN_TENSORWISE) ||
	               (d->a_gran == F8B_GRAN_TENSORWISE && d->b_gran == F8B_GRAN_AXISWISE))) {
		p->bcast_a = d->a_gran == F8B_GRAN_TENSORWISE;
		int64_t len = p->bcast_a ? d->m : d->n;
		rc = f8b_cuda_malloc(be, sizeof(float) * (size_t)len, (void **)&p->bcast,
		                     "gemm: the broadcast tensorwise scale");
	}
	if (rc == F8B_OK)
		rc = build_descriptors(be, p);
	if (rc == F8B_OK)
		rc = run_heuristic(be, p, cfg, res, &returned);
	if (rc == F8B_OK && candidate >= returned)
		rc = F8B_ERR(
		    F8B_EUNSUPPORTED,
		    "gemm %s: algorithm candidate %d does not exist (the cuBLASLt heuristic "
		    "offers %d: 0..%d)",
		    cfg, candidate, returned, returned - 1);
	if (rc == F8B_OK && res[candidate].state != CUBLAS_STATUS_SUCCESS)
		rc = F8B_ERR(F8B_EUNSUPPORTED, "gemm %s: heuristic candidate %d is unusable: %s",
		             cfg, candidate, cublasLtGetStatusName(res[candidate].state));
	if (rc == F8B_OK && res[candidate].workspaceSize > be->workspace_bytes)
		rc = F8B_ERR(F8B_EINTERNAL,
		             "gemm %s: candidate %d wants %zu bytes of workspace, above the %zu "
		             "the heuristic was given",
		             cfg, candidate, res[candidate].workspaceSize, be->workspace_bytes);
	if (info) {
		/* candidates is filled even on failure, for --autotune loops. */
		memset(info, 0, sizeof *info);
		info->candidates = returned;
		if (rc == F8B_OK)
			f8b_cuda_fill_algo_info(&res[candidate], candidate, returned, info);
	}
	if (rc != F8B_OK) {
		f8b_cuda_gemm_plan_free(be, p);
		return rc;
	}
	p->algo = res[candidate].algo;
	*out = p;
	return F8B_OK;
}

/* Enqueue only.  The scale pointers are attributes of the matmul
 * descriptor; setting one is a host-side store (no allocation, no device
 * call), done only when the caller passes different tensors than last
 * time.  A plan therefore belongs to one thread at a time. */
int f8b_cuda_gemm(struct f8b_backend *be, struct f8b_gemm_plan *p, const struct f8b_gemm_args *a)
{
	static const float one = 1.0f, zero = 0.0f;

	if (!p || !a)
		return F8B_ERR(F8B_EINVAL, "gemm: no plan or no arguments");
	F8B_TRY(f8b_check_gemm_args(&p->d, a));
	if (p->own)
		return f8b_cuda_kgemm(be, p->own, a);
	if (p->fp8) {
		const float *sa = a->a_scale_inv, *sb = a->b_scale_inv;
		if (p->bcast) {
			int64_t len = p->bcast_a ? p->d.m : p->d.n;
			F8B_KERNEL_TRY(
			    f8b_k_broadcast(p->bcast_a ? sa : sb, p->bcast, len, be->stream));
			if (p->bcast_a)
				sa = p->bcast;
			else
				sb = p->bcast;
		}
		if ((const void *)sb != p->bound_b_scale) {
			F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
			    p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, sizeof sb));
			p->bound_b_scale = sb;
		}
		if ((const void *)sa != p->bound_a_scale) {
			F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
			    p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, sizeof sa));
			p->bound_a_scale = sa;
		}
	}
	if (p->lay_c) {
		/* e4m3 output: cuBLASLt sets amax_d itself ("on completion will
		 * be set to the maximum of absolute values", cublasLt.h), so
		 * nothing zeroes it first; tests/gpu/test_gemm_cuda poisons it
		 * to hold the library to that. */
		const void *ds = a->d_scale, *am = a->amax_d;
		if (ds != p->bound_d_scale) {
			F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
			    p->op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &ds, sizeof ds));
			p->bound_d_scale = ds;
		}
		if (am != p->bound_amax_d) {
			F8B_LT_TRY(cublasLtMatmulDescSetAttribute(
			    p->op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &am, sizeof am));
			p->bound_amax_d = am;
		}
	}
	void *ws = NULL;
	F8B_TRY(f8b_cuda_stream_workspace(be, &ws));
	/* An e4m3 D has a C of its own layout (bf16), which beta = 0 never
	 * reads; cuBLASLt 13.1 refused that C at D's address
	 * (CUBLAS_STATUS_INVALID_VALUE, H100, 2026-11-26), and PyTorch's
	 * scaled_gemm notes that it takes no NULL C either: C names the
	 * first operand's memory, as PyTorch's does. */
	const void *c = p->lay_c ? a->b : a->d;
	F8B_LT_TRY(cublasLtMatmul(be->lt, p->op, &one, a->b, p->lay_a, a->a, p->lay_b, &zero, c,
	                          p->lay_c ? p->lay_c : p->lay_d, a->d, p->lay_d, &p->algo, ws,
	                          be->workspace_bytes, be->stream));
	return F8B_OK;
}
