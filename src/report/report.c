/* report.c - f8bench report: gemm results files -> CSV and gnuplot data
 * files, PNG and SVG plots drawn by gnuplot from the templates in
 * roofline/, and report.md.  doc/report.md says what each plot shows.
 *
 * Only finished files are read: this command never measures, and it starts
 * gnuplot with fork/exec, which is why it must not run inside an MPI
 * (measuring) process.
 *
 * The plots are styled by the templates; this file only decides what is
 * plotted: one series per (granularity, fast_accum, fp8 dtype pair), the
 * bf16 baseline as one more, written as gnuplot "index" blocks in series
 * order, and plot-vars.gp naming each block (arrays s_*), the roofs
 * (arrays r_*), the shapes and the axis ranges.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "core/options.h"
#include "model/peaks.h"
#include "harness/provenance.h"
#include "results/results.h"
#include "model/roofline.h"
#include "results/schema.h"

/* ---------------------------------------------------------------- model */

struct rpt_file {
	const char *path;
	struct f8b_provenance prov;
	struct f8b_gemm_row *rows;
	size_t nrows;
	bool has_gemm, has_ceilings;
	char missing[512]; /* gemm columns absent from this file (older schema) */
};

struct rpt_series {
	char gran[F8B_STR]; /* the scaling column; "bf16" for the baseline */
	int fast;           /* fast_accum 0/1; -1 for bf16 */
	char pair[64];      /* "e4m3 x e5m2" (fp8), "" for bf16 */
	int pair_idx;       /* index into rpt.pairs; -1 for bf16 */
	char title[160];
	char short_title[64]; /* title without the dtype pair */
	int npoints;
	int slot; /* SQNR chart: 1-based (granularity, fast_accum) slot */
};

struct rpt_shape {
	int64_t m, k, n;
	char name[64];    /* "MxKxN" */
	char labels[160]; /* the case labels seen with this shape */
};

struct rpt_point {
	const struct f8b_gemm_row *r;
	int file, series, shape;
	double ai;          /* flop/byte */
	double roof_tflops; /* attainable at ai: min(peak, ai * bandwidth) */
	double pct_roof;    /* 100 * predicted / measured time */
	double speedup;     /* bf16 time / this time */
	char roof_src[F8B_STR];
};

struct rpt_roof {
	char source[F8B_STR]; /* "measured" or "datasheet" */
	char dtype[8];        /* "bf16" or "fp8" */
	double peak_tflops;   /* NaN: no compute roof known */
	double bw_tbs;        /* NaN: no bandwidth roof known */
	char title[128];
};

#define RPT_MAX_PAIRS 8

struct rpt {
	const char *dir;
	struct rpt_file *files;
	int nfiles;
	struct rpt_series *series;
	int nseries;
	char pairs[RPT_MAX_PAIRS][64];
	int npairs;
	int nslots;
	bool show_out; /* more than one output dtype among the fp8 rows */
	struct rpt_shape *shapes;
	int nshapes;
	struct rpt_point *pts;
	size_t npts, nrows_total;
	struct f8b_peaks peaks;
	struct f8b_ceilings ds, meas, pref;
	bool have_ds, have_meas;
	const char *meas_path;
	struct rpt_roof roofs[4];
	int nroofs;
	double xmin, xmax, ymin, ymax;
	char gpu[256], date[64];
};

/* ---------------------------------------------------------------- small helpers */

