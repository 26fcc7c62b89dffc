/* tap_capture.h - run a command's main function inside a test, with its
 * standard output and error caught in buffers (through files in a scratch
 * folder: the function writes with printf and fprintf, as it does for the
 * command line), and the scratch folder itself and paths in it.  Used by the tests that
 * drive compare, merge and report in process.  Include after tap.h. */
#ifndef F8B_TESTS_TAP_CAPTURE_H
#define F8B_TESTS_TAP_CAPTURE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh scratch folder $TMPDIR/NAME-XXXXXX (/tmp without TMPDIR) into
 * dir[n]; false, with a failed TAP line naming why, when it cannot be
 * made. */
static inline bool tap_scratch_dir(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "%s/%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	if (mkdtemp(dir))
		return true;
	tap_ok(0, "mkdtemp %s: %s", dir, strerror(errno));
	return false;
}

/* dir/name, in one of four static buffers used in turn (so that up to four
 * paths may be live at once, as in one argv). */
static inline const char *tap_in_dir(const char *dir, const char *name)
{
	static char paths[4][512];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, 512, "%s/%s", dir, name);
	return p;
}

/* The file at path into buf (at most n - 1 bytes, NUL-terminated); with
 * trim, without its trailing newlines (so that it fits a one-line TAP
 * description). */
static inline void tap_slurp(const char *path, char *buf, size_t n, bool trim)
{
	FILE *f = fopen(path, "r");
	size_t len = f ? fread(buf, 1, n - 1, f) : 0;
	while (trim && len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	if (f)
		fclose(f);
}

/* fn(argc, argv) with stdout caught in out[nout] and stderr in err[nerr]
 * (through dir/stdout and dir/stderr; trim as tap_slurp); returns its
 * exit status. */
static inline int tap_capture(int (*fn)(int, char **), int argc, char **argv, const char *dir,
                              char *out, size_t nout, char *err, size_t nerr, bool trim)
{
	char po[600], pe[600];
	snprintf(po, sizeof po, "%s/stdout", dir);
	snprintf(pe, sizeof pe, "%s/stderr", dir);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	int fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fo, 1);
	dup2(fe, 2);
	int rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	tap_slurp(po, out, nout, trim);
	tap_slurp(pe, err, nerr, trim);
	return rc;
}

#endif
