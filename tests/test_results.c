/* test_results.c - the HDF5 results module and the gemm schema: create,
 * append, read back, append runs, refusals, abandon, crash safety, CSV. */
#define _POSIX_C_SOURCE 200809L
#include "results/results.h"
#include "results/schema.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

static char dir[256];

static void path_in_dir(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* Open HDF5 objects of any kind, in any file: must be 0 between calls. */
static ssize_t open_h5_objects(void)
{
	return H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
}

/* The error message for a failed call, "" after a successful one (so a
 * passing assertion does not show a stale message). */
static const char *why(int rc)
{
	return rc == F8B_OK ? "" : f8b_last_error();
}

static bool exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

/* Entries of `d` other than . and .. whose name contains `part`. */
static int count_entries(const char *d, const char *part)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;
	if (!dp)
		return -1;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, part))
			n++;
	closedir(dp);
	return n;
}

static char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

/* A row with a distinct value in every column; bytes behind each string's
 * NUL and in struct padding are garbage (0xAA), as in a row built on the
 * stack without memset. */
static void fill_row(struct f8b_gemm_row *r, int i)
{
	memset(r, 0xAA, sizeof *r);
	r->m = 1024 + i;
	r->k = 2048 + i;
	r->n = 4096 + i;
	snprintf(r->label, sizeof r->label, "llama3-8b.attn.qkv.%d", i);
	snprintf(r->scaling, sizeof r->scaling, "tensorwise");
	snprintf(r->a_gran, sizeof r->a_gran, "1x128");
	snprintf(r->b_gran, sizeof r->b_gran, "128x128");
	r->fast_accum = i & 1;
	snprintf(r->a_dtype, sizeof r->a_dtype, "e4m3");
	snprintf(r->b_dtype, sizeof r->b_dtype, "e4m3");
	snprintf(r->out_dtype, sizeof r->out_dtype, "bf16");
	snprintf(r->backend, sizeof r->backend, "host");
	snprintf(r->impl, sizeof r->impl, i & 1 ? "f8b" : "cublaslt");
	snprintf(r->status, sizeof r->status, i == 1 ? F8B_ROW_WRONG : F8B_ROW_OK);
	r->time_median_s = 1.0 / 3.0 + i;
	r->time_min_s = 0.1 + i;
	r->time_max_s = 0.7 + i;
	r->time_noise = 0.0042;
	r->samples = 10 + i;
	r->converged = 1;
	r->throttled = i;
	r->throttle_reasons = INT64_C(0x4) << i;
	r->sm_mhz_min = 1755 + i;
	r->sm_mhz_max = 1980;
	r->tflops = 987.654321 + i;
	r->pct_peak = i == 0 ? NAN : 50.5 + i;
	r->arith_intensity = 1365.3 + i;
	r->predicted_time_s = 0.25 + i;
	r->pct_of_roofline = 75.0 + i;
	snprintf(r->roofline_source, sizeof r->roofline_source, "datasheet");
	r->bf16_time_median_s = 1e-3 * (i + 1);
	r->speedup_vs_bf16 = 1.75;
	r->rel_error = 1.2345e-3;
	r->tolerance = 5e-2;
	r->sqnr_db = i == 2 ? -INFINITY : 27.5;
	r->algo_id = 66;
	r->algo_tile = 20;
	r->algo_stages = 8;
	r->algo_splitk = 1;
	r->algo_swizzle = 0;
	r->algo_reduction = 0;
	r->algo_custom = 3;
	r->algo_cluster = 2;
	r->heuristic_rank = i;
	r->candidates_timed = 1;
	r->heuristic_time_median_s = 2e-3;
	r->workspace_bytes = (int64_t)32 << 20;
	r->seed = INT64_C(0x123456789ab) + i;
	r->run_id = 99; /* the writer stamps its own run id */
	r->rank = i % 2;
	r->device = -1;
	/* A full-length string (47 chars + NUL) must survive too. */
	memset(r->gpu, 'G', sizeof r->gpu - 1);
	r->gpu[sizeof r->gpu - 1] = '\0';
	snprintf(r->message, sizeof r->message, i == 1 ? "rel_error 0.3 > tol, \"x\" off" : "");
}

/* First column where a and b differ (strings by content, numbers by
 * bits, so NaN equals NaN), or NULL; run_id skipped when skip_run_id. */
static const char *first_diff(const struct f8b_gemm_row *a, const struct f8b_gemm_row *b,
                              bool skip_run_id)
{
	const struct f8b_table_schema *s = &f8b_gemm_schema;
	for (size_t i = 0; i < s->nfields; i++) {
		const struct f8b_field *f = &s->fields[i];
		const char *pa = (const char *)a + f->offset, *pb = (const char *)b + f->offset;
		if (skip_run_id && strcmp(f->name, "run_id") == 0)
			continue;
		if (f->type == F8B_FT_STR ? strncmp(pa, pb, f->size) != 0
		                          : memcmp(pa, pb, f->size) != 0)
			return f->name;
	}
	return NULL;
}

/* Bytes after each string's NUL are zero. */
static bool strings_clean(const struct f8b_gemm_row *r)
{
	const struct f8b_table_schema *s = &f8b_gemm_schema;
	for (size_t i = 0; i < s->nfields; i++) {
		const struct f8b_field *f = &s->fields[i];
		const char *p = (const char *)r + f->offset;
		if (f->type != F8B_FT_STR)
			continue;
		size_t len = strnlen(p, f->size);
		if (len == f->size)
			return false; /* not terminated */
		for (size_t j = len; j < f->size; j++)
			if (p[j])
				return false;
	}
	return true;
}

static void make_prov(struct f8b_provenance *p, const char *host)
{
	f8b_prov_set(p, "f8bench_version", "0.1.0");
	f8b_prov_set(p, "host", "%s", host);
	f8b_prov_set(p, "command", "f8bench gemm --shapes square --recipe %s", "tensorwise");
}

