/* compare.c - `f8bench compare BASE NEW`: match the gemm rows of two
 * results files by case, classify each case as same / faster / slower /
 * unsure (timings) or missing / wrong / new (status), print a table and a
 * summary line, and turn the outcome into an exit status a CI job can gate
 * on.  The rule and the reasons for its defaults are in doc/compare.md.
 *
 * Which row stands for a case: with --base-run/--new-run N the row of run
 * N; by default the newest row of each case (the highest run_id), so a
 * sweep finished with --resume (whose later run holds only the cases the
 * interrupted run had not reached) is compared whole, and a file holding a
 * sweep and its --append repeat is compared by its repeat.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "harness/bench.h"
#include "report/compare.h"
#include "core/options.h"
#include "results/results.h"
#include "results/schema.h"

#define DEFAULT_TOLERANCE 0.03 /* see doc/compare.md: H100 repeat sweeps drift up to 2.7% */
#define DEFAULT_SIGMAS    3.0
#define ANY_RUN           -1

static const char *const verdict_names[F8B_V_COUNT] = {"same",    "faster", "slower", "unsure",
                                                       "missing", "wrong",  "new"};

const char *f8b_verdict_name(enum f8b_verdict v)
{
	return (unsigned)v < F8B_V_COUNT ? verdict_names[v] : "?";
}

/* A relative standard error that is unknown (NaN: a row written without a
 * noise estimate) or nonsensical adds nothing; the tolerance still guards. */
static double clean_noise(double x)
{
	return isfinite(x) && x > 0 ? x : 0.0;
}

enum f8b_verdict f8b_compare_times(double base_s, double base_noise, double new_s, double new_noise,
                                   double tolerance, double sigmas, double *change, double *noise)
{
	double nb = clean_noise(base_noise), nn = clean_noise(new_noise);

	/* The ratio of two independent estimates: its relative standard
	 * error is, to first order, the root sum of squares of theirs. */
	*noise = sqrt(nb * nb + nn * nn);
	if (!(isfinite(base_s) && base_s > 0 && isfinite(new_s) && new_s > 0)) {
		*change = NAN;
		return F8B_V_UNSURE;
	}
	*change = new_s / base_s - 1.0;
	if (fabs(*change) <= tolerance)
		return F8B_V_SAME;
	if (fabs(*change) > sigmas * *noise)
		return *change > 0 ? F8B_V_SLOWER : F8B_V_FASTER;
	return F8B_V_UNSURE;
}

/* ---------------------------------------------------------------- options */

enum {
	OPT_TOLERANCE = 1000,
	OPT_SIGMAS,
	OPT_METRIC,
	OPT_ALL,
	OPT_BASE_RUN,
	OPT_NEW_RUN,
	OPT_FORCE,
	OPT_HELP,
};

static const struct f8b_option compare_options[] = {
    {"tolerance", OPT_TOLERANCE, 0, "FRAC",
     "changes up to FRAC (0.03 or 3%) either way are 'same'\n(default 0.03)"},
    {"sigmas", OPT_SIGMAS, 0, "Z",
     "a change beyond tolerance must also exceed Z combined\nstandard errors to count as "
     "slower/faster, else it is\n'unsure' (default 3)"},
    {"metric", OPT_METRIC, 0, "COLUMN",
     "the timing compared: time_median_s (the default and\nonly one)"},
    {"base-run", OPT_BASE_RUN, 0, "N",
     "take BASE's rows of run N (default: the newest row of\neach case)"},
    {"new-run", OPT_NEW_RUN, 0, "N", "take NEW's rows of run N (default: the newest)"},
    {"force", OPT_FORCE, 0, NULL, "compare runs from different GPU models"},
    {"all", OPT_ALL, 'a', NULL, "print every case (default: those not 'same')"},
    {"help", OPT_HELP, 0, NULL, "this text"},
    {0},
};

struct cmp_cfg {
	double tolerance, sigmas;
	int base_run, new_run;
	bool all, force, help;
};

static int parse_run(const char *opt, const char *arg, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 1000000)
		return F8B_ERR(F8B_EINVAL, "%s '%s': expected a run id, 0 or more", opt, arg);
	*out = (int)v;
	return F8B_OK;
}

