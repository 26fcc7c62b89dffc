/* optim.h - the optimizer step of `f8bench optim` (doc/optim.md): AdamW
 * with bias correction and decoupled weight decay over fp32, bf16 or fp8
 * states, the next forward's fp8 (e4m3) weight cast, and the three ways
 * of choosing that cast's scale.
 *
 * The element math is written here once, as inline functions that the
 * host backend (src/backend/host_optim.c) and the CUDA kernel
 * (kernels/optim.cu) both call, so the two do the same fp32 operations in
 * the same order.  Every operation is rounded on its own: on the device
 * through the __f*_rn intrinsics (which nvcc never contracts into an
 * FMA), on the host through plain C float operations in a file that
 * turns contraction off (host_optim.c, as backend_host.c does).  sqrt
 * and division are IEEE correctly rounded on both.
 */
#ifndef F8B_OPTIM_H
#define F8B_OPTIM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define F8B_HD __host__ __device__ __forceinline__
#else
#include <math.h>
#include <string.h>
#define F8B_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define F8B_OM_MUL(a, b) __fmul_rn((a), (b))
#define F8B_OM_ADD(a, b) __fadd_rn((a), (b))
#define F8B_OM_SUB(a, b) __fsub_rn((a), (b))
#define F8B_OM_DIV(a, b) __fdiv_rn((a), (b))
#define F8B_OM_SQRT(a)   __fsqrt_rn((a))
#else
#define F8B_OM_MUL(a, b) ((float)((a) * (b)))
#define F8B_OM_ADD(a, b) ((float)((a) + (b)))
#define F8B_OM_SUB(a, b) ((float)((a) - (b)))
#define F8B_OM_DIV(a, b) ((float)((a) / (b)))
#define F8B_OM_SQRT(a)   sqrtf((a))
#endif

/* The state variants (doc/optim.md "Variants"). */
enum f8b_optim_variant {
	F8B_OPTIM_FP32 = 0,     /* master fp32, m and v fp32 */
	F8B_OPTIM_BF16,         /* master fp32, m and v bf16 (RNE) */
	F8B_OPTIM_FP8,          /* master fp32, m e4m3 and sqrt(v) e5m2, scales per 128 */
	F8B_OPTIM_FP8_MASTER16, /* the fp8 states and a bf16 master (RNE or stochastic) */
	F8B_OPTIM_VARIANT_COUNT
};

/* How the next forward's fp8 weight gets its scale. */
enum f8b_optim_scaling {
	F8B_OPTIM_DYNAMIC = 0,  /* the exact amax of the new weight: a second pass casts */
	F8B_OPTIM_DYNAMIC_SYNC, /* the same scale, cast after a grid-wide barrier in one pass */
	F8B_OPTIM_DELAYED,      /* max of an amax history of the previous steps */
	F8B_OPTIM_PREDICTED,    /* previous amax plus the a-priori bound of this step's update */
	F8B_OPTIM_SCALING_COUNT
};

/* The passes of the optim op (backend.h optim_pass). */
enum f8b_optim_pass {
	/* update, exact amax, and (delayed, predicted) the fp8 cast in one
	 * pass; with dynamic scaling the cast is left to F8B_OPTIM_CAST;
	 * with dynamic-sync the pass folds the amax after a grid-wide
	 * barrier and then casts, the same bits as dynamic's two passes */
	F8B_OPTIM_FUSED = 0,
	F8B_OPTIM_UPDATE, /* the update alone (the split sequence's first kernel) */
	F8B_OPTIM_AMAX,   /* the exact amax of the master weight alone, then the scales */
	F8B_OPTIM_CAST,   /* the fp8 cast alone with the scales in `scale` */
	F8B_OPTIM_PASS_COUNT
};

/* Elements per block of the fp8 states' scales; every tensor starts at a
 * multiple of it in the state buffers, so a block is never shared. */
#define F8B_OPTIM_BLOCK 128

/* One parameter tensor, rows x cols (row-major), as the op sees it. */
struct f8b_optim_tensor {
	int64_t off;  /* where element 0 lives in every state buffer (elements) */
	int64_t n;    /* rows * cols */
	int64_t cols; /* row length: axiswise has one weight scale per row */
	int64_t slot; /* its first amax / scale slot (tensorwise one, axiswise one per row) */
	int64_t id;   /* the tensor's number in the model (stochastic rounding's stream) */
};

/* One chunk of the multi-tensor launch: elements [start, start + count)
 * of one tensor, start a multiple of F8B_OPTIM_BLOCK. */
struct f8b_optim_chunk {
	int64_t tensor, start, count;
};