/* String attribute `name` of object `obj` in file path, or "" */
static void get_str_attr(const char *path, const char *obj, const char *name, char *out, size_t n)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hsize_t dims;
	H5T_class_t cls;
	size_t size;
	out[0] = '\0';
	if (f < 0)
		return;
	if (H5LTget_attribute_info(f, obj, name, &dims, &cls, &size) >= 0 && size < n)
		H5LTget_attribute_string(f, obj, name, out);
	H5Fclose(f);
}

/* ---- schema ------------------------------------------------------------ */

/* The struct's members, listed here independently of schema.c, in
 * declaration order. */
#define MEMBER(m)                                                                                  \
	{                                                                                          \
#m, offsetof(struct f8b_gemm_row, m), sizeof(((struct f8b_gemm_row *)0)->m)        \
	}
static const struct {
	const char *name;
	size_t offset, size;
} members[] = {
    MEMBER(m),
    MEMBER(k),
    MEMBER(n),
    MEMBER(label),
    MEMBER(scaling),
    MEMBER(a_gran),
    MEMBER(b_gran),
    MEMBER(fast_accum),
    MEMBER(a_dtype),
    MEMBER(b_dtype),
    MEMBER(out_dtype),
    MEMBER(backend),
    MEMBER(impl),
    MEMBER(out_t),
    MEMBER(status),
    MEMBER(time_median_s),
    MEMBER(time_min_s),
    MEMBER(time_max_s),
    MEMBER(time_noise),
    MEMBER(samples),
    MEMBER(converged),
    MEMBER(throttled),
    MEMBER(throttle_reasons),
    MEMBER(sm_mhz_min),
    MEMBER(sm_mhz_max),
    MEMBER(tflops),
    MEMBER(pct_peak),
    MEMBER(arith_intensity),
    MEMBER(predicted_time_s),
    MEMBER(pct_of_roofline),
    MEMBER(roofline_source),
    MEMBER(bf16_time_median_s),
    MEMBER(speedup_vs_bf16),
    MEMBER(rel_error),
    MEMBER(tolerance),
    MEMBER(sqnr_db),
    MEMBER(algo_id),
    MEMBER(algo_tile),
    MEMBER(algo_stages),
    MEMBER(algo_splitk),
    MEMBER(algo_swizzle),
    MEMBER(algo_reduction),
    MEMBER(algo_custom),
    MEMBER(algo_cluster),
    MEMBER(heuristic_rank),
    MEMBER(candidates_timed),
    MEMBER(heuristic_time_median_s),
    MEMBER(workspace_bytes),
    MEMBER(seed),
    MEMBER(run_id),
    MEMBER(rank),
    MEMBER(device),
    MEMBER(gpu),
    MEMBER(message),
};

static size_t field_align(const struct f8b_field *f)
{
	switch (f->type) {
	case F8B_FT_I32: return _Alignof(int32_t);
	case F8B_FT_I64: return _Alignof(int64_t);
	case F8B_FT_F64: return _Alignof(double);
	default: return 1;
	}
}

static void test_schema(void)
{
	const struct f8b_table_schema *s = &f8b_gemm_schema;
	size_t nm = sizeof members / sizeof members[0], covered = 0, end = 0;
	bool names_ok = true, layout_ok = true, gaps_ok = true, units_ok = true, seconds_ok = true;

	tap_ok(strcmp(s->name, "gemm") == 0, "schema: table name is gemm");
	tap_ok(s->row_size == sizeof(struct f8b_gemm_row), "schema: row_size is sizeof the row");
	tap_ok(s->nfields == nm, "schema: %zu columns for %zu struct members", s->nfields, nm);
	for (size_t i = 0; i < s->nfields && i < nm; i++) {
		const struct f8b_field *f = &s->fields[i];
		if (strcmp(f->name, members[i].name) != 0) {
			tap_diag("column %zu is '%s', struct member is '%s'", i, f->name,
			         members[i].name);
			names_ok = false;
		}
		if (f->offset != members[i].offset || f->size != members[i].size)
			layout_ok = false;
		/* The only bytes between columns are alignment padding. */
		if (f->offset < end || f->offset - end >= field_align(f))
			gaps_ok = false;
		end = f->offset + f->size;
		covered += f->size;
		if (!f->unit)
			units_ok = false;
		size_t len = strlen(f->name);
		if (len > 2 && strcmp(f->name + len - 2, "_s") == 0 && strcmp(f->unit, "s") != 0)
			seconds_ok = false;
	}
	tap_ok(names_ok, "schema: column names are the member names, in order");
	tap_ok(layout_ok, "schema: offsets and sizes match offsetof/sizeof");
	tap_ok(gaps_ok && s->fields[0].offset == 0,
	       "schema: no gap between columns wider than alignment padding");
	tap_ok(s->row_size - end < _Alignof(int64_t),
	       "schema: only trailing padding after the last column (%zu bytes)",
	       s->row_size - end);
	tap_ok(covered <= s->row_size && s->row_size - covered < 4 * _Alignof(int64_t),
	       "schema: columns cover %zu of %zu bytes", covered, s->row_size);
	tap_ok(units_ok, "schema: every column has a unit string");
	tap_ok(seconds_ok, "schema: every *_s column is in seconds");
	for (size_t i = 0; i < s->nfields; i++) {
		const struct f8b_field *f = &s->fields[i];
		if (strcmp(f->name, "tflops") == 0)
			tap_ok(strcmp(f->unit, "TFLOP/s") == 0 && f->type == F8B_FT_F64,
			       "schema: tflops is an f64 in TFLOP/s");
		if (strcmp(f->name, "pct_peak") == 0)
			tap_ok(strcmp(f->unit, "%") == 0, "schema: pct_peak is in %%");
		if (strcmp(f->name, "sqnr_db") == 0)
			tap_ok(strcmp(f->unit, "dB") == 0, "schema: sqnr_db is in dB");
		if (strcmp(f->name, "workspace_bytes") == 0)
			tap_ok(strcmp(f->unit, "bytes") == 0 && f->type == F8B_FT_I64,
			       "schema: workspace_bytes is an i64 in bytes");
		if (strcmp(f->name, "label") == 0)
			tap_ok(f->type == F8B_FT_STR && f->size == 48,
			       "schema: label is a 48-byte string");
		if (strcmp(f->name, "fast_accum") == 0)
			tap_ok(f->type == F8B_FT_I32 && f->size == 4,
			       "schema: fast_accum is an i32");
	}
}

