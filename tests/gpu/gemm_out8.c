/* gemm_out8.c - an e4m3-output GEMM run and checked for the GPU tests
 * (gemm_out8.h). */
#include "gemm_out8.h"

#include <stdlib.h>
#include <string.h>

/* Poisons D (and D^T), and amax_d, runs, synchronises, checks. */
static int run_check(const struct f8b_backend_ops *ops, struct f8b_backend *be,
                     struct f8b_gemm_plan *plan, const struct f8b_gemm_args *args,
                     const struct f8b_gemm_data *g, int64_t max_rows, float *amax,
                     struct f8b_gemm_verdict *v, int64_t *t_off)
{
	const float poison = OUT8_POISON;
	F8B_TRY(ops->memset(be, args->d, 0xFF, f8b_tensor_bytes(g->d)));
	if (args->d_t)
		F8B_TRY(ops->memset(be, args->d_t, 0xFF, f8b_tensor_bytes(g->d)));
	F8B_TRY(ops->upload(be, args->amax_d, &poison, sizeof poison));
	F8B_TRY(ops->gemm(be, plan, args));
	F8B_TRY(ops->sync(be));
	F8B_TRY(ops->download(be, amax, args->amax_d, sizeof *amax));
	if (args->d_t) {
		int64_t off = 0, checked = 0;
		F8B_TRY(f8b_gemm_check_t(ops, be, args->d, args->d_t, g->desc->m, g->desc->n, 1,
		                         true, &off, &checked));
		*t_off += off;
	}
	return f8b_gemm_check(ops, be, g, max_rows, g->desc->n, 1, v);
}

void out8_run(const struct f8b_backend_ops *ops, struct f8b_backend *be,
              const struct f8b_gemm_desc *d, int candidate, const struct f8b_tensor *a,
              const struct f8b_tensor *b, const float *a_scale_inv, const float *b_scale_inv,
              const struct f8b_tensor *a_hp, const struct f8b_tensor *b_hp, int64_t max_rows,
              struct out8_result *r)
{
	struct f8b_gemm_plan *plan = NULL;
	struct f8b_tensor dt = {0}, dtt = {0};
	float *ds = NULL, *am = NULL;
	uint8_t *codes = NULL;
	size_t n = (size_t)(d->m * d->n);

	memset(r, 0, sizeof *r);
	r->t_off = d->out_t ? 0 : -1;
	r->step = "plan";
	r->rc = ops->gemm_plan(be, d, candidate, &plan, &r->info);
	r->unsupported = r->rc == F8B_EUNSUPPORTED;
	if (r->rc != F8B_OK)
		return;
	r->step = "allocate";
	r->rc = f8b_tensor_alloc(ops, be, &dt, F8B_E4M3, d->m, d->n);
	if (r->rc == F8B_OK && d->out_t)
		r->rc = f8b_tensor_alloc(ops, be, &dtt, F8B_E4M3, d->n, d->m);
	if (r->rc == F8B_OK)
		r->rc = ops->alloc(be, sizeof(float), (void **)&ds);
	if (r->rc == F8B_OK)
		r->rc = ops->alloc(be, sizeof(float), (void **)&am);
	struct f8b_gemm_data g = {.desc = d,
	                          .a = a,
	                          .b = b,
	                          .a_scale_inv = a_scale_inv,
	                          .b_scale_inv = b_scale_inv,
	                          .a_hp = a_hp,
	                          .b_hp = b_hp,
	                          .d = &dt,
	                          .d_scale = ds,
	                          .amax_d = am};
	struct f8b_gemm_args args = {.a = a->data,
	                             .b = b->data,
	                             .a_scale_inv = a_scale_inv,
	                             .b_scale_inv = b_scale_inv,
	                             .d = dt.data,
	                             .d_scale = ds,
	                             .amax_d = am,
	                             .d_t = dtt.data};
	/* d_scale as f8bench gemm chooses it (gemm.c, choose_d_scale) */
	double amax_ref = 0;
	bool sampled = false;
	if (r->rc == F8B_OK) {
		r->step = "reference amax";
		r->rc = f8b_gemm_ref_amax(ops, be, &g, max_rows, d->n, 1, &amax_ref, &sampled);
	}
	r->d_scale = amax_ref > 0 ? (float)(448.0 / (sampled ? 2 * amax_ref : amax_ref)) : 1.0f;
	if (r->rc == F8B_OK)
		r->rc = ops->upload(be, ds, &r->d_scale, sizeof r->d_scale);
	if (r->rc == F8B_OK) {
		r->step = "run and check at d_scale";
		r->rc = run_check(ops, be, plan, &args, &g, max_rows, &r->amax_d, &r->v, &r->t_off);
	}
	/* 4 x d_scale: at least the elements above 1/4 of the amax saturate */
	const float ds4 = 4.0f * r->d_scale;
	if (r->rc == F8B_OK)
		r->rc = ops->upload(be, ds, &ds4, sizeof ds4);
	if (r->rc == F8B_OK) {
		r->step = "run and check at 4 x d_scale";
		r->rc = run_check(ops, be, plan, &args, &g, max_rows, &r->amax_sat, &r->vsat,
		                  &r->t_off);
	}
	if (r->rc == F8B_OK) {
		r->step = "download D";
		codes = malloc(n);
		r->rc = codes ? ops->download(be, codes, dt.data, n) : F8B_ENOMEM;
	}
	for (size_t i = 0; r->rc == F8B_OK && i < n; i++) {
		r->nan_codes += (codes[i] & 0x7F) == 0x7F;
		r->sat_codes += (codes[i] & 0x7F) == 0x7E;
	}
	if (r->rc == F8B_OK)
		r->step = "done";
	free(codes);
	ops->free(be, ds);
	ops->free(be, am);
	f8b_tensor_free(ops, be, &dtt);
	f8b_tensor_free(ops, be, &dt);
	ops->gemm_plan_free(be, plan);
}
