/* fake_results.c - writes a gemm results file with crafted rows, for the
 * tests of the CI gate (tests/ci_gate.sh): a GPU's baseline and a run made
 * slower, wrong or smaller than it, without a GPU.  The file goes through
 * f8bench's own writer, so it always has the current schema.
 *
 *   tests/fake_results OUT.h5 GPU_NAME PCI_ID [--append] < rows
 *
 * One row per line, '#' comments:
 *   M K N SCALING FAST_ACCUM STATUS TIME_MS NOISE SQNR_DB REL_ERROR [IMPL]
 * (IMPL: the impl column, cublaslt when left out)
 * SCALING "none" is the bf16 case, others e4m3 x e4m3; TIME_MS and NOISE
 * (relative standard error of the median) are ignored unless STATUS is ok.
 * Not a test itself: it is built by `make check` and not run by it. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/results.h"
#include "results/schema.h"

static void setstr(char *dst, size_t n, const char *s)
{
	memset(dst, 0, n);
	snprintf(dst, n, "%s", s);
}

static int parse(const char *line, const char *gpu, struct f8b_gemm_row *r)
{
	long long m, k, n;
	int fa;
	char sc[16], st[16], im[16] = "cublaslt"; /* the widths of those columns */
	double t_ms, noise, sqnr, rel;

	int got = sscanf(line, "%lld %lld %lld %15s %d %15s %lf %lf %lf %lf %15s", &m, &k, &n, sc,
	                 &fa, st, &t_ms, &noise, &sqnr, &rel, im);
	if (got != 10 && got != 11)
		return -1;
	bool bf16 = !strcmp(sc, "none"), ok = !strcmp(st, F8B_ROW_OK);
	memset(r, 0, sizeof *r);
	r->m = m;
	r->k = k;
	r->n = n;
	snprintf(r->label, sizeof r->label, "fake.%lldx%lldx%lld", m, k, n);
	setstr(r->scaling, sizeof r->scaling, sc);
	setstr(r->a_gran, sizeof r->a_gran, sc);
	setstr(r->b_gran, sizeof r->b_gran, sc);
	r->fast_accum = fa;
	setstr(r->a_dtype, sizeof r->a_dtype, bf16 ? "bf16" : "e4m3");
	setstr(r->b_dtype, sizeof r->b_dtype, bf16 ? "bf16" : "e4m3");
	setstr(r->out_dtype, sizeof r->out_dtype, "bf16");
	setstr(r->backend, sizeof r->backend, "cuda");
	setstr(r->impl, sizeof r->impl, im);
	setstr(r->status, sizeof r->status, st);
	r->time_median_s = r->time_min_s = r->time_max_s = ok ? t_ms * 1e-3 : NAN;
	r->time_noise = ok ? noise : NAN;
	r->samples = ok ? 100 : 0;
	r->converged = ok;
	r->tflops = r->pct_peak = r->bf16_time_median_s = r->speedup_vs_bf16 = NAN;
	r->arith_intensity = r->predicted_time_s = r->pct_of_roofline = NAN;
	r->heuristic_time_median_s = NAN;
	r->sqnr_db = sqnr;
	r->rel_error = rel;
	r->tolerance = 0.01;
	setstr(r->gpu, sizeof r->gpu, gpu);
	if (!ok)
		setstr(r->message, sizeof r->message, "crafted by tests/fake_results");
	return 0;
}

int main(int argc, char **argv)
{
	static struct f8b_gemm_row rows[1024];
	struct f8b_provenance p = {0};
	struct f8b_results *res = NULL;
	char line[512];
	size_t n = 0;
	int run = -1, rc;

	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "--append") != 0)) {
		fprintf(stderr, "usage: fake_results OUT.h5 GPU_NAME PCI_ID [--append] < rows\n");
		return 2;
	}
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "#\n")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		if (n == sizeof rows / sizeof rows[0] || parse(line, argv[2], &rows[n]) != 0) {
			fprintf(stderr, "fake_results: bad row '%s'\n", line);
			return 2;
		}
		n++;
	}
	f8b_prov_set(&p, "benchmark", "gemm");
	f8b_prov_set(&p, "backend", "cuda");
	f8b_prov_set(&p, "device_name", "%s", argv[2]);
	f8b_prov_set(&p, "device_pci_id", "%s", argv[3]);
	f8b_prov_set(&p, "command_line", "tests/fake_results");
	rc = f8b_results_open(argv[1], argc == 5, &f8b_gemm_schema, &p, &res, &run);
	if (rc == F8B_OK && n)
		rc = f8b_results_append(res, rows, n);
	if (res && f8b_results_close(res) != F8B_OK)
		rc = F8B_EIO;
	f8b_prov_free(&p);
	if (rc != F8B_OK) {
		fprintf(stderr, "fake_results: %s: %s\n", argv[1], f8b_last_error());
		return 1;
	}
	return 0;
}
