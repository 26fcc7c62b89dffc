/* trace.cuh - an optional event trace of the fp8 GEMM kernel, for
 * scripts/gemm-trace.cu (a study tool, not part of the build): where in a
 * K-block each warpgroup of the first CTAs spends its cycles.
 *
 * Only with F8B_KG_TRACE defined.  Then F8B_KG_EV(i, role, code) appends
 * (clock64 << 8 | code) to f8b_kg_trace[cta][role] for CTAs below
 * F8B_KG_TRACE_CTAS: role 0 is the producer's thread 0, role 1 + c the
 * first thread of consumer warpgroup c; each list has one writer, which
 * counts its events in i (F8B_KG_TRACE_COUNTER), so no atomics.  Without it F8B_KG_EV is nothing,
 * and the kernels compile to the same PTX as before the hooks (checked with nvcc -ptx). */
#ifndef F8B_GEMM_TRACE_CUH
#define F8B_GEMM_TRACE_CUH

/* Event codes (scripts/gemm-trace.cu names them). */
enum {
	F8B_KG_EV_FULL_WAIT = 1,  /* consumer: before waiting for a stage's data */
	F8B_KG_EV_FULL_OK = 2,    /* consumer: the stage is full */
	F8B_KG_EV_ISSUED = 3,     /* consumer: a wgmma group issued and committed */
	F8B_KG_EV_DONE = 4,       /* consumer: a wait_group returned (its group is done) */
	F8B_KG_EV_KB_END = 5,     /* consumer: a K-block's adds are done (promotion) */
	F8B_KG_EV_EPI = 6,        /* consumer: the epilogue starts */
	F8B_KG_EV_EPI_END = 7,    /* consumer: the epilogue is done */
	F8B_KG_EV_EMPTY_WAIT = 8, /* producer: before waiting for a free stage */
	F8B_KG_EV_LOADS = 9       /* producer: the stage's TMA loads issued */
};

#ifdef F8B_KG_TRACE
constexpr int F8B_KG_TRACE_CTAS = 2, F8B_KG_TRACE_N = 16384;
__device__ unsigned long long f8b_kg_trace[F8B_KG_TRACE_CTAS][3][F8B_KG_TRACE_N];
__device__ unsigned f8b_kg_trace_n[F8B_KG_TRACE_CTAS][3];

/* i: the role's event count, in a register of the recording thread (a
 * counter in global memory cost each event a load's round trip, which
 * stalled the warpgroup).  Stores only: nothing waits for them. */
__device__ __forceinline__ void f8b_kg_ev(unsigned &i, int role, unsigned code)
{
	if (blockIdx.x >= (unsigned)F8B_KG_TRACE_CTAS || threadIdx.x % 128 != 0)
		return;
	if (i < (unsigned)F8B_KG_TRACE_N)
		f8b_kg_trace[blockIdx.x][role][i] = ((unsigned long long)clock64() << 8) | code;
	f8b_kg_trace_n[blockIdx.x][role] = ++i;
}
/* The counter a role's events go through: declared where they are. */
#define F8B_KG_TRACE_COUNTER(i)  unsigned i = 0
#define F8B_KG_EV(i, role, code) f8b_kg_ev((i), (role), (code))
#else
#define F8B_KG_TRACE_COUNTER(i)  static_assert(true, "")
#define F8B_KG_EV(i, role, code) ((void)0)
#endif

#endif
