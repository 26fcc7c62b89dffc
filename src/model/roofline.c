/* roofline.c - flops and minimal bytes per kernel, machine ceilings
 * (datasheet or measured by `f8bench ceilings`), predicted times.
 * Every formula here is written out in words in doc/roofline.md. */
#define _POSIX_C_SOURCE 200809L
#include "model/roofline.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/schema.h"

/* A scale (and amax, scale_inv) tensor element is one fp32. */
#define SCALE_BYTES 4.0

/* Elements of a rows x cols tensor, as a double (shapes up to 2^53 are
 * exact, far past any device memory). */
static double elems(int64_t rows, int64_t cols)
{
	if (rows <= 0 || cols <= 0)
		return 0.0;
	return (double)rows * (double)cols;
}

/* Floats of one scale tensor (storage, padding included: a kernel writes
 * or reads the whole allocation, scaling.h). */
static double scales(enum f8b_granularity g, int64_t rows, int64_t cols)
{
	if (rows <= 0 || cols <= 0)
		return 0.0;
	return (double)f8b_scale_count(g, rows, cols);
}

static double dsize(enum f8b_dtype t)
{
	return (double)f8b_dtype_size(t);
}

void f8b_cost_gemm(const struct f8b_gemm_desc *d, struct f8b_cost *c)
{
	double m = (double)d->m, n = (double)d->n, k = (double)d->k;

	/* One multiply-add (2 flops) per (m, n, k) triple. */
	c->flops = 2.0 * m * n * k;
	c->bytes_read =
	    elems(d->m, d->k) * dsize(d->a_dtype) + elems(d->n, d->k) * dsize(d->b_dtype);
	/* fp8 operands bring their scale_inv tensors (backend.h): A's scales
	 * run along its rows x K, B's along N x K. */
	if (f8b_dtype_is_fp8(d->a_dtype))
		c->bytes_read += SCALE_BYTES * scales(d->a_gran, d->m, d->k);
	if (f8b_dtype_is_fp8(d->b_dtype))
		c->bytes_read += SCALE_BYTES * scales(d->b_gran, d->n, d->k);
	c->bytes_written = elems(d->m, d->n) * dsize(d->out_dtype);
	/* An e4m3 D (1 byte an element) reads its d_scale and writes its
	 * amax_d, one fp32 each (backend.h). */
	if (d->out_dtype == F8B_E4M3) {
		c->bytes_read += SCALE_BYTES;
		c->bytes_written += SCALE_BYTES;
	}
	/* out_t: D^T written too, as many bytes again */
	if (d->out_t)
		c->bytes_written += elems(d->m, d->n) * dsize(d->out_dtype);
}

void f8b_cost_amax(enum f8b_dtype in, enum f8b_granularity g, int64_t rows, int64_t cols,
                   struct f8b_cost *c)
{
	double n = elems(rows, cols);

	c->flops = n; /* one |x| compare-max per element */
	c->bytes_read = n * dsize(in);
	c->bytes_written = SCALE_BYTES * scales(g, rows, cols);
}

void f8b_cost_scales(enum f8b_granularity g, int64_t rows, int64_t cols, struct f8b_cost *c)
{
	double s = scales(g, rows, cols);

	c->flops = 2.0 * s; /* scale = max/amax, scale_inv = 1/scale */
	c->bytes_read = SCALE_BYTES * s;
	c->bytes_written = 2.0 * SCALE_BYTES * s;
}

void f8b_cost_cast(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g, int64_t rows,
                   int64_t cols, struct f8b_cost *c)
{
	double n = elems(rows, cols);

	c->flops = n; /* one multiply by the block's scale per element */
	c->bytes_read = n * dsize(in) + SCALE_BYTES * scales(g, rows, cols);
	c->bytes_written = n * dsize(out);
}

void f8b_cost_cast_transpose(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g,
                             int64_t rows, int64_t cols, struct f8b_cost *c)
{
	/* Same reads and products as the cast; q is stored twice (q, q^T). */
	f8b_cost_cast(in, out, g, rows, cols, c);
	c->bytes_written *= 2.0;
}

