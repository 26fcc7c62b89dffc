/* compare_out.c - what `f8bench compare` writes: the header and table on
 * standard output, the summary line, and for CI systems JUnit XML (one
 * testcase per case) and a Markdown summary (doc/compare.md).  Files are
 * written beside their target and renamed, so a reader never sees half. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/compare_int.h"

static bool is_failure(enum f8b_verdict v)
{
	return v == F8B_V_SLOWER || v == F8B_V_MISSING || v == F8B_V_WRONG ||
	       v == F8B_V_LESS_ACCURATE;
}

void f8b_cmp_summary(const size_t count[F8B_V_COUNT], char *buf, size_t n)
{
	/* The fixed form scripts grep: the classic seven, then the accuracy gate. */
	snprintf(buf, n,
	         "%zu same, %zu faster, %zu slower, %zu unsure, %zu missing, %zu wrong, %zu new, "
	         "%zu less-accurate",
	         count[F8B_V_SAME], count[F8B_V_FASTER], count[F8B_V_SLOWER], count[F8B_V_UNSURE],
	         count[F8B_V_MISSING], count[F8B_V_WRONG], count[F8B_V_NEW],
	         count[F8B_V_LESS_ACCURATE]);
}

/* "less-accurate if sqnr_db, rel_error worse by > 0.5 (dB for *_db, else
 * relative)", or with tolerance 0 "... change at all". */
static void acc_rule(const struct cmp_cols *cols, const struct cmp_cfg *c, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "less-accurate if ");
	for (int k = 0; k < cols->nacc && len < n; k++)
		len +=
		    (size_t)snprintf(buf + len, n - len, "%s%s", k ? ", " : "", cols->acc_name[k]);
	if (len >= n)
		return;
	if (c->acc_tolerance == 0)
		snprintf(buf + len, n - len, " change at all");
	else
		snprintf(buf + len, n - len, " worse by > %g (dB for *_db, else relative)",
		         c->acc_tolerance);
}

/* Value of `key` in a "k=v k=v" list into out ("" when absent). */
static void measure_value(const char *list, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	out[0] = '\0';
	for (const char *p = list; p && *p;) {
		while (*p == ' ')
			p++;
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, n, "%.*s", (int)(len - kl - 1), p + kl + 1);
			return;
		}
		p = end;
	}
}

/* The timing settings (measure provenance) in which BASE and NEW differ,
 * among those both record: "flush_by=write / read, hold=0 / 1" or "". */
static void timing_diff(const char *base, const char *nw, char *out, size_t n)
{
	static const char *const keys[] = {"flush", "flush_by", "hold", "batch"};
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char a[32], b[32];
		measure_value(base, keys[i], a, sizeof a);
		measure_value(nw, keys[i], b, sizeof b);
		if (a[0] && b[0] && strcmp(a, b) != 0 && len + 1 < n)
			len += (size_t)snprintf(out + len, n - len, "%s%s=%s / %s", len ? ", " : "",
			                        keys[i], a, b);
	}
}

void f8b_cmp_print_header(const struct cmp_table *t, const struct cmp_cfg *c, bool titled)
{
	const struct cmp_side *s[2] = {&t->base, &t->nw};
	if (titled)
		printf("== %s\n", t->bench->schema->name);
	for (int i = 0; i < 2; i++)
		printf("%s %s, %s %s on %s, %zu cases\n", i ? "new: " : "base:", s[i]->path,
		       strchr(s[i]->runs, ',') ? "runs" : "run", s[i]->runs,
		       s[i]->gpu[0] ? s[i]->gpu : "an unknown GPU", s[i]->npick);
	if (!t->base.gpu[0] || !t->nw.gpu[0])
		printf("warning: the GPU model of %s is unknown: not checked\n",
		       t->base.gpu[0] ? "NEW"
		       : t->nw.gpu[0] ? "BASE"
		                      : "BASE and NEW");
	else if (strcmp(t->base.gpu, t->nw.gpu) != 0)
		printf("warning: different GPU models, compared because of --force\n");
	char diff[192];
	timing_diff(t->base.measure, t->nw.measure, diff, sizeof diff);
	if (diff[0])
		printf("warning: BASE and NEW were timed differently (%s): a change in time may "
		       "come from that alone (doc/formulas.md)\n",
		       diff);
	if (c->no_timing)
		printf("rule: status and accuracy only (--no-timing)");
	else
		printf("rule: same if |change| <= %.4g%%, else slower/faster if |change| > %.4g x "
		       "noise, else unsure",
		       100 * c->tolerance, c->sigmas);
	if (t->cols.nacc) {
		char acc[256];
		acc_rule(&t->cols, c, acc, sizeof acc);
		printf("; %s", acc);
	}
	printf("\n");
}

