/* report.c - f8bench report, the core: reads results files, finds which
 * benchmark tables they hold (f8b_benches[]), hands each benchmark's rows
 * to its report module (its descriptor's .report: data files, the gnuplot
 * templates to draw, its sections of report.md), draws those templates
 * with gnuplot as PNG and SVG, and writes report.md around the sections
 * with every input's provenance.  A benchmark without a module gets a
 * generic section.  No benchmark is named here.
 *
 * Only finished files are read: this command never measures, and it starts
 * gnuplot with fork/exec, which is why it must not run inside an MPI
 * (measuring) process. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/options.h"
#include "harness/provenance.h"
#include "model/roofline.h"

/* ---------------------------------------------------------------- gnuplot */

static bool is_exec(const char *p)
{
	struct stat st;
	return p && p[0] && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* First match in PATH of a command name; absolute result. */
static bool search_path(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH");
	char *copy = path ? strdup(path) : NULL;
	bool found = false;
	for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char cand[4096];
		snprintf(cand, sizeof cand, "%s/%s", d, name);
		found = is_exec(cand) && realpath(cand, out) && strlen(out) < n;
	}
	free(copy);
	return found;
}

/* $GNUPLOT when set (it alone: a path, or a name looked up in PATH), else
 * the gnuplot configure found, else "gnuplot" in PATH.  The result is
 * absolute, since gnuplot runs in DIR. */
static bool find_gnuplot(char *out, size_t n)
{
	const char *env = getenv("GNUPLOT");
	if (env && env[0]) {
		if (!strchr(env, '/'))
			return search_path(env, out, n);
		return is_exec(env) && realpath(env, out) && strlen(out) < n;
	}
#ifdef F8B_GNUPLOT
	if (is_exec(F8B_GNUPLOT) && realpath(F8B_GNUPLOT, out) && strlen(out) < n)
		return true;
#endif
	return search_path("gnuplot", out, n);
}

/* Runs `gnuplot -e "fmt='F'; out='O'" TEMPLATE` in dir, output to
 * dir/gnuplot.log; *status gets its exit status (127: could not start). */