/* ---- provenance ------------------------------------------------------- */

static void test_prov(void)
{
	struct f8b_provenance p = {0};
	char big[2000];

	tap_ok(f8b_prov_set(&p, "a", "%d", 1) == F8B_OK && f8b_prov_set(&p, "b", "x") == F8B_OK,
	       "prov: set two keys");
	tap_ok(f8b_prov_set(&p, "a", "two") == F8B_OK && p.n == 2 &&
	           strcmp(f8b_prov_get(&p, "a"), "two") == 0,
	       "prov: setting a key again replaces its value");
	tap_ok(f8b_prov_get(&p, "zzz") == NULL, "prov: missing key gives NULL");
	tap_ok(f8b_prov_set(&p, "", "x") == F8B_EINVAL, "prov: empty key refused");
	memset(big, 'k', 60);
	big[60] = '\0';
	int rc = f8b_prov_set(&p, big, "x");
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "47"),
	       "prov: 60-char key refused, message gives the limit: %s", f8b_last_error());
	for (int i = 0; i < 40; i++) {
		char key[16];
		snprintf(key, sizeof key, "key%d", i);
		f8b_prov_set(&p, key, "v%d", i);
	}
	tap_ok(p.n == 42 && strcmp(f8b_prov_get(&p, "key39"), "v39") == 0 &&
	           strcmp(f8b_prov_get(&p, "key0"), "v0") == 0,
	       "prov: grows past 16 entries");
	memset(big, 'v', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	f8b_prov_set(&p, "long", "%s", big);
	const char *v = f8b_prov_get(&p, "long");
	tap_ok(v && strlen(v) == 1023 && strcmp(v + 1020, "...") == 0,
	       "prov: a value over 1023 chars is cut and ends in '...'");
	f8b_prov_free(&p);
	tap_ok(p.n == 0 && p.kv == NULL, "prov: free empties");
}

/* ---- create, append, read ------------------------------------------- */

static struct f8b_gemm_row first_rows[3];

static void test_create_and_read(const char *path)
{
	struct f8b_provenance prov = {0}, back = {0};
	struct f8b_results *r = NULL;
	struct f8b_gemm_row *rows = NULL;
	size_t n = 0;
	int run_id = -1, rc;

	make_prov(&prov, "node1");
	rc = f8b_results_open(path, false, &f8b_gemm_schema, &prov, &r, &run_id);
	tap_ok(rc == F8B_OK && r, "create: open new file %s", why(rc));
	tap_ok(run_id == 0, "create: first run id is 0");
	/* A new file takes its name with its first rows: a run killed before
	 * it recorded anything leaves no results file. */
	tap_ok(!exists(path) && count_entries(dir, ".tmp.") == 1,
	       "create: at a temporary name until its first rows");
	for (int i = 0; i < 3; i++)
		fill_row(&first_rows[i], i);
	rc = f8b_results_append(r, &first_rows[0], 1);
	tap_ok(rc == F8B_OK, "create: append 1 row %s", why(rc));
	tap_ok(exists(path), "create: the file is at its path once it holds a row");
	tap_ok(count_entries(dir, ".tmp.") == 0, "create: no temporary file left beside it");
	rc = f8b_results_append(r, &first_rows[1], 2);
	tap_ok(rc == F8B_OK, "create: append 2 more rows");
	tap_ok(f8b_results_append(r, NULL, 0) == F8B_OK, "create: appending 0 rows is a no-op");
	tap_ok(f8b_results_close(r) == F8B_OK, "create: close");
	tap_ok(open_h5_objects() == 0, "create: no HDF5 object left open");
	f8b_prov_free(&prov);

	rc = f8b_results_read(path, &f8b_gemm_schema, (void **)&rows, &n);
	tap_ok(rc == F8B_OK && n == 3, "read: 3 rows back (%zu) %s", n, why(rc));
	for (size_t i = 0; rc == F8B_OK && i < n && i < 3; i++) {
		const char *d = first_diff(&rows[i], &first_rows[i], true);
		tap_ok(!d, "read: row %zu equals what was appended in every column%s%s", i,
		       d ? "; differs in " : "", d ? d : "");
		tap_ok(rows[i].run_id == 0, "read: row %zu carries run_id 0 (was 99 in memory)", i);
		tap_ok(strings_clean(&rows[i]), "read: row %zu strings end in NUL, zeros after it",
		       i);
	}
	if (n == 3) {
		tap_ok(isnan(rows[0].pct_peak), "read: NaN pct_peak stays NaN");
		tap_ok(isinf(rows[2].sqnr_db) && rows[2].sqnr_db < 0,
		       "read: -inf sqnr_db stays -inf");
		tap_ok(strlen(rows[0].gpu) == 47, "read: 47-char gpu string (full column) intact");
		tap_ok(strcmp(rows[1].message, "rel_error 0.3 > tol, \"x\" off") == 0,
		       "read: string with comma and quotes intact");
		tap_ok(rows[2].seed == INT64_C(0x123456789ab) + 2 &&
		           rows[2].workspace_bytes == (int64_t)32 << 20,
		       "read: 64-bit integers intact");
		tap_ok(rows[1].time_median_s == 1.0 / 3.0 + 1, "read: doubles bit-exact");
	}
	free(rows);
	tap_ok(open_h5_objects() == 0, "read: no HDF5 object left open");

	rc = f8b_results_read_provenance(path, &back);
	tap_ok(rc == F8B_OK, "provenance: read root attributes %s", why(rc));
	tap_ok(f8b_prov_get(&back, "host") && strcmp(f8b_prov_get(&back, "host"), "node1") == 0,
	       "provenance: host = node1");
	tap_ok(f8b_prov_get(&back, "command") &&
	           strcmp(f8b_prov_get(&back, "command"),
	                  "f8bench gemm --shapes square --recipe tensorwise") == 0,
	       "provenance: command line intact");
	tap_ok(f8b_prov_get(&back, "schema_version") &&
	           strcmp(f8b_prov_get(&back, "schema_version"), "1") == 0,
	       "provenance: schema_version = 1 listed too");
	f8b_prov_free(&back);
	tap_ok(open_h5_objects() == 0, "provenance: no HDF5 object left open");
}