static void fmt_ms(const struct cmp_cols *c, const unsigned char *r, char *buf, size_t n)
{
	if (r && f8b_cmp_status_is(c, r, F8B_ROW_OK) && isfinite(cmp_f64(r, c->time)))
		snprintf(buf, n, "%.4g", 1e3 * cmp_f64(r, c->time));
	else if (r)
		snprintf(buf, n, "%.*s", (int)c->status_n, cmp_str(r, c->status));
	else
		snprintf(buf, n, "-");
}

static void describe(const struct cmp_table *t, const struct cmp_item *it, char *buf, size_t n)
{
	t->bench->describe(it->b ? it->b : it->n, buf, n);
}

void f8b_cmp_print_table(const struct cmp_table *t, bool all)
{
	char desc[160];
	int w = 4;

	for (size_t i = 0; i < t->nitems; i++) {
		if (!all && t->items[i].v == F8B_V_SAME)
			continue;
		describe(t, &t->items[i], desc, sizeof desc);
		if ((int)strlen(desc) > w)
			w = (int)strlen(desc);
	}
	/* The verdict column is as wide as its longest word, "less-accurate". */
	printf("%-*s  %11s  %11s  %8s  %6s  %-13s  %s\n", w, "case", "base ms", "new ms", "change",
	       "noise", "verdict", "note");
	for (size_t i = 0; i < t->nitems; i++) {
		const struct cmp_item *it = &t->items[i];
		char b[32], nw[32], ch[16] = "-", no[16] = "-";
		if (!all && it->v == F8B_V_SAME)
			continue;
		describe(t, it, desc, sizeof desc);
		fmt_ms(&t->cols, it->b, b, sizeof b);
		fmt_ms(&t->cols, it->n, nw, sizeof nw);
		if (isfinite(it->change))
			snprintf(ch, sizeof ch, "%+.2f%%", 100 * it->change);
		if (isfinite(it->noise))
			snprintf(no, sizeof no, "%.2f%%", 100 * it->noise);
		printf("%-*s  %11s  %11s  %8s  %6s  %-*s%s\n", w, desc, b, nw, ch, no,
		       it->note[0] ? 15 : 0, f8b_verdict_name(it->v), it->note);
	}
}

/* ---------------------------------------------------------------- files */

static FILE *open_tmp(const char *path, char *tmp, size_t n)
{
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	return fopen(tmp, "w");
}

static int close_tmp(FILE *f, const char *tmp, const char *path)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return F8B_ERR(F8B_EIO, "cannot write '%s'", path);
	}
	return F8B_OK;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

static void junit_case(FILE *f, const struct cmp_table *t, const struct cmp_item *it)
{
	char desc[160], detail[320];
	describe(t, it, desc, sizeof desc);
	fprintf(f, "    <testcase classname=\"%s\" name=\"", t->bench->schema->name);
	xml_text(f, desc);
	fprintf(f, "\" time=\"%.9f\">\n",
	        it->n && isfinite(cmp_f64(it->n, t->cols.time)) ? cmp_f64(it->n, t->cols.time)
	                                                        : 0.0);
	snprintf(detail, sizeof detail, "%s%s%s", f8b_verdict_name(it->v), it->note[0] ? ": " : "",
	         it->note);
	if (is_failure(it->v)) {
		const char *tag = it->v == F8B_V_WRONG ? "error" : "failure";
		fprintf(f, "      <%s type=\"%s\" message=\"", tag, f8b_verdict_name(it->v));
		xml_text(f, detail);
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "      <system-out>");
	xml_text(f, detail);
	if (isfinite(it->change))
		fprintf(f, " (change %+.2f%%, noise %.2f%%)", 100 * it->change, 100 * it->noise);
	fprintf(f, "</system-out>\n    </testcase>\n");
}

