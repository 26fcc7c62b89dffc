/* test_gemm_impl.c - --gemm-impl in lls and allgather, without a GPU:
 * the option (a bad name and a repeated one refused, naming what is
 * accepted), the cases it makes (each fp8 recipe or mode once per
 * implementation, bf16 once on cuBLASLt), the gemm_impl column in every
 * row, and the readers: a file from before the column reads as cublaslt,
 * compare never pairs rows of two implementations, merge keys on it, and
 * the lls report tells the two apart.  The host backend's refusal of f8b
 * is in tests/cli_lls.sh and tests/mpi_allgather.sh (whole runs). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/allgather/ag_int.h"
#include "bench/lls/lls_int.h"
#include "report/compare.h"
#include "report/merge.h"
#include "report/report.h"
#include "results/results.h"
#include "tap.h"
#include "tap_capture.h"

static char dir[256];

static const char *in_dir(const char *name)
{
	return tap_in_dir(dir, name);
}

static int option_key(const struct f8b_option *t, const char *name)
{
	for (; t->name; t++)
		if (!strcmp(t->name, name))
			return t->key;
	return -1;
}

/* A benchmark's cfg with `opts` (name, value pairs) given, finalized;
 * returns finalize's status, the cases in *n. */
static int configure(const struct f8b_bench *b, void **cfg, const char *const *opts, size_t *n)
{
	*n = 0;
	if (b->cfg_new(cfg) != F8B_OK)
		return F8B_EINTERNAL;
	for (; opts && *opts; opts += 2) {
		int rc = b->cfg_option(*cfg, option_key(b->options, opts[0]), opts[1]);
		if (rc != F8B_OK)
			return rc;
	}
	return b->cfg_finalize(*cfg, n);
}

/* ---------------------------------------------------------------- options */