static bool finite_pos(double v)
{
	return isfinite(v) && v > 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct stats {
	int n;
	double min, med, max;
};

/* Sorts v[0..n) in place (NaNs left out first). */
static void stats_of(double *v, int n, struct stats *s)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	s->n = k;
	s->min = s->med = s->max = NAN;
	if (k == 0)
		return;
	qsort(v, (size_t)k, sizeof *v, cmp_double);
	s->min = v[0];
	s->max = v[k - 1];
	s->med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* Appends "item" to a ", "-separated list unless already there. */
static void list_add(char *list, size_t size, const char *item)
{
	if (!item[0])
		return;
	size_t len = strlen(item);
	for (const char *p = list; (p = strstr(p, item)) != NULL; p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0'))
			return;
	size_t used = strlen(list);
	snprintf(list + used, size - used, "%s%s", used ? ", " : "", item);
}

/* ---------------------------------------------------------------- reading */

/* Gemm columns a results file must have for a report; the others may be
 * missing (files written before the roofline columns existed). */
static const char *const required_cols[] = {
    "m",      "k", "n", "scaling", "fast_accum", "a_dtype", "b_dtype", "status", "time_median_s",
    "tflops", NULL};

static bool is_required(const char *name)
{
	for (int i = 0; required_cols[i]; i++)
		if (!strcmp(required_cols[i], name))
			return true;
	return false;
}

/* Which tables the file has, and which gemm columns (present[i] for
 * f8b_gemm_schema.fields[i]).  results.h reads a table only when every
 * column of the schema is there; looking at the file's compound type
 * first lets a report read files from older schema versions. */
static int probe_file(struct rpt_file *f, bool *present)
{
	hid_t h = -1, d = -1, t = -1;
	int rc = F8B_OK;
	struct stat st;

	if (stat(f->path, &st) != 0)
		return F8B_ERR(F8B_EIO, "cannot read results file '%s': %s", f->path,
		               strerror(errno));
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* failures are reported below, once */
	h = H5Fopen(f->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (h < 0)
		return F8B_ERR(
		    F8B_EIO, "'%s' is not an HDF5 results file (f8bench gemm -o FILE.h5)", f->path);
	f->has_gemm = H5Lexists(h, f8b_gemm_schema.name, H5P_DEFAULT) > 0;
	f->has_ceilings = H5Lexists(h, "ceilings", H5P_DEFAULT) > 0;
	if (f->has_gemm) {
		d = H5Dopen2(h, f8b_gemm_schema.name, H5P_DEFAULT);
		t = d >= 0 ? H5Dget_type(d) : -1;
		if (t < 0 || H5Tget_class(t) != H5T_COMPOUND) {
			rc = F8B_ERR(F8B_EIO, "results file '%s': table 'gemm' is not a table",
			             f->path);
			goto out;
		}
		for (size_t i = 0; i < f8b_gemm_schema.nfields; i++) {
			const char *name = f8b_gemm_schema.fields[i].name;
			present[i] = H5Tget_member_index(t, name) >= 0;
			if (!present[i] && is_required(name)) {
				rc = F8B_ERR(F8B_EIO,
				             "results file '%s': table 'gemm' has no column '%s' "
				             "(needed: m k n scaling fast_accum a_dtype b_dtype "
				             "status time_median_s tflops)",
				             f->path, name);
				goto out;
			}
			if (!present[i])
				list_add(f->missing, sizeof f->missing, name);
		}
	}
out:
	if (t >= 0)
		H5Tclose(t);
	if (d >= 0)
		H5Dclose(d);
	H5Fclose(h);
	return rc;
}

static int read_file(struct rpt_file *f)
{
	const struct f8b_table_schema *full = &f8b_gemm_schema;
	bool *present = calloc(full->nfields, sizeof *present);
	struct f8b_field *fields = calloc(full->nfields, sizeof *fields);
	int rc = F8B_OK;

	if (!present || !fields) {
		rc = F8B_ERR(F8B_ENOMEM, "no memory to read '%s'", f->path);
		goto out;
	}
	rc = probe_file(f, present);
	if (rc == F8B_OK)
		rc = f8b_results_read_provenance(f->path, &f->prov);
	if (rc != F8B_OK || !f->has_gemm)
		goto out;
	size_t nf = 0;
	for (size_t i = 0; i < full->nfields; i++)
		if (present[i])
			fields[nf++] = full->fields[i];
	struct f8b_table_schema s = *full;
	s.fields = fields;
	s.nfields = nf;
	void *rows = NULL;
	rc = f8b_results_read(f->path, &s, &rows, &f->nrows);
	if (rc != F8B_OK)
		goto out;
	f->rows = rows;
	/* Columns the file lacks read as "unknown": NaN, not a zero that
	 * would plot as a measurement. */
	for (size_t i = 0; i < full->nfields; i++) {
		if (present[i] || full->fields[i].type != F8B_FT_F64)
			continue;
		for (size_t j = 0; j < f->nrows; j++) {
			double nan = NAN;
			memcpy((char *)&f->rows[j] + full->fields[i].offset, &nan, sizeof nan);
		}
	}
out:
	free(present);
	free(fields);
	return rc;
}

/* ---------------------------------------------------------------- classification */

static int gran_rank(const char *g)
{
	static const char *const order[] = {"bf16", "tensorwise", "axiswise", "blockwise", NULL};
	for (int i = 0; order[i]; i++)
		if (!strcmp(g, order[i]))
			return i;
	return 4;
}

static bool row_is_fp8(const struct f8b_gemm_row *r)
{
	enum f8b_dtype a, b;
	return (f8b_dtype_parse(r->a_dtype, &a) == F8B_OK && f8b_dtype_is_fp8(a)) ||
	       (f8b_dtype_parse(r->b_dtype, &b) == F8B_OK && f8b_dtype_is_fp8(b));
}

static void row_pair(const struct f8b_gemm_row *r, bool with_out, char *buf, size_t n)
{
	if (with_out)
		snprintf(buf, n, "%s x %s -> %s", r->a_dtype, r->b_dtype, r->out_dtype);
	else
		snprintf(buf, n, "%s x %s", r->a_dtype, r->b_dtype);
}

static int find_series(struct rpt *R, const char *gran, int fast, const char *pair)
{
	for (int i = 0; i < R->nseries; i++)
		if (!strcmp(R->series[i].gran, gran) && R->series[i].fast == fast &&
		    !strcmp(R->series[i].pair, pair))
			return i;
	return -1;
}

static void row_key(const struct rpt *R, const struct f8b_gemm_row *r, char *gran, int *fast,
                    char *pair)
{
	if (row_is_fp8(r)) {
		snprintf(gran, F8B_STR, "%s", r->scaling[0] ? r->scaling : "unknown");
		*fast = r->fast_accum ? 1 : 0;
		row_pair(r, R->show_out, pair, 64);
	} else {
		snprintf(gran, F8B_STR, "bf16");
		*fast = -1;
		pair[0] = '\0';
	}
}

static int pair_index(const struct rpt *R, const char *pair)
{
	for (int i = 0; i < R->npairs; i++)
		if (!strcmp(R->pairs[i], pair))
			return i;
	return -1;
}

static int cmp_series(const void *a, const void *b)
{
	const struct rpt_series *x = a, *y = b;
	if ((x->pair_idx < 0) != (y->pair_idx < 0))
		return x->pair_idx < 0 ? -1 : 1;
	if (x->pair_idx != y->pair_idx)
		return x->pair_idx - y->pair_idx;
	if (gran_rank(x->gran) != gran_rank(y->gran))
		return gran_rank(x->gran) - gran_rank(y->gran);
	int c = strcmp(x->gran, y->gran);
	if (c)
		return c;
	return y->fast - x->fast; /* fast_accum on first */
}

static int cmp_shape(const void *a, const void *b)
{
	const struct rpt_shape *x = a, *y = b;
	double fx = (double)x->m * (double)x->k * (double)x->n;
	double fy = (double)y->m * (double)y->k * (double)y->n;
	if (fx != fy)
		return fx < fy ? -1 : 1;
	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

static int find_shape(const struct rpt *R, const struct f8b_gemm_row *r)
{
	for (int i = 0; i < R->nshapes; i++)
		if (R->shapes[i].m == r->m && R->shapes[i].k == r->k && R->shapes[i].n == r->n)
			return i;
	return -1;
}

static int cmp_pair(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Flops and minimal bytes of the row's GEMM (roofline.h), false when its
 * dtypes are not ones f8bench knows. */
static bool row_cost(const struct f8b_gemm_row *r, struct f8b_cost *c)
{
	struct f8b_gemm_desc d = {.m = r->m, .n = r->n, .k = r->k, .fast_accum = r->fast_accum};
	if (f8b_dtype_parse(r->a_dtype, &d.a_dtype) != F8B_OK ||
	    f8b_dtype_parse(r->b_dtype, &d.b_dtype) != F8B_OK)
		return false;
	if (f8b_dtype_parse(r->out_dtype, &d.out_dtype) != F8B_OK)
		d.out_dtype = F8B_BF16; /* what every f8bench GEMM writes unless told */
	/* bf16 operands have no scales: their granularity is ignored. */
	if (f8b_granularity_parse(r->a_gran, &d.a_gran) != F8B_OK)
		d.a_gran = F8B_GRAN_TENSORWISE;
	if (f8b_granularity_parse(r->b_gran, &d.b_gran) != F8B_OK)
		d.b_gran = F8B_GRAN_TENSORWISE;
	f8b_cost_gemm(&d, c);
	return true;
}

static double roof_at(const struct f8b_ceilings *c, bool fp8, double ai)
{
	double peak = (fp8 ? c->fp8_flops_per_s : c->bf16_flops_per_s) / 1e12;
	double bw = c->hbm_bytes_per_s / 1e12;
	if (finite_pos(peak) && finite_pos(bw))
		return fmin(peak, ai * bw);
	return finite_pos(peak) ? peak : finite_pos(bw) ? ai * bw : NAN;
}

/* SQNR slots: one per (granularity, fast_accum), in series order without
 * the dtype pair. */
static int cmp_slot(const void *a, const void *b)
{
	const struct rpt_series *x = a, *y = b;
	if (gran_rank(x->gran) != gran_rank(y->gran))
		return gran_rank(x->gran) - gran_rank(y->gran);
	int c = strcmp(x->gran, y->gran);
	return c ? c : y->fast - x->fast;
}

static int assign_slots(struct rpt *R)
{
	struct rpt_series *tmp = malloc((size_t)(R->nseries ? R->nseries : 1) * sizeof *tmp);
	if (!tmp)
		return F8B_ERR(F8B_ENOMEM, "no memory for %d series", R->nseries);
	memcpy(tmp, R->series, (size_t)R->nseries * sizeof *tmp);
	qsort(tmp, (size_t)R->nseries, sizeof *tmp, cmp_slot);
	R->nslots = 0;
	for (int k = 0; k < R->nseries; k++) {
		if (k && !cmp_slot(&tmp[k - 1], &tmp[k]))
			continue;
		R->nslots++;
		for (int i = 0; i < R->nseries; i++)
			if (!cmp_slot(&R->series[i], &tmp[k]))
				R->series[i].slot = R->nslots;
	}
	free(tmp);
	return F8B_OK;
}

static int classify(struct rpt *R)
{
	size_t cap = 0;
	for (int f = 0; f < R->nfiles; f++)
		cap += R->files[f].nrows;
	R->nrows_total = cap;
	R->pts = calloc(cap ? cap : 1, sizeof *R->pts);
	R->series = calloc(cap ? cap : 1, sizeof *R->series);
	R->shapes = calloc(cap ? cap : 1, sizeof *R->shapes);
	if (!R->pts || !R->series || !R->shapes)
		return F8B_ERR(F8B_ENOMEM, "no memory for %zu gemm rows", cap);

	/* Dtype pairs first (series sort by them); the output dtype is named
	 * only when the fp8 rows do not all share one. */
	char out0[F8B_STR] = "";
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			if (strcmp(r->status, F8B_ROW_OK) || !row_is_fp8(r))
				continue;
			if (!out0[0])
				snprintf(out0, sizeof out0, "%s", r->out_dtype);
			else if (strcmp(out0, r->out_dtype))
				R->show_out = true;
		}
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			char pair[64];
			if (strcmp(r->status, F8B_ROW_OK) || !row_is_fp8(r))
				continue;
			row_pair(r, R->show_out, pair, sizeof pair);
			if (pair_index(R, pair) >= 0)
				continue;
			if (R->npairs == RPT_MAX_PAIRS)
				return F8B_ERR(F8B_EINVAL,
				               "more than %d fp8 dtype pairs in the files: report "
				               "fewer at a time",
				               RPT_MAX_PAIRS);
			snprintf(R->pairs[R->npairs++], sizeof R->pairs[0], "%s", pair);
		}
	qsort(R->pairs, (size_t)R->npairs, sizeof R->pairs[0], cmp_pair);

	/* Series and shapes of the ok rows. */
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			char gran[F8B_STR], pair[64];
			int fast;
			if (strcmp(r->status, F8B_ROW_OK))
				continue;
			row_key(R, r, gran, &fast, pair);
			if (find_series(R, gran, fast, pair) < 0) {
				struct rpt_series *s = &R->series[R->nseries++];
				snprintf(s->gran, sizeof s->gran, "%s", gran);
				s->fast = fast;
				snprintf(s->pair, sizeof s->pair, "%s", pair);
				s->pair_idx = pair_index(R, pair);
			}
			int sh = find_shape(R, r);
			if (sh < 0) {
				struct rpt_shape *s = &R->shapes[sh = R->nshapes++];
				s->m = r->m;
				s->k = r->k;
				s->n = r->n;
				snprintf(s->name, sizeof s->name, "%lldx%lldx%lld", (long long)r->m,
				         (long long)r->k, (long long)r->n);
			}
			list_add(R->shapes[sh].labels, sizeof R->shapes[sh].labels, r->label);
		}
	qsort(R->series, (size_t)R->nseries, sizeof *R->series, cmp_series);
	qsort(R->shapes, (size_t)R->nshapes, sizeof *R->shapes, cmp_shape);
	F8B_TRY(assign_slots(R));
	for (int i = 0; i < R->nseries; i++) {
		struct rpt_series *s = &R->series[i];
		if (s->fast < 0)
			snprintf(s->short_title, sizeof s->short_title, "bf16 (baseline)");
		else
			snprintf(s->short_title, sizeof s->short_title, "%s, fast_accum %s",
			         s->gran, s->fast ? "on" : "off");
		snprintf(s->title, sizeof s->title, "%s%s%s", s->short_title,
		         R->npairs > 1 && s->fast >= 0 ? ", " : "",
		         R->npairs > 1 && s->fast >= 0 ? s->pair : "");
	}

	/* Points. */
	for (int f = 0; f < R->nfiles; f++)
		for (size_t j = 0; j < R->files[f].nrows; j++) {
			const struct f8b_gemm_row *r = &R->files[f].rows[j];
			char gran[F8B_STR], pair[64];
			int fast;
			if (strcmp(r->status, F8B_ROW_OK))
				continue;
			struct rpt_point *p = &R->pts[R->npts++];
			row_key(R, r, gran, &fast, pair);
			p->r = r;
			p->file = f;
			p->series = find_series(R, gran, fast, pair);
			p->shape = find_shape(R, r);
			R->series[p->series].npoints++;

			struct f8b_cost c;
			bool have_cost = row_cost(r, &c);
			p->ai = r->arith_intensity;
			if (!finite_pos(p->ai))
				p->ai = have_cost ? f8b_cost_intensity(&c) : NAN;
			p->roof_tflops = roof_at(&R->pref, row_is_fp8(r), p->ai);
			/* The run's own figure when it recorded one; else the model
			 * with the ceilings this report uses. */
			p->pct_roof = r->pct_of_roofline;
			snprintf(p->roof_src, sizeof p->roof_src, "%s", r->roofline_source);
			if (!isfinite(p->pct_roof) && have_cost) {
				double t = f8b_roofline_time(&c, &R->pref,
				                             row_is_fp8(r) ? F8B_E4M3 : F8B_BF16);
				p->pct_roof = f8b_pct_of_roofline(t, r->time_median_s);
				snprintf(p->roof_src, sizeof p->roof_src, "%s",
				         isfinite(p->pct_roof) ? R->pref.source : "");
			}
			p->speedup = r->speedup_vs_bf16;
			if (!finite_pos(p->speedup) && finite_pos(r->bf16_time_median_s) &&
			    finite_pos(r->time_median_s))
				p->speedup = r->bf16_time_median_s / r->time_median_s;
			if (!finite_pos(p->speedup))
				p->speedup = NAN;
		}
	return F8B_OK;
}

/* ---------------------------------------------------------------- ceilings and ranges */

static void add_roof(struct rpt *R, const struct f8b_ceilings *c, bool fp8)
{
	double peak = (fp8 ? c->fp8_flops_per_s : c->bf16_flops_per_s) / 1e12;
	double bw = c->hbm_bytes_per_s / 1e12;
	if (!finite_pos(peak) && !finite_pos(bw))
		return;
	if (!finite_pos(peak) && fp8)
		return; /* the bandwidth slope is drawn with the bf16 roof */
	struct rpt_roof *o = &R->roofs[R->nroofs++];
	snprintf(o->source, sizeof o->source, "%s", c->source);
	snprintf(o->dtype, sizeof o->dtype, "%s", fp8 ? "fp8" : "bf16");
	o->peak_tflops = finite_pos(peak) ? peak : NAN;
	o->bw_tbs = finite_pos(bw) ? bw : NAN;
	char p[32] = "?", b[32] = "?";
	if (finite_pos(peak))
		snprintf(p, sizeof p, "%.4g TFLOP/s", peak);
	if (finite_pos(bw))
		snprintf(b, sizeof b, "%.3g TB/s", bw);
	snprintf(o->title, sizeof o->title, "%s roof, %s (%s, %s)", fp8 ? "fp8" : "bf16", c->source,
	         p, b);
}

/* Datasheet ceilings of the device named by the first file's provenance;
 * measured ones from --ceilings or the first file with a ceilings table. */
static int ceilings(struct rpt *R, const char *ceil_path)
{
	struct f8b_device_info dev;
	memset(&dev, 0, sizeof dev);
	const struct f8b_provenance *pv = &R->files[0].prov;
	const char *name = f8b_prov_get(pv, "device_name");
	const char *pci = f8b_prov_get(pv, "device_pci_id");
	snprintf(dev.name, sizeof dev.name, "%s", name ? name : "");
	dev.pci_device_id = pci ? (unsigned)strtoul(pci, NULL, 0) : 0;
	f8b_peaks_lookup(&dev, &R->peaks);
	f8b_ceilings_datasheet(&R->peaks, &R->ds);
	R->have_ds = R->peaks.known;

	R->meas_path = ceil_path;
	for (int f = 0; !R->meas_path && f < R->nfiles; f++)
		if (R->files[f].has_ceilings)
			R->meas_path = R->files[f].path;
	if (R->meas_path) {
		int rc = f8b_ceilings_read(R->meas_path, NULL, &R->meas);
		if (rc != F8B_OK)
			return rc;
		R->have_meas = true;
	}
	/* The ceilings for % of roofline: measured where known, the
	 * datasheet's for the rest. */
	R->pref = R->have_meas ? R->meas : R->ds;
	if (R->have_meas && R->have_ds) {
		if (!finite_pos(R->pref.hbm_bytes_per_s))
			R->pref.hbm_bytes_per_s = R->ds.hbm_bytes_per_s;
		if (!finite_pos(R->pref.bf16_flops_per_s))
			R->pref.bf16_flops_per_s = R->ds.bf16_flops_per_s;
		if (!finite_pos(R->pref.fp8_flops_per_s))
			R->pref.fp8_flops_per_s = R->ds.fp8_flops_per_s;
		if (!finite_pos(R->pref.launch_s))
			R->pref.launch_s = R->ds.launch_s;
	}
	if (R->have_meas) {
		snprintf(R->meas.source, sizeof R->meas.source, "measured");
		add_roof(R, &R->meas, false);
		add_roof(R, &R->meas, true);
	}
	if (R->have_ds) {
		snprintf(R->ds.source, sizeof R->ds.source, "datasheet");
		add_roof(R, &R->ds, false);
		add_roof(R, &R->ds, true);
	}
	return F8B_OK;
}

/* Round down / up to 1, 2 or 5 times a power of ten: log axes that end on
 * a labelled value without a nearly empty decade. */
static double nice_down(double v)
{
	double d = pow(10, floor(log10(v)));
	return v >= 5 * d ? 5 * d : v >= 2 * d ? 2 * d : d;
}

static double nice_up(double v)
{
	double d = pow(10, floor(log10(v)));
	return v <= d ? d : v <= 2 * d ? 2 * d : v <= 5 * d ? 5 * d : 10 * d;
}

/* Log-log ranges: 1-2-5 steps around every point, each roof's ridge
 * (peak / bandwidth) with room to its left for the bandwidth slope, and
 * the highest roof. */
static void roofline_ranges(struct rpt *R)
{
	double ai_lo = INFINITY, ai_hi = 0, tf_lo = INFINITY, tf_hi = 0;
	for (size_t i = 0; i < R->npts; i++) {
		const struct rpt_point *p = &R->pts[i];
		if (!finite_pos(p->ai) || !finite_pos(p->r->tflops))
			continue;
		ai_lo = fmin(ai_lo, p->ai);
		ai_hi = fmax(ai_hi, p->ai);
		tf_lo = fmin(tf_lo, p->r->tflops);
		tf_hi = fmax(tf_hi, p->r->tflops);
	}
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *o = &R->roofs[i];
		if (finite_pos(o->peak_tflops) && finite_pos(o->bw_tbs)) {
			double ridge = o->peak_tflops / o->bw_tbs;
			ai_lo = fmin(ai_lo, ridge / 8);
			ai_hi = fmax(ai_hi, ridge * 4);
		}
		if (finite_pos(o->peak_tflops))
			tf_hi = fmax(tf_hi, o->peak_tflops);
	}
	if (!(ai_hi > 0)) { /* nothing plottable: any sane frame */
		ai_lo = 1;
		ai_hi = 1000;
		tf_lo = 1;
		tf_hi = 1000;
	}
	R->xmin = nice_down(ai_lo / 1.5);
	R->xmax = nice_up(ai_hi * 1.5);
	R->ymin = nice_down(tf_lo / 2);
	R->ymax = nice_up(tf_hi * 1.5);
}

/* GPU and date for titles, from every file's provenance. */
static void title_facts(struct rpt *R)
{
	char lo[16] = "", hi[16] = "";
	for (int f = 0; f < R->nfiles; f++) {
		const char *g = f8b_prov_get(&R->files[f].prov, "device_name");
		const char *t = f8b_prov_get(&R->files[f].prov, "utc_time");
		list_add(R->gpu, sizeof R->gpu, g && g[0] ? g : "unknown device");
		if (t && strlen(t) >= 10) {
			char d[16];
			snprintf(d, sizeof d, "%.10s", t);
			if (!lo[0] || strcmp(d, lo) < 0)
				snprintf(lo, sizeof lo, "%s", d);
			if (!hi[0] || strcmp(d, hi) > 0)
				snprintf(hi, sizeof hi, "%s", d);
		}
	}
	if (!lo[0])
		snprintf(R->date, sizeof R->date, "date unknown");
	else if (!strcmp(lo, hi))
		snprintf(R->date, sizeof R->date, "%s", lo);
	else
		snprintf(R->date, sizeof R->date, "%s to %s", lo, hi);
}

/* ---------------------------------------------------------------- output files */

struct out {
	FILE *f;
	char path[4096];
	const char *name;
};

static int out_open(const struct rpt *R, struct out *o, const char *name)
{
	o->name = name;
	snprintf(o->path, sizeof o->path, "%s/%s", R->dir, name);
	o->f = fopen(o->path, "w");
	if (!o->f)
		return F8B_ERR(F8B_EIO, "cannot write '%s': %s", o->path, strerror(errno));
	return F8B_OK;
}

static int out_close(struct out *o, int rc)
{
	if (!o->f)
		return rc;
	bool bad = ferror(o->f);
	if (fclose(o->f) != 0)
		bad = true;
	o->f = NULL;
	if (bad && rc == F8B_OK)
		rc = F8B_ERR(F8B_EIO, "writing '%s' failed (disk full?)", o->path);
	return rc;
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A ", " list as one CSV field, ";"-separated: no quoting needed for
 * labels, so awk -F, and cut read the file. */
static void csv_list(FILE *f, const char *s)
{
	char buf[512];
	size_t k = 0;
	for (; *s && k + 1 < sizeof buf; s++) {
		if (s[0] == ',' && s[1] == ' ')
			buf[k++] = ';', s++;
		else
			buf[k++] = *s;
	}
	buf[k] = '\0';
	csv_str(f, buf);
}

static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("nan", f);
	else
		fprintf(f, "%.6g", v);
}

/* A Markdown table cell: '|' escaped, line breaks flattened. */
static void md_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static void md_num(FILE *f, const char *fmt, double v)
{
	if (isnan(v))
		fputs("-", f);
	else
		fprintf(f, fmt, v);
}

/* A gnuplot double-quoted string. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('"', f);
}

static void gp_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("NaN", f);
}

static const char *fast_name(int fast)
{
	return fast < 0 ? "" : fast ? "on" : "off";
}

/* x of a series on the SQNR chart: slot s->slot, fp8 dtype pairs side
 * by side within it. */
static double sqnr_x(const struct rpt *R, int s)
{
	const struct rpt_series *S = &R->series[s];
	if (S->pair_idx < 0 || R->npairs < 2)
		return S->slot;
	double w = 0.5 / R->npairs; /* the pairs share half a slot */
	return S->slot + (S->pair_idx - (R->npairs - 1) / 2.0) * w;
}

static int write_plot_vars(const struct rpt *R)
{
	struct out o;
	F8B_TRY(out_open(R, &o, "plot-vars.gp"));
	FILE *f = o.f;
	fprintf(f, "# f8bench report: what the templates in roofline/ plot (written by f8bench).\n"
	           "# Data blocks (gnuplot index i-1) of roofline-points.dat, speedup.dat,\n"
	           "# sqnr.dat and sqnr-summary.dat are series i below.\n");
	fprintf(f, "gpu = ");
	gp_str(f, R->gpu);
	fprintf(f, "\ndate = ");
	gp_str(f, R->date);
	fprintf(f, "\nrl_xmin = %g\nrl_xmax = %g\nrl_ymin = %g\nrl_ymax = %g\n", R->xmin, R->xmax,
	        R->ymin, R->ymax);

	fprintf(f,
	        "\nns = %d\narray s_title[%d]\narray s_short[%d]\narray s_gran[%d]\n"
	        "array s_fast[%d]\narray s_pair[%d]\narray s_x[%d]\n",
	        R->nseries, R->nseries, R->nseries, R->nseries, R->nseries, R->nseries, R->nseries);
	for (int i = 0; i < R->nseries; i++) {
		const struct rpt_series *s = &R->series[i];
		fprintf(f, "s_title[%d] = ", i + 1);
		gp_str(f, s->title);
		fprintf(f, "; s_short[%d] = ", i + 1);
		gp_str(f, s->short_title);
		fprintf(f, "; s_gran[%d] = ", i + 1);
		gp_str(f, s->gran);
		/* s_fast: 1 on, 0 off, -1 bf16; s_pair: 1-based, 0 bf16 */
		fprintf(f, "; s_fast[%d] = %d; s_pair[%d] = %d; s_x[%d] = %g\n", i + 1, s->fast,
		        i + 1, s->pair_idx + 1, i + 1, sqnr_x(R, i));
	}

	fprintf(f,
	        "\nnpairs = %d\narray pair_name[%d]\narray pair_first[%d]\narray pair_last[%d]\n",
	        R->npairs, R->npairs ? R->npairs : 1, R->npairs ? R->npairs : 1,
	        R->npairs ? R->npairs : 1);
	for (int p = 0; p < R->npairs; p++) {
		int first = 0, last = -1;
		for (int i = 0; i < R->nseries; i++)
			if (R->series[i].pair_idx == p) {
				if (!first)
					first = i + 1;
				last = i + 1;
			}
		fprintf(f, "pair_name[%d] = ", p + 1);
		gp_str(f, R->pairs[p]);
		fprintf(f, "; pair_first[%d] = %d; pair_last[%d] = %d\n", p + 1, first, p + 1,
		        last);
	}

	fprintf(f, "\nnshapes = %d\narray shape_name[%d]\n", R->nshapes,
	        R->nshapes ? R->nshapes : 1);
	for (int i = 0; i < R->nshapes; i++) {
		fprintf(f, "shape_name[%d] = ", i + 1);
		gp_str(f, R->shapes[i].name);
		fputc('\n', f);
	}

	fprintf(f, "\nnslots = %d\narray slot_name[%d]\n", R->nslots, R->nslots ? R->nslots : 1);
	for (int slot = 1; slot <= R->nslots; slot++)
		for (int i = 0; i < R->nseries; i++) {
			const struct rpt_series *s = &R->series[i];
			if (s->slot != slot)
				continue;
			/* \n inside gnuplot's double quotes is its line break */
			if (s->fast < 0)
				fprintf(f, "slot_name[%d] = \"bf16\"\n", slot);
			else
				fprintf(f, "slot_name[%d] = \"%s\\nfast_accum %s\"\n", slot,
				        s->gran, fast_name(s->fast));
			break;
		}

	fprintf(f,
	        "\nnroofs = %d\narray r_title[%d]\narray r_source[%d]\narray r_dtype[%d]\n"
	        "array r_peak[%d]\n",
	        R->nroofs, R->nroofs ? R->nroofs : 1, R->nroofs ? R->nroofs : 1,
	        R->nroofs ? R->nroofs : 1, R->nroofs ? R->nroofs : 1);
	/* gnuplot parses the body of an empty "for [i=1:0]": give it values. */
	if (!R->nroofs)
		fprintf(f, "r_title[1] = \"\"; r_source[1] = \"\"; r_dtype[1] = \"\"; "
		           "r_peak[1] = NaN\n");
	for (int i = 0; i < R->nroofs; i++) {
		fprintf(f, "r_title[%d] = ", i + 1);
		gp_str(f, R->roofs[i].title);
		fprintf(f, "; r_source[%d] = ", i + 1);
		gp_str(f, R->roofs[i].source);
		fprintf(f, "; r_dtype[%d] = ", i + 1);
		gp_str(f, R->roofs[i].dtype);
		fprintf(f, "; r_peak[%d] = ", i + 1);
		gp_num(f, R->roofs[i].peak_tflops);
		fputc('\n', f);
	}
	return out_close(&o, F8B_OK);
}

static void dat_header(FILE *f, const char *what, const char *cols)
{
	fprintf(f,
	        "# f8bench report: %s\n# one block (gnuplot index i-1) per series i of "
	        "plot-vars.gp\n# %s\n",
	        what, cols);
}

static int write_roofline_data(const struct rpt *R)
{
	struct out o;
	F8B_TRY(out_open(R, &o, "roofline-points.dat"));
	dat_header(o.f, "roofline points (status ok rows)",
	           "arith_intensity_flop_per_byte achieved_tflops m k n");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		for (size_t i = 0; i < R->npts; i++) {
			const struct rpt_point *p = &R->pts[i];
			if (p->series != s)
				continue;
			gp_num(o.f, p->ai);
			fputc(' ', o.f);
			gp_num(o.f, p->r->tflops);
			fprintf(o.f, " %lld %lld %lld\n", (long long)p->r->m, (long long)p->r->k,
			        (long long)p->r->n);
		}
	}
	int rc = out_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	/* A roof is min(peak, ai * bandwidth): straight in log-log on each
	 * side of the ridge, so three points draw it exactly. */
	F8B_TRY(out_open(R, &o, "roofline-roofs.dat"));
	fprintf(o.f, "# f8bench report: roofs, one block (gnuplot index i-1) per roof i of "
	             "plot-vars.gp\n# arith_intensity_flop_per_byte attainable_tflops\n");
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *r = &R->roofs[i];
		double xs[3] = {R->xmin, NAN, R->xmax};
		if (finite_pos(r->peak_tflops) && finite_pos(r->bw_tbs))
			xs[1] = r->peak_tflops / r->bw_tbs;
		fprintf(o.f, "%s# roof %d: %s\n", i ? "\n\n" : "", i + 1, r->title);
		for (int j = 0; j < 3; j++) {
			if (isnan(xs[j]) || xs[j] < R->xmin || xs[j] > R->xmax)
				continue;
			double y = finite_pos(r->bw_tbs) ? xs[j] * r->bw_tbs : INFINITY;
			if (finite_pos(r->peak_tflops))
				y = fmin(y, r->peak_tflops);
			fprintf(o.f, "%.9g %.9g\n", xs[j], y);
		}
	}
	rc = out_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(out_open(R, &o, "roofline.csv"));
	fprintf(o.f, "file,label,m,k,n,scaling,a_gran,b_gran,fast_accum,a_dtype,b_dtype,"
	             "out_dtype,arith_intensity,tflops,roof_tflops,pct_of_roofline,roofline_source,"
	             "pct_peak\n");
	for (size_t i = 0; i < R->npts; i++) {
		const struct rpt_point *p = &R->pts[i];
		const struct f8b_gemm_row *r = p->r;
		csv_str(o.f, R->files[p->file].path);
		fputc(',', o.f);
		csv_str(o.f, r->label);
		fprintf(o.f, ",%lld,%lld,%lld,", (long long)r->m, (long long)r->k, (long long)r->n);
		fprintf(o.f, "%s,%s,%s,%d,%s,%s,%s,", r->scaling, r->a_gran, r->b_gran,
		        r->fast_accum, r->a_dtype, r->b_dtype, r->out_dtype);
		csv_num(o.f, p->ai);
		fputc(',', o.f);
		csv_num(o.f, r->tflops);
		fputc(',', o.f);
		csv_num(o.f, p->roof_tflops);
		fputc(',', o.f);
		csv_num(o.f, p->pct_roof);
		fprintf(o.f, ",%s,", p->roof_src);
		csv_num(o.f, r->pct_peak);
		fputc('\n', o.f);
	}
	rc = out_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(out_open(R, &o, "roofs.csv"));
	fprintf(o.f, "source,dtype,peak_tflops,hbm_tbs,ridge_flop_per_byte\n");
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *r = &R->roofs[i];
		fprintf(o.f, "%s,%s,", r->source, r->dtype);
		csv_num(o.f, r->peak_tflops);
		fputc(',', o.f);
		csv_num(o.f, r->bw_tbs);
		fputc(',', o.f);
		csv_num(o.f, r->peak_tflops / r->bw_tbs);
		fputc('\n', o.f);
	}
	return out_close(&o, F8B_OK);
}

