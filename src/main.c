/* main.c - the f8bench command: dispatches subcommands; the only place
 * that prints errors and decides the exit status. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/bench.h"
#include "report/compare.h"
#include "report/merge.h"
#include "core/options.h"
#include "harness/provenance.h"
#include "core/recipe.h"
#include "man.h"
#include "report/report.h"
#include "results/results.h"

static const struct f8b_cmd_doc export_doc, recipe_doc;
/* The tools, in f8bench --help's order; the man page takes them from here. */
static const struct f8b_cmd_doc *const tools[] = {
    &f8b_report_doc, &f8b_compare_doc, &f8b_merge_doc, &export_doc, &recipe_doc, NULL,
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: f8bench COMMAND [options]      (f8bench COMMAND --help for its options)\n\n"
	        "Benchmarks (MPI programs: run under mpiexec/srun to spread cases over GPUs):\n");
	for (int i = 0; f8b_benches[i]; i++) {
		const char *s = f8b_benches[i]->summary;
		fprintf(f, "  %-10s %.*s\n", f8b_benches[i]->name, (int)strcspn(s, "\n"), s);
	}
	fprintf(f, "\nTools (no MPI, no GPU):\n");
	for (int i = 0; tools[i]; i++)
		fprintf(f, "  %-10s %s\n", tools[i]->name, tools[i]->summary);
	fprintf(f, "\n"
	           "  --help     this text\n"
	           "  --version  version and git description\n");
}

/* ---------------------------------------------------------------- export */
enum { EXP_CSV = 1, EXP_TABLE, EXP_OUTPUT, EXP_PROV, EXP_HELP };
static const struct f8b_option export_options[] = {
    {"csv", EXP_CSV, 0, NULL, "CSV output of the tables (the default)"},
    {"provenance", EXP_PROV, 0, NULL,
     "instead, the provenance of the run that created the file,\none 'key: value' per line"},
    {"table", EXP_TABLE, 0, "NAME", "only this table (default: every table)"},
    {"output", EXP_OUTPUT, 'o', "FILE", "write to FILE (default: standard output)"},
    {"help", EXP_HELP, 0, NULL, "this text"},
    {0},
};
struct export_cfg {
	const char *table, *output;
	bool help, provenance;
};
static void export_usage(FILE *f)
{
	fprintf(f, "usage: f8bench export FILE.h5 [--csv] [--table NAME] [-o OUT.csv]\n"
	           "       f8bench export FILE.h5 --provenance\n\n"
	           "Writes the results tables of FILE.h5 as CSV (header line, one line per row),\n"
	           "for pandas, spreadsheets and scripts; or the file's provenance.\n\n");
}
static const struct f8b_cmd_doc export_doc = {
    .name = "export",
    .summary = "write a results file's tables as CSV, or its provenance",
    .usage = export_usage,
    .options = export_options,
};

static int export_opt(void *ctx, int table, int key, const char *arg)
{
	struct export_cfg *c = ctx;
	if (table == -1 || key == EXP_HELP)
		c->help = true;
	else if (key == EXP_TABLE)
		c->table = arg;
	else if (key == EXP_OUTPUT)
		c->output = arg;
	else if (key == EXP_PROV)
		c->provenance = true;
	return F8B_OK;
}

