
/* compare.c - `f8bench compare BASE NEW`: for every benchmark table the two
 * results files hold (f8b_benches[]), match their rows by case with the
 * benchmark's own same_case, classify each case as same / faster / slower
 * / unsure (timings), less-accurate (the accuracy columns its descriptor
 * gates) or missing / wrong / new (status), print a table and a summary
 * line, write JUnit XML and Markdown on request (compare_out.c), and turn
 * the outcome into an exit status a CI job can gate on.  The rule and the
 * reasons for its defaults are in doc/compare.md.  No benchmark is named
 * here: its columns come from its descriptor (harness/bench.h).
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

#include "report/compare_int.h"
#include "report/report.h"
#include "core/options.h"
#include "results/results.h"
#include "results/schema.h"

#define DEFAULT_TOLERANCE 0.03 /* see doc/compare.md: H100 repeat sweeps drift up to 2.7% */
#define DEFAULT_SIGMAS    3.0
#define DEFAULT_ACC_TOL   0.5 /* dB for *_db columns, else a relative 0.5 (doc/compare.md) */

static const char *const verdict_names[F8B_V_COUNT] = {
    "same", "faster", "slower", "unsure", "missing", "wrong", "less-accurate", "new"};

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
	OPT_DETAIL,
	OPT_BASE_RUN,
	OPT_NEW_RUN,
	OPT_FORCE,
	OPT_ACC_TOL,
	OPT_NO_TIMING,
	OPT_JUNIT,
	OPT_MARKDOWN,
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
    {"accuracy-tolerance", OPT_ACC_TOL, 0, "X",
     "an accuracy column (SQNR...) worse by more than X is\n'less-accurate': X in dB for *_db "
     "columns, else a\nrelative change; 0 = any change (default 0.5)"},
    {"no-timing", OPT_NO_TIMING, 0, NULL,
     "judge status and accuracy only (host-backend runs,\nwhose timings mean nothing)"},
    {"junit", OPT_JUNIT, 0, "FILE", "also write the verdicts as JUnit XML to FILE"},
    {"markdown", OPT_MARKDOWN, 0, "FILE", "also write a Markdown summary to FILE"},
    {"all", OPT_ALL, 'a', NULL, "print every case (default: those not 'same')"},
    {"detail", OPT_DETAIL, 0, NULL,
     "also compare each benchmark's detail table where both\nfiles hold it (lls: every kernel "
     "of a step, timed\nalone); its verdicts count toward the exit status"},
    {"help", OPT_HELP, 0, NULL, "this text"},
    {0},
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
	case OPT_ACC_TOL:
		errno = 0;
		c->acc_tolerance = strtod(arg, &end);
		if (errno || end == arg || *end ||
		    !(c->acc_tolerance >= 0 && c->acc_tolerance < 1e6))
			return F8B_ERR(F8B_EINVAL,
			               "--accuracy-tolerance '%s': expected a number, 0 or more",
			               arg);
		return F8B_OK;
	case OPT_NO_TIMING: c->no_timing = true; return F8B_OK;
	case OPT_JUNIT: c->junit = arg; return F8B_OK;
	case OPT_MARKDOWN: c->markdown = arg; return F8B_OK;
	case OPT_ALL: c->all = true; return F8B_OK;
	case OPT_DETAIL: c->detail = true; return F8B_OK;
	}
	return F8B_ERR(F8B_EINTERNAL, "compare option %d", key);
}

static void help(FILE *f)
{
	fprintf(f, "usage: f8bench compare BASE.h5 NEW.h5 [--tolerance FRAC] [--all] [--force]\n"
	           "                       [--junit FILE] [--markdown FILE] [--no-timing]\n\n"
	           "Compares NEW against BASE, case by case, for every benchmark table both\n"
	           "files hold, taking each run's measured noise into\n"
	           "account: with change = new/base - 1 and noise =\n"
	           "sqrt(noise_base^2 + noise_new^2) (relative standard errors of the medians),\n"
	           "  same     |change| <= tolerance\n"
	           "  slower   change > tolerance and change > Z * noise   (a failure)\n"
	           "  faster   change < -tolerance and -change > Z * noise\n"
	           "  unsure   beyond tolerance but within Z * noise\n"
	           "  missing  in BASE, but absent or unsupported in NEW     (a failure)\n"
	           "  wrong    NEW's status is wrong or error                (a failure)\n"
	           "  less-accurate  an accuracy column the benchmark gates (SQNR) is\n"
	           "           worse than BASE's by more than --accuracy-tolerance (a failure)\n"
	           "  new      nothing in BASE to compare with\n"
	           "Runs of different GPU models are refused unless --force.  BASE and NEW may\n"
	           "be the same file, with --base-run and --new-run picking two of its runs.\n\n");
}