/* What h5py, pandas and h5dump rely on, checked with plain HDF5 calls. */
static void test_layout(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d, dcpl, sp, t, st;
	hsize_t nfields = 0, nrec = 0, chunk[1] = {0}, dims[1], maxdims[1];
	char buf[64];
	bool units_ok = true;
	int v = 0;

	tap_ok(f >= 0, "layout: plain H5Fopen works");
	herr_t e = H5LTget_attribute_int(f, "/", "schema_version", &v);
	tap_ok(e >= 0 && v == F8B_SCHEMA_VERSION, "layout: root attribute schema_version = %d", v);
	e = H5TBget_table_info(f, "gemm", &nfields, &nrec);
	tap_ok(e >= 0 && nfields == 54 && nrec == 3,
	       "layout: H5TB sees table gemm: %llu fields, %llu records",
	       (unsigned long long)nfields, (unsigned long long)nrec);
	d = H5Dopen2(f, "gemm", H5P_DEFAULT);
	dcpl = H5Dget_create_plist(d);
	tap_ok(H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, chunk) == 1 &&
	           chunk[0] == 64,
	       "layout: chunked, 64 rows per chunk");
	tap_ok(H5Pget_nfilters(dcpl) == 0, "layout: no compression filter");
	sp = H5Dget_space(d);
	tap_ok(H5Sget_simple_extent_dims(sp, dims, maxdims) == 1 && maxdims[0] == H5S_UNLIMITED,
	       "layout: extendible (unlimited max rows)");
	t = H5Dget_type(d);
	tap_ok(H5Tget_class(t) == H5T_COMPOUND && H5Tget_nmembers(t) == 54,
	       "layout: compound of 54 members");
	st = H5Tget_member_type(t, 3); /* label */
	tap_ok(H5Tget_class(st) == H5T_STRING && H5Tget_size(st) == 48 &&
	           H5Tget_strpad(st) == H5T_STR_NULLTERM && H5Tis_variable_str(st) == 0,
	       "layout: label is a fixed 48-byte NUL-terminated string");
	H5Tclose(st);
	tap_ok(H5Tget_size(t) < sizeof(struct f8b_gemm_row),
	       "layout: file rows are packed (%zu < %zu bytes)", H5Tget_size(t),
	       sizeof(struct f8b_gemm_row));
	H5Tclose(t);
	H5Sclose(sp);
	H5Pclose(dcpl);
	H5Dclose(d);
	tap_ok(H5LTget_attribute_string(f, "gemm", "CLASS", buf) >= 0 && strcmp(buf, "TABLE") == 0,
	       "layout: CLASS = TABLE");
	for (size_t i = 0; i < f8b_gemm_schema.nfields; i++) {
		char name[32], unit[64] = "?", fname[64] = "?";
		snprintf(name, sizeof name, "FIELD_%zu_UNIT", i);
		H5LTget_attribute_string(f, "gemm", name, unit);
		snprintf(name, sizeof name, "FIELD_%zu_NAME", i);
		H5LTget_attribute_string(f, "gemm", name, fname);
		if (strcmp(unit, f8b_gemm_schema.fields[i].unit) != 0 ||
		    strcmp(fname, f8b_gemm_schema.fields[i].name) != 0) {
			tap_diag("column %zu: name '%s' unit '%s'", i, fname, unit);
			units_ok = false;
		}
	}
	tap_ok(units_ok, "layout: FIELD_<i>_NAME and FIELD_<i>_UNIT for every column");
	tap_ok(H5Lexists(f, "/runs", H5P_DEFAULT) > 0 && H5Lexists(f, "/runs/0", H5P_DEFAULT) > 0,
	       "layout: group /runs/0 exists");
	H5Fclose(f);
	get_str_attr(path, "/runs/0", "host", buf, sizeof buf);
	tap_ok(strcmp(buf, "node1") == 0, "layout: /runs/0 has host = node1");
	get_str_attr(path, "/", "format", buf, sizeof buf);
	tap_ok(strcmp(buf, "f8bench results") == 0, "layout: root format = 'f8bench results'");
	tap_ok(open_h5_objects() == 0, "layout: no HDF5 object left open");
}

static void test_refuse_existing(const char *path)
{
	struct f8b_results *r = NULL;
	size_t len0 = 0, len1 = 0;
	char *before = slurp(path, &len0), *after;
	int rc;

	rc = f8b_results_open(path, false, &f8b_gemm_schema, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && r == NULL, "refuse: creating over an existing file fails");
	tap_ok(strstr(f8b_last_error(), path) && strstr(f8b_last_error(), "--append"),
	       "refuse: message names the file and --append: %s", f8b_last_error());
	after = slurp(path, &len1);
	tap_ok(before && after && len0 == len1 && memcmp(before, after, len0) == 0,
	       "refuse: existing file is byte-for-byte untouched");
	tap_ok(count_entries(dir, ".tmp.") == 0, "refuse: no temporary file left");
	free(before);
	free(after);
}