static int run_gnuplot(const char *gnuplot, const char *dir, const char *tpl, const char *fmt,
                       const char *out, int *status)
{
	char expr[256];
	snprintf(expr, sizeof expr, "fmt='%s'; out='%s'", fmt, out);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return F8B_ERR(F8B_EIO, "cannot start gnuplot: fork failed: %s", strerror(errno));
	if (pid == 0) {
		int fd = -1;
		if (chdir(dir) == 0)
			fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		execl(gnuplot, gnuplot, "-e", expr, tpl, (char *)NULL);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return F8B_ERR(F8B_EIO, "waiting for gnuplot failed: %s", strerror(errno));
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return F8B_OK;
}

/* Draws every plot named in plots[] in both formats.  F8B_OK with note ""
 * when all were drawn; otherwise note says why not (and the caller exits 1). */
static int draw(const char *dir, const char *const *plots, int nplots, char *note, size_t n,
                char *gnuplot, size_t gn)
{
	static const char *const fmts[] = {"png", "svg"};
	char tdir[4096];

	note[0] = '\0';
	if (!nplots) {
		snprintf(note, n, "no row has status ok: nothing to plot");
		return F8B_OK;
	}
	if (!find_gnuplot(gnuplot, gn)) {
		gnuplot[0] = '\0';
		snprintf(note, n,
		         "gnuplot not found (install gnuplot-nox or set GNUPLOT); wrote "
		         "data and report.md to %s",
		         dir);
		return F8B_OK;
	}
	if (!f8b_roofline_data_dir("roofline.gp", tdir, sizeof tdir)) { /* beside datasheet.tsv */
		snprintf(note, n,
		         "the gnuplot templates (roofline/roofline.gp) were not found: set "
		         "F8B_ROOFLINE to the roofline/ directory; wrote data and report.md to "
		         "%s",
		         dir);
		return F8B_OK;
	}
	char log[4096];
	snprintf(log, sizeof log, "%s/gnuplot.log", dir);
	unlink(log);
	for (int i = 0; i < nplots; i++)
		for (size_t j = 0; j < 2; j++) {
			char tpl[4200], out[64];
			int st = 0;
			snprintf(tpl, sizeof tpl, "%s/%s.gp", tdir, plots[i]);
			snprintf(out, sizeof out, "%s.%s", plots[i], fmts[j]);
			F8B_TRY(run_gnuplot(gnuplot, dir, tpl, fmts[j], out, &st));
			/* gnuplot 5.4 has been seen to die of SIGSEGV during make -j
			 * check; the one cause found was data (a `with labels` block
			 * of NaN alone, no longer written by lls_report_dat.c), but
			 * one more try, logged, costs nothing when it is not. */
			if (st > 128) {
				FILE *lf = fopen(log, "a");
				if (lf) {
					fprintf(lf,
					        "f8bench report: gnuplot died of signal %d on %s; "
					        "trying once more\n",
					        st - 128, out);
					fclose(lf);
				}
				F8B_TRY(run_gnuplot(gnuplot, dir, tpl, fmts[j], out, &st));
			}
			if (st != 0) {
				snprintf(note, n,
				         "gnuplot (%s) failed on %s with exit status %d (see "
				         "%s/gnuplot.log); wrote data and report.md to %s",
				         gnuplot, tpl, st, dir, dir);
				return F8B_OK;
			}
		}
	return F8B_OK;
}

enum { OPT_OUTPUT = 256, OPT_CEILINGS, OPT_NET_BW, OPT_NET_LAT, OPT_GPN, OPT_HELP };
static const struct f8b_option report_options[] = {
    {"output", OPT_OUTPUT, 'o', "DIR", "write the report into DIR (created if missing; required)"},
    {"ceilings", OPT_CEILINGS, 0, "FILE",
     "measured roofs from the ceilings table of FILE (f8bench ceilings);\n"
     "default: the first FILE.h5 given that has a ceilings table"},
    {"net-bw", OPT_NET_BW, 0, "GBPS",
     "the network between nodes, per GPU, that a projection past one node\n"
     "assumes (default 50: a 400 Gb/s NIC per GPU)"},
    {"net-lat", OPT_NET_LAT, 0, "US", "its latency per ring step, microseconds (default 5)"},
    {"gpus-per-node", OPT_GPN, 0, "N", "GPUs per node in that projection (default 8)"},
    {"help", OPT_HELP, 0, NULL, "this text"},
    {0},
};

struct report_cfg {
	const char *dir, *ceilings;
	double net_bw, net_lat_s;
	int gpus_per_node;
	bool help;
};

static int report_opt(void *ctx, int table, int key, const char *arg)
{
	struct report_cfg *c = ctx;
	if (table == -1 || key == OPT_HELP)
		c->help = true;
	else if (key == OPT_OUTPUT)
		c->dir = arg;
	else if (key == OPT_CEILINGS)
		c->ceilings = arg;
	else if (key == OPT_NET_BW) {
		F8B_TRY(f8b_parse_positive("net-bw", arg, 1e6, &c->net_bw));
		c->net_bw *= 1e9;
	} else if (key == OPT_NET_LAT) {
		F8B_TRY(f8b_parse_positive("net-lat", arg, 1e6, &c->net_lat_s));
		c->net_lat_s *= 1e-6;
	} else if (key == OPT_GPN) {
		double v;
		F8B_TRY(f8b_parse_positive("gpus-per-node", arg, 1024, &v));
		if (v != (int)v)
			return F8B_ERR(F8B_EINVAL, "--gpus-per-node '%s': expected a whole number",
			               arg);
		c->gpus_per_node = (int)v;
	}
	return F8B_OK;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: f8bench report FILE.h5... -o DIR [--ceilings FILE.h5]\n\n"
	           "Turns results files into plots and a summary, in DIR: for every benchmark\n"
	           "table the files hold, its report's plots and data, and report.md with the\n"
	           "tables behind every plot and each file's provenance.\n");
	for (int i = 0; f8b_benches[i]; i++) {
		const struct f8b_report_module *m = f8b_benches[i]->report;
		fprintf(f, "\n%s:\n%s", f8b_benches[i]->name,
		        m && m->help ? m->help
		                     : "  report.md: a table of its cases and outcomes\n");
	}
	fprintf(f, "\nReads finished files only; run it after the benchmark, not inside it.\n"
	           "gnuplot: $GNUPLOT, else the one configure found, else PATH.  Templates:\n"
	           "$F8B_ROOFLINE, else the installed or source-tree roofline/.\n\n"
	           "Exit status: 0 all written; 1 data and report.md written but no plots\n"
	           "(gnuplot not found or failed); 2 bad arguments or unreadable input.\n\n");
}

const struct f8b_cmd_doc f8b_report_doc = {
    .name = "report",
    .summary = "plots (gnuplot), CSV and a Markdown summary of results files",
    .usage = usage,
    .options = report_options,
};

/* ---------------------------------------------------------------- the core */

struct section {
	const struct f8b_bench *bench;
	struct f8b_report_file *files; /* this benchmark's rows of every input */
	size_t nrows;
	void *state;
};