static void test_option(const struct f8b_bench *b, const char *const *base)
{
	static const struct {
		const char *value, *want;
	} bad[] = {
	    {"cublas", "accepted: cublaslt, f8b"},
	    {"f8b,f8b", "listed twice"},
	    {"cublaslt,CUBLASLT", "listed twice"},
	    {"cublaslt,", "empty item"},
	    {"", "empty item"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *opts[16] = {0};
		size_t k = 0, n;
		for (; base[k]; k++)
			opts[k] = base[k];
		opts[k++] = "gemm-impl";
		opts[k++] = bad[i].value;
		void *cfg = NULL;
		int rc = configure(b, &cfg, opts, &n);
		const char *e = f8b_last_error();
		tap_ok(rc == F8B_EINVAL && strstr(e, "--gemm-impl") && strstr(e, bad[i].want),
		       "%s --gemm-impl '%s' refused: %s", b->name, bad[i].value, e);
		b->cfg_free(cfg);
	}
}

/* ---------------------------------------------------------------- lls cases */

static void test_lls_cases(void)
{
	const struct f8b_bench *b = &f8b_bench_lls;
	const char *const base[] = {"shapes", "128x256x192,256x128x64", NULL};
	test_option(b, base);

	const char *const two[] = {
	    "shapes",    "128x256x192,256x128x64", "recipe", "bf16,tensorwise,lw-axiswise-gw-hp",
	    "gemm-impl", "cublaslt,f8b",           NULL};
	void *cfg = NULL;
	size_t n = 0;
	int rc = configure(b, &cfg, two, &n);
	/* per shape: bf16 once, two fp8 recipes x two implementations */
	tap_ok(rc == F8B_OK && n == 2 * (1 + 2 * 2),
	       "lls: 2 shapes x (bf16 + 2 x 2) = 10 cases (%zu)", n);
	struct f8b_lls_row *rows = tap_xcalloc(n + 1, sizeof *rows);
	int f8b = 0, cub = 0, bf16_f8b = 0;
	for (size_t i = 0; rc == F8B_OK && i < n; i++) {
		b->case_key(cfg, i, &rows[i]);
		f8b += !strcmp(rows[i].gemm_impl, "f8b");
		cub += !strcmp(rows[i].gemm_impl, "cublaslt");
		bf16_f8b +=
		    !strcmp(rows[i].recipe, "bf16") && strcmp(rows[i].gemm_impl, "cublaslt");
	}
	tap_ok(f8b == 4 && cub == 6 && bf16_f8b == 0,
	       "lls: every case names its implementation: 4 f8b, 6 cublaslt, bf16 always cublaslt "
	       "(%d, %d, %d)",
	       f8b, cub, bf16_f8b);
	tap_ok(n >= 3 && !strcmp(rows[1].recipe, "tensorwise") &&
	           !strcmp(rows[2].recipe, "tensorwise") &&
	           !strcmp(rows[1].gemm_impl, "cublaslt") && !strcmp(rows[2].gemm_impl, "f8b"),
	       "lls: a recipe's two implementations are neighbours, cublaslt first");
	bool distinct = true;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			distinct &= !b->same_case(&rows[i], &rows[j]);
	tap_ok(distinct, "lls: no two cases are the same case (the implementation is a key)");
	char what[256] = "";
	if (n >= 3)
		b->describe(&rows[2], what, sizeof what);
	tap_ok(strstr(what, "tensorwise") && strstr(what, "f8b"),
	       "lls: the progress line names the implementation beside the recipe (%s)", what);

	/* The same, on f8b alone: bf16 still once, on cuBLASLt. */
	void *cfg1 = NULL;
	const char *const one[] = {"shapes",    "128x256x192", "recipe", "bf16,tensorwise",
	                           "gemm-impl", "f8b",         NULL};
	rc = configure(b, &cfg1, one, &n);
	struct f8b_lls_row r0 = {0}, r1 = {0};
	if (rc == F8B_OK && n == 2) {
		b->case_key(cfg1, 0, &r0);
		b->case_key(cfg1, 1, &r1);
	}
	tap_ok(rc == F8B_OK && n == 2 && !strcmp(r0.gemm_impl, "cublaslt") &&
	           !strcmp(r1.gemm_impl, "f8b"),
	       "lls --gemm-impl f8b: bf16 on cublaslt, tensorwise on f8b");

	/* The default is cuBLASLt. */
	void *cfg2 = NULL;
	const char *const dflt[] = {"shapes", "128x256x192", "recipe", "tensorwise", NULL};
	rc = configure(b, &cfg2, dflt, &n);
	memset(&r0, 0, sizeof r0);
	if (rc == F8B_OK && n == 1)
		b->case_key(cfg2, 0, &r0);
	tap_ok(rc == F8B_OK && n == 1 && !strcmp(r0.gemm_impl, "cublaslt"),
	       "lls: without --gemm-impl, one case on cublaslt");

	/* which GEMMs a recipe runs in fp8 (the rest stay on cuBLASLt) */
	struct lls_cfg *c = cfg;
	unsigned bits[3] = {0};
	for (size_t i = 0; i < c->nrecipes && i < 3; i++)
		bits[i] = f8b_lls_fp8_gemms(&c->recipes[i]);
	tap_ok(bits[0] == 0 && bits[1] == 7 && bits[2] == 3,
	       "fp8 GEMMs: bf16 none, tensorwise all three, lw-axiswise-gw-hp output and "
	       "grad_input (%u %u %u)",
	       bits[0], bits[1], bits[2]);
	free(rows);
	b->cfg_free(cfg);
	b->cfg_free(cfg1);
	b->cfg_free(cfg2);
}

/* ---------------------------------------------------------------- allgather cases */

static void test_ag_cases(void)
{
	const struct f8b_bench *b = &f8b_bench_allgather;
	const char *const base[] = {"weights", "256", NULL};
	test_option(b, base);
	const char *const two[] = {"weights",   "256",          "tokens", "64,128",
	                           "gemm-impl", "f8b,cublaslt", NULL};
	void *cfg = NULL;
	size_t n = 0;
	int rc = configure(b, &cfg, two, &n);
	/* per token count: bf16 once, three fp8 modes x two */
	tap_ok(rc == F8B_OK && n == 2 * (1 + 3 * 2),
	       "allgather: 2 token counts x (bf16 + 3 x 2) = 14 cases (%zu)", n);
	struct f8b_allgather_row *rows = tap_xcalloc(n + 1, sizeof *rows);
	int f8b = 0, bf16_ok = 1;
	for (size_t i = 0; rc == F8B_OK && i < n; i++) {
		b->case_key(cfg, i, &rows[i]);
		f8b += !strcmp(rows[i].gemm_impl, "f8b");
		if (!strcmp(rows[i].mode, "bf16"))
			bf16_ok &= !strcmp(rows[i].gemm_impl, "cublaslt");
	}
	tap_ok(f8b == 6 && bf16_ok, "allgather: 6 f8b rows, bf16 on cublaslt (%d)", f8b);
	tap_ok(n > 2 && !strcmp(rows[1].gemm_impl, "f8b") && !strcmp(rows[2].gemm_impl, "cublaslt"),
	       "allgather: --gemm-impl's order is kept (f8b, then cublaslt)");
	bool distinct = true;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			distinct &= !b->same_case(&rows[i], &rows[j]);
	tap_ok(distinct, "allgather: no two cases are the same case");
	char what[256] = "";
	if (n > 1)
		b->describe(&rows[1], what, sizeof what);
	tap_ok(strstr(what, "f8b") != NULL, "allgather: the progress line names it (%s)", what);
	/* "" (files before the column) is cuBLASLt's */
	struct f8b_allgather_row old = rows[2];
	memset(old.gemm_impl, 0, sizeof old.gemm_impl);
	tap_ok(b->same_case(&old, &rows[2]) && !b->same_case(&old, &rows[1]),
	       "allgather: a row without gemm_impl is the cublaslt case, not the f8b one");
	free(rows);
	b->cfg_free(cfg);
}

/* ---------------------------------------------------------------- files */

static struct f8b_lls_row lls_row(const char *recipe, const char *impl, double ms, int lanes)
{
	struct f8b_lls_row r = {0};
	r.m = r.k = r.n = 256;
	f8b_setstr(r.recipe, sizeof r.recipe, recipe);
	f8b_setstr(r.recipe_long, sizeof r.recipe_long, recipe); /* a stand-in */
	f8b_setstr(r.gemm_impl, sizeof r.gemm_impl, impl);
	r.graph = 1;
	r.lanes = lanes;
	f8b_setstr(r.backend, sizeof r.backend, "cuda");
	f8b_setstr(r.status, sizeof r.status, F8B_ROW_OK);
	r.time_median_s = r.time_min_s = r.time_max_s = ms * 1e-3;
	r.time_noise = 0.001;
	r.samples = 100;
	r.converged = 1;
	r.bf16_time_median_s = 1e-3;
	r.speedup_vs_bf16 = 1.0 / ms;
	r.kernels_time_s = r.gemm_time_s = r.predicted_time_s = r.pct_of_roofline = NAN;
	r.step_flops = r.step_bytes = r.scale_staleness = NAN;
	r.sqnr_y_db = r.sqnr_grad_x_db = r.sqnr_grad_w_db = r.sqnr_min_db = 30;
	f8b_setstr(r.gpu, sizeof r.gpu, "NVIDIA H100 80GB HBM3");
	return r;
}

static struct f8b_lls_kernel_row kern_row(const struct f8b_lls_row *r, int index)
{
	struct f8b_lls_kernel_row k = {0};
	k.m = r->m;
	k.k = r->k;
	k.n = r->n;
	f8b_setstr(k.recipe, sizeof k.recipe, r->recipe);
	memcpy(k.gemm_impl, r->gemm_impl, sizeof k.gemm_impl);
	k.index = index;
	f8b_setstr(k.kernel, sizeof k.kernel, index ? "gemm" : "cast_fused");
	f8b_setstr(k.tensor, sizeof k.tensor, index ? "output" : "W");
	f8b_setstr(k.status, sizeof k.status, F8B_ROW_OK);
	k.time_median_s = (index + 1) * 1e-4;
	k.bytes = k.flops = k.gbps = k.pct_of_bw = k.tflops = NAN;
	k.predicted_time_s = k.pct_of_roofline = k.time_noise = NAN;
	return k;
}

/* An lls file of these rows, each with two kernel rows; `schema` and
 * `kschema` may be copies of this f8bench's without gemm_impl (an older
 * file). */
static int write_lls(const char *path, const struct f8b_table_schema *schema,
                     const struct f8b_table_schema *kschema, const struct f8b_lls_row *rows,
                     size_t n)
{
	struct f8b_provenance p = {0};
	struct f8b_results *r = NULL;
	int run = -1;
	f8b_prov_set(&p, "benchmark", "lls");
	f8b_prov_set(&p, "device_name", "NVIDIA H100 80GB HBM3");
	f8b_prov_set(&p, "device_pci_id", "0x2330");
	int rc = f8b_results_open(path, false, schema, &p, &r, &run);
	if (rc == F8B_OK)
		rc = f8b_results_add_table(r, kschema);
	for (size_t i = 0; rc == F8B_OK && i < n; i++) {
		struct f8b_lls_kernel_row k[2] = {kern_row(&rows[i], 0), kern_row(&rows[i], 1)};
		rc = f8b_results_append_extra(r, k, 2);
		if (rc == F8B_OK)
			rc = f8b_results_append(r, &rows[i], 1);
	}
	if (r && f8b_results_close(r) != F8B_OK)
		rc = F8B_EIO;
	f8b_prov_free(&p);
	if (rc != F8B_OK)
		tap_diag("writing %s: %s", path, f8b_last_error());
	return rc;
}

/* A copy of schema s without its gemm_impl column. */
static struct f8b_table_schema without_impl(const struct f8b_table_schema *s,
                                            struct f8b_field *fields)
{
	struct f8b_table_schema o = *s;
	size_t k = 0;
	for (size_t i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].name, "gemm_impl"))
			fields[k++] = s->fields[i];
	o.fields = fields;
	o.nfields = k;
	o.late_columns = NULL;
	return o;
}