static void test_append_runs(const char *path)
{
	struct f8b_provenance prov = {0};
	struct f8b_results *r = NULL;
	struct f8b_gemm_row more[2], *rows = NULL;
	char buf[64];
	size_t n = 0;
	int run_id = -1, rc;

	make_prov(&prov, "node2");
	rc = f8b_results_open(path, true, &f8b_gemm_schema, &prov, &r, &run_id);
	tap_ok(rc == F8B_OK, "append: open existing file %s", why(rc));
	tap_ok(run_id == 1, "append: second run gets run id 1 (%d)", run_id);
	fill_row(&more[0], 10);
	fill_row(&more[1], 11);
	tap_ok(f8b_results_append(r, more, 2) == F8B_OK, "append: 2 rows");
	tap_ok(f8b_results_close(r) == F8B_OK, "append: close");
	f8b_prov_free(&prov);

	rc = f8b_results_read(path, &f8b_gemm_schema, (void **)&rows, &n);
	tap_ok(rc == F8B_OK && n == 5, "append: 5 rows in the file (%zu)", n);
	if (n == 5) {
		bool old_ok = true;
		for (int i = 0; i < 3; i++)
			old_ok = old_ok && rows[i].run_id == 0 &&
			         !first_diff(&rows[i], &first_rows[i], true);
		tap_ok(old_ok, "append: the first run's 3 rows are unchanged");
		tap_ok(!first_diff(&rows[3], &more[0], true) &&
		           !first_diff(&rows[4], &more[1], true),
		       "append: new rows equal what was appended");
		tap_ok(rows[3].run_id == 1 && rows[4].run_id == 1,
		       "append: new rows carry run_id 1");
	}
	free(rows);
	get_str_attr(path, "/runs/0", "host", buf, sizeof buf);
	tap_ok(strcmp(buf, "node1") == 0, "append: /runs/0 keeps host node1");
	get_str_attr(path, "/runs/1", "host", buf, sizeof buf);
	tap_ok(strcmp(buf, "node2") == 0, "append: /runs/1 has host node2");
	get_str_attr(path, "/", "host", buf, sizeof buf);
	tap_ok(strcmp(buf, "node1") == 0, "append: root provenance stays the creating run's");

	/* A run that appends nothing and is abandoned leaves no /runs entry,
	 * so the next run reuses its id. */
	rc = f8b_results_open(path, true, &f8b_gemm_schema, NULL, &r, &run_id);
	tap_ok(rc == F8B_OK && run_id == 2, "append: third run gets id 2");
	f8b_results_abandon(r);
	tap_ok(exists(path), "append: abandoning an existing file keeps it");
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	tap_ok(H5Lexists(f, "/runs/2", H5P_DEFAULT) == 0 &&
	           H5Lexists(f, "/runs/1", H5P_DEFAULT) > 0,
	       "append: abandoned run's /runs/2 removed, /runs/1 kept");
	H5Fclose(f);
	rows = NULL;
	rc = f8b_results_read(path, &f8b_gemm_schema, (void **)&rows, &n);
	tap_ok(rc == F8B_OK && n == 5, "append: abandon left the 5 rows");
	free(rows);
	tap_ok(open_h5_objects() == 0, "append: no HDF5 object left open");
}

static void test_unwritable(void)
{
	struct f8b_results *r = NULL;
	char p[512], sub[512];
	int rc;

	path_in_dir(p, sizeof p, "no-such-dir/run.h5");
	rc = f8b_results_open(p, false, &f8b_gemm_schema, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && !r && strstr(f8b_last_error(), "does not exist") &&
	           strstr(f8b_last_error(), "no-such-dir"),
	       "unwritable: missing directory named: %s", f8b_last_error());
	tap_ok(!strchr(f8b_last_error(), '\n'), "unwritable: message is one line");
	path_in_dir(p, sizeof p, "no-such-dir/run.h5");
	rc = f8b_results_open(p, true, &f8b_gemm_schema, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && strstr(f8b_last_error(), "does not exist"),
	       "unwritable: --append to a missing directory fails the same way");

	path_in_dir(sub, sizeof sub, "ro");
	mkdir(sub, 0755);
	if (geteuid() == 0) {
		tap_ok(1, "unwritable: read-only directory # SKIP root may write anywhere");
		tap_ok(1, "unwritable: nothing left behind # SKIP root");
	} else {
		chmod(sub, 0555);
		path_in_dir(p, sizeof p, "ro/run.h5");
		rc = f8b_results_open(p, false, &f8b_gemm_schema, NULL, &r, NULL);
		tap_ok(rc == F8B_EIO && strstr(f8b_last_error(), "not writable"),
		       "unwritable: read-only directory: %s", f8b_last_error());
		tap_ok(count_entries(sub, "") == 0, "unwritable: nothing left in it");
		chmod(sub, 0755);
	}
	rmdir(sub);
	tap_ok(open_h5_objects() == 0, "unwritable: no HDF5 object left open");
}

static void test_abandon_new(void)
{
	struct f8b_results *r = NULL;
	struct f8b_gemm_row row;
	char p[512];
	size_t n = 0;
	void *rows = NULL;

	path_in_dir(p, sizeof p, "abandoned.h5");
	tap_ok(f8b_results_open(p, false, &f8b_gemm_schema, NULL, &r, NULL) == F8B_OK &&
	           count_entries(dir, "abandoned.h5.tmp.") == 1,
	       "abandon: new file created (at its temporary name)");
	f8b_results_abandon(r);
	tap_ok(!exists(p) && count_entries(dir, "abandoned") == 0,
	       "abandon: file removed, nothing left");

	/* Once rows are in, abandon keeps them. */
	tap_ok(f8b_results_open(p, false, &f8b_gemm_schema, NULL, &r, NULL) == F8B_OK,
	       "abandon: create again");
	fill_row(&row, 5);
	f8b_results_append(r, &row, 1);
	f8b_results_abandon(r);
	tap_ok(f8b_results_read(p, &f8b_gemm_schema, &rows, &n) == F8B_OK && n == 1,
	       "abandon: a file with rows is kept, rows intact");
	free(rows);
	unlink(p);
	f8b_results_abandon(NULL);
	tap_ok(f8b_results_close(NULL) == F8B_OK, "abandon/close of NULL are no-ops");
	tap_ok(open_h5_objects() == 0, "abandon: no HDF5 object left open");
}

