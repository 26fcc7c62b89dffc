/* lls_pt.c - the plumbing the lls kernel tests share (lls_pt.h): tensors
 * and float buffers on both backends, comparisons with diagnostics.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lls_pt.h"

const struct f8b_backend_ops *H = &f8b_backend_host, *D = &f8b_backend_cuda;
struct f8b_backend *hbe, *dbe;
const char *lls_pt_prog = "test";

/* A TAP comment line (tap.h's counters live in the test's own file). */
static void pt_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void pt_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", lls_pt_prog, what, f8b_last_error());
	exit(99); /* a hard error for the TAP driver */
}

/* off: elements by which the device data is shifted from the 256-byte
 * aligned allocation (1: every vector path is refused). */
struct pt pmk(enum f8b_dtype dt, int64_t rows, int64_t cols, int off)
{
	struct pt p;
	size_t es = f8b_dtype_size(dt), bytes = (size_t)(rows * cols) * es;

	if (f8b_tensor_alloc(H, hbe, &p.h, dt, rows, cols) != F8B_OK)
		die("host alloc");
	memset(p.h.data, 0, bytes);
	p.d = p.h;
	if (D->alloc(dbe, bytes + 16, &p.dbase) != F8B_OK ||
	    D->memset(dbe, p.dbase, 0, bytes + 16) != F8B_OK)
		die("device alloc");
	p.d.data = (char *)p.dbase + (size_t)off * es;
	return p;
}

void pfree(struct pt *p)
{
	f8b_tensor_free(H, hbe, &p->h);
	D->free(dbe, p->dbase);
}

size_t pbytes(const struct pt *p)
{
	return f8b_tensor_bytes(&p->h);
}

/* Fills the host copy and uploads it. */
void pfill(struct pt *p, uint64_t seed, float mean, float std)
{
	struct f8b_fill_spec s = {.seed = seed, .mean = mean, .std = std};
	if (H->fill(hbe, &p->h, &s) != F8B_OK || D->upload(dbe, p->d.data, p->h.data, pbytes(p)))
		die("fill");
}

/* The device copy, downloaded into a new host tensor. */
struct f8b_tensor pdown(const struct pt *p)
{
	struct f8b_tensor t;
	if (f8b_tensor_alloc(H, hbe, &t, p->h.dtype, p->h.rows, p->h.cols) != F8B_OK ||
	    D->download(dbe, t.data, p->d.data, pbytes(p)) != F8B_OK)
		die("download");
	return t;
}

struct pf fmk(int64_t n)
{
	struct pf f = {calloc((size_t)(n > 0 ? n : 1), sizeof(float)), NULL, n};
	if (!f.h || D->alloc(dbe, (size_t)n * 4 + 4, (void **)&f.d) != F8B_OK ||
	    D->memset(dbe, f.d, 0, (size_t)n * 4 + 4) != F8B_OK)
		die("float buffers");
	return f;
}

float *fdown(const struct pf *f)
{
	float *p = malloc((size_t)f->n * 4 + 4);
	if (!p || D->download(dbe, p, f->d, (size_t)f->n * 4) != F8B_OK)
		die("download floats");
	return p;
}

void ffree(struct pf *f)
{
	free(f->h);
	D->free(dbe, f->d);
}

/* Byte-exact comparison; names the first difference. */
bool same(const void *a, const void *b, size_t n, size_t es, const char *what)
{
	const unsigned char *x = a, *y = b;
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < n * es; i++)
		if (x[i] != y[i] && bad++ == 0)
			first = i / es;
	if (bad)
		pt_diag("%s: %zu bytes differ, first at element %zu", what, bad, first);
	return bad == 0;
}

double bfv(const struct f8b_tensor *t, int64_t i)
{
	return (double)f8b_bf16_to_f32(((const uint16_t *)t->data)[i]);
}

double bf16_ulp(double v)
{
	int e;
	v = fabs(v);
	if (v < 0x1p-126)
		return 0x1p-133;
	(void)frexp(v, &e);
	return ldexp(1.0, e - 8);
}

/* GPU bf16 results against the host's.  Both round an fp32 value to bf16
 * once; the fp32 values differ only by rounding (block-tree vs sequential
 * double sums of one row, CUDA's expf vs glibc's: each a few fp32 ulps, at
 * most ~16384 * 2^-24 = 2^-10 relative for the longest row summed
 * naively).  A few fp32 ulps can move a value across a bf16 rounding
 * boundary, so one bf16 ulp of the larger result, plus `abs_tol` for
 * values that cancel (LayerNorm's x - mean; its backward's dy - a - xh*b,
 * where the row's largest term sets the error). */
int close_bf16(const struct f8b_tensor *g, const struct f8b_tensor *h, double abs_tol,
               const char *what)
{
	int64_t n = h->rows * h->cols, bad = 0, first = -1;
	for (int64_t i = 0; i < n; i++) {
		double a = bfv(g, i), b = bfv(h, i);
		if (isnan(a) && isnan(b))
			continue; /* NaN where the host has NaN */
		if (!(fabs(a - b) <= bf16_ulp(fmax(fabs(a), fabs(b))) + abs_tol) && bad++ == 0)
			first = i;
	}
	if (bad)
		pt_diag("%s: %lld of %lld beyond tolerance, first at %lld: gpu %.9g host %.9g",
		        what, (long long)bad, (long long)n, (long long)first, bfv(g, first),
		        bfv(h, first));
	return (int)bad;
}

int close_f32(const float *g, const float *h, int64_t n, double rel)
{
	int bad = 0;
	for (int64_t i = 0; i < n; i++)
		if (!(fabs((double)g[i] - h[i]) <= rel * (fabs(h[i]) + 1e-3)))
			bad++;
	return bad;
}

int lls_pt_open(char *msg, size_t len)
{
	char why[256];
	struct f8b_device_info info;

	if (f8b_cuda_device_count(why, sizeof why) <= 0) {
		snprintf(msg, len, "no CUDA GPU: %s", why);
		return 77;
	}
	int rc = D->open(0, &dbe, &info);
	if (rc == F8B_EUNSUPPORTED) {
		snprintf(msg, len, "no usable CUDA GPU: %s", f8b_last_error());
		return 77;
	}
	if (rc != F8B_OK) {
		snprintf(msg, len, "open device 0: %s", f8b_last_error());
		return 1;
	}
	if (H->open(0, &hbe, NULL) != F8B_OK) {
		snprintf(msg, len, "open the host backend: %s", f8b_last_error());
		D->close(dbe);
		return 1;
	}
	snprintf(msg, len, "device 0: %s, sm_%d%d", info.name, info.cc_major, info.cc_minor);
	return 0;
}

void lls_pt_close(void)
{
	D->close(dbe);
	H->close(hbe);
}