/* Values of series s at shape sh (NaN-free), into v; returns how many. */
static int collect(const struct rpt *R, int s, int sh, int what, double *v)
{
	int n = 0;
	for (size_t i = 0; i < R->npts; i++) {
		const struct rpt_point *p = &R->pts[i];
		if (p->series != s || (sh >= 0 && p->shape != sh))
			continue;
		double x = what == 0 ? p->speedup : what == 1 ? p->r->sqnr_db : p->r->tflops;
		if (!isnan(x))
			v[n++] = x;
	}
	return n;
}

enum { V_SPEEDUP, V_SQNR, V_TFLOPS };

static int write_speedup_sqnr_data(const struct rpt *R, double *scratch)
{
	struct out o;
	struct stats st;
	int rc;

	/* Speedup: median over the rows of a (series, shape) - repeated
	 * runs, or one shape under two labels - with their range. */
	F8B_TRY(out_open(R, &o, "speedup.dat"));
	dat_header(o.f, "fp8 speedup over bf16 per shape (median of the rows, min, max)",
	           "shape_index speedup_median speedup_min speedup_max rows shape");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		for (int sh = 0; sh < R->nshapes; sh++) {
			stats_of(scratch, collect(R, s, sh, V_SPEEDUP, scratch), &st);
			if (st.n)
				fprintf(o.f, "%d %.6g %.6g %.6g %d %s\n", sh + 1, st.med, st.min,
				        st.max, st.n, R->shapes[sh].name);
		}
	}
	rc = out_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(out_open(R, &o, "speedup.csv"));
	fprintf(o.f, "m,k,n,labels,granularity,fast_accum,dtypes,speedup_median,"
	             "speedup_min,speedup_max,rows\n");
	for (int sh = 0; sh < R->nshapes; sh++)
		for (int s = 0; s < R->nseries; s++) {
			const struct rpt_series *S = &R->series[s];
			stats_of(scratch, collect(R, s, sh, V_SPEEDUP, scratch), &st);
			if (!st.n || S->fast < 0)
				continue;
			fprintf(o.f, "%lld,%lld,%lld,", (long long)R->shapes[sh].m,
			        (long long)R->shapes[sh].k, (long long)R->shapes[sh].n);
			csv_list(o.f, R->shapes[sh].labels);
			fprintf(o.f, ",%s,%s,%s,%.6g,%.6g,%.6g,%d\n", S->gran, fast_name(S->fast),
			        S->pair, st.med, st.min, st.max, st.n);
		}
	rc = out_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	/* SQNR: every row as a point (spread a little along x by shape so
	 * equal values stay visible), plus median and range per series. */
	F8B_TRY(out_open(R, &o, "sqnr.dat"));
	dat_header(o.f, "SQNR of every ok row", "x sqnr_db shape");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		double x0 = sqnr_x(R, s);
		for (size_t i = 0; i < R->npts; i++) {
			const struct rpt_point *p = &R->pts[i];
			if (p->series != s || isnan(p->r->sqnr_db))
				continue;
			double jitter = R->nshapes > 1 ? 0.12 / (R->npairs > 1 ? R->npairs : 1) *
			                                     (2.0 * p->shape / (R->nshapes - 1) - 1)
			                               : 0;
			fprintf(o.f, "%.4f %.6g %s\n", x0 + jitter, p->r->sqnr_db,
			        R->shapes[p->shape].name);
		}
	}
	rc = out_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(out_open(R, &o, "sqnr-summary.dat"));
	dat_header(o.f, "SQNR per series", "x sqnr_median_db sqnr_min_db sqnr_max_db rows");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		stats_of(scratch, collect(R, s, -1, V_SQNR, scratch), &st);
		if (st.n)
			fprintf(o.f, "%.4f %.6g %.6g %.6g %d\n", sqnr_x(R, s), st.med, st.min,
			        st.max, st.n);
		else /* keeps block numbering: a series without SQNR */
			fprintf(o.f, "NaN NaN NaN NaN 0\n");
	}
	rc = out_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(out_open(R, &o, "sqnr.csv"));
	fprintf(o.f, "granularity,fast_accum,dtypes,rows,sqnr_min_db,sqnr_median_db,"
	             "sqnr_max_db\n");
	for (int s = 0; s < R->nseries; s++) {
		const struct rpt_series *S = &R->series[s];
		stats_of(scratch, collect(R, s, -1, V_SQNR, scratch), &st);
		fprintf(o.f, "%s,%s,%s,%d,", S->gran, fast_name(S->fast),
		        S->fast < 0 ? "bf16 x bf16" : S->pair, st.n);
		csv_num(o.f, st.min);
		fputc(',', o.f);
		csv_num(o.f, st.med);
		fputc(',', o.f);
		csv_num(o.f, st.max);
		fputc('\n', o.f);
	}
	return out_close(&o, F8B_OK);
}

