#define _POSIX_C_SOURCE 200809L
/* test_options.c - one option table drives parsing and --help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "tap.h"

static const struct f8b_option t0[] = {
    {"alpha", 1, 'a', "N", "first\nsecond line"},
    {"flag", 2, 0, NULL, "a flag"},
    {0},
};
static const struct f8b_option t1[] = {
    {"beta", 1, 'o', "FILE", "same key as alpha, other table"},
    {0},
};

struct seen {
	int n, last_table, last_key, help;
	char last_arg[64];
};

static int handler(void *ctx, int table, int key, const char *arg)
{
	struct seen *s = ctx;
	if (table == -1) {
		s->help++;
		return F8B_OK;
	}
	s->n++;
	s->last_table = table;
	s->last_key = key;
	snprintf(s->last_arg, sizeof s->last_arg, "%s", arg ? arg : "(null)");
	return F8B_OK;
}

static int run(char **argv, int argc, struct seen *s, char ***pos, int *npos)
{
	const struct f8b_option *tables[] = {t0, t1, NULL};
	memset(s, 0, sizeof *s);
	*npos = 0;
	return f8b_options_parse(argc, argv, tables, handler, s, pos, npos);
}

int main(void)
{
	struct seen s;
	char *buf[16];
	char **pos = buf;
	int npos;

	char *a1[] = {"x", "--alpha", "7", "file.h5", "--flag", "-o", "out", NULL};
	int rc = run(a1, 7, &s, &pos, &npos);
	tap_ok(rc == F8B_OK, "parse long, short and positional");
	tap_ok(s.n == 3, "three options seen (%d)", s.n);
	tap_ok(s.last_table == 1 && s.last_key == 1 && !strcmp(s.last_arg, "out"),
	       "-o maps to the second table's entry");
	tap_ok(npos == 1 && !strcmp(pos[0], "file.h5"), "positional kept in order");

	char *a2[] = {"x", "-a", "3", NULL};
	rc = run(a2, 3, &s, &pos, &npos);
	tap_ok(rc == F8B_OK && s.last_table == 0 && !strcmp(s.last_arg, "3"), "-a N");

	char *a3[] = {"x", "--nope", NULL};
	rc = run(a3, 2, &s, &pos, &npos);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "--nope") &&
	           strstr(f8b_last_error(), "--help"),
	       "unknown long option named: %s", f8b_last_error());

	char *a4[] = {"x", "-z", NULL};
	rc = run(a4, 2, &s, &pos, &npos);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "-z"), "unknown short option named: %s",
	       f8b_last_error());

	char *a5[] = {"x", "--alpha", NULL};
	rc = run(a5, 2, &s, &pos, &npos);
	tap_ok(rc == F8B_EINVAL && strstr(f8b_last_error(), "--alpha") &&
	           strstr(f8b_last_error(), "argument"),
	       "missing argument named: %s", f8b_last_error());

	char *a6[] = {"x", "-h", NULL};
	rc = run(a6, 2, &s, &pos, &npos);
	tap_ok(rc == F8B_OK && s.help == 1, "-h reaches the handler as help");

	/* --help text comes from the same table: every option, its argument,
	 * every line of its help. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	f8b_options_help(f, t0);
	f8b_options_help(f, t1);
	fclose(f);
	tap_ok(strstr(text, "-a, --alpha N") != NULL, "help shows -a, --alpha N");
	tap_ok(strstr(text, "--flag") && strstr(text, "a flag"), "help shows --flag");
	tap_ok(strstr(text, "second line") != NULL, "help keeps continuation lines");
	tap_ok(strstr(text, "-o, --beta FILE") != NULL, "help shows the second table");
	free(text);
	return tap_done();
}