/* A run killed after appending keeps its rows (append flushes). */
static void test_killed(void)
{
	char p[512];
	struct f8b_gemm_row *rows = NULL;
	size_t n = 0;
	int status = 0, run_id = -1;
	pid_t pid;

	path_in_dir(p, sizeof p, "killed.h5");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct f8b_results *r;
		struct f8b_gemm_row two[2];
		fill_row(&two[0], 0);
		fill_row(&two[1], 1);
		if (f8b_results_open(p, false, &f8b_gemm_schema, NULL, &r, NULL) != F8B_OK ||
		    f8b_results_append(r, two, 2) != F8B_OK)
			_exit(3);
		raise(SIGKILL);
		_exit(4);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	       "killed: writer died by SIGKILL after appending");
	int rc = f8b_results_read(p, &f8b_gemm_schema, (void **)&rows, &n);
	tap_ok(rc == F8B_OK && n == 2, "killed: both appended rows are in the file (%zu) %s", n,
	       why(rc));
	if (n == 2)
		tap_ok(!first_diff(&rows[0], &first_rows[0], true), "killed: row 0 intact");
	free(rows);
	struct f8b_results *r = NULL;
	rc = f8b_results_open(p, true, &f8b_gemm_schema, NULL, &r, &run_id);
	tap_ok(rc == F8B_OK && run_id == 1, "killed: the file takes another run %s", why(rc));
	f8b_results_close(r);
	unlink(p);
	tap_ok(open_h5_objects() == 0, "killed: no HDF5 object left open");
}

static void test_not_ours(void)
{
	struct f8b_results *r = NULL;
	char p[512];
	hid_t f, a;
	int v = 99, rc;

	/* A results file from a future schema. */
	path_in_dir(p, sizeof p, "v99.h5");
	f8b_results_open(p, false, &f8b_gemm_schema, NULL, &r, NULL);
	f8b_results_close(r);
	f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
	a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	H5Awrite(a, H5T_NATIVE_INT, &v);
	H5Aclose(a);
	H5Fclose(f);
	rc = f8b_results_open(p, true, &f8b_gemm_schema, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && !r && strstr(f8b_last_error(), "version 99") &&
	           strstr(f8b_last_error(), "version 1"),
	       "version: mismatch names both versions: %s", f8b_last_error());
	unlink(p);

	/* An HDF5 file that f8bench did not write. */
	path_in_dir(p, sizeof p, "plain.h5");
	f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	H5Fclose(f);
	rc = f8b_results_open(p, true, &f8b_gemm_schema, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && strstr(f8b_last_error(), "not an f8bench results file"),
	       "version: plain HDF5 file refused: %s", f8b_last_error());
	unlink(p);

	/* Not HDF5 at all. */
	path_in_dir(p, sizeof p, "text.h5");
	FILE *t = fopen(p, "w");
	fputs("m,k,n\n1,2,3\n", t);
	fclose(t);
	rc = f8b_results_open(p, true, &f8b_gemm_schema, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && strstr(f8b_last_error(), p) && !strchr(f8b_last_error(), '\n'),
	       "version: text file refused in one line naming it: %s", f8b_last_error());
	void *rows;
	size_t n;
	tap_ok(f8b_results_read(p, &f8b_gemm_schema, &rows, &n) == F8B_EIO && rows == NULL,
	       "version: reading it fails cleanly");
	unlink(p);
	tap_ok(open_h5_objects() == 0, "version: no HDF5 object left open");
}

/* Small tables to test column matching without the gemm schema. */
struct tiny {
	int64_t id;
	double x;
	char tag[8];
};
struct tiny_rev { /* same columns, another order and layout */
	char tag[12];
	int32_t pad_;
	double x;
	int64_t id;
};
static const struct f8b_field tiny_fields[] = {
    {"id", F8B_FT_I64, offsetof(struct tiny, id), 8, ""},
    {"x", F8B_FT_F64, offsetof(struct tiny, x), 8, "s"},
    {"tag", F8B_FT_STR, offsetof(struct tiny, tag), 8, ""},
};
static const struct f8b_table_schema tiny = {
    "tiny", "tiny test table", sizeof(struct tiny), tiny_fields, 3, NULL};
static const struct f8b_field tiny_rev_fields[] = {
    {"x", F8B_FT_F64, offsetof(struct tiny_rev, x), 8, "s"},
    {"tag", F8B_FT_STR, offsetof(struct tiny_rev, tag), 12, ""},
    {"id", F8B_FT_I64, offsetof(struct tiny_rev, id), 8, ""},
};
static const struct f8b_table_schema tiny_rev = {"tiny",          "tiny", sizeof(struct tiny_rev),
                                                 tiny_rev_fields, 3,      NULL};
static const struct f8b_field tiny_renamed_fields[] = {
    {"id", F8B_FT_I64, offsetof(struct tiny, id), 8, ""},
    {"y", F8B_FT_F64, offsetof(struct tiny, x), 8, "s"},
    {"tag", F8B_FT_STR, offsetof(struct tiny, tag), 8, ""},
};
static const struct f8b_table_schema tiny_renamed = {
    "tiny", "tiny", sizeof(struct tiny), tiny_renamed_fields, 3, NULL};
static const struct f8b_table_schema tiny_short = {"tiny",      "tiny", sizeof(struct tiny),
                                                   tiny_fields, 2,      NULL};