void f8b_cost_amax_cast_fused(enum f8b_dtype in, enum f8b_dtype out, enum f8b_granularity g,
                              int64_t rows, int64_t cols, struct f8b_cost *c)
{
	double n = elems(rows, cols), s = scales(g, rows, cols);

	/* Pass 1 reads x for the amax, pass 2 reads it again for the cast (x
	 * does not fit on chip between the passes for training-sized
	 * tensors).  amax and scale stay on chip; what leaves the kernel is
	 * q and the scale_inv tensor the GEMM reads. */
	c->flops = 2.0 * n + 2.0 * s;
	c->bytes_read = 2.0 * n * dsize(in);
	c->bytes_written = n * dsize(out) + SCALE_BYTES * s;
}

double f8b_cost_bytes(const struct f8b_cost *c)
{
	return c->bytes_read + c->bytes_written;
}

double f8b_cost_intensity(const struct f8b_cost *c)
{
	double b = f8b_cost_bytes(c);

	return b > 0 ? c->flops / b : NAN;
}

/* A ceiling is usable when it is a finite rate above zero. */
static bool usable(double rate)
{
	return isfinite(rate) && rate > 0;
}

double f8b_roofline_time(const struct f8b_cost *c, const struct f8b_ceilings *ceil,
                         enum f8b_dtype compute)
{
	double bytes = f8b_cost_bytes(c);

	if (!(c->flops >= 0) || !(bytes >= 0) || !isfinite(c->flops) || !isfinite(bytes))
		return NAN;
	if (!usable(ceil->hbm_bytes_per_s) || !isfinite(ceil->launch_s) || ceil->launch_s < 0)
		return NAN;
	double t = bytes / ceil->hbm_bytes_per_s;
	if (compute != F8B_F32) {
		double peak = NAN;
		if (compute == F8B_BF16)
			peak = ceil->bf16_flops_per_s;
		else if (f8b_dtype_is_fp8(compute))
			peak = ceil->fp8_flops_per_s;
		/* fp8 rate 0 = a GPU without fp8 tensor cores: no prediction. */
		if (!usable(peak))
			return NAN;
		double t_math = c->flops / peak;
		if (t_math > t)
			t = t_math;
	}
	return t + ceil->launch_s;
}

double f8b_pct_of_roofline(double predicted_s, double measured_s)
{
	if (!isfinite(predicted_s) || !isfinite(measured_s) || predicted_s < 0 || measured_s <= 0)
		return NAN;
	return 100.0 * predicted_s / measured_s;
}

void f8b_ceilings_datasheet(const struct f8b_peaks *p, struct f8b_ceilings *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->source, sizeof c->source, "datasheet");
	/* The launch gap is not a datasheet number and does not depend on
	 * the device model, so it is set even for an unknown device (a
	 * measured file without a launch row then still gets one). */
	c->launch_s = F8B_DEFAULT_LAUNCH_S;
	if (!p->known) {
		c->hbm_bytes_per_s = NAN;
		c->bf16_flops_per_s = NAN;
		c->fp8_flops_per_s = NAN;
		snprintf(c->detail, sizeof c->detail,
		         "no roofline/datasheet.tsv row for this device (%s)", p->how);
		return;
	}
	/* datasheet.tsv: TFLOP/s (1e12 flop/s) and TB/s (1e12 B/s). */
	c->hbm_bytes_per_s = p->hbm_tbs * 1e12;
	c->bf16_flops_per_s = p->bf16_tflops * 1e12;
	c->fp8_flops_per_s = p->fp8_tflops > 0 ? p->fp8_tflops * 1e12 : 0.0;
	snprintf(c->detail, sizeof c->detail, "roofline/datasheet.tsv row '%s' (%s)", p->name,
	         p->how);
}

/* ---- ceilings measured by `f8bench ceilings` ----------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_i64_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/* Median of v[0..n) (sorts v); NaN when n == 0. */
static double median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A fixed-length string column equals s (the column is NUL-padded but a
 * full-length value has no NUL, so never read past its size). */