static int cmp_opt(void *ctx, int table, int key, const char *arg)
{
	struct cmp_cfg *c = ctx;
	char *end;

	if (table == -1 || key == OPT_HELP) {
		c->help = true;
		return F8B_OK;
	}
	switch (key) {
	case OPT_TOLERANCE:
		errno = 0;
		c->tolerance = strtod(arg, &end);
		if (end != arg && *end == '%' && !end[1]) {
			c->tolerance /= 100;
			end++;
		}
		if (errno || end == arg || *end || !(c->tolerance >= 0 && c->tolerance < 10))
			return F8B_ERR(F8B_EINVAL,
			               "--tolerance '%s': expected a fraction like 0.03 or a "
			               "percentage like 3%%, 0 or more",
			               arg);
		return F8B_OK;
	case OPT_SIGMAS:
		errno = 0;
		c->sigmas = strtod(arg, &end);
		if (errno || end == arg || *end || !(c->sigmas >= 0 && c->sigmas <= 100))
			return F8B_ERR(F8B_EINVAL, "--sigmas '%s': expected a number from 0 to 100",
			               arg);
		return F8B_OK;
	case OPT_METRIC:
		if (strcmp(arg, "time_median_s") != 0)
			return F8B_ERR(F8B_EINVAL, "--metric '%s': accepted: time_median_s", arg);
		return F8B_OK;
	case OPT_BASE_RUN: return parse_run("--base-run", arg, &c->base_run);
	case OPT_NEW_RUN: return parse_run("--new-run", arg, &c->new_run);
	case OPT_FORCE: c->force = true; return F8B_OK;
	case OPT_ALL: c->all = true; return F8B_OK;
	}
	return F8B_ERR(F8B_EINTERNAL, "compare option %d", key);
}

static void help(FILE *f)
{
	fprintf(f, "usage: f8bench compare BASE.h5 NEW.h5 [--tolerance FRAC] [--all] [--force]\n\n"
	           "Compares the gemm timings of NEW against BASE, case by case, taking each\n"
	           "run's measured noise into account: with change = new/base - 1 and noise =\n"
	           "sqrt(noise_base^2 + noise_new^2) (relative standard errors of the medians),\n"
	           "  same     |change| <= tolerance\n"
	           "  slower   change > tolerance and change > Z * noise   (a failure)\n"
	           "  faster   change < -tolerance and -change > Z * noise\n"
	           "  unsure   beyond tolerance but within Z * noise\n"
	           "  missing  in BASE, but absent or unsupported in NEW     (a failure)\n"
	           "  wrong    NEW's status is wrong or error                (a failure)\n"
	           "  new      nothing in BASE to compare with\n"
	           "Runs of different GPU models are refused unless --force.  BASE and NEW may\n"
	           "be the same file, with --base-run and --new-run picking two of its runs.\n\n");
	f8b_options_help(f, compare_options);
	fprintf(f, "\nExit status: 0 no regression, 1 a case slower, wrong or missing,\n"
	           "2 bad input (options, unreadable file, no gemm table, different GPUs).\n"
	           "Rule and defaults: doc/compare.md.\n");
}

/* ---------------------------------------------------------------- one side */

#define GPU_LEN 160

struct side {
	const char *label; /* "BASE" or "NEW" */
	const char *path;
	int want_run; /* ANY_RUN: the newest row of each case */
	struct f8b_gemm_row *rows;
	size_t nrows;
	size_t *pick; /* one row index per case, in order of first appearance */
	size_t npick;
	char gpu[GPU_LEN]; /* the GPU model its picked rows ran on, "" unknown */
	char runs[64];     /* "run 1" / "runs 0, 1" for the header */
};

static bool str_is(const char *field, size_t size, const char *want)
{
	return strncmp(field, want, size) == 0 && strlen(want) < size;
}

#define STATUS_IS(row, s) str_is((row)->status, sizeof(row)->status, (s))

/* Picks one row per case: the newest (a later run, or later in the file
 * within a run) among the rows of the wanted run(s).  Quadratic in the
 * number of cases, which is fine for sweeps of thousands. */