static void help_tail(FILE *f)
{
	fprintf(f,
	        "\nExit status: 0 no regression, 1 a case slower, wrong, missing or less\n"
	        "accurate, 2 bad input (options, unreadable file, no table both files hold,\n"
	        "a table only one holds, different GPUs).  Rule and defaults: doc/compare.md.\n");
}

const struct f8b_cmd_doc f8b_compare_doc = {
    .name = "compare",
    .summary = "noise-aware regression gate between two results files",
    .usage = help,
    .options = compare_options,
    .tail = help_tail,
};

/* ---------------------------------------------------------------- verdicts */

static bool row_broken(const struct cmp_cols *c, const unsigned char *r)
{
	return !f8b_cmp_status_is(c, r, F8B_ROW_OK) &&
	       !f8b_cmp_status_is(c, r, F8B_ROW_UNSUPPORTED);
}

/* How much worse NEW's accuracy column k is than BASE's, in the unit the
 * tolerance takes (dB for *_db columns, else relative); > 0 is worse. */
static double acc_loss(const struct cmp_cols *c, int k, double b, double n)
{
	bool db = strlen(c->acc_name[k]) > 3 &&
	          !strcmp(c->acc_name[k] + strlen(c->acc_name[k]) - 3, "_db");
	double d = c->acc_better[k] > 0 ? b - n : n - b;
	return db || b == 0 ? d : d / fabs(b);
}

/* Appends "COLUMN base -> new" notes and returns true when any accuracy
 * column got worse beyond the tolerance (or went from a number to NaN). */
static bool less_accurate(const struct cmp_cols *c, const unsigned char *b, const unsigned char *n,
                          double tol, char *note, size_t size, size_t *len)
{
	bool worse = false;
	for (int k = 0; k < c->nacc; k++) {
		double vb = cmp_f64(b, c->acc[k]), vn = cmp_f64(n, c->acc[k]);
		bool bad = (isnan(vn) && !isnan(vb)) ||
		           (!isnan(vb) && !isnan(vn) && acc_loss(c, k, vb, vn) > tol) ||
		           (tol == 0 && !isnan(vb) && vn != vb);
		if (!bad)
			continue;
		worse = true;
		/* Six digits, or all seventeen where six would print the two
		 * values alike (a change the exact gate caught in the last bits). */
		char sb[32], sn[32];
		snprintf(sb, sizeof sb, "%.6g", vb);
		snprintf(sn, sizeof sn, "%.6g", vn);
		if (!strcmp(sb, sn)) {
			snprintf(sb, sizeof sb, "%.17g", vb);
			snprintf(sn, sizeof sn, "%.17g", vn);
		}
		if (*len < size)
			*len += (size_t)snprintf(note + *len, size - *len, "%s %s -> %s; ",
			                         c->acc_name[k], sb, sn);
	}
	return worse;
}

/* The status rules (doc/compare.md); true when they decided the verdict. */
static bool status_verdict(const struct cmp_cols *c, struct cmp_item *it)
{
	const unsigned char *b = it->b, *n = it->n;
	const int sn = (int)c->status_n, mn = (int)c->message_n;
	const char *nmsg = n ? cmp_str(n, c->message) : "";

	if (!n) {
		it->v = F8B_V_MISSING;
		snprintf(it->note, sizeof it->note, "not in NEW");
	} else if (row_broken(c, n)) {
		it->v = F8B_V_WRONG;
		snprintf(it->note, sizeof it->note, "NEW %.*s%s%.*s", sn, cmp_str(n, c->status),
		         nmsg[0] ? ": " : "", mn, nmsg);
	} else if (!b) {
		it->v = F8B_V_NEW;
		snprintf(it->note, sizeof it->note, "not in BASE%s",
		         f8b_cmp_status_is(c, n, F8B_ROW_UNSUPPORTED) ? "; unsupported in NEW"
		                                                      : "");
	} else if (f8b_cmp_status_is(c, n, F8B_ROW_UNSUPPORTED)) {
		/* A case that ran before and no longer runs lost its timing. */
		bool was_ok = f8b_cmp_status_is(c, b, F8B_ROW_OK);
		it->v = was_ok ? F8B_V_MISSING : F8B_V_SAME;
		if (was_ok)
			snprintf(it->note, sizeof it->note, "unsupported in NEW%s%.*s",
			         nmsg[0] ? ": " : "", mn, nmsg);
		else
			snprintf(it->note, sizeof it->note, "unsupported in %s",
			         f8b_cmp_status_is(c, b, F8B_ROW_UNSUPPORTED) ? "both" : "NEW");
	} else if (!f8b_cmp_status_is(c, b, F8B_ROW_OK)) {
		/* NEW is ok; BASE has no timing: newly supported or fixed. */
		it->v = F8B_V_NEW;
		snprintf(it->note, sizeof it->note, "%.*s in BASE", sn, cmp_str(b, c->status));
	} else {
		return false;
	}
	return true;
}

