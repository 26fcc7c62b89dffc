/* optim.c - the host-only parts of the optimizer step (optim.h): names,
 * bytes per parameter, the update bound and the per-step scalars.  Each
 * formula here is written out in doc/optim.md. */
#include "core/optim.h"

#include <math.h>
#include <strings.h>

#include "core/common.h"

static const char *const variant_names[F8B_OPTIM_VARIANT_COUNT] = {"fp32", "bf16", "fp8",
                                                                   "fp8-master16"};
static const char *const scaling_names[F8B_OPTIM_SCALING_COUNT] = {"dynamic", "dynamic-sync",
                                                                   "delayed", "predicted"};

const char *f8b_optim_variant_name(enum f8b_optim_variant v)
{
	return (unsigned)v < F8B_OPTIM_VARIANT_COUNT ? variant_names[v] : "?";
}

int f8b_optim_variant_parse(const char *s, enum f8b_optim_variant *out)
{
	for (int i = 0; i < F8B_OPTIM_VARIANT_COUNT; i++)
		if (!strcasecmp(s, variant_names[i])) {
			*out = (enum f8b_optim_variant)i;
			return F8B_OK;
		}
	return F8B_ERR(F8B_EINVAL, "unknown variant '%s' (accepted: fp32, bf16, fp8, fp8-master16)",
	               s);
}

const char *f8b_optim_scaling_name(enum f8b_optim_scaling s)
{
	return (unsigned)s < F8B_OPTIM_SCALING_COUNT ? scaling_names[s] : "?";
}

int f8b_optim_scaling_parse(const char *s, enum f8b_optim_scaling *out)
{
	for (int i = 0; i < F8B_OPTIM_SCALING_COUNT; i++)
		if (!strcasecmp(s, scaling_names[i])) {
			*out = (enum f8b_optim_scaling)i;
			return F8B_OK;
		}
	return F8B_ERR(F8B_EINVAL,
	               "unknown scaling '%s' (accepted: dynamic, dynamic-sync, delayed, predicted)",
	               s);
}

bool f8b_optim_fp8_states(enum f8b_optim_variant v)
{
	return v == F8B_OPTIM_FP8 || v == F8B_OPTIM_FP8_MASTER16;
}

size_t f8b_optim_master_size(enum f8b_optim_variant v)
{
	return v == F8B_OPTIM_FP8_MASTER16 ? 2 : 4;
}

size_t f8b_optim_state_size(enum f8b_optim_variant v)
{
	return v == F8B_OPTIM_FP32 ? 4 : v == F8B_OPTIM_BF16 ? 2 : 1;
}

/* The two per-block scales of the fp8 states (m and sqrt(v)), one fp32
 * each per F8B_OPTIM_BLOCK elements. */
static double block_scale_bytes(enum f8b_optim_variant v)
{
	return f8b_optim_fp8_states(v) ? 2.0 * 4.0 / F8B_OPTIM_BLOCK : 0.0;
}

/* State per parameter: master + m + v (+ the fp8 states' block scales). */
double f8b_optim_state_bytes(enum f8b_optim_variant v)
{
	return (double)f8b_optim_master_size(v) + 2.0 * (double)f8b_optim_state_size(v) +
	       block_scale_bytes(v);
}

/* Per parameter, at least (doc/optim.md "Bytes per parameter"):
 *   update   grad (bf16, 2) read + state read and written (2 x state)
 *   amax     master read
 *   cast     master read + fp8 weight written (1)
 * fused (delayed, predicted): update + the fp8 weight, one pass;
 * dynamic: fused update with amax, then the cast pass (dynamic-sync: the
 * same reads and writes in one launch, the cast after a grid barrier);
 * split: update, amax, cast as three passes. */
double f8b_optim_step_bytes(enum f8b_optim_variant v, enum f8b_optim_scaling s, bool split)
{
	double master = (double)f8b_optim_master_size(v);
	double update = 2.0 + 2.0 * f8b_optim_state_bytes(v);
	if (split)
		return update + master + (master + 1.0);
	if (f8b_optim_is_dynamic(s))
		return update + (master + 1.0);
	return update + 1.0;
}

int f8b_optim_launches(enum f8b_optim_scaling s)
{
	return s == F8B_OPTIM_DYNAMIC ? 2 : 1;
}

/* U_t = (1 - b1)/(1 - b1^t) * sqrt((1 - b2^t)/(1 - b2) * sum_{k<t} r^k),
 * r = b1^2 / b2: by Cauchy-Schwarz, |sum w_i g_i| <= sqrt(sum w_i^2/u_i)
 * sqrt(sum u_i g_i^2) with m_hat = sum w_i g_i and v_hat = sum u_i g_i^2
 * (doc/optim.md derives it). */
double f8b_optim_update_bound(double beta1, double beta2, int64_t t)
{
	if (t < 1)
		t = 1;
	double r = beta1 * beta1 / beta2;
	double geo = fabs(r - 1.0) < 1e-15 ? (double)t : (1.0 - pow(r, (double)t)) / (1.0 - r);
	double bc1 = 1.0 - pow(beta1, (double)t), bc2 = 1.0 - pow(beta2, (double)t);
	return (1.0 - beta1) / bc1 * sqrt(bc2 / (1.0 - beta2) * geo);
}

double f8b_optim_lr_at(const struct f8b_optim_hparams *p, int64_t t)
{
	if (p->warmup > 0 && t < p->warmup)
		return p->lr * (double)t / (double)p->warmup;
	return p->lr;
}

void f8b_optim_hyper_fill(const struct f8b_optim_hparams *p, struct f8b_optim_hyper *h, int64_t n)
{
	for (int64_t t = 0; t < n; t++) {
		int64_t s = t < 1 ? 1 : t;
		double lr = f8b_optim_lr_at(p, s);
		double clip = f8b_optim_update_bound(p->beta1, p->beta2, s);
		h[t] = (struct f8b_optim_hyper){
		    .lr = (float)lr,
		    .beta1 = (float)p->beta1,
		    .omb1 = (float)(1.0 - p->beta1),
		    .beta2 = (float)p->beta2,
		    .omb2 = (float)(1.0 - p->beta2),
		    .rbc1 = (float)(1.0 / (1.0 - pow(p->beta1, (double)s))),
		    .rbc2s = (float)(1.0 / sqrt(1.0 - pow(p->beta2, (double)s))),
		    .eps = (float)p->eps,
		    .wd = (float)p->wd,
		    .clip = (float)clip,
		    .decay = (float)(1.0 - lr * p->wd),
		    .lr_clip = (float)(lr * clip),
		};
	}
}

double f8b_optim_sqnr_db(double ref2, double err2)
{
	if (err2 == 0.0)
		return INFINITY;
	return 10.0 * log10(ref2 / err2);
}