/* The fastest ok fp8 row of each shape, and the bf16 median beside it. */
struct best {
	const struct rpt_point *p; /* NULL: no fp8 row */
	double bf16_tflops;
};

static void best_per_shape(const struct rpt *R, struct best *b, double *scratch)
{
	for (int sh = 0; sh < R->nshapes; sh++) {
		b[sh].p = NULL;
		b[sh].bf16_tflops = NAN;
		for (size_t i = 0; i < R->npts; i++) {
			const struct rpt_point *p = &R->pts[i];
			if (p->shape != sh || R->series[p->series].fast < 0)
				continue;
			if (!b[sh].p || p->r->tflops > b[sh].p->r->tflops)
				b[sh].p = p;
		}
		for (int s = 0; s < R->nseries; s++)
			if (R->series[s].fast < 0) {
				struct stats st;
				stats_of(scratch, collect(R, s, sh, V_TFLOPS, scratch), &st);
				b[sh].bf16_tflops = st.med;
			}
	}
}

static int write_best_csv(const struct rpt *R, const struct best *b)
{
	struct out o;
	F8B_TRY(out_open(R, &o, "best.csv"));
	fprintf(o.f,
	        "m,k,n,labels,granularity,fast_accum,dtypes,tflops,bf16_tflops,speedup_vs_bf16,"
	        "pct_of_roofline,sqnr_db\n");
	for (int sh = 0; sh < R->nshapes; sh++) {
		const struct rpt_point *p = b[sh].p;
		if (!p)
			continue;
		fprintf(o.f, "%lld,%lld,%lld,", (long long)R->shapes[sh].m,
		        (long long)R->shapes[sh].k, (long long)R->shapes[sh].n);
		const struct rpt_series *S = &R->series[p->series];
		csv_list(o.f, R->shapes[sh].labels);
		fprintf(o.f, ",%s,%s,%s,", S->gran, fast_name(S->fast), S->pair);
		csv_num(o.f, p->r->tflops);
		fputc(',', o.f);
		csv_num(o.f, b[sh].bf16_tflops);
		fputc(',', o.f);
		csv_num(o.f, p->speedup);
		fputc(',', o.f);
		csv_num(o.f, p->pct_roof);
		fputc(',', o.f);
		csv_num(o.f, p->r->sqnr_db);
		fputc('\n', o.f);
	}
	return out_close(&o, F8B_OK);
}