static int cmd_export(int argc, char **argv)
{
	struct export_cfg c = {0};
	char **pos = calloc((size_t)argc + 1, sizeof *pos);
	int npos = 0, rc;
	const struct f8b_option *tables[] = {export_options, NULL};
	if (!pos)
		return 1;
	rc = f8b_options_parse(argc, argv, tables, export_opt, &c, &pos, &npos);
	if (rc == F8B_OK && c.help) {
		f8b_cmd_help(stdout, &export_doc);
		free(pos);
		return 0;
	}
	if (rc == F8B_OK && npos != 1)
		rc = F8B_ERR(F8B_EINVAL,
		             "export takes one results file (got %d); see f8bench export --help",
		             npos);
	FILE *out = stdout;
	char tmp[4096] = "";
	if (rc == F8B_OK && c.output) {
		/* Written beside the target and renamed: no half-written CSV. */
		snprintf(tmp, sizeof tmp, "%s.tmp.%ld", c.output, (long)getpid());
		if (!(out = fopen(tmp, "w")))
			rc = F8B_ERR(F8B_EIO, "cannot write '%s': %s", c.output, "not writable");
	}
	if (rc == F8B_OK && c.provenance) {
		struct f8b_provenance p = {0};
		rc = f8b_results_read_provenance(pos[0], &p);
		for (size_t i = 0; rc == F8B_OK && i < p.n; i++)
			fprintf(out, "%s: %s\n", p.kv[i].key, p.kv[i].value);
		f8b_prov_free(&p);
	} else if (rc == F8B_OK) {
		rc = f8b_results_export_csv(pos[0], c.table, out);
	}
	if (out && out != stdout) {
		if (fclose(out) != 0 && rc == F8B_OK)
			rc = F8B_ERR(F8B_EIO, "writing '%s' failed", c.output);
		if (rc == F8B_OK && rename(tmp, c.output) != 0)
			rc = F8B_ERR(F8B_EIO, "cannot rename '%s' to '%s'", tmp, c.output);
		if (rc != F8B_OK)
			unlink(tmp);
	}
	free(pos);
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench export: error: %s\n", f8b_last_error());
		return rc == F8B_EINVAL || rc == F8B_EIO ? 2 : 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- recipe */
static void recipe_usage(FILE *f)
{
	fprintf(f, "usage: f8bench recipe NAME[,FIELD=VALUE...]\n\n"
	           "Prints the nine-field long form of a recipe.  Names:");
	for (const char *const *n = f8b_recipe_names(); *n; n++)
		fprintf(f, " %s", *n);
	fprintf(f, "\nFields: input, weight, grad_output, input_for_grad_weight,\n"
	           "weight_for_grad_input, grad_output_for_grad_weight (GRAN[:DTYPE[:TYPE]] or\n"
	           "disabled), output, grad_input, grad_weight (fast_accum|no_fast_accum), "
	           "pow2=on|off.\n");
}
static const struct f8b_cmd_doc recipe_doc = {
    .name = "recipe",
    .summary = "show the nine-field long form of a recipe",
    .usage = recipe_usage,
};

static int cmd_recipe(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--list")) {
		f8b_cmd_help(argc < 2 ? stderr : stdout, &recipe_doc);
		return argc < 2 ? 2 : 0;
	}
	if (argc > 2) {
		fprintf(stderr, "f8bench recipe: error: unexpected argument '%s'\n", argv[2]);
		return 2;
	}
	struct f8b_recipe r;
	char buf[4096];
	int rc = f8b_recipe_parse(argv[1], &r);
	if (rc == F8B_OK)
		rc = f8b_recipe_validate(&r);
	if (rc != F8B_OK) {
		fprintf(stderr, "f8bench recipe: error: %s\n", f8b_last_error());
		return 2;
	}
	f8b_recipe_format(&r, buf, sizeof buf);
	fputs(buf, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("%s\n", f8b_version_string());
		return 0;
	}
	for (int i = 0; f8b_benches[i]; i++)
		if (!strcmp(cmd, f8b_benches[i]->name))
			return f8b_run_bench(f8b_benches[i], argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "recipe"))
		return cmd_recipe(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return f8b_report_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return f8b_compare_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return f8b_merge_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "man")) { /* the build writes f8bench.1 with it; not listed */
		f8b_man_write(stdout, tools);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	fprintf(stderr, "f8bench: error: unknown command '%s' (accepted:", cmd);
	for (int i = 0; f8b_benches[i]; i++)
		fprintf(stderr, " %s,", f8b_benches[i]->name);
	for (int i = 0; tools[i]; i++)
		fprintf(stderr, " %s%s", tools[i]->name, tools[i + 1] ? "," : "");
	fprintf(stderr, "; see f8bench --help)\n");
	return 2;
}