struct core {
	const char *dir, *ceilings;
	double net_bw, net_lat_s;
	int gpus_per_node;
	struct f8b_report_file *files; /* provenance and tables of every input */
	int nfiles;
	struct section sec[16];
	int nsec;
	const char *plots[16 * F8B_REPORT_MAX_PLOTS];
	int nplots;
	size_t plotted;
	char plot_list[512];
	char gpu[256], date[64], names[128];
};

/* The columns of b's schema a file's table lacks (written by an older
 * f8bench): they read as NaN, 0 or "", and report.md says so. */
static int missing_columns(const char *path, const struct f8b_bench *b, char *out, size_t n)
{
	const struct f8b_table_schema *s = b->schema;
	out[0] = '\0';
	for (size_t i = 0; i < s->nfields; i++) {
		struct f8b_table_schema one = *s;
		one.fields = &s->fields[i];
		one.nfields = 1;
		void *rows = NULL;
		size_t nr = 0;
		/* A one-column read fails only when the column is absent. */
		if (f8b_results_read(path, &one, &rows, &nr) != F8B_OK)
			f8b_rpt_list_add(out, n, s->fields[i].name);
		free(rows);
	}
	f8b_clear_error();
	return F8B_OK;
}

static int read_inputs(struct core *R, char **paths, int npaths)
{
	struct stat st;
	R->files = calloc((size_t)npaths, sizeof *R->files);
	if (!R->files)
		return F8B_ERR(F8B_ENOMEM, "no memory for %d files", npaths);
	R->nfiles = npaths;
	for (int i = 0; i < npaths; i++) {
		struct f8b_report_file *F = &R->files[i];
		F->path = paths[i];
		if (stat(F->path, &st) != 0)
			return F8B_ERR(F8B_EIO, "cannot read results file '%s': %s", F->path,
			               strerror(errno));
		if (f8b_results_tables(F->path, F->tables, sizeof F->tables) != F8B_OK)
			return F8B_ERR(
			    F8B_EIO,
			    "'%s' is not an HDF5 results file (f8bench BENCHMARK -o FILE.h5)",
			    F->path);
		F8B_TRY(f8b_results_read_provenance(F->path, &F->prov));
	}
	/* One section per benchmark any input holds, its rows read per file. */
	for (int b = 0; f8b_benches[b] && R->nsec < 16; b++) {
		const struct f8b_bench *bench = f8b_benches[b];
		struct section *S = &R->sec[R->nsec];
		bool any = false;
		for (int i = 0; i < npaths; i++)
			any |= f8b_results_list_has(R->files[i].tables, bench->schema->name);
		if (!any)
			continue;
		R->nsec++;
		S->bench = bench;
		S->files = calloc((size_t)npaths, sizeof *S->files);
		if (!S->files)
			return F8B_ERR(F8B_ENOMEM, "no memory for %d files", npaths);
		for (int i = 0; i < npaths; i++) {
			struct f8b_report_file *F = &S->files[i];
			*F = R->files[i];
			F->prov = R->files[i].prov; /* shared, freed once with R->files */
			if (!f8b_results_list_has(F->tables, bench->schema->name))
				continue;
			F8B_TRY(f8b_results_read(F->path, bench->schema, &F->rows, &F->nrows));
			F8B_TRY(missing_columns(F->path, bench, F->missing, sizeof F->missing));
			S->nrows += F->nrows;
		}
	}
	if (R->nsec == 0) {
		char known[256] = "";
		for (int b = 0; f8b_benches[b]; b++)
			f8b_rpt_list_add(known, sizeof known, f8b_benches[b]->schema->name);
		return F8B_ERR(F8B_EINVAL,
		               "no benchmark table in %s%s (tables: %s): report plots the tables "
		               "f8bench writes (%s)",
		               paths[0], npaths > 1 ? " or the other files" : "",
		               R->files[0].tables[0] ? R->files[0].tables : "none", known);
	}
	return F8B_OK;
}