static int pick_rows(struct side *s)
{
	s->pick = malloc((s->nrows ? s->nrows : 1) * sizeof *s->pick);
	if (!s->pick)
		return F8B_ERR(F8B_ENOMEM, "%zu rows of '%s'", s->nrows, s->path);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct f8b_gemm_row *r = &s->rows[i];
		size_t j;
		if (s->want_run != ANY_RUN && r->run_id != s->want_run)
			continue;
		for (j = 0; j < s->npick; j++)
			if (f8b_bench_gemm.same_case(&s->rows[s->pick[j]], r))
				break;
		if (j == s->npick)
			s->pick[s->npick++] = i;
		else if (r->run_id >= s->rows[s->pick[j]].run_id)
			s->pick[j] = i;
	}
	if (s->npick > 0)
		return F8B_OK;
	if (s->nrows == 0)
		return F8B_ERR(F8B_EINVAL, "%s '%s': its gemm table has no rows", s->label,
		               s->path);

	/* The run asked for is not there: list those that are, ascending. */
	char list[256] = "";
	size_t len = 0;
	for (int last = -1; len + 16 < sizeof list;) {
		int next = -1;
		for (size_t i = 0; i < s->nrows; i++)
			if (s->rows[i].run_id > last && (next < 0 || s->rows[i].run_id < next))
				next = s->rows[i].run_id;
		if (next < 0)
			break;
		len +=
		    (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? ", " : "", next);
		last = next;
	}
	return F8B_ERR(F8B_EINVAL, "%s '%s' has no gemm rows of run %d (its runs: %s)", s->label,
	               s->path, s->want_run, list);
}

/* One string attribute of object obj ("/runs/N" or "/"), fixed-length or
 * variable-length; "" when absent or not a string. */
static void read_str_attr(hid_t f, const char *obj, const char *name, char *out, size_t n)
{
	hid_t a, t = -1, mt = -1;

	out[0] = '\0';
	if (H5Aexists_by_name(f, obj, name, H5P_DEFAULT) <= 0)
		return;
	a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0)
		return;
	t = H5Aget_type(a);
	if (t >= 0 && H5Tget_class(t) == H5T_STRING && (mt = H5Tcopy(H5T_C_S1)) >= 0) {
		H5Tset_cset(mt, H5Tget_cset(t));
		if (H5Tis_variable_str(t) > 0) {
			char *v = NULL;
			if (H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Aread(a, mt, &v) >= 0 && v)
				snprintf(out, n, "%s", v);
			if (v)
				H5free_memory(v);
		} else if (H5Tset_size(mt, n) < 0 || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 ||
		           H5Aread(a, mt, out) < 0) {
			out[0] = '\0';
		}
	}
	if (mt >= 0)
		H5Tclose(mt);
	if (t >= 0)
		H5Tclose(t);
	H5Aclose(a);
}

/* The GPU model of run `run`: its /runs/N provenance (device_name and
 * device_pci_id), else the root's (the creating run), else the gpu column
 * of one of its rows.  "NVIDIA H100 80GB HBM3 (pci 0x2330)". */
static void run_gpu(hid_t f, int run, const struct f8b_gemm_row *row, char *out, size_t n)
{
	char obj[32], name[128] = "", pci[32] = "";

	snprintf(obj, sizeof obj, "/runs/%d", run);
	if (f >= 0 && H5Lexists(f, "/runs", H5P_DEFAULT) > 0 &&
	    H5Lexists(f, obj, H5P_DEFAULT) > 0) {
		read_str_attr(f, obj, "device_name", name, sizeof name);
		read_str_attr(f, obj, "device_pci_id", pci, sizeof pci);
	}
	if (!name[0] && f >= 0) {
		read_str_attr(f, "/", "device_name", name, sizeof name);
		read_str_attr(f, "/", "device_pci_id", pci, sizeof pci);
	}
	if (!name[0]) {
		snprintf(name, sizeof name, "%.*s", (int)sizeof row->gpu, row->gpu);
		pci[0] = '\0';
	}
	if (name[0] && pci[0])
		snprintf(out, n, "%s (pci %s)", name, pci);
	else
		snprintf(out, n, "%s", name);
}

/* The GPU of every run that supplied a picked row; a side whose runs ran
 * on different models is refused (its timings are not one baseline). */
