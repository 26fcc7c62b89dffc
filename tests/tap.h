/* tap.h - a minimal TAP producer for f8bench's C tests.
 *
 * Why not cmocka: the GPU machines have no cmocka package and nothing can be
 * installed there, and the GPU tests must build on them; TAP lines are all
 * automake's tap-driver needs to count every assertion.
 * Usage: tap_ok(cond, "fmt", ...); tap_skip_all("why"); return tap_done();
 */
#ifndef F8B_TAP_H
#define F8B_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

/* One assertion skipped: "ok N # SKIP why" (a configuration this GPU or
 * library cannot run). */
static inline void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_skip(const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("ok %d # SKIP ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* calloc of at least one element, or the test ends (exit 2: a hard error
 * for automake's TAP driver) naming the size. */
static inline void *tap_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "out of host memory (%zu x %zu bytes)\n", n, size);
		exit(2);
	}
	return p;
}

/* Diagnostics (TAP comment lines). */
#define tap_diag(...)                                                                              \
	do {                                                                                       \
		printf("# ");                                                                      \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
	} while (0)

/* Whole file skipped (e.g. no GPU): prints the plan "1..0 # SKIP why",
 * which automake's TAP driver counts as a skip, and returns 77, the
 * conventional "skipped" exit status for whoever runs the test by hand
 * (Makefile.am runs binary tests with --ignore-exit: the plan decides). */
#define TAP_EXIT_SKIP 77
static inline int tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	return TAP_EXIT_SKIP;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