/* ---------------------------------------------------------------- report.md */

static void md_plot(FILE *f, const char *name, const char *caption, bool drawn)
{
	if (drawn)
		fprintf(f, "![%s](%s.png)\n\n[%s.svg](%s.svg) (vector) · data: ", caption, name,
		        name, name);
	else
		fprintf(f, "*%s: not drawn (see the note above); data: ", caption);
}

static bool same_kind(const struct f8b_gemm_row *a, const struct f8b_gemm_row *b)
{
	return !strcmp(a->status, b->status) && !strcmp(a->scaling, b->scaling) &&
	       !strcmp(a->a_gran, b->a_gran) && !strcmp(a->b_gran, b->b_gran) &&
	       a->fast_accum == b->fast_accum && !strcmp(a->a_dtype, b->a_dtype) &&
	       !strcmp(a->b_dtype, b->b_dtype);
}

/* One line per kind of row that is not ok (status, recipe, dtypes) with
 * its shapes and one of its messages: a sweep where cuBLASLt cannot run
 * blockwise with fast_accum gives one line per dtype pair, not per shape. */
static void md_rows_not_plotted(FILE *f, const struct rpt *R)
{
	size_t n = R->nrows_total - R->npts, total = R->nrows_total;
	fprintf(f, "## Rows not plotted\n\n");
	if (!n) {
		fprintf(f, "Every row has status `ok`.\n\n");
		return;
	}
	fprintf(f,
	        "Only rows with status `ok` are plotted; %zu of %zu rows are not:\n\n"
	        "| status | scaling | fast_accum | dtypes | rows | shapes | message (first row) |\n"
	        "| --- | --- | --- | --- | --- | --- | --- |\n",
	        n, total);
	const struct f8b_gemm_row **all = calloc(total ? total : 1, sizeof *all);
	bool *done = calloc(total ? total : 1, sizeof *done);
	size_t k = 0;
	for (int fi = 0; all && fi < R->nfiles; fi++)
		for (size_t i = 0; i < R->files[fi].nrows; i++)
			all[k++] = &R->files[fi].rows[i];
	for (size_t i = 0; all && done && i < total; i++) {
		const struct f8b_gemm_row *a = all[i];
		if (!strcmp(a->status, F8B_ROW_OK) || done[i])
			continue;
		char shapes[400] = "";
		int count = 0, more = 0;
		for (size_t j = i; j < total; j++) {
			if (done[j] || !same_kind(a, all[j]))
				continue;
			done[j] = true;
			count++;
			char sh[64];
			snprintf(sh, sizeof sh, "%lldx%lldx%lld", (long long)all[j]->m,
			         (long long)all[j]->k, (long long)all[j]->n);
			if (strlen(shapes) + strlen(sh) + 2 < sizeof shapes - 16)
				list_add(shapes, sizeof shapes, sh);
			else if (!strstr(shapes, sh))
				more++;
		}
		fprintf(f, "| %s | %s | %d | %s x %s | %d | ", a->status, a->scaling, a->fast_accum,
		        a->a_dtype, a->b_dtype, count);
		md_str(f, shapes);
		if (more)
			fprintf(f, " and %d more", more);
		fprintf(f, " | ");
		md_str(f, a->message);
		fprintf(f, " |\n");
	}
	free(all);
	free(done);
	fputc('\n', f);
}