static void classify(const struct cmp_cols *c, const struct cmp_cfg *cfg, struct cmp_item *it)
{
	const unsigned char *b = it->b, *n = it->n;
	size_t len = 0;

	it->change = it->noise = NAN;
	it->note[0] = '\0';
	if (status_verdict(c, it))
		return;
	double bn = cmp_f64(b, c->noise), nn = cmp_f64(n, c->noise);
	it->v = cfg->no_timing
	            ? F8B_V_SAME
	            : f8b_compare_times(cmp_f64(b, c->time), bn, cmp_f64(n, c->time), nn,
	                                cfg->tolerance, cfg->sigmas, &it->change, &it->noise);
	if (less_accurate(c, b, n, cfg->acc_tolerance, it->note, sizeof it->note, &len) &&
	    it->v != F8B_V_SLOWER)
		it->v = F8B_V_LESS_ACCURATE;
	if (!cfg->no_timing) {
		if (isnan(it->change) && len < sizeof it->note)
			len += (size_t)snprintf(it->note + len, sizeof it->note - len,
			                        "no valid time; ");
		if ((!isfinite(bn) || !isfinite(nn)) && len < sizeof it->note)
			len += (size_t)snprintf(it->note + len, sizeof it->note - len,
			                        "noise unknown; ");
	}
	/* Clock throttling is the usual cause of a change nobody made; on
	 * H100 some throttle reason is reported in most samples of big GEMMs
	 * (results/h100), so it is only worth a note beside a verdict. */
	if (c->throttled >= 0 && it->v != F8B_V_SAME && len < sizeof it->note) {
		int tb = cmp_i32(b, (size_t)c->throttled), tn = cmp_i32(n, (size_t)c->throttled);
		if (tb > 0 || tn > 0)
			len += (size_t)snprintf(it->note + len, sizeof it->note - len,
			                        "throttled samples: BASE %d, NEW %d; ", tb, tn);
	}
	if (len >= 2 && len < sizeof it->note)
		it->note[len - 2] = '\0';
}

/* ---------------------------------------------------------------- a table */

/* BASE's cases in BASE's order, then the cases only NEW has. */
static int match(struct cmp_table *t, const struct cmp_cfg *cfg)
{
	const struct f8b_bench *b = t->bench;
	const size_t rs = b->schema->row_size;
	bool *used = calloc(t->nw.npick + 1, sizeof *used);
	t->items = calloc(t->base.npick + t->nw.npick + 1, sizeof *t->items);
	if (!t->items || !used) {
		free(used);
		return F8B_ERR(F8B_ENOMEM, "compare %zu cases", t->base.npick + t->nw.npick);
	}
	for (size_t i = 0; i < t->base.npick; i++) {
		struct cmp_item *it = &t->items[t->nitems++];
		it->b = t->base.rows + t->base.pick[i] * rs;
		for (size_t j = 0; j < t->nw.npick && !it->n; j++) {
			const unsigned char *r = t->nw.rows + t->nw.pick[j] * rs;
			if (!used[j] && b->same_case(it->b, r)) {
				it->n = r;
				used[j] = true;
			}
		}
	}
	for (size_t j = 0; j < t->nw.npick; j++)
		if (!used[j])
			t->items[t->nitems++].n = t->nw.rows + t->nw.pick[j] * rs;
	free(used);
	for (size_t i = 0; i < t->nitems; i++) {
		classify(&t->cols, cfg, &t->items[i]);
		t->count[t->items[i].v]++;
	}
	return F8B_OK;
}

static int compare_table(struct cmp_table *t, const struct cmp_cfg *c)
{
	F8B_TRY(f8b_cmp_find_cols(t->bench, &t->cols));
	F8B_TRY(f8b_cmp_load_side(t->bench, &t->cols, &t->base, c->force));
	F8B_TRY(f8b_cmp_load_side(t->bench, &t->cols, &t->nw, c->force));
	if (t->base.gpu[0] && t->nw.gpu[0] && strcmp(t->base.gpu, t->nw.gpu) != 0 && !c->force)
		return F8B_ERR(F8B_EINVAL,
		               "BASE '%s' ran on %s, NEW '%s' on %s: timings of different GPU "
		               "models do not compare (--force compares them anyway)",
		               t->base.path, t->base.gpu, t->nw.path, t->nw.gpu);
	return match(t, c);
}

static void free_table(struct cmp_table *t)
{
	free(t->base.rows);
	free(t->base.pick);
	free(t->nw.rows);
	free(t->nw.pick);
	free(t->items);
}

/* The benchmarks whose table both files hold; a known table in only one
 * of them is an input error (a sweep of another benchmark is no baseline).
 * With detail, each one's detail table too, where both files hold it. */