/* The GPUs and dates of the inputs, for the title. */
static void title_facts(struct core *R)
{
	char lo[16] = "", hi[16] = "";
	for (int f = 0; f < R->nfiles; f++) {
		const char *g = f8b_prov_get(&R->files[f].prov, "device_name");
		const char *t = f8b_prov_get(&R->files[f].prov, "utc_time");
		f8b_rpt_list_add(R->gpu, sizeof R->gpu, g && g[0] ? g : "unknown device");
		if (t && strlen(t) >= 10) {
			char d[16];
			snprintf(d, sizeof d, "%.10s", t);
			if (!lo[0] || strcmp(d, lo) < 0)
				snprintf(lo, sizeof lo, "%s", d);
			if (!hi[0] || strcmp(d, hi) > 0)
				snprintf(hi, sizeof hi, "%s", d);
		}
	}
	if (!lo[0])
		snprintf(R->date, sizeof R->date, "date unknown");
	else if (!strcmp(lo, hi))
		snprintf(R->date, sizeof R->date, "%s", lo);
	else
		snprintf(R->date, sizeof R->date, "%s to %s", lo, hi);
	for (int s = 0; s < R->nsec; s++)
		f8b_rpt_list_add(R->names, sizeof R->names, R->sec[s].bench->name);
}

/* A benchmark without a report module: its cases and outcomes as a table,
 * so a new benchmark is never left out of a report. */
static void generic_section(const struct section *S, int nfiles, FILE *f)
{
	const struct f8b_bench *b = S->bench;
	const size_t rs = b->schema->row_size;
	long toff = -1;
	for (size_t i = 0; i < b->schema->nfields; i++)
		if (b->time_column && !strcmp(b->schema->fields[i].name, b->time_column))
			toff = (long)b->schema->fields[i].offset;
	fprintf(f,
	        "## %s\n\n%zu rows.  `f8bench export --table %s FILE.h5` gives every column.\n\n",
	        b->name, S->nrows, b->schema->name);
	fprintf(f, "| case | status | median time (s) | result |\n| --- | --- | --- | --- |\n");
	for (int fi = 0; fi < nfiles; fi++)
		for (size_t i = 0; i < S->files[fi].nrows; i++) {
			const char *row = (const char *)S->files[fi].rows + i * rs;
			char desc[160], res[160];
			double t = NAN;
			b->describe(row, desc, sizeof desc);
			b->summarize(row, res, sizeof res);
			if (toff >= 0)
				memcpy(&t, row + toff, sizeof t);
			fprintf(f, "| ");
			f8b_rpt_md_str(f, desc);
			fprintf(f, " | %.16s | ", row + b->off_status);
			f8b_rpt_md_num(f, "%.4g", t);
			fprintf(f, " | ");
			f8b_rpt_md_str(f, res);
			fprintf(f, " |\n");
		}
	fputc('\n', f);
}

static void provenance_section(const struct core *R, FILE *f)
{
	fprintf(f, "## Provenance\n\n");
	for (int i = 0; i < R->nfiles; i++) {
		const struct f8b_report_file *F = &R->files[i];
		fprintf(f, "### ");
		f8b_rpt_md_str(f, F->path);
		fprintf(f, "\n\nTables: ");
		f8b_rpt_md_str(f, F->tables[0] ? F->tables : "none");
		for (int s = 0; s < R->nsec; s++) {
			const struct f8b_report_file *T = &R->sec[s].files[i];
			if (T->rows || T->nrows)
				fprintf(f, "; %zu %s rows", T->nrows,
				        R->sec[s].bench->schema->name);
			if (T->missing[0]) {
				fprintf(f, " (columns this file does not have, written by an older "
				           "f8bench; shown as unknown: ");
				f8b_rpt_md_str(f, T->missing);
				fputc(')', f);
			}
		}
		fprintf(f, ".\n\n| key | value |\n| --- | --- |\n");
		for (size_t k = 0; k < F->prov.n; k++) {
			fprintf(f, "| ");
			f8b_rpt_md_str(f, F->prov.kv[k].key);
			fprintf(f, " | ");
			f8b_rpt_md_str(f, F->prov.kv[k].value);
			fprintf(f, " |\n");
		}
		fputc('\n', f);
	}
}

static int write_markdown(const struct core *R, const char *plot_note, bool drawn)
{
	struct f8b_rpt_out o;
	char now[32] = "";
	time_t t = time(NULL);
	struct tm tm;
	int rc = F8B_OK;
	if (gmtime_r(&t, &tm))
		strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
	F8B_TRY(f8b_rpt_open(R->dir, &o, "report.md"));
	FILE *f = o.f;
	fprintf(f, "# f8bench report: %s on %s, %s\n\n", R->names, R->gpu, R->date);
	fprintf(f,
	        "Written by %s at %s from %d results file%s.  How to read each plot: "
	        "doc/report.md.\n\n",
	        f8b_version_string(), now, R->nfiles, R->nfiles == 1 ? "" : "s");
	if (plot_note[0])
		fprintf(f, "> **Note:** %s\n\n", plot_note);
	for (int s = 0; s < R->nsec && rc == F8B_OK; s++) {
		const struct section *S = &R->sec[s];
		if (S->bench->report)
			rc = S->bench->report->markdown(S->state, f, drawn);
		else
			generic_section(S, R->nfiles, f);
	}
	provenance_section(R, f);
	return f8b_rpt_close(&o, rc);
}