static char cap_out[1 << 16], cap_err[8192];

/* Runs fn(argc, argv) with stdout and stderr caught in cap_out, cap_err;
 * returns its exit status. */
static int run_main(int (*fn)(int, char **), const char *const *args)
{
	char *argv[32];
	int argc = 0;
	for (; *args && argc < 31; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return tap_capture(fn, argc, argv, dir, cap_out, sizeof cap_out, cap_err, sizeof cap_err,
	                   false);
}

#define RUN(fn, ...) run_main(fn, (const char *const[]){__VA_ARGS__, NULL})

static void test_files(void)
{
	static struct f8b_field f1[256], f2[256];
	struct f8b_table_schema old = without_impl(&f8b_lls_schema, f1),
	                        kold = without_impl(&f8b_lls_kernel_schema, f2);
	tap_ok(old.nfields + 1 == f8b_lls_schema.nfields &&
	           kold.nfields + 1 == f8b_lls_kernel_schema.nfields,
	       "lls and lls_kernels have a gemm_impl column");

	/* An older file: no gemm_impl column at all. */
	struct f8b_lls_row o[2] = {lls_row("bf16", "", 1.0, 2), lls_row("tensorwise", "", 0.8, 2)};
	int rc = write_lls(in_dir("old.h5"), &old, &kold, o, 2);
	void *rows = NULL, *krows = NULL;
	size_t n = 0, nk = 0;
	if (rc == F8B_OK)
		rc = f8b_results_read(in_dir("old.h5"), &f8b_lls_schema, &rows, &n);
	if (rc == F8B_OK)
		rc = f8b_results_read(in_dir("old.h5"), &f8b_lls_kernel_schema, &krows, &nk);
	const struct f8b_lls_row *r = rows;
	const struct f8b_lls_kernel_row *k = krows;
	tap_ok(rc == F8B_OK && n == 2 && nk == 4 && r[1].gemm_impl[0] == '\0' &&
	           k[0].gemm_impl[0] == '\0',
	       "an lls file without gemm_impl reads, the column empty (%s)",
	       rc ? f8b_last_error() : "ok");
	struct f8b_lls_row cub = lls_row("tensorwise", "cublaslt", 0.8, 2),
	                   own = lls_row("tensorwise", "f8b", 0.8, 2);
	tap_ok(n == 2 && f8b_bench_lls.same_case(&r[1], &cub) &&
	           !f8b_bench_lls.same_case(&r[1], &own) && !f8b_bench_lls.same_case(&cub, &own),
	       "lls: the old row is the cublaslt case; cublaslt and f8b rows are two cases");
	const struct f8b_bench *kb = f8b_bench_lls.report->detail_cases;
	struct f8b_lls_kernel_row kc = kern_row(&cub, 1), ko = kern_row(&own, 1);
	tap_ok(nk == 4 && kb->same_case(&k[3], &kc) && !kb->same_case(&k[3], &ko) &&
	           !kb->same_case(&kc, &ko),
	       "lls_kernels: the same, kernel by kernel");
	free(rows);
	free(krows);

	/* Compare: a baseline of cublaslt rows against a run of f8b rows, far
	 * faster, must find nothing to pair: the cublaslt case is missing
	 * (exit 1), the f8b one new, and no speedup is claimed. */
	struct f8b_lls_row nb[2] = {lls_row("bf16", "cublaslt", 1.0, 2),
	                            lls_row("tensorwise", "f8b", 0.2, 2)};
	rc = write_lls(in_dir("f8b.h5"), &f8b_lls_schema, &f8b_lls_kernel_schema, nb, 2);
	int crc = RUN(f8b_compare_main, "compare", in_dir("old.h5"), in_dir("f8b.h5"));
	tap_ok(rc == F8B_OK && crc == 1 && strstr(cap_out, "1 missing") &&
	           strstr(cap_out, "1 new") && strstr(cap_out, "0 faster"),
	       "compare old (cublaslt) vs f8b: tensorwise missing and new, never faster (exit %d)",
	       crc);
	if (crc != 1)
		tap_diag("%s%s", cap_out, cap_err);
	/* ... and an old file against cublaslt rows pairs them. */
	struct f8b_lls_row nc[2] = {lls_row("bf16", "cublaslt", 1.0, 2),
	                            lls_row("tensorwise", "cublaslt", 0.8, 2)};
	rc = write_lls(in_dir("cub.h5"), &f8b_lls_schema, &f8b_lls_kernel_schema, nc, 2);
	crc = RUN(f8b_compare_main, "compare", in_dir("old.h5"), in_dir("cub.h5"));
	tap_ok(rc == F8B_OK && crc == 0 && strstr(cap_out, "2 same") &&
	           strstr(cap_out, "0 missing"),
	       "compare old vs cublaslt rows: every case paired, exit 0 (exit %d)", crc);
	if (crc != 0)
		tap_diag("%s%s", cap_out, cap_err);

	/* Merge: the old file and the f8b file hold different cases but the
	 * same bf16 one; with --keep-last, three rows and their kernels. */
	int mrc = RUN(f8b_merge_main, "merge", in_dir("m.h5"), in_dir("old.h5"), in_dir("f8b.h5"));
	tap_ok(mrc != 0 && strstr(cap_err, "bf16"),
	       "merge old + f8b: the bf16 case is in both (the old one reads as cublaslt): %.150s",
	       cap_err);
	mrc = RUN(f8b_merge_main, "merge", in_dir("m.h5"), in_dir("old.h5"), in_dir("f8b.h5"),
	          "--keep-last");
	rows = krows = NULL;
	n = nk = 0;
	if (mrc == 0)
		mrc = f8b_results_read(in_dir("m.h5"), &f8b_lls_schema, &rows, &n);
	if (mrc == 0)
		mrc = f8b_results_read(in_dir("m.h5"), &f8b_lls_kernel_schema, &krows, &nk);
	r = rows;
	int tw = 0, f8 = 0;
	for (size_t i = 0; i < n; i++) {
		tw += !strcmp(r[i].recipe, "tensorwise");
		f8 += !strcmp(r[i].gemm_impl, "f8b");
	}
	tap_ok(mrc == 0 && n == 3 && nk == 6 && tw == 2 && f8 == 1,
	       "merge --keep-last: 3 rows (tensorwise on both implementations), 6 kernel rows "
	       "(%zu, %zu)",
	       n, nk);
	free(rows);
	free(krows);

	/* The report tells the two apart: a series "[f8b]", a GEMMs column. */
	struct f8b_lls_row both[3] = {lls_row("bf16", "cublaslt", 1.0, 2),
	                              lls_row("tensorwise", "cublaslt", 0.8, 2),
	                              lls_row("tensorwise", "f8b", 0.9, 2)};
	rc = write_lls(in_dir("both.h5"), &f8b_lls_schema, &f8b_lls_kernel_schema, both, 3);
	unsetenv("GNUPLOT");
	int prc = RUN(f8b_report_main, "report", in_dir("both.h5"), "-o", in_dir("rep"));
	char md[1 << 15] = "", csv[4096] = "";
	char path[600];
	snprintf(path, sizeof path, "%s/report.md", in_dir("rep"));
	tap_slurp(path, md, sizeof md, false);
	snprintf(path, sizeof path, "%s/lls.csv", in_dir("rep"));
	tap_slurp(path, csv, sizeof csv, false);
	tap_ok(rc == F8B_OK && strstr(md, "| tensorwise [f8b] | f8b |") &&
	           strstr(md, "| tensorwise | cublaslt |") && strstr(md, "| GEMMs |"),
	       "report.md: tensorwise and tensorwise [f8b] rows, a GEMMs column");
	tap_ok(strstr(csv, "recipe,gemm_impl,") && strstr(csv, ",tensorwise,f8b,") &&
	           strstr(csv, ",tensorwise,cublaslt,"),
	       "report lls.csv: a gemm_impl column");
	snprintf(path, sizeof path, "%s/lls-vars.gp", in_dir("rep"));
	tap_slurp(path, md, sizeof md, false);
	tap_ok(strstr(md, "\"tensorwise [f8b]\"") && strstr(md, "\"tensorwise\"") &&
	           strstr(md, "s_impl[3] = 1") && strstr(md, "s_impl[2] = 0"),
	       "report: the plots' series titles and line styles tell the two apart");
	/* with gnuplot, the templates draw an f8b series */
	if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
		struct stat st;
		snprintf(path, sizeof path, "%s/lls_speedup.png", in_dir("rep"));
		tap_ok(prc == 0 && stat(path, &st) == 0 && st.st_size > 0,
		       "report with gnuplot: exit 0, lls_speedup.png drawn (exit %d: %.200s)", prc,
		       cap_err);
	} else {
		tap_skip("no gnuplot: the plots are drawn where there is one");
	}
}

/* ---------------------------------------------------------------- main */

static void rm_tree(const char *d)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", d);
}

int main(void)
{
	if (!tap_scratch_dir(dir, sizeof dir, "f8b-gemm-impl"))
		return tap_done();
	test_lls_cases();
	test_ag_cases();
	test_files();
	rm_tree(dir);
	return tap_done();
}