static int write_markdown(const struct rpt *R, const struct best *best, double *scratch,
                          const char *plot_note, bool drawn)
{
	struct out o;
	struct stats st;
	F8B_TRY(out_open(R, &o, "report.md"));
	FILE *f = o.f;
	char now[32] = "";
	time_t t = time(NULL);
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);

	fprintf(f, "# f8bench report: GEMM on %s, %s\n\n", R->gpu, R->date);
	fprintf(f,
	        "Written by %s at %s from %d results file%s (%zu gemm rows, %zu with status "
	        "`ok`).  How to read each plot: doc/report.md.\n\n",
	        f8b_version_string(), now, R->nfiles, R->nfiles == 1 ? "" : "s", R->nrows_total,
	        R->npts);
	if (plot_note[0])
		fprintf(f, "> **Note:** %s\n\n", plot_note);

	/* ---- roofline */
	fprintf(f, "## Roofline\n\n");
	md_plot(f, "roofline", "GEMM roofline", drawn);
	fprintf(f, "[roofline.csv](roofline.csv), [roofs.csv](roofs.csv)%s\n\n", drawn ? "" : "*");
	fprintf(f, "Roofs (attainable TFLOP/s = min(peak, arithmetic intensity x bandwidth)):\n\n"
	           "| roof | source | peak TFLOP/s | bandwidth TB/s | ridge flop/byte |\n"
	           "| --- | --- | --- | --- | --- |\n");
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *r = &R->roofs[i];
		fprintf(f, "| %s | %s | ", r->dtype, r->source);
		md_num(f, "%.1f", r->peak_tflops);
		fprintf(f, " | ");
		md_num(f, "%.3f", r->bw_tbs);
		fprintf(f, " | ");
		md_num(f, "%.0f", r->peak_tflops / r->bw_tbs);
		fprintf(f, " |\n");
	}
	if (!R->nroofs)
		fprintf(f, "| - | none known for this device | - | - | - |\n");
	fprintf(f, "\nDatasheet: ");
	if (R->have_ds && R->ds.detail[0])
		md_str(f, R->ds.detail);
	else if (R->have_ds)
		fprintf(f, "%s (%s)", R->peaks.name, R->peaks.how);
	else
		fprintf(f, "no row of roofline/datasheet.tsv matches this device");
	fprintf(f, ".  Measured: ");
	if (R->have_meas)
		md_str(f, R->meas.detail[0] ? R->meas.detail : R->meas_path);
	else
		fprintf(f, "no ceilings table (run `f8bench ceilings` and pass its file, or "
		           "`--ceilings FILE`)");
	fprintf(f,
	        ".  %% of roofline = 100 x predicted / measured time; the run's own "
	        "figure where it recorded one, else from the %s ceilings here.\n\n",
	        R->have_meas ? "measured" : "datasheet");

	fprintf(f, "| shape | label | series | flop/byte | TFLOP/s | roof TFLOP/s | %% of roofline "
	           "| roofline source |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int sh = 0; sh < R->nshapes; sh++)
		for (int s = 0; s < R->nseries; s++)
			for (size_t i = 0; i < R->npts; i++) {
				const struct rpt_point *p = &R->pts[i];
				if (p->shape != sh || p->series != s)
					continue;
				fprintf(f, "| %s | ", R->shapes[sh].name);
				md_str(f, p->r->label);
				fprintf(f, " | ");
				md_str(f, R->series[s].title);
				fprintf(f, " | ");
				md_num(f, "%.0f", p->ai);
				fprintf(f, " | ");
				md_num(f, "%.4g", p->r->tflops);
				fprintf(f, " | ");
				md_num(f, "%.4g", p->roof_tflops);
				fprintf(f, " | ");
				md_num(f, "%.1f", p->pct_roof);
				fprintf(f, " | %s |\n", p->roof_src[0] ? p->roof_src : "-");
			}

	/* ---- speedup */
	fprintf(f, "\n## fp8 speedup over bf16\n\n");
	md_plot(f, "speedup", "fp8 speedup over bf16", drawn);
	fprintf(f, "[speedup.csv](speedup.csv)%s\n\n", drawn ? "" : "*");
	fprintf(f, "bf16 time / fp8 time of the same shape; the median when a shape has several "
	           "rows.\n\n| shape | labels |");
	int nfp8 = 0;
	for (int s = 0; s < R->nseries; s++)
		if (R->series[s].fast >= 0) {
			fprintf(f, " ");
			md_str(f, R->series[s].title);
			fprintf(f, " |");
			nfp8++;
		}
	fprintf(f, "\n| --- | --- |");
	for (int s = 0; s < nfp8; s++)
		fprintf(f, " --- |");
	fputc('\n', f);
	for (int sh = 0; sh < R->nshapes; sh++) {
		fprintf(f, "| %s | ", R->shapes[sh].name);
		md_str(f, R->shapes[sh].labels);
		fprintf(f, " |");
		for (int s = 0; s < R->nseries; s++) {
			if (R->series[s].fast < 0)
				continue;
			stats_of(scratch, collect(R, s, sh, V_SPEEDUP, scratch), &st);
			fprintf(f, " ");
			md_num(f, "%.3f", st.med);
			fprintf(f, " |");
		}
		fputc('\n', f);
	}

	/* ---- SQNR */
	fprintf(f, "\n## SQNR by granularity and fast_accum\n\n");
	md_plot(f, "sqnr", "SQNR by granularity and fast_accum", drawn);
	fprintf(f, "[sqnr.csv](sqnr.csv)%s\n\n", drawn ? "" : "*");
	fprintf(
	    f,
	    "20 log10(||ref|| / ||D - ref||) against a high-precision GEMM of the "
	    "unquantised inputs, in dB (higher is better; 6 dB per bit).\n\n"
	    "| series | rows | min dB | median dB | max dB |\n| --- | --- | --- | --- | --- |\n");
	for (int s = 0; s < R->nseries; s++) {
		stats_of(scratch, collect(R, s, -1, V_SQNR, scratch), &st);
		fprintf(f, "| ");
		md_str(f, R->series[s].title);
		fprintf(f, " | %d | ", st.n);
		md_num(f, "%.2f", st.min);
		fprintf(f, " | ");
		md_num(f, "%.2f", st.med);
		fprintf(f, " | ");
		md_num(f, "%.2f", st.max);
		fprintf(f, " |\n");
	}

	/* ---- best per shape */
	fprintf(f, "\n## Best fp8 result per shape\n\n[best.csv](best.csv)\n\n"
	           "| shape | labels | best | TFLOP/s | bf16 TFLOP/s | speedup | %% of roofline | "
	           "SQNR dB |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int sh = 0; sh < R->nshapes; sh++) {
		const struct rpt_point *p = best[sh].p;
		if (!p)
			continue;
		fprintf(f, "| %s | ", R->shapes[sh].name);
		md_str(f, R->shapes[sh].labels);
		fprintf(f, " | ");
		md_str(f, R->series[p->series].title);
		fprintf(f, " | ");
		md_num(f, "%.4g", p->r->tflops);
		fprintf(f, " | ");
		md_num(f, "%.4g", best[sh].bf16_tflops);
		fprintf(f, " | ");
		md_num(f, "%.3f", p->speedup);
		fprintf(f, " | ");
		md_num(f, "%.1f", p->pct_roof);
		fprintf(f, " | ");
		md_num(f, "%.2f", p->r->sqnr_db);
		fprintf(f, " |\n");
	}
	fputc('\n', f);

	md_rows_not_plotted(f, R);

	/* ---- provenance */
	fprintf(f, "## Provenance\n\n");
	for (int i = 0; i < R->nfiles; i++) {
		const struct rpt_file *F = &R->files[i];
		fprintf(f, "### ");
		md_str(f, F->path);
		fprintf(f, "\n\n%zu gemm rows%s.", F->nrows,
		        F->has_ceilings ? "; has a ceilings table" : "");
		if (F->missing[0]) {
			fprintf(f, "  Columns this file does not have (written by an older "
			           "f8bench; shown as unknown): ");
			md_str(f, F->missing);
			fputc('.', f);
		}
		fprintf(f, "\n\n| key | value |\n| --- | --- |\n");
		for (size_t k = 0; k < F->prov.n; k++) {
			fprintf(f, "| ");
			md_str(f, F->prov.kv[k].key);
			fprintf(f, " | ");
			md_str(f, F->prov.kv[k].value);
			fprintf(f, " |\n");
		}
		fputc('\n', f);
	}
	return out_close(&o, F8B_OK);
}