static int side_gpu(struct side *s, bool force)
{
	hid_t f;
	int seen[16], nseen = 0;
	size_t len = 0;
	int rc = F8B_OK;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	f = H5Fopen(s->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	s->gpu[0] = '\0';
	s->runs[0] = '\0';
	for (size_t j = 0; j < s->npick && rc == F8B_OK; j++) {
		const struct f8b_gemm_row *r = &s->rows[s->pick[j]];
		bool known = false;
		for (int k = 0; k < nseen; k++)
			known |= seen[k] == r->run_id;
		if (known)
			continue;
		if (nseen < (int)(sizeof seen / sizeof *seen))
			seen[nseen++] = r->run_id;
		if (len + 24 < sizeof s->runs)
			len += (size_t)snprintf(s->runs + len, sizeof s->runs - len, "%s%d",
			                        len ? ", " : "", r->run_id);
		char gpu[GPU_LEN];
		run_gpu(f, r->run_id, r, gpu, sizeof gpu);
		if (!s->gpu[0])
			snprintf(s->gpu, sizeof s->gpu, "%s", gpu);
		else if (gpu[0] && strcmp(gpu, s->gpu) != 0 && !force)
			rc = F8B_ERR(F8B_EINVAL,
			             "%s '%s' mixes GPU models: run %d ran on %s, run %d on %s "
			             "(pick one run with --%s-run N, or --force)",
			             s->label, s->path, s->rows[s->pick[0]].run_id, s->gpu,
			             r->run_id, gpu, s->label[0] == 'B' ? "base" : "new");
	}
	if (f >= 0)
		H5Fclose(f);
	return rc;
}

/* The columns compare reads: every column case_key fills (the case
 * identity same_case and describe draw on), the outcome and the timing.
 * Reading only these, into the full row's layout, keeps compare working
 * on files written before later columns were added to the schema (the
 * H100 results in results/h100 have no roofline columns, for one). */
static const char *const wanted_columns[] = {
    "m",          "k",         "n",       "label",     "scaling", "a_gran",  "b_gran",
    "fast_accum", "a_dtype",   "b_dtype", "out_dtype", "status",  "message", "time_median_s",
    "time_noise", "throttled", "run_id",  "gpu",
};
#define NWANTED (sizeof wanted_columns / sizeof *wanted_columns)

static int read_rows(const char *path, void **rows, size_t *n)
{
	struct f8b_field fields[NWANTED];
	struct f8b_table_schema sub = f8b_gemm_schema;
	size_t k = 0;

	for (size_t i = 0; i < NWANTED; i++)
		for (size_t j = 0; j < f8b_gemm_schema.nfields; j++)
			if (!strcmp(f8b_gemm_schema.fields[j].name, wanted_columns[i]))
				fields[k++] = f8b_gemm_schema.fields[j];
	if (k != NWANTED)
		return F8B_ERR(F8B_EINTERNAL, "compare: a column it reads left the gemm schema");
	sub.fields = fields;
	sub.nfields = k;
	return f8b_results_read(path, &sub, rows, n);
}

static int load_side(struct side *s, bool force)
{
	void *rows = NULL;
	F8B_TRY(read_rows(s->path, &rows, &s->nrows));
	s->rows = rows;
	F8B_TRY(pick_rows(s));
	return side_gpu(s, force);
}

static void free_side(struct side *s)
{
	free(s->rows);
	free(s->pick);
}

/* ---------------------------------------------------------------- verdicts */

struct item {
	const struct f8b_gemm_row *b, *n; /* NULL when the case is absent */
	enum f8b_verdict v;
	double change, noise;
	char note[F8B_MSG + 48];
};

static bool row_broken(const struct f8b_gemm_row *r)
{
	return !STATUS_IS(r, F8B_ROW_OK) && !STATUS_IS(r, F8B_ROW_UNSUPPORTED);
}

static void classify(struct item *it, double tolerance, double sigmas)
{
	const struct f8b_gemm_row *b = it->b, *n = it->n;
	size_t len = 0;

	it->change = it->noise = NAN;
	it->note[0] = '\0';
	if (!n) {
		it->v = F8B_V_MISSING;
		snprintf(it->note, sizeof it->note, "not in NEW");
		return;
	}
	if (row_broken(n)) {
		it->v = F8B_V_WRONG;
		snprintf(it->note, sizeof it->note, "NEW %.*s%s%.*s", (int)sizeof n->status,
		         n->status, n->message[0] ? ": " : "", (int)sizeof n->message, n->message);
		return;
	}
	if (!b) {
		it->v = F8B_V_NEW;
		snprintf(it->note, sizeof it->note, "not in BASE%s",
		         STATUS_IS(n, F8B_ROW_UNSUPPORTED) ? "; unsupported in NEW" : "");
		return;
	}
	if (STATUS_IS(n, F8B_ROW_UNSUPPORTED)) {
		/* A case that ran before and no longer runs lost its timing. */
		it->v = STATUS_IS(b, F8B_ROW_OK) ? F8B_V_MISSING : F8B_V_SAME;
		if (it->v == F8B_V_MISSING)
			snprintf(it->note, sizeof it->note, "unsupported in NEW%s%.*s",
			         n->message[0] ? ": " : "", (int)sizeof n->message, n->message);
		else
			snprintf(it->note, sizeof it->note, "unsupported in %s",
			         STATUS_IS(b, F8B_ROW_UNSUPPORTED) ? "both" : "NEW");
		return;
	}
	if (!STATUS_IS(b, F8B_ROW_OK)) {
		/* NEW is ok; BASE has no timing: newly supported or fixed. */
		it->v = F8B_V_NEW;
		snprintf(it->note, sizeof it->note, "%.*s in BASE", (int)sizeof b->status,
		         b->status);
		return;
	}
	it->v = f8b_compare_times(b->time_median_s, b->time_noise, n->time_median_s, n->time_noise,
	                          tolerance, sigmas, &it->change, &it->noise);
	if (isnan(it->change))
		len += (size_t)snprintf(it->note, sizeof it->note, "no valid time; ");
	if (!isfinite(b->time_noise) || !isfinite(n->time_noise))
		len += (size_t)snprintf(it->note + len, sizeof it->note - len, "noise unknown; ");
	/* Clock throttling is the usual cause of a change nobody made; on
	 * H100 some throttle reason is reported in most samples of big GEMMs
	 * (results/h100), so it is only worth a note beside a verdict. */
	if (it->v != F8B_V_SAME && (n->throttled > 0 || b->throttled > 0) && len < sizeof it->note)
		len += (size_t)snprintf(it->note + len, sizeof it->note - len,
		                        "throttled samples: BASE %d, NEW %d; ", b->throttled,
		                        n->throttled);
	if (len >= 2 && len < sizeof it->note)
		it->note[len - 2] = '\0';
}

/* ---------------------------------------------------------------- output */

static void fmt_ms(char *buf, size_t n, const struct f8b_gemm_row *r)
{
	if (r && STATUS_IS(r, F8B_ROW_OK) && isfinite(r->time_median_s))
		snprintf(buf, n, "%.4g", 1e3 * r->time_median_s);
	else if (r)
		snprintf(buf, n, "%.*s", (int)sizeof r->status, r->status);
	else
		snprintf(buf, n, "-");
}

static void print_table(const struct item *items, size_t n, bool all)
{
	char desc[160];
	int w = 4;

	for (size_t i = 0; i < n; i++) {
		if (!all && items[i].v == F8B_V_SAME)
			continue;
		f8b_bench_gemm.describe(items[i].b ? items[i].b : items[i].n, desc, sizeof desc);
		if ((int)strlen(desc) > w)
			w = (int)strlen(desc);
	}
	printf("%-*s  %11s  %11s  %8s  %6s  %-7s  %s\n", w, "case", "base ms", "new ms", "change",
	       "noise", "verdict", "note");
	for (size_t i = 0; i < n; i++) {
		const struct item *it = &items[i];
		char b[32], nw[32], ch[16] = "-", no[16] = "-";
		if (!all && it->v == F8B_V_SAME)
			continue;
		f8b_bench_gemm.describe(it->b ? it->b : it->n, desc, sizeof desc);
		fmt_ms(b, sizeof b, it->b);
		fmt_ms(nw, sizeof nw, it->n);
		if (isfinite(it->change))
			snprintf(ch, sizeof ch, "%+.2f%%", 100 * it->change);
		if (isfinite(it->noise))
			snprintf(no, sizeof no, "%.2f%%", 100 * it->noise);
		printf("%-*s  %11s  %11s  %8s  %6s  %-*s%s\n", w, desc, b, nw, ch, no,
		       it->note[0] ? 9 : 0, f8b_verdict_name(it->v), it->note);
	}
}

/* ---------------------------------------------------------------- command */

static int compare(struct cmp_cfg *c, struct side *base, struct side *nw, int *exit_status)
{
	struct item *items;
	size_t nitems = 0, count[F8B_V_COUNT] = {0};
	bool *used;

	F8B_TRY(load_side(base, c->force));
	F8B_TRY(load_side(nw, c->force));
	if (base->gpu[0] && nw->gpu[0] && strcmp(base->gpu, nw->gpu) != 0 && !c->force)
		return F8B_ERR(F8B_EINVAL,
		               "BASE '%s' ran on %s, NEW '%s' on %s: timings of different GPU "
		               "models do not compare (--force compares them anyway)",
		               base->path, base->gpu, nw->path, nw->gpu);

	items = calloc(base->npick + nw->npick, sizeof *items);
	used = calloc(nw->npick + 1, sizeof *used);
	if (!items || !used) {
		free(items);
		free(used);
		return F8B_ERR(F8B_ENOMEM, "compare %zu cases", base->npick + nw->npick);
	}
	/* BASE's cases in BASE's order, then the cases only NEW has. */
	for (size_t i = 0; i < base->npick; i++) {
		struct item *it = &items[nitems++];
		it->b = &base->rows[base->pick[i]];
		for (size_t j = 0; j < nw->npick && !it->n; j++) {
			if (!used[j] && f8b_bench_gemm.same_case(it->b, &nw->rows[nw->pick[j]])) {
				it->n = &nw->rows[nw->pick[j]];
				used[j] = true;
			}
		}
	}
	for (size_t j = 0; j < nw->npick; j++)
		if (!used[j])
			items[nitems++].n = &nw->rows[nw->pick[j]];
	for (size_t i = 0; i < nitems; i++) {
		classify(&items[i], c->tolerance, c->sigmas);
		count[items[i].v]++;
	}

	printf("base: %s, %s %s on %s, %zu cases\n", base->path,
	       strchr(base->runs, ',') ? "runs" : "run", base->runs,
	       base->gpu[0] ? base->gpu : "an unknown GPU", base->npick);
	printf("new:  %s, %s %s on %s, %zu cases\n", nw->path,
	       strchr(nw->runs, ',') ? "runs" : "run", nw->runs,
	       nw->gpu[0] ? nw->gpu : "an unknown GPU", nw->npick);
	if (!base->gpu[0] || !nw->gpu[0])
		printf("warning: the GPU model of %s is unknown: not checked\n",
		       base->gpu[0] ? "NEW"
		       : nw->gpu[0] ? "BASE"
		                    : "BASE and NEW");
	else if (strcmp(base->gpu, nw->gpu) != 0)
		printf("warning: different GPU models, compared because of --force\n");
	printf("rule: same if |change| <= %.4g%%, else slower/faster if |change| > %.4g x noise, "
	       "else unsure\n",
	       100 * c->tolerance, c->sigmas);
	if (c->all || count[F8B_V_SAME] < nitems) {
		printf("\n");
		print_table(items, nitems, c->all);
	}
	printf("\n%zu same, %zu faster, %zu slower, %zu unsure, %zu missing, %zu wrong, %zu new\n",
	       count[F8B_V_SAME], count[F8B_V_FASTER], count[F8B_V_SLOWER], count[F8B_V_UNSURE],
	       count[F8B_V_MISSING], count[F8B_V_WRONG], count[F8B_V_NEW]);
	fflush(stdout);
	*exit_status = count[F8B_V_SLOWER] || count[F8B_V_MISSING] || count[F8B_V_WRONG] ? 1 : 0;
	free(items);
	free(used);
	return F8B_OK;
}

int f8b_compare_main(int argc, char **argv)
{
	struct cmp_cfg c = {.tolerance = DEFAULT_TOLERANCE,
	                    .sigmas = DEFAULT_SIGMAS,
	                    .base_run = ANY_RUN,
	                    .new_run = ANY_RUN};
	const struct f8b_option *tables[] = {compare_options, NULL};
	char **pos = calloc((size_t)argc + 1, sizeof *pos);
	int npos = 0, status = 2, rc;

	if (!pos) {
		fprintf(stderr, "f8bench compare: error: out of memory\n");
		return 2;
	}
	f8b_clear_error();
	rc = f8b_options_parse(argc, argv, tables, cmp_opt, &c, &pos, &npos);
	if (rc == F8B_OK && c.help) {
		help(stdout);
		free(pos);
		return 0;
	}
	if (rc == F8B_OK && npos != 2)
		rc = F8B_ERR(F8B_EINVAL,
		             "compare takes two results files, BASE and NEW (got %d); see "
		             "f8bench compare --help",
		             npos);
	if (rc == F8B_OK) {
		struct side base = {.label = "BASE", .path = pos[0], .want_run = c.base_run};
		struct side nw = {.label = "NEW", .path = pos[1], .want_run = c.new_run};
		rc = compare(&c, &base, &nw, &status);
		free_side(&base);
		free_side(&nw);
	}
	free(pos);
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench compare: error: %s\n", f8b_last_error());
		/* Bad input (options, files, GPUs) is 2; running out of memory
		 * or a bug is no verdict either, so also not 0 or 1. */
		return 2;
	}
	return status;
}