static const struct f8b_field tiny_retyped_fields[] = {
    {"id", F8B_FT_I64, offsetof(struct tiny, id), 8, ""},
    {"x", F8B_FT_F64, offsetof(struct tiny, x), 8, "s"},
    {"tag", F8B_FT_STR, offsetof(struct tiny, tag), 4, ""},
};
static const struct f8b_table_schema tiny_retyped = {
    "tiny", "tiny", sizeof(struct tiny), tiny_retyped_fields, 3, NULL};

static void test_columns(const char *path)
{
	struct f8b_results *r = NULL;
	struct tiny t[2] = {{7, 0.5, "ab"}, {8, -2.25, "a,b"}};
	struct tiny_rev *rev = NULL;
	void *rows = NULL;
	size_t n = 0;
	int run_id = -1, rc;

	/* The gemm file lacks table tiny: --append adds it. */
	rc = f8b_results_open(path, true, &tiny, NULL, &r, &run_id);
	tap_ok(rc == F8B_OK && run_id == 2, "columns: append a new table to the gemm file %s",
	       why(rc));
	tap_ok(f8b_results_append(r, t, 2) == F8B_OK && f8b_results_close(r) == F8B_OK,
	       "columns: 2 tiny rows written");
	rc = f8b_results_read(path, &tiny_rev, (void **)&rev, &n);
	tap_ok(rc == F8B_OK && n == 2 && rev[1].id == 8 && rev[1].x == -2.25 &&
	           strcmp(rev[1].tag, "a,b") == 0 && rev[0].id == 7,
	       "columns: read by name into another member order and layout");
	free(rev);

	rc = f8b_results_open(path, true, &tiny_renamed, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && strstr(f8b_last_error(), "'x'") && strstr(f8b_last_error(), "'y'"),
	       "columns: renamed column named in the error: %s", f8b_last_error());
	rc = f8b_results_open(path, true, &tiny_short, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && strstr(f8b_last_error(), "'tag'"),
	       "columns: extra file column named: %s", f8b_last_error());
	rc = f8b_results_open(path, true, &tiny_retyped, NULL, &r, NULL);
	tap_ok(rc == F8B_EIO && strstr(f8b_last_error(), "'tag'") &&
	           strstr(f8b_last_error(), "8-byte string"),
	       "columns: changed column type named: %s", f8b_last_error());
	/* A column the file lacks (written before f8bench added it) reads
	 * as NaN; the columns it has still read by name. */
	rc = f8b_results_read(path, &tiny_renamed, &rows, &n);
	{
		const struct tiny *tr = rows;
		tap_ok(rc == F8B_OK && n == 2 && tr && isnan(tr[0].x) && isnan(tr[1].x) &&
		           tr[1].id == 8 && strcmp(tr[1].tag, "a,b") == 0,
		       "columns: a column missing from the file reads as NaN %s", why(rc));
		free(rows);
		rows = NULL;
	}
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	tap_ok(H5Lexists(f, "/runs/3", H5P_DEFAULT) == 0,
	       "columns: refused opens left no /runs group behind");
	H5Fclose(f);
	tap_ok(open_h5_objects() == 0, "columns: no HDF5 object left open");
}

/* ---- CSV ------------------------------------------------------------- */

/* Splits one CSV line into fields (RFC 4180 quoting); returns the count. */
static int csv_split(const char *line, char fields[][128], int max)
{
	int n = 0;
	const char *p = line;
	while (n < max) {
		size_t len = 0;
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				if (len < 127)
					fields[n][len++] = *p;
			}
			if (*p == '"')
				p++;
		} else {
			for (; *p && *p != ',' && *p != '\n'; p++)
				if (len < 127)
					fields[n][len++] = *p;
		}
		fields[n++][len] = '\0';
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

