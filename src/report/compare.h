/* compare.h - `f8bench compare BASE NEW`: the noise-aware regression gate.
 *
 * For every benchmark table both results files hold, matches their rows by
 * case (the benchmark's same_case), classifies each case and prints a
 * table and a summary line (and, on request, JUnit XML and Markdown); the
 * rule, with its formula, is in doc/compare.md.
 */
#ifndef F8B_COMPARE_H
#define F8B_COMPARE_H

#include "core/common.h"
#include "core/options.h"

/* The verdict on one case; the order is the order of the summary line. */
enum f8b_verdict {
	F8B_V_SAME,          /* within tolerance (or unsupported in both) */
	F8B_V_FASTER,        /* faster beyond tolerance and beyond noise */
	F8B_V_SLOWER,        /* slower beyond tolerance and beyond noise: a failure */
	F8B_V_UNSURE,        /* beyond tolerance but within noise */
	F8B_V_MISSING,       /* in BASE, not measured in NEW: a failure */
	F8B_V_WRONG,         /* NEW row is wrong or error: a failure */
	F8B_V_LESS_ACCURATE, /* an accuracy column the benchmark gates got worse: a failure */
	F8B_V_NEW,           /* no BASE measurement to compare with */
	F8B_V_COUNT
};

/* "same", "faster", ... */
const char *f8b_verdict_name(enum f8b_verdict v);

/* The timing rule for two ok rows (times in s, noise = relative standard
 * error of each median).  *change = new/base - 1, *noise = combined
 * relative standard error sqrt(nb^2 + nn^2) (non-finite or negative noise
 * counts as 0).  Times that are not finite and positive give F8B_V_UNSURE
 * with *change NaN. */
enum f8b_verdict f8b_compare_times(double base_s, double base_noise, double new_s, double new_noise,
                                   double tolerance, double sigmas, double *change, double *noise);

/* The command: argv[0] = "compare".  Prints to stdout, errors to stderr;
 * returns the exit status: 0 no regression, 1 a case slower, wrong or
 * missing or less accurate, 2 bad input (options, unreadable file, no table
 * both hold, runs on different GPU models without --force). */
int f8b_compare_main(int argc, char **argv);
/* Its --help and man page section (core/options.h). */
extern const struct f8b_cmd_doc f8b_compare_doc;

#endif