/* ---------------------------------------------------------------- gnuplot */

static bool is_exec(const char *p)
{
	struct stat st;
	return p && p[0] && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* First match in PATH of a command name; absolute result. */
static bool search_path(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH");
	char *copy = path ? strdup(path) : NULL;
	bool found = false;
	for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char cand[4096];
		snprintf(cand, sizeof cand, "%s/%s", d, name);
		found = is_exec(cand) && realpath(cand, out) && strlen(out) < n;
	}
	free(copy);
	return found;
}

/* $GNUPLOT when set (it alone: a path, or a name looked up in PATH), else
 * the gnuplot configure found, else "gnuplot" in PATH.  The result is
 * absolute, since gnuplot runs in DIR. */
static bool find_gnuplot(char *out, size_t n)
{
	const char *env = getenv("GNUPLOT");
	if (env && env[0]) {
		if (!strchr(env, '/'))
			return search_path(env, out, n);
		return is_exec(env) && realpath(env, out) && strlen(out) < n;
	}
#ifdef F8B_GNUPLOT
	if (is_exec(F8B_GNUPLOT) && realpath(F8B_GNUPLOT, out) && strlen(out) < n)
		return true;
#endif
	return search_path("gnuplot", out, n);
}

/* Runs `gnuplot -e "fmt='F'; out='O'" TEMPLATE` in dir, output to
 * dir/gnuplot.log; *status gets its exit status (127: could not start). */
