/* options.c - getopt_long and --help generated from one option table. */
#define _GNU_SOURCE
#include "core/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static size_t table_len(const struct f8b_option *t)
{
	size_t n = 0;
	while (t && t[n].name)
		n++;
	return n;
}

int f8b_options_parse(int argc, char **argv, const struct f8b_option *const *tables,
                      int (*handler)(void *ctx, int table, int key, const char *arg), void *ctx,
                      char ***pos, int *npos)
{
	size_t total = 0;
	for (int t = 0; tables[t]; t++)
		total += table_len(tables[t]);

	/* getopt_long reports the index into `longopts`; keep a parallel map
	 * back to (table, entry) so keys may repeat across tables. */
	struct option *lo = calloc(total + 1, sizeof *lo);
	int *owner = calloc(total + 1, sizeof *owner);
	const struct f8b_option **entry = calloc(total + 1, sizeof *entry);
	if (!lo || !owner || !entry) {
		free(lo);
		free(owner);
		free(entry);
		return F8B_ERR(F8B_ENOMEM, "option tables");
	}
	/* Short options: "-" (positionals in order), ":" (report missing
	 * arguments), h, then every table's short names. */
	char shorts[128] = "-:h";
	size_t ns = 3;
	size_t k = 0;
	for (int t = 0; tables[t]; t++) {
		for (const struct f8b_option *o = tables[t]; o->name; o++, k++) {
			lo[k].name = o->name;
			lo[k].has_arg = o->arg ? required_argument : no_argument;
			lo[k].flag = NULL;
			lo[k].val = 0;
			owner[k] = t;
			entry[k] = o;
			if (o->short_name && ns + 3 < sizeof shorts) {
				shorts[ns++] = o->short_name;
				if (o->arg)
					shorts[ns++] = ':';
				shorts[ns] = '\0';
			}
		}
	}

	int rc = F8B_OK;
	optind = 1;
	opterr = 0;
	for (;;) {
		int idx = -1;
		/* "+" would stop at the first positional; "-" returns positionals
		 * in order as option 1, so `f8bench export file.h5 --csv` works. */
		int c = getopt_long(argc, argv, shorts, lo, &idx);
		if (c == -1)
			break;
		if (c == 1) {
			(*pos)[(*npos)++] = optarg;
			continue;
		}
		if (c == 'h') {
			rc = handler(ctx, -1, 'h', NULL);
			if (rc)
				break;
			continue;
		}
		if (c == '?') {
			const char *bad = argv[optind - 1];
			if (optopt && optopt != '?')
				rc = F8B_ERR(F8B_EINVAL, "unknown option '-%c' (see --help)",
				             optopt);
			else
				rc = F8B_ERR(F8B_EINVAL, "unknown option '%s' (see --help)", bad);
			break;
		}
		if (c == ':') {
			rc = F8B_ERR(F8B_EINVAL, "option '%s' needs an argument (see --help)",
			             argv[optind - 1]);
			break;
		}
		if (idx < 0) {
			/* A short option: find its entry. */
			for (size_t j = 0; j < total; j++)
				if (entry[j]->short_name == c)
					idx = (int)j;
		}
		if (idx < 0 || (size_t)idx >= total) {
			rc = F8B_ERR(F8B_EINTERNAL, "getopt returned %d", c);
			break;
		}
		rc = handler(ctx, owner[idx], entry[idx]->key, optarg);
		if (rc)
			break;
	}
	free(lo);
	free(owner);
	free(entry);
	return rc;
}

void f8b_options_help(FILE *f, const struct f8b_option *table)
{
	for (const struct f8b_option *o = table; o && o->name; o++) {
		char head[64];
		if (o->short_name)
			snprintf(head, sizeof head, "-%c, --%s%s%s", o->short_name, o->name,
			         o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(head, sizeof head, "    --%s%s%s", o->name, o->arg ? " " : "",
			         o->arg ? o->arg : "");
		/* Help text may hold several lines; indent the continuation. */
		const char *h = o->help;
		int first = 1;
		while (*h || first) {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(f, "  %-26s %.*s\n", first ? head : "", len, h);
			first = 0;
			if (!nl)
				break;
			h = nl + 1;
		}
	}
}

void f8b_roff_text(FILE *f, const char *text, bool block)
{
	bool bol = true; /* at the beginning of an output line */
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			fputc(block ? '\n' : ' ', f);
			bol = block;
			continue;
		}
		if (bol && (*p == '.' || *p == '\''))
			fputs("\\&", f); /* not a control line */
		bol = false;
		if (*p == '\\')
			fputs("\\e", f);
		else if (*p == '-')
			fputs("\\-", f); /* a minus sign, as options are typed */
		else if (*p == ',' && p[1] && p[1] != ' ' && !block)
			fputs(",\\:", f); /* a list may break after a comma */
		else
			fputc(*p, f);
	}
	if (block && !bol)
		fputc('\n', f);
}

void f8b_options_man(FILE *f, const struct f8b_option *table)
{
	for (const struct f8b_option *o = table; o && o->name; o++) {
		fputs(".TP\n", f);
		if (o->short_name)
			fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", f);
		f8b_roff_text(f, o->name, false);
		fputs("\\fR", f);
		if (o->arg) {
			fputs(" \\fI", f);
			f8b_roff_text(f, o->arg, false);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		f8b_roff_text(f, o->help, false);
		fputc('\n', f);
	}
}

void f8b_cmd_help(FILE *f, const struct f8b_cmd_doc *d)
{
	d->usage(f);
	if (d->options)
		f8b_options_help(f, d->options);
	if (d->tail)
		d->tail(f);
}

/* A usage function's text, as a string (NULL: out of memory). */
static char *text_of(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (!m)
		return NULL;
	fn(m);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void f8b_roff_block(FILE *f, const char *text)
{
	fputs(".PP\n.nf\n", f);
	f8b_roff_text(f, text, true);
	fputs(".fi\n", f);
}

static void man_text(FILE *f, void (*fn)(FILE *))
{
	char *t = text_of(fn);
	f8b_roff_block(f, t ? t : "");
	free(t);
}

void f8b_cmd_man(FILE *f, const struct f8b_cmd_doc *d)
{
	fprintf(f, ".SS \"f8bench %s\"\n", d->name);
	man_text(f, d->usage);
	if (d->options) {
		fputs(".PP\nOptions:\n", f);
		f8b_options_man(f, d->options);
	}
	if (d->tail)
		man_text(f, d->tail);
}