/* One step's scalars, computed once on the host in double and rounded to
 * float (src/core/optim.c f8b_optim_hyper_fill), so both backends read the
 * same bits.  Entry t is step t (1-based); entry 0 is unused. */
struct f8b_optim_hyper {
	float lr;          /* the schedule's value for this step */
	float beta1, omb1; /* beta1 and 1 - beta1 */
	float beta2, omb2;
	float rbc1;  /* 1 / (1 - beta1^t) */
	float rbc2s; /* 1 / sqrt(1 - beta2^t) */
	float eps, wd;
	float clip;    /* U_t: |m_hat / (sqrt(v_hat) + eps)| <= U_t (f8b_optim_update_bound) */
	float decay;   /* 1 - lr * wd */
	float lr_clip; /* lr * U_t: the predicted amax's additive term */
};

/* Counters the op keeps in backend memory (uint64 each). */
enum {
	F8B_OPTIM_CTR_STEP = 0,  /* the step the next update pass runs (1-based) */
	F8B_OPTIM_CTR_TICKET,    /* CTAs done with the current pass (cuda; 0 between passes) */
	F8B_OPTIM_CTR_NONFINITE, /* non-finite gradient elements met (skipped), all steps */
	F8B_OPTIM_CTR_SAT,       /* fp8 weight values the cast clipped, all steps */
	F8B_OPTIM_CTR_SAT_STEP,  /* of which in the pass in flight (folded at its end) */
	F8B_OPTIM_CTR_SAT_STEPS, /* casts that clipped at least one value */
	F8B_OPTIM_CTR_CLIPPED,   /* update elements clipped to U_t, all steps */
	F8B_OPTIM_CTR_BARRIER, /* arrivals at dynamic-sync's grid barriers (cuda; 0 between passes)
	                        */
	F8B_OPTIM_CTR_COUNT = 8
};

/* A value v * s is "saturated" by the e4m3 cast when round to nearest
 * without saturation would have given more than 448: |v * s| at or above
 * the midpoint of 448 and 480, the next value the format's exponent would
 * have had.  Below it the cast rounds as it would anyway. */
#define F8B_OPTIM_SAT_E4M3 464.0f

/* The optim benchmark's step (backend.h optim_pass, doc/optim.md):
 * every pointer is backend memory.  The state buffers hold the tensors of
 * `tensors` at their `off` (a multiple of F8B_OPTIM_BLOCK elements).  By
 * variant: master f32 (bf16 for fp8-master16); m, v f32 (fp32), bf16
 * (bf16), or e4m3 m and e5m2 sqrt(v) bytes (fp8, fp8-master16) with one
 * dequantising factor (1 / scale) per block of F8B_OPTIM_BLOCK in m_sinv,
 * v_sinv.  The fp8 weight's scales have nslots entries: tensorwise one
 * per tensor, axiswise one per row (tensor.slot + row). */
struct f8b_optim_args {
	int variant;     /* enum f8b_optim_variant */
	int scaling;     /* enum f8b_optim_scaling */
	int gran;        /* F8B_GRAN_TENSORWISE or F8B_GRAN_AXISWISE (the fp8 weight) */
	bool stochastic; /* fp8-master16: round the master by stochastic rounding */
	uint64_t seed;   /* its random stream */
	int history;     /* delayed: amaxes kept per slot, 1..1024 */
	/* dynamic-sync on a GPU: CTAs of the cooperative launch at most (0:
	 * as many as are resident at once; tests set a few, so that every
	 * CTA takes many chunks) */
	int sync_ctas;
	int64_t ntensors, nchunks, nslots, nhyper;
	const struct f8b_optim_tensor *tensors;
	const struct f8b_optim_chunk *chunks;
	const struct f8b_optim_hyper *hyper; /* entry t: step t */
	const uint16_t *grad;                /* bf16 */
	void *master, *m, *v;
	float *m_sinv, *v_sinv; /* fp8 states only */
	uint8_t *w8;            /* the next forward's e4m3 weight */
	float *scale;           /* the scale the next cast uses, per slot */
	float *scale_used;      /* the scale the last cast used */
	float *amax_acc;        /* zero between passes (the pass that folds it zeroes it) */
	float *amax_last;       /* exact amax of the master after the last amax fold */
	float *hist;            /* delayed: a ring, history[slot * history + t % history] */
	uint64_t *ctr;          /* F8B_OPTIM_CTR_COUNT counters (core/optim.h) */
};

/* ---------------------------------------------------------------- math */

/* Dynamic scaling, either way (two passes, or one with a grid barrier):
 * the cast of step t uses the exact amax of w_t. */
F8B_HD int f8b_optim_is_dynamic(int scaling)
{
	return scaling == F8B_OPTIM_DYNAMIC || scaling == F8B_OPTIM_DYNAMIC_SYNC;
}

