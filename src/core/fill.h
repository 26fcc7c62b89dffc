/* fill.h - the seeded fill of every benchmark's inputs (the backends' fill
 * op: backend/backend_host.c on the host, kernels/fill.cu on a GPU).  Here,
 * below both, so the kernels need nothing of the backend's header. */
#ifndef F8B_FILL_H
#define F8B_FILL_H

#include <stdint.h>

/* Seeded fill: element i depends only on (seed, i) and is bit-identical on
 * every backend, so host and GPU results can be compared exactly and do not
 * depend on how work is split.  With
 *   mix(z)  = the splitmix64 finaliser: z ^= z>>30; z *= 0xBF58476D1CE4E5B9;
 *             z ^= z>>27; z *= 0x94D049BB133111EB; z ^= z>>31
 *   h(c)    = mix(seed + (c + 1) * 0x9E3779B97F4A7C15)      (uint64 wrap)
 *   u(c)    = (float)(h(c) >> 40) * 0x1p-24f                 (exact, [0,1))
 * element i takes u_j = u(5*(offset + i) + j), j = 0..4 (offset: where the
 * tensor starts in a larger one, e.g. a weight shard's first element in
 * the whole weight; 0 for a whole tensor), and computes in fp32, each
 * operation rounded on its own (no FMA contraction):
 *   t = u_0 + u_1; t = t + u_2; t = t + u_3; t = t - 2.0f;
 *   z = t * 1.7320508f;          (Irwin-Hall(4): mean 0, variance 1)
 *   x = z * std; x = x + mean;
 *   if (u_4 < outlier_frac) x = x * outlier_scale;
 * then stores x rounded to the tensor's dtype (bf16: RNE). */
struct f8b_fill_spec {
	uint64_t seed;
	float mean, std;
	float outlier_frac;  /* 0 = none */
	float outlier_scale; /* e.g. 100 */
	uint64_t offset;     /* index of element 0 in the whole tensor (0: whole) */
};

#endif
