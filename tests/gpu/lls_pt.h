/* lls_pt.h - plumbing shared by the GPU tests of the lls ops
 * (test_lls_kernels.c, test_lls_fused.c): a tensor or float buffer on both
 * backends (host copy h, device copy d), filled on the host and uploaded,
 * downloaded for comparison; byte-exact and bf16-tolerance comparisons
 * that name their first difference.  Errors in the plumbing itself end the
 * test with exit 99 (a hard error for the TAP driver).
 */
#ifndef F8B_LLS_PT_H
#define F8B_LLS_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "core/common.h"
#include "core/fp8.h"
#include "core/scaling.h"

extern const struct f8b_backend_ops *H, *D;
extern struct f8b_backend *hbe, *dbe;
extern const char *lls_pt_prog; /* names the test in die()'s message */

/* Opens device 0 and the host backend: 0, or 77 (no usable GPU: msg says
 * why, for the TAP skip plan) or 1 (msg says what failed); on 0 msg
 * names the device. */
int lls_pt_open(char *msg, size_t len);
void lls_pt_close(void);
void die(const char *what);

/* A tensor on both backends; h holds the host's result or the input. */
struct pt {
	struct f8b_tensor h, d;
	void *dbase; /* the device allocation (d.data may be offset) */
};

/* off: elements by which the device data is shifted from the 256-byte
 * aligned allocation (1: every vector path is refused). */
struct pt pmk(enum f8b_dtype dt, int64_t rows, int64_t cols, int off);
void pfree(struct pt *p);
size_t pbytes(const struct pt *p);
void pfill(struct pt *p, uint64_t seed, float mean, float std); /* host, then upload */
struct f8b_tensor pdown(const struct pt *p); /* device copy into a new host tensor */

/* n floats on both sides. */
struct pf {
	float *h, *d;
	int64_t n;
};

struct pf fmk(int64_t n);
float *fdown(const struct pf *f); /* malloc'd */
void ffree(struct pf *f);

/* Byte-exact comparison of n elements of es bytes; names the first difference. */
bool same(const void *a, const void *b, size_t n, size_t es, const char *what);
double bfv(const struct f8b_tensor *t, int64_t i);
double bf16_ulp(double v);
/* GPU bf16 results against the host's (lls_pt.c argues the tolerance):
 * the number of elements beyond it. */
int close_bf16(const struct f8b_tensor *g, const struct f8b_tensor *h, double abs_tol,
               const char *what);
int close_f32(const float *g, const float *h, int64_t n, double rel);

#endif