static int column_index(const char *name)
{
	for (size_t i = 0; i < f8b_gemm_schema.nfields; i++)
		if (strcmp(f8b_gemm_schema.fields[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void test_csv(const char *path)
{
	static char fields[64][128];
	char line[4096], csv[512];
	FILE *out;
	int rc, lines = 0, nf = 0, header_ok = 0, rows_ok = 1;

	path_in_dir(csv, sizeof csv, "gemm.csv");
	out = fopen(csv, "w");
	rc = f8b_results_export_csv(path, "gemm", out);
	fclose(out);
	tap_ok(rc == F8B_OK, "csv: export table gemm %s", why(rc));
	out = fopen(csv, "r");
	while (out && fgets(line, sizeof line, out)) {
		nf = csv_split(line, fields, 64);
		if (lines == 0) {
			header_ok = nf == 54;
			for (int i = 0; i < nf && i < 54; i++)
				header_ok = header_ok &&
				            strcmp(fields[i], f8b_gemm_schema.fields[i].name) == 0;
		} else {
			rows_ok = rows_ok && nf == 54;
		}
		if (lines == 1) {
			tap_ok(strcmp(fields[0], "1024") == 0 &&
			           strcmp(fields[3], "llama3-8b.attn.qkv.0") == 0,
			       "csv: row 0 starts 1024,...,llama3-8b.attn.qkv.0");
			tap_ok(strcmp(fields[column_index("pct_peak")], "nan") == 0,
			       "csv: NaN written as nan");
			tap_ok(strtod(fields[column_index("time_median_s")], NULL) == 1.0 / 3.0,
			       "csv: doubles round-trip (%s)",
			       fields[column_index("time_median_s")]);
			tap_ok(strcmp(fields[column_index("message")], "") == 0,
			       "csv: empty string is an empty field");
		}
		if (lines == 2)
			tap_ok(strcmp(fields[column_index("message")],
			              "rel_error 0.3 > tol, \"x\" off") == 0 &&
			           strstr(line, "\"rel_error 0.3 > tol, \"\"x\"\" off\""),
			       "csv: string with comma and quotes is quoted and escaped");
		if (lines == 3)
			tap_ok(strcmp(fields[column_index("sqnr_db")], "-inf") == 0,
			       "csv: -inf written as -inf");
		lines++;
	}
	if (out)
		fclose(out);
	tap_ok(header_ok, "csv: header lists the 54 column names in order");
	tap_ok(lines == 6 && rows_ok, "csv: header + 5 rows of 54 fields (%d lines)", lines);

	out = fopen(csv, "w");
	rc = f8b_results_export_csv(path, NULL, out);
	fclose(out);
	size_t len = 0;
	char *all = slurp(csv, &len);
	tap_ok(rc == F8B_OK && all && strncmp(all, "# table gemm\nm,k,n,", 19) == 0 &&
	           strstr(all, "\n# table tiny\nid,x,tag\n7,0.5,ab\n8,-2.25,\"a,b\"\n"),
	       "csv: every table, each after '# table NAME'");
	free(all);

	out = fopen(csv, "w");
	rc = f8b_results_export_csv(path, "nope", out);
	fclose(out);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "'nope'"),
	       "csv: unknown table named: %s", f8b_last_error());
	unlink(csv);
	tap_ok(open_h5_objects() == 0, "csv: no HDF5 object left open");
}

/* A table f8bench did not write (as h5py would): float32, unsigned,
 * UTF-8 variable-length strings; and a bool (enum) column it cannot show. */
static void test_csv_foreign(void)
{
	struct ext {
		float a;
		uint16_t b;
		const char *s;
	} rows[2] = {{0.1f, 65535, "h\xc3\xa9,llo"}, {NAN, 7, ""}};
	char p[512], csv[512];
	hid_t f, c, str, sp, d;
	hsize_t n = 2;
	FILE *out;
	int rc;

	path_in_dir(p, sizeof p, "foreign.h5");
	path_in_dir(csv, sizeof csv, "foreign.csv");
	f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	str = H5Tcopy(H5T_C_S1);
	H5Tset_size(str, H5T_VARIABLE);
	H5Tset_cset(str, H5T_CSET_UTF8);
	c = H5Tcreate(H5T_COMPOUND, sizeof(struct ext));
	H5Tinsert(c, "a", offsetof(struct ext, a), H5T_NATIVE_FLOAT);
	H5Tinsert(c, "b", offsetof(struct ext, b), H5T_NATIVE_UINT16);
	H5Tinsert(c, "s", offsetof(struct ext, s), str);
	sp = H5Screate_simple(1, &n, NULL);
	d = H5Dcreate2(f, "ext", c, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(d, c, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows);
	H5Dclose(d);
	d = H5Dcreate2(f, "plain", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dclose(d);
	H5Tclose(c);
	H5Tclose(str);
	H5Sclose(sp);
	H5Fclose(f);

	out = fopen(csv, "w");
	rc = f8b_results_export_csv(p, NULL, out);
	fclose(out);
	size_t len = 0;
	char *all = slurp(csv, &len);
	tap_ok(rc == F8B_OK && all &&
	           strcmp(all,
	                  "# table ext\na,b,s\n0.100000001,65535,\"h\xc3\xa9,llo\"\nnan,7,\n") == 0,
	       "csv: foreign table (float32, uint16, UTF-8 vlen string) exported, "
	       "non-table dataset skipped %s",
	       why(rc));
	free(all);

	/* An enum column (h5py's bool) is refused by name. */
	f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t e = H5Tenum_create(H5T_NATIVE_INT8);
	int8_t v0 = 0, v1 = 1, flag = 1;
	H5Tenum_insert(e, "FALSE", &v0);
	H5Tenum_insert(e, "TRUE", &v1);
	c = H5Tcreate(H5T_COMPOUND, 1);
	H5Tinsert(c, "flag", 0, e);
	n = 1;
	sp = H5Screate_simple(1, &n, NULL);
	d = H5Dcreate2(f, "bools", c, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(d, c, H5S_ALL, H5S_ALL, H5P_DEFAULT, &flag);
	H5Dclose(d);
	H5Sclose(sp);
	H5Tclose(c);
	H5Tclose(e);
	H5Fclose(f);
	out = fopen(csv, "w");
	rc = f8b_results_export_csv(p, "bools", out);
	fclose(out);
	all = slurp(csv, &len);
	tap_ok(rc == F8B_EUNSUPPORTED && strstr(f8b_last_error(), "'flag'") && all && len == 0,
	       "csv: enum column refused by name, nothing written: %s", f8b_last_error());
	free(all);
	unlink(csv);
	unlink(p);
	tap_ok(open_h5_objects() == 0, "csv: no HDF5 object left open");
}

static void test_reserved(void)
{
	struct f8b_provenance p = {0};
	struct f8b_results *r = NULL;
	char path[512];

	path_in_dir(path, sizeof path, "reserved.h5");
	f8b_prov_set(&p, "schema_version", "7");
	tap_ok(f8b_results_open(path, false, &f8b_gemm_schema, &p, &r, NULL) == F8B_EINTERNAL &&
	           !exists(path),
	       "reserved: provenance may not set schema_version");
	f8b_prov_free(&p);
}

static void rm_dir(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	char p[600];
	while (dp && (e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", d, e->d_name);
		tap_diag("left behind: %s", p);
		unlink(p);
	}
	if (dp)
		closedir(dp);
	rmdir(d);
}

int main(void)
{
	char path[512];

	snprintf(dir, sizeof dir, "%s/f8b-results-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp %s: %s", dir, strerror(errno));
		return tap_done();
	}
	path_in_dir(path, sizeof path, "run.h5");

	test_schema();
	test_prov();
	test_create_and_read(path);
	test_layout(path);
	test_refuse_existing(path);
	test_append_runs(path);
	test_unwritable();
	test_abandon_new();
	test_killed();
	test_not_ours();
	test_columns(path);
	test_csv(path);
	test_csv_foreign();
	test_reserved();

	if (getenv("F8B_KEEP_RESULTS"))
		tap_diag("kept %s", path);
	else
		unlink(path);
	if (!getenv("F8B_KEEP_RESULTS"))
		rm_dir(dir);
	return tap_done();
}