static void core_free(struct core *R)
{
	for (int s = 0; s < R->nsec; s++) {
		struct section *S = &R->sec[s];
		if (S->bench->report && S->state)
			S->bench->report->release(S->state);
		for (int i = 0; S->files && i < R->nfiles; i++)
			free(S->files[i].rows);
		free(S->files);
	}
	for (int i = 0; R->files && i < R->nfiles; i++)
		f8b_prov_free(&R->files[i].prov);
	free(R->files);
}

static int report(struct core *R, char **paths, int npaths, char *note, size_t nn, char *gnuplot,
                  size_t gn)
{
	F8B_TRY(read_inputs(R, paths, npaths));
	title_facts(R);
	F8B_TRY(f8b_rpt_make_dir(R->dir));
	for (int s = 0; s < R->nsec; s++) {
		struct section *S = &R->sec[s];
		const char *plots[F8B_REPORT_MAX_PLOTS + 1] = {NULL};
		size_t plotted = 0;
		if (!S->bench->report) {
			R->plotted += S->nrows;
			continue;
		}
		struct f8b_report_ctx ctx = {.dir = R->dir,
		                             .bench = S->bench,
		                             .files = S->files,
		                             .nfiles = R->nfiles,
		                             .ceilings_path = R->ceilings,
		                             .net_bw = R->net_bw,
		                             .net_lat_s = R->net_lat_s,
		                             .gpus_per_node = R->gpus_per_node,
		                             .gpu = R->gpu,
		                             .date = R->date};
		F8B_TRY(S->bench->report->prepare(&ctx, &S->state, plots, &plotted));
		R->plotted += plotted;
		for (int k = 0; plotted && k < F8B_REPORT_MAX_PLOTS && plots[k]; k++) {
			R->plots[R->nplots++] = plots[k];
			f8b_rpt_list_add(R->plot_list, sizeof R->plot_list, plots[k]);
		}
	}
	F8B_TRY(draw(R->dir, R->plots, R->nplots, note, nn, gnuplot, gn));
	return write_markdown(R, note, !note[0]);
}

int f8b_report_main(int argc, char **argv)
{
	struct report_cfg c = {.net_bw = 50e9, .net_lat_s = 5e-6, .gpus_per_node = 8};
	const struct f8b_option *tables[] = {report_options, NULL};
	char **pos = calloc((size_t)argc + 1, sizeof *pos);
	int npos = 0;
	if (!pos) {
		fprintf(stderr, "f8bench report: error: out of memory\n");
		return 2;
	}
	int rc = f8b_options_parse(argc, argv, tables, report_opt, &c, &pos, &npos);
	if (rc == F8B_OK && c.help) {
		f8b_cmd_help(stdout, &f8b_report_doc);
		free(pos);
		return 0;
	}
	if (rc == F8B_OK && npos < 1)
		rc = F8B_ERR(F8B_EINVAL, "report needs at least one results file (f8bench report "
		                         "FILE.h5... -o DIR; see --help)");
	if (rc == F8B_OK && !c.dir)
		rc = F8B_ERR(F8B_EINVAL, "report needs an output directory: -o DIR (see --help)");
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench report: error: %s\n", f8b_last_error());
		free(pos);
		return 2;
	}

	struct core R = {.dir = c.dir,
	                 .ceilings = c.ceilings,
	                 .net_bw = c.net_bw,
	                 .net_lat_s = c.net_lat_s,
	                 .gpus_per_node = c.gpus_per_node};
	char note[8192] = "", gnuplot[4096] = "";
	rc = report(&R, pos, npos, note, sizeof note, gnuplot, sizeof gnuplot);
	int exit_status = 0;
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench report: error: %s\n", f8b_last_error());
		exit_status = 2;
	} else if (note[0]) {
		fprintf(stderr, "f8bench report: %s\n", note);
		/* No rows to plot is not a failure of the tools; the rest is. */
		exit_status = R.plotted ? 1 : 0;
	} else {
		printf("f8bench report: wrote %s/report.md, %d plots (PNG and SVG: %s) and their "
		       "data (%zu rows plotted, gnuplot %s)\n",
		       R.dir, R.nplots, R.plot_list, R.plotted, gnuplot);
	}
	core_free(&R);
	free(pos);
	return exit_status;
}