static int run_gnuplot(const char *gnuplot, const char *dir, const char *tpl, const char *fmt,
                       const char *out, int *status)
{
	char expr[256];
	snprintf(expr, sizeof expr, "fmt='%s'; out='%s'", fmt, out);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return F8B_ERR(F8B_EIO, "cannot start gnuplot: fork failed: %s", strerror(errno));
	if (pid == 0) {
		int fd = -1;
		if (chdir(dir) == 0)
			fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		execl(gnuplot, gnuplot, "-e", expr, tpl, (char *)NULL);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return F8B_ERR(F8B_EIO, "waiting for gnuplot failed: %s", strerror(errno));
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return F8B_OK;
}

/* Draws every plot in both formats.  F8B_OK with note "" when all were
 * drawn; otherwise note says why not (and the caller exits 1). */
static int draw(const struct rpt *R, char *note, size_t n, char *gnuplot, size_t gn)
{
	static const char *const plots[] = {"roofline", "speedup", "sqnr"};
	static const char *const fmts[] = {"png", "svg"};
	char tdir[4096];

	note[0] = '\0';
	if (!R->npts) {
		snprintf(note, n, "no gemm row has status ok: nothing to plot");
		return F8B_OK;
	}
	if (!find_gnuplot(gnuplot, gn)) {
		gnuplot[0] = '\0';
		snprintf(note, n,
		         "gnuplot not found (install gnuplot-nox or set GNUPLOT); wrote "
		         "data and report.md to %s",
		         R->dir);
		return F8B_OK;
	}
	if (!f8b_roofline_data_dir("roofline.gp", tdir, sizeof tdir)) { /* beside datasheet.tsv */
		snprintf(note, n,
		         "the gnuplot templates (roofline/roofline.gp) were not found: set "
		         "F8B_ROOFLINE to the roofline/ directory; wrote data and report.md to "
		         "%s",
		         R->dir);
		return F8B_OK;
	}
	char log[4096];
	snprintf(log, sizeof log, "%s/gnuplot.log", R->dir);
	unlink(log);
	for (size_t i = 0; i < sizeof plots / sizeof plots[0]; i++)
		for (size_t j = 0; j < 2; j++) {
			char tpl[4200], out[64];
			int st = 0;
			snprintf(tpl, sizeof tpl, "%s/%s.gp", tdir, plots[i]);
			snprintf(out, sizeof out, "%s.%s", plots[i], fmts[j]);
			F8B_TRY(run_gnuplot(gnuplot, R->dir, tpl, fmts[j], out, &st));
			if (st != 0) {
				snprintf(note, n,
				         "gnuplot (%s) failed on %s with exit status %d (see "
				         "%s/gnuplot.log); wrote data and report.md to %s",
				         gnuplot, tpl, st, R->dir, R->dir);
				return F8B_OK;
			}
		}
	return F8B_OK;
}

/* ---------------------------------------------------------------- command */

enum { OPT_OUTPUT = 256, OPT_CEILINGS, OPT_HELP };
static const struct f8b_option report_options[] = {
    {"output", OPT_OUTPUT, 'o', "DIR", "write the report into DIR (created if missing; required)"},
    {"ceilings", OPT_CEILINGS, 0, "FILE",
     "measured roofs from the ceilings table of FILE (f8bench ceilings);\n"
     "default: the first FILE.h5 given that has a ceilings table"},
    {"help", OPT_HELP, 0, NULL, "this text"},
    {0},
};

struct report_cfg {
	const char *dir, *ceilings;
	bool help;
};

static int report_opt(void *ctx, int table, int key, const char *arg)
{
	struct report_cfg *c = ctx;
	if (table == -1 || key == OPT_HELP)
		c->help = true;
	else if (key == OPT_OUTPUT)
		c->dir = arg;
	else if (key == OPT_CEILINGS)
		c->ceilings = arg;
	return F8B_OK;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: f8bench report FILE.h5... -o DIR [--ceilings FILE.h5]\n\n"
	           "Turns gemm results files into plots and a summary, in DIR:\n"
	           "  roofline.png/.svg  achieved TFLOP/s against arithmetic intensity (log-log),\n"
	           "                     under the measured and datasheet roofs of bf16 and fp8\n"
	           "  speedup.png/.svg   fp8 speedup over bf16 per shape, per granularity and "
	           "fast_accum\n"
	           "  sqnr.png/.svg      SQNR per granularity and fast_accum\n"
	           "  report.md          the tables behind every plot, best fp8 per shape, "
	           "provenance\n"
	           "  *.csv, *.dat       the data (CSV for pandas; .dat and plot-vars.gp for the\n"
	           "                     gnuplot templates in roofline/)\n\n"
	           "Reads finished files only; run it after the benchmark, not inside it.\n"
	           "gnuplot: $GNUPLOT, else the one configure found, else PATH.  Templates:\n"
	           "$F8B_ROOFLINE, else the installed or source-tree roofline/.\n\n"
	           "Exit status: 0 all written; 1 data and report.md written but no plots\n"
	           "(gnuplot not found or failed); 2 bad arguments or unreadable input.\n\n");
	f8b_options_help(f, report_options);
}

/* mkdir -p */
static int make_dir(const char *dir)
{
	char p[4096];
	if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
		return F8B_ERR(F8B_EINVAL, "output directory name too long: '%.64s...'", dir);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return F8B_ERR(F8B_EIO, "cannot create output directory '%s': %s", p,
			               strerror(errno));
		*s = c;
		if (!c)
			break;
	}
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0)
		return F8B_ERR(F8B_EIO, "output directory '%s' is not a writable directory", dir);
	return F8B_OK;
}

static void rpt_free(struct rpt *R)
{
	for (int i = 0; i < R->nfiles; i++) {
		f8b_prov_free(&R->files[i].prov);
		free(R->files[i].rows);
	}
	free(R->files);
	free(R->series);
	free(R->shapes);
	free(R->pts);
}

static int report(struct rpt *R, char **paths, int npaths, const char *ceil_path, char *note,
                  size_t nn, char *gnuplot, size_t gn)
{
	R->files = calloc((size_t)npaths, sizeof *R->files);
	if (!R->files)
		return F8B_ERR(F8B_ENOMEM, "no memory for %d files", npaths);
	R->nfiles = npaths;
	bool any_gemm = false;
	for (int i = 0; i < npaths; i++) {
		R->files[i].path = paths[i];
		F8B_TRY(read_file(&R->files[i]));
		any_gemm |= R->files[i].has_gemm;
	}
	if (!any_gemm)
		return F8B_ERR(F8B_EINVAL,
		               "no gemm table in %s%s: report plots f8bench gemm results "
		               "(f8bench gemm -o FILE.h5)",
		               paths[0], npaths > 1 ? " or the other files" : "");
	F8B_TRY(ceilings(R, ceil_path));
	F8B_TRY(classify(R));
	roofline_ranges(R);
	title_facts(R);
	F8B_TRY(make_dir(R->dir));

	size_t ns = R->nrows_total ? R->nrows_total : 1;
	double *scratch = malloc(ns * sizeof *scratch);
	struct best *best = calloc((size_t)(R->nshapes ? R->nshapes : 1), sizeof *best);
	int rc = scratch && best ? F8B_OK : F8B_ERR(F8B_ENOMEM, "no memory for the report");
	if (rc == F8B_OK)
		rc = write_plot_vars(R);
	if (rc == F8B_OK)
		rc = write_roofline_data(R);
	if (rc == F8B_OK)
		rc = write_speedup_sqnr_data(R, scratch);
	if (rc == F8B_OK) {
		best_per_shape(R, best, scratch);
		rc = write_best_csv(R, best);
	}
	if (rc == F8B_OK)
		rc = draw(R, note, nn, gnuplot, gn);
	if (rc == F8B_OK)
		rc = write_markdown(R, best, scratch, note, !note[0]);
	free(scratch);
	free(best);
	return rc;
}

int f8b_report_main(int argc, char **argv)
{
	struct report_cfg c = {0};
	const struct f8b_option *tables[] = {report_options, NULL};
	char **pos = calloc((size_t)argc + 1, sizeof *pos);
	int npos = 0;
	if (!pos) {
		fprintf(stderr, "f8bench report: error: out of memory\n");
		return 2;
	}
	int rc = f8b_options_parse(argc, argv, tables, report_opt, &c, &pos, &npos);
	if (rc == F8B_OK && c.help) {
		usage(stdout);
		free(pos);
		return 0;
	}
	if (rc == F8B_OK && npos < 1)
		rc = F8B_ERR(F8B_EINVAL, "report needs at least one results file (f8bench report "
		                         "FILE.h5... -o DIR; see --help)");
	if (rc == F8B_OK && !c.dir)
		rc = F8B_ERR(F8B_EINVAL, "report needs an output directory: -o DIR (see --help)");
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench report: error: %s\n", f8b_last_error());
		free(pos);
		return 2;
	}

	struct rpt R;
	memset(&R, 0, sizeof R);
	R.dir = c.dir;
	char note[8192] = "", gnuplot[4096] = "";
	rc = report(&R, pos, npos, c.ceilings, note, sizeof note, gnuplot, sizeof gnuplot);
	int exit_status = 0;
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench report: error: %s\n", f8b_last_error());
		exit_status = 2;
	} else if (note[0]) {
		fprintf(stderr, "f8bench report: %s\n", note);
		/* No rows to plot is not a failure of the tools; the rest is. */
		exit_status = R.npts ? 1 : 0;
	} else {
		printf("f8bench report: wrote %s/report.md, roofline, speedup and sqnr plots (PNG "
		       "and SVG) and their data (%zu rows plotted, gnuplot %s)\n",
		       R.dir, R.npts, gnuplot);
	}
	rpt_free(&R);
	free(pos);
	return exit_status;
}
