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

/* The same table as man(7) paragraphs (.TP: the option, its argument, its
 * help text), for the man page (f8bench man). */
void f8b_options_man(FILE *f, const struct f8b_option *table);
/* text for roff: backslashes and hyphens escaped, a line that would start
 * with a control character ('.', ') made plain.  block: its lines kept
 * (and a last newline added); else newlines become spaces. */
void f8b_roff_text(FILE *f, const char *text, bool block);
/* text as a paragraph laid out as given (.nf ... .fi): --help's lists and
 * aligned columns stay as --help prints them. */
void f8b_roff_block(FILE *f, const char *text);

/* What a command's --help says, in the parts its section of the man page
 * shares, so the two come from one source: the usage lines and description,
 * the option table, and what follows it (exit status). */
struct f8b_cmd_doc {
	const char *name;                 /* "compare" */
	const char *summary;              /* one line: f8bench --help, the page's list */
	void (*usage)(FILE *f);           /* usage lines and description */
	const struct f8b_option *options; /* NULL: none */
	void (*tail)(FILE *f);            /* after the options, or NULL */
};
/* --help: usage, options, tail. */
void f8b_cmd_help(FILE *f, const struct f8b_cmd_doc *d);
/* The man page's section (.SS "f8bench NAME") of the same. */
void f8b_cmd_man(FILE *f, const struct f8b_cmd_doc *d);

#endif