F8B_HD uint32_t f8b_om_bits(float x)
{
#ifdef __CUDA_ARCH__
	return __float_as_uint(x);
#else
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
#endif
}

F8B_HD float f8b_om_float(uint32_t u)
{
#ifdef __CUDA_ARCH__
	return __uint_as_float(u);
#else
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
#endif
}

F8B_HD int f8b_om_finite(float x)
{
	return (f8b_om_bits(x) & 0x7F800000u) != 0x7F800000u;
}

/* One AdamW element (doc/optim.md "The update"), g finite:
 *   m' = b1 m + (1 - b1) g          v' = b2 v + (1 - b2) g^2
 *   u  = (m' rbc1) / (sqrt(v') rbc2s + eps),  clipped to [-U_t, U_t]
 *   w' = w - lr (u + wd w)
 * in this order, each operation rounded to fp32.  sqrt(v') goes to *s
 * (what the fp8 variants store).  Returns 1 when u was clipped. */
F8B_HD int f8b_optim_adamw(const struct f8b_optim_hyper *h, float g, float *m, float *v, float *s,
                           float *w)
{
	float mn = F8B_OM_ADD(F8B_OM_MUL(h->beta1, *m), F8B_OM_MUL(h->omb1, g));
	float g2 = F8B_OM_MUL(g, g);
	float vn = F8B_OM_ADD(F8B_OM_MUL(h->beta2, *v), F8B_OM_MUL(h->omb2, g2));
	float sq = F8B_OM_SQRT(vn);
	float mh = F8B_OM_MUL(mn, h->rbc1);
	float den = F8B_OM_ADD(F8B_OM_MUL(sq, h->rbc2s), h->eps);
	float u = F8B_OM_DIV(mh, den);
	/* the clip as selects, not branches (the kernel runs a warp's
	 * elements without a branch between them); a NaN u stays NaN */
	int hi = u > h->clip, lo = u < -h->clip;
	u = hi ? h->clip : lo ? -h->clip : u;
	int clipped = hi | lo;
	float wd = F8B_OM_MUL(h->wd, *w);
	*w = F8B_OM_SUB(*w, F8B_OM_MUL(h->lr, F8B_OM_ADD(u, wd)));
	*m = mn;
	*v = vn;
	*s = sq;
	return clipped;
}

/* The scale that maps amax to fmax (448 e4m3, 57344 e5m2): scaling.h's
 * f8b_amax_to_scale without margin or power-of-2 rounding, the same bits
 * (tests/test_optim checks it): NaN gives the canonical NaN. */
F8B_HD float f8b_optim_scale(float amax, float fmax)
{
	if (amax != amax)
		return f8b_om_float(0x7FFFFFFFu);
	float a = amax < 1e-12f ? 1e-12f : amax; /* F8B_AMAX_EPS */
	return F8B_OM_DIV(fmax, a);
}

/* The predicted amax of step t's new weight from the previous amax a
 * (doc/optim.md "The predicted scale"): |w'| <= (1 - lr wd)|w| + lr U_t. */
F8B_HD float f8b_optim_predict(const struct f8b_optim_hyper *h, float a)
{
	return F8B_OM_ADD(F8B_OM_MUL(a, h->decay), h->lr_clip);
}

/* The splitmix64 finaliser. */
F8B_HD uint64_t f8b_optim_mix(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xBF58476D1CE4E5B9ull;
	z ^= z >> 27;
	z *= 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z;
}

/* Stochastic rounding's 16 random bits for element e of tensor `id` at
 * step t: counter based, so any backend and any split of the work draws
 * the same bits. */
F8B_HD uint32_t f8b_optim_sr_bits(uint64_t seed, uint64_t t, uint64_t id, uint64_t e)
{
	uint64_t c = (id << 40) ^ e;
	return (uint32_t)(f8b_optim_mix(seed + t * 0xD1B54A32D192ED03ull +
	                                (c + 1) * 0x9E3779B97F4A7C15ull) >>
	                  48);
}

/* fp32 -> bf16 bits by stochastic rounding: add 16 random bits below the
 * kept half and truncate, so x rounds up with probability equal to the
 * dropped fraction.  Non-finite x keeps RNE's result (caller's). */
F8B_HD uint16_t f8b_optim_bf16_sr(float x, uint32_t r16)
{
	uint32_t u = f8b_om_bits(x);
	u += r16 & 0xFFFFu;
	return (uint16_t)(u >> 16);
}

/* Which hyper entry step t reads: the table's last for steps past it (a
 * graph replayed beyond the trajectory keeps the last step's scalars). */