static bool col_is(const char *col, size_t size, const char *s)
{
	size_t n = strlen(s);

	return n < size && strncmp(col, s, size) == 0;
}
#define F8B_COL_IS(col, s) col_is((col), sizeof(col), (s))

static bool row_ok(const struct f8b_ceilings_row *r)
{
	return F8B_COL_IS(r->status, F8B_ROW_OK) && isfinite(r->value) && r->value > 0;
}

static bool is_copy(const struct f8b_ceilings_row *r)
{
	return F8B_COL_IS(r->kind, "copy") && row_ok(r) && r->bytes > 0;
}

/* HBM bandwidth: the plateau of the copy sweep, i.e. the median of the ok
 * copy rows at the three largest working sets (small ones sit in L2 and
 * would overstate device memory; one size alone is at the mercy of one
 * noisy point).  NaN when there is no such row.  sizes and vals are
 * scratch of n entries each. */
static double hbm_plateau(const struct f8b_ceilings_row *rows, size_t n, int64_t *sizes,
                          double *vals)
{
	size_t ns = 0, nv = 0;

	for (size_t i = 0; i < n; i++)
		if (is_copy(&rows[i]))
			sizes[ns++] = rows[i].bytes;
	if (ns == 0)
		return NAN;
	qsort(sizes, ns, sizeof *sizes, cmp_i64_desc);
	/* The third largest distinct size (or the smallest there is). */
	int64_t floor_bytes = sizes[0];
	int distinct = 1;
	for (size_t i = 1; i < ns && distinct < 3; i++)
		if (sizes[i] != sizes[i - 1]) {
			floor_bytes = sizes[i];
			distinct++;
		}
	for (size_t i = 0; i < n; i++)
		if (is_copy(&rows[i]) && rows[i].bytes >= floor_bytes)
			vals[nv++] = rows[i].value;
	return median(vals, nv);
}

/* After f8b_results_read failed: is it because the file has no ceilings
 * table (so the user ran the wrong command, not a broken file)? */
static bool lacks_table(const char *path, const char *table)
{
	bool lacks = false;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f >= 0) {
		lacks = H5Lexists(f, table, H5P_DEFAULT) == 0;
		H5Fclose(f);
	}
	H5Eclear2(H5E_DEFAULT);
	return lacks;
}

/* detail = path (its tail, after "...", when long) + note, within the
 * field: the file name matters more than the leading directories. */
static void set_detail(struct f8b_ceilings *c, const char *path, const char *note)
{
	size_t cap = sizeof c->detail - 1;
	size_t nn = strlen(note) < cap ? strlen(note) : cap;
	size_t room = cap - nn, len = strlen(path), at = 0;

	if (len > room && room > 3) {
		memcpy(c->detail, "...", 3);
		at = 3;
		path += len - (room - 3);
		len = room - 3;
	} else if (len > room) {
		len = room;
	}
	memcpy(c->detail + at, path, len);
	memcpy(c->detail + at + len, note, nn);
	c->detail[at + len + nn] = '\0';
}

/* "16384x8192x8192, best of 4": where a measured GEMM peak came from. */
static void peak_at(const struct f8b_ceilings_row *r, int of, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!r)
		return;
	int k =
	    snprintf(buf, n, "%lldx%lldx%lld", (long long)r->m, (long long)r->k, (long long)r->n);
	if (of > 1 && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, ", best of %d", of);
}