int f8b_cmp_write_junit(const char *path, const struct cmp_table *t, size_t nt)
{
	char tmp[4200];
	size_t tests = 0, fail = 0, err = 0;
	FILE *f = open_tmp(path, tmp, sizeof tmp);
	if (!f)
		return F8B_ERR(F8B_EIO, "cannot write '%s'", path);
	for (size_t i = 0; i < nt; i++) {
		tests += t[i].nitems;
		err += t[i].count[F8B_V_WRONG];
		fail += t[i].count[F8B_V_SLOWER] + t[i].count[F8B_V_MISSING] +
		        t[i].count[F8B_V_LESS_ACCURATE];
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(
	    f,
	    "<testsuites name=\"f8bench compare\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
	    tests, fail, err);
	for (size_t i = 0; i < nt; i++) {
		const struct cmp_table *x = &t[i];
		fprintf(f,
		        "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		        "skipped=\"0\" time=\"0\">\n",
		        x->bench->schema->name, x->nitems,
		        x->count[F8B_V_SLOWER] + x->count[F8B_V_MISSING] +
		            x->count[F8B_V_LESS_ACCURATE],
		        x->count[F8B_V_WRONG]);
		for (size_t k = 0; k < x->nitems; k++)
			junit_case(f, x, &x->items[k]);
		fprintf(f, "  </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	return close_tmp(f, tmp, path);
}

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){*s, 0}, f);
}

int f8b_cmp_write_markdown(const char *path, const struct cmp_table *t, size_t nt,
                           const struct cmp_cfg *c)
{
	char tmp[4200], line[256];
	FILE *f = open_tmp(path, tmp, sizeof tmp);
	if (!f)
		return F8B_ERR(F8B_EIO, "cannot write '%s'", path);
	fprintf(f, "## f8bench compare\n\n");
	for (size_t i = 0; i < nt; i++) {
		const struct cmp_table *x = &t[i];
		size_t bad = x->count[F8B_V_SLOWER] + x->count[F8B_V_MISSING] +
		             x->count[F8B_V_WRONG] + x->count[F8B_V_LESS_ACCURATE];
		f8b_cmp_summary(x->count, line, sizeof line);
		fprintf(f, "### %s: %s\n\n", x->bench->schema->name,
		        bad ? "regression" : "no regression");
		fprintf(f, "- base: `%s`, run %s on %s, %zu cases\n", x->base.path, x->base.runs,
		        x->base.gpu[0] ? x->base.gpu : "an unknown GPU", x->base.npick);
		fprintf(f, "- new: `%s`, run %s on %s, %zu cases\n", x->nw.path, x->nw.runs,
		        x->nw.gpu[0] ? x->nw.gpu : "an unknown GPU", x->nw.npick);
		if (c->no_timing)
			fprintf(f, "- rule: status and accuracy only\n");
		else
			fprintf(
			    f,
			    "- rule: same within %.4g%%, else slower/faster beyond %.4g x noise\n",
			    100 * c->tolerance, c->sigmas);
		if (x->cols.nacc) {
			char acc[sizeof line];
			acc_rule(&x->cols, c, acc, sizeof acc);
			fprintf(f, "- accuracy: %s\n", acc);
		}
		fprintf(f, "- **%s**\n\n", line);
		if (x->count[F8B_V_SAME] == x->nitems)
			continue;
		fprintf(f, "| case | base ms | new ms | change | noise | verdict | note |\n");
		fprintf(f, "| --- | ---: | ---: | ---: | ---: | --- | --- |\n");
		for (size_t k = 0; k < x->nitems; k++) {
			const struct cmp_item *it = &x->items[k];
			char desc[160], b[32], n[32];
			if (it->v == F8B_V_SAME)
				continue;
			describe(x, it, desc, sizeof desc);
			fmt_ms(&x->cols, it->b, b, sizeof b);
			fmt_ms(&x->cols, it->n, n, sizeof n);
			fprintf(f, "| ");
			md_cell(f, desc);
			fprintf(f, " | %s | %s | ", b, n);
			if (isfinite(it->change))
				fprintf(f, "%+.2f%% | %.2f%%", 100 * it->change, 100 * it->noise);
			else
				fprintf(f, "- | -");
			fprintf(f, " | %s%s%s | ", is_failure(it->v) ? "**" : "",
			        f8b_verdict_name(it->v), is_failure(it->v) ? "**" : "");
			md_cell(f, it->note);
			fprintf(f, " |\n");
		}
		fprintf(f, "\n");
	}
	return close_tmp(f, tmp, path);
}