F8B_HD int64_t f8b_optim_hyper_index(uint64_t t, int64_t nhyper)
{
	return (int64_t)t < nhyper ? (int64_t)t : nhyper - 1;
}

/* The end of a pass that made an amax (FUSED, AMAX), for one slot s whose
 * accumulated amax `am` the caller has read (and zeroed) and whose scale
 * was `cur`: amax_last = am, scale_used = the scale the cast of this step
 * used, scale = the one the next cast uses:
 *   dynamic    both from this amax (the cast comes after: a second pass,
 *              or dynamic-sync's cast after its grid barrier)
 *   delayed    this amax enters the history at ring position p (the step
 *              counter modulo its length, so the ring holds the last
 *              `history` amaxes) and the next scale comes from its max
 *   predicted  from f8b_optim_predict(h, am), h = the next step's
 * An AMAX pass (the split sequence's, or setup's before the first step)
 * uses the same rules with h the step about to run. */
F8B_HD void f8b_optim_fold(const struct f8b_optim_args *a, const struct f8b_optim_hyper *h,
                           int64_t s, float am, float cur, int p)
{
	a->amax_last[s] = am;
	float used = cur, next;
	if (a->scaling == F8B_OPTIM_PREDICTED) {
		next = f8b_optim_scale(f8b_optim_predict(h, am), 448.0f);
	} else if (a->scaling == F8B_OPTIM_DELAYED) {
		float *hs = a->hist + s * a->history;
		uint32_t mx = f8b_om_bits(am);
		for (int i = 0; i < a->history; i++) {
			uint32_t b = i == p ? 0u : f8b_om_bits(hs[i]);
			mx = b > mx ? b : mx;
		}
		hs[p] = am;
		next = f8b_optim_scale(f8b_om_float(mx), 448.0f);
	} else {
		next = f8b_optim_scale(am, 448.0f);
		used = next;
	}
	a->scale_used[s] = used;
	a->scale[s] = next;
}

/* The ring position of delayed scaling's history at step counter t. */
F8B_HD int f8b_optim_ring(const struct f8b_optim_args *a, uint64_t t)
{
	return a->history > 0 ? (int)(t % (uint64_t)a->history) : 0;
}

#ifndef __CUDACC__
/* ---------------------------------------------------------------- host only (optim.c) */
#include <stdbool.h>
#include <stddef.h>

const char *f8b_optim_variant_name(enum f8b_optim_variant v); /* "fp32", "fp8-master16" */
int f8b_optim_variant_parse(const char *s, enum f8b_optim_variant *out);
const char *f8b_optim_scaling_name(enum f8b_optim_scaling s); /* "dynamic", ... */
int f8b_optim_scaling_parse(const char *s, enum f8b_optim_scaling *out);

/* Bytes of each buffer per parameter, as stored (state) and as one fused
 * step moves them at least (doc/optim.md "Bytes per parameter"). */
double f8b_optim_state_bytes(enum f8b_optim_variant v);
/* The minimal bytes one step moves per parameter: the fused pass (and,
 * dynamic, the cast pass; dynamic-sync re-reads the master as much) or
 * the split sequence update, amax, cast. */
double f8b_optim_step_bytes(enum f8b_optim_variant v, enum f8b_optim_scaling s, bool split);
/* Kernel launches of one step: 2 with dynamic scaling, else 1. */
int f8b_optim_launches(enum f8b_optim_scaling s);
/* Bytes of the master weight, the m and v states, per element. */
size_t f8b_optim_master_size(enum f8b_optim_variant v);
size_t f8b_optim_state_size(enum f8b_optim_variant v);
bool f8b_optim_fp8_states(enum f8b_optim_variant v);

/* The bound U_t on |m_hat / sqrt(v_hat)| after t steps (Cauchy-Schwarz,
 * doc/optim.md), in double. */
double f8b_optim_update_bound(double beta1, double beta2, int64_t t);

struct f8b_optim_hparams {
	double lr, beta1, beta2, eps, wd;
	int64_t warmup; /* linear warm-up steps of the schedule (0: none) */
};
/* The schedule's learning rate at step t: lr * min(1, t / warmup). */
double f8b_optim_lr_at(const struct f8b_optim_hparams *p, int64_t t);
/* Entries 0..n-1 of the hyper table (entry t = step t). */
void f8b_optim_hyper_fill(const struct f8b_optim_hparams *p, struct f8b_optim_hyper *h, int64_t n);

/* SQNR in dB from the sums of squares: 10 log10(sum ref^2 / sum err^2);
 * +inf when the error is 0. */
double f8b_optim_sqnr_db(double ref2, double err2);
#endif

#endif