int f8b_ceilings_read(const char *path, const struct f8b_ceilings *fallback, struct f8b_ceilings *c)
{
	void *buf = NULL;
	size_t n = 0;

	memset(c, 0, sizeof *c);
	int rc = f8b_results_read(path, &f8b_ceilings_schema, &buf, &n);
	if (rc != F8B_OK) {
		if (rc == F8B_EIO && lacks_table(path, f8b_ceilings_schema.name))
			return F8B_ERR(F8B_EINVAL,
			               "ceilings file '%s' has no '%s' table: give a file written "
			               "by `f8bench ceilings` (run it on this GPU first)",
			               path, f8b_ceilings_schema.name);
		return rc;
	}
	const struct f8b_ceilings_row *rows = buf;

	/* Scratch for the medians: n sizes and n values. */
	int64_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
	double *vals = malloc((n ? n : 1) * sizeof *vals);
	if (!sizes || !vals) {
		free(sizes);
		free(vals);
		free(buf);
		return F8B_ERR(F8B_ENOMEM, "reading ceilings file '%s': no memory for %zu rows",
		               path, n);
	}
	double bf16 = NAN, fp8 = NAN;
	const struct f8b_ceilings_row *best_bf16 = NULL, *best_fp8 = NULL;
	int n_bf16 = 0, n_fp8 = 0;
	size_t nl = 0;
	for (size_t i = 0; i < n; i++) {
		const struct f8b_ceilings_row *r = &rows[i];
		if (!row_ok(r))
			continue;
		if (F8B_COL_IS(r->kind, "gemm")) {
			/* The best GEMM of a dtype is the closest to its peak
			 * this machine reaches. */
			bool is_bf16 = F8B_COL_IS(r->dtype, "bf16");
			bool is_fp8 = F8B_COL_IS(r->dtype, "e4m3") ||
			              F8B_COL_IS(r->dtype, "e5m2") ||
			              F8B_COL_IS(r->dtype, "e4m3fn");
			if (is_bf16 && (isnan(bf16) || r->value > bf16)) {
				bf16 = r->value;
				best_bf16 = r;
			} else if (is_fp8 && (isnan(fp8) || r->value > fp8)) {
				fp8 = r->value;
				best_fp8 = r;
			}
			n_bf16 += is_bf16;
			n_fp8 += is_fp8;
		} else if (F8B_COL_IS(r->kind, "launch")) {
			vals[nl++] = r->value;
		}
	}
	/* One launch row per run; the median copes with appended reruns. */
	c->launch_s = median(vals, nl);
	c->hbm_bytes_per_s = hbm_plateau(rows, n, sizes, vals);
	c->bf16_flops_per_s = bf16;
	c->fp8_flops_per_s = fp8;
	peak_at(best_bf16, n_bf16, c->bf16_at, sizeof c->bf16_at);
	peak_at(best_fp8, n_fp8, c->fp8_at, sizeof c->fp8_at);
	free(sizes);
	free(vals);
	free(buf);

	/* Fill the gaps from the fallback and say which they were. */
	char missing[96] = "";
	int measured = 0;
	struct {
		double *v;
		double fb;
		const char *name;
	} piece[4] = {
	    {&c->hbm_bytes_per_s, fallback ? fallback->hbm_bytes_per_s : NAN, "hbm"},
	    {&c->bf16_flops_per_s, fallback ? fallback->bf16_flops_per_s : NAN, "bf16"},
	    {&c->fp8_flops_per_s, fallback ? fallback->fp8_flops_per_s : NAN, "fp8"},
	    {&c->launch_s, fallback ? fallback->launch_s : NAN, "launch"},
	};
	for (int i = 0; i < 4; i++) {
		if (!isnan(*piece[i].v)) {
			measured++;
			continue;
		}
		*piece[i].v = piece[i].fb;
		size_t used = strlen(missing);
		snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
		         piece[i].name);
	}

	char note[128] = "";
	if (missing[0]) {
		const char *from = fallback ? fallback->source : "";
		if (fallback && from[0])
			snprintf(note, sizeof note, " (not measured, from %s: %s)", from, missing);
		else
			snprintf(note, sizeof note, " (not measured, unknown: %s)", missing);
	}
	/* Nothing usable in the file: the numbers are all the fallback's, so
	 * its label is the honest one. */
	if (measured == 0 && fallback && fallback->source[0])
		snprintf(c->source, sizeof c->source, "%s", fallback->source);
	else
		snprintf(c->source, sizeof c->source, "measured");
	set_detail(c, path, note);
	return F8B_OK;
}