static int pick_tables(const char *base, const char *nw, bool detail, const struct f8b_bench **out,
                       size_t *n)
{
	char tb[1024], tn[1024];
	F8B_TRY(f8b_results_tables(base, tb, sizeof tb));
	F8B_TRY(f8b_results_tables(nw, tn, sizeof tn));
	*n = 0;
	for (int i = 0; f8b_benches[i]; i++) {
		const char *name = f8b_benches[i]->schema->name;
		bool inb = f8b_results_list_has(tb, name), inn = f8b_results_list_has(tn, name);
		const struct f8b_report_module *rm = f8b_benches[i]->report;
		const struct f8b_bench *d = rm ? rm->detail_cases : NULL;
		if (inb && inn) {
			out[(*n)++] = f8b_benches[i];
			if (detail && d && f8b_results_list_has(tb, d->schema->name) &&
			    f8b_results_list_has(tn, d->schema->name))
				out[(*n)++] = d;
		} else if (inb || inn)
			return F8B_ERR(F8B_EINVAL, "%s '%s' has no table '%s' (its tables: %s)",
			               inb ? "NEW" : "BASE", inb ? nw : base, name,
			               (inb ? tn : tb)[0] ? (inb ? tn : tb) : "none");
	}
	if (*n == 0)
		return F8B_ERR(F8B_EINVAL,
		               "BASE '%s' (tables: %s) and NEW '%s' (tables: %s) hold no benchmark "
		               "table f8bench compares",
		               base, tb[0] ? tb : "none", nw, tn[0] ? tn : "none");
	return F8B_OK;
}

static int compare(const struct cmp_cfg *c, const char *base, const char *nw, int *exit_status)
{
	const struct f8b_bench *benches[16];
	struct cmp_table tables[16];
	size_t nt = 0, total[F8B_V_COUNT] = {0};
	int rc;

	F8B_TRY(pick_tables(base, nw, c->detail, benches, &nt));
	memset(tables, 0, sizeof tables);
	for (size_t i = 0; i < nt; i++) {
		tables[i] = (struct cmp_table){
		    .bench = benches[i],
		    .base = {.label = "BASE", .path = base, .want_run = c->base_run},
		    .nw = {.label = "NEW", .path = nw, .want_run = c->new_run}};
	}
	rc = F8B_OK;
	for (size_t i = 0; i < nt && rc == F8B_OK; i++)
		rc = compare_table(&tables[i], c);
	for (size_t i = 0; i < nt && rc == F8B_OK; i++) {
		f8b_cmp_print_header(&tables[i], c, nt > 1);
		if (c->all || tables[i].count[F8B_V_SAME] < tables[i].nitems) {
			printf("\n");
			f8b_cmp_print_table(&tables[i], c->all);
		}
		for (int v = 0; v < F8B_V_COUNT; v++)
			total[v] += tables[i].count[v];
		if (nt > 1) {
			char line[256];
			f8b_cmp_summary(tables[i].count, line, sizeof line);
			printf("\n%s: %s\n\n", tables[i].bench->schema->name, line);
		}
	}
	if (rc == F8B_OK) {
		char line[256];
		f8b_cmp_summary(total, line, sizeof line);
		printf("%s%s\n", nt > 1 ? "" : "\n", line);
		fflush(stdout);
		*exit_status = total[F8B_V_SLOWER] || total[F8B_V_MISSING] || total[F8B_V_WRONG] ||
		                       total[F8B_V_LESS_ACCURATE]
		                   ? 1
		                   : 0;
	}
	if (rc == F8B_OK && c->junit)
		rc = f8b_cmp_write_junit(c->junit, tables, nt);
	if (rc == F8B_OK && c->markdown)
		rc = f8b_cmp_write_markdown(c->markdown, tables, nt, c);
	for (size_t i = 0; i < nt; i++)
		free_table(&tables[i]);
	return rc;
}

int f8b_compare_main(int argc, char **argv)
{
	struct cmp_cfg c = {.tolerance = DEFAULT_TOLERANCE,
	                    .sigmas = DEFAULT_SIGMAS,
	                    .acc_tolerance = DEFAULT_ACC_TOL,
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
		f8b_cmd_help(stdout, &f8b_compare_doc);
		free(pos);
		return 0;
	}
	if (rc == F8B_OK && npos != 2)
		rc = F8B_ERR(F8B_EINVAL,
		             "compare takes two results files, BASE and NEW (got %d); see "
		             "f8bench compare --help",
		             npos);
	if (rc == F8B_OK)
		rc = compare(&c, pos[0], pos[1], &status);
	free(pos);
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench compare: error: %s\n", f8b_last_error());
		/* Bad input (options, files, GPUs) is 2; running out of memory
		 * or a bug is no verdict either, so also not 0 or 1. */
		return 2;
	}
	return status;
}
