/* options.h - one option table gives both getopt_long and the --help text,
 * so usage can never drift from what is parsed. */
#ifndef F8B_OPTIONS_H
#define F8B_OPTIONS_H

#include <stdio.h>

#include "core/common.h"

struct f8b_option {
	const char *name; /* long name without "--"; NULL ends a table */
	int key;          /* value handed to the handler (>= 256 or a char) */
	char short_name;  /* 'o' for -o, or 0 */
	const char *arg;  /* argument placeholder ("LIST"), NULL for a flag */
	const char *help; /* one or more lines; default stated in the text */
};

/* Parses argv against the tables (NULL-terminated array of tables).  For
 * each option found calls handler(ctx, table_index, key, arg); "-h" calls
 * handler(ctx, -1, 'h', NULL).  Positional arguments are stored in (*pos)[],
 * which must have room for argc entries, and counted in *npos.  Unknown
 * options and missing arguments: F8B_EINVAL naming the option and --help. */
int f8b_options_parse(int argc, char **argv, const struct f8b_option *const *tables,
                      int (*handler)(void *ctx, int table, int key, const char *arg), void *ctx,
                      char ***pos, int *npos);
void f8b_options_help(FILE *f, const struct f8b_option *table);

#endif
