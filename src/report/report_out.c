/* report_out.c - the writers every report module shares: output files in
 * the report directory, CSV / Markdown / gnuplot value formatting, small
 * statistics, and the directory itself. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v[0..n) in place (NaNs left out first). */
void f8b_rpt_stats_of(double *v, int n, struct f8b_rpt_stats *s)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	s->n = k;
	s->min = s->med = s->max = NAN;
	if (k == 0)
		return;
	qsort(v, (size_t)k, sizeof *v, cmp_double);
	s->min = v[0];
	s->max = v[k - 1];
	s->med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* Appends "item" to a ", "-separated list unless already there. */
void f8b_rpt_list_add(char *list, size_t size, const char *item)
{
	if (!item[0])
		return;
	size_t len = strlen(item);
	for (const char *p = list; (p = strstr(p, item)) != NULL; p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0'))
			return;
	size_t used = strlen(list);
	snprintf(list + used, size - used, "%s%s", used ? ", " : "", item);
}

void f8b_rpt_shape_list_add(char *list, size_t size, int64_t m, int64_t k, int64_t n, int *more)
{
	char sh[64];
	snprintf(sh, sizeof sh, "%lldx%lldx%lld", (long long)m, (long long)k, (long long)n);
	if (strlen(list) + strlen(sh) + 2 < size - 16)
		f8b_rpt_list_add(list, size, sh);
	else if (!strstr(list, sh))
		(*more)++;
}

int f8b_rpt_cmp_shape(int64_t am, int64_t ak, int64_t an, int64_t bm, int64_t bk, int64_t bn)
{
	double fa = (double)am * (double)ak * (double)an;
	double fb = (double)bm * (double)bk * (double)bn;
	if (fa != fb)
		return fa < fb ? -1 : 1;
	if (am != bm)
		return am < bm ? -1 : 1;
	if (ak != bk)
		return ak < bk ? -1 : 1;
	return (an > bn) - (an < bn);
}

/* ---------------------------------------------------------------- reading */

int f8b_rpt_open(const char *dir, struct f8b_rpt_out *o, const char *name)
{
	o->name = name;
	snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
	o->f = fopen(o->path, "w");
	if (!o->f)
		return F8B_ERR(F8B_EIO, "cannot write '%s': %s", o->path, strerror(errno));
	return F8B_OK;
}

int f8b_rpt_close(struct f8b_rpt_out *o, int rc)
{
	if (!o->f)
		return rc;
	bool bad = ferror(o->f);
	if (fclose(o->f) != 0)
		bad = true;
	o->f = NULL;
	if (bad && rc == F8B_OK)
		rc = F8B_ERR(F8B_EIO, "writing '%s' failed (disk full?)", o->path);
	return rc;
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
void f8b_rpt_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A ", " list as one CSV field, ";"-separated: no quoting needed for
 * labels, so awk -F, and cut read the file. */
void f8b_rpt_csv_list(FILE *f, const char *s)
{
	char buf[512];
	size_t k = 0;
	for (; *s && k + 1 < sizeof buf; s++) {
		if (s[0] == ',' && s[1] == ' ')
			buf[k++] = ';', s++;
		else
			buf[k++] = *s;
	}
	buf[k] = '\0';
	f8b_rpt_csv_str(f, buf);
}

void f8b_rpt_csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("nan", f);
	else
		fprintf(f, "%.6g", v);
}

/* A Markdown table cell: '|' escaped, line breaks flattened. */
void f8b_rpt_md_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

void f8b_rpt_md_num(FILE *f, const char *fmt, double v)
{
	if (isnan(v))
		fputs("-", f);
	else
		fprintf(f, fmt, v);
}

/* A gnuplot double-quoted string. */
void f8b_rpt_gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('"', f);
}

void f8b_rpt_gp_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("NaN", f);
}

void f8b_rpt_dat_header(FILE *f, const char *what, const char *cols)
{
	fprintf(f,
	        "# f8bench report: %s\n# one block (gnuplot index i-1) per series i of "
	        "plot-vars.gp\n# %s\n",
	        what, cols);
}

void f8b_rpt_md_plot(FILE *f, const char *name, const char *caption, bool drawn)
{
	if (drawn)
		fprintf(f, "![%s](%s.png)\n\n[%s.svg](%s.svg) (vector) · data: ", caption, name,
		        name, name);
	else
		fprintf(f, "*%s: not drawn (see the note above); data: ", caption);
}

int f8b_rpt_make_dir(const char *dir)
{
	char p[4096];
	if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
		return F8B_ERR(F8B_EINVAL, "output directory name too long: '%.64s...'", dir);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return F8B_ERR(F8B_EIO, "cannot create output directory '%s': %s", p,
			               strerror(errno));
		*s = c;
		if (!c)
			break;
	}
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0)
		return F8B_ERR(F8B_EIO, "output directory '%s' is not a writable directory", dir);
	return F8B_OK;
}
