/* man.c - f8bench.1, the man page, written by `f8bench man` at build time
 * (Makefile.am) from the same usage texts and option tables that each
 * command's --help prints, so the page and --help cannot drift apart.
 * tests/man_page.sh renders it with warnings as errors and checks that
 * every option --help prints is in the command's section. */
#include "man.h"

#include <string.h>

#include "harness/provenance.h"
#include "harness/run_options.h"

static void command_list(FILE *f, const struct f8b_cmd_doc *const *tools)
{
	fprintf(f, ".PP\nBenchmarks (MPI programs: run under \\fBmpiexec\\fR or \\fBsrun\\fR to "
	           "spread their cases over GPUs, one GPU per rank):\n");
	for (int i = 0; f8b_benches[i]; i++) {
		const char *s = f8b_benches[i]->summary;
		char line[256];
		snprintf(line, sizeof line, "%.*s", (int)strcspn(s, "\n"), s);
		fprintf(f, ".TP\n.B %s\n", f8b_benches[i]->name);
		f8b_roff_text(f, line, true);
	}
	fprintf(f, ".PP\nTools (no MPI, no GPU):\n");
	for (int i = 0; tools[i]; i++) {
		fprintf(f, ".TP\n.B %s\n", tools[i]->name);
		f8b_roff_text(f, tools[i]->summary, true);
	}
}

void f8b_man_write(FILE *f, const struct f8b_cmd_doc *const *tools)
{
	char version[128];
	snprintf(version, sizeof version, "%s", f8b_version_string());
	fprintf(f, ".\\\" f8bench.1 - written by `f8bench man` from the usage texts and option\n"
	           ".\\\" tables that --help prints (src/man.c); do not edit.\n");
	fprintf(f, ".TH F8BENCH 1 \"\" \"");
	f8b_roff_text(f, version, false);
	fprintf(f, "\" \"f8bench manual\"\n");
	fprintf(f, ".nh\n.ad l\n");
	fprintf(f, ".SH NAME\nf8bench \\- benchmarks and roofline of the fp8 kernels of training "
	           "on NVIDIA GPUs\n");
	fprintf(f, ".SH SYNOPSIS\n.B f8bench\n.I COMMAND\n.RI [ options ]\n.br\n"
	           ".B mpiexec \\-n\n.I N\n.B f8bench\n.I BENCHMARK\n.RI [ options ]\n.br\n"
	           ".B f8bench \\-\\-help\n.br\n.B f8bench \\-\\-version\n");
	fprintf(f, ".SH DESCRIPTION\n"
	           "f8bench times fp8 GEMMs, the LayerNorm \\(-> Linear \\(-> Sigmoid training "
	           "step and an FSDP\\-style weight all\\-gather in every fp8 scaling recipe, "
	           "each beside its bf16 counterpart, checks every result before it times it, "
	           "and writes HDF5 files with their provenance; it measures the machine's "
	           "ceilings and places every row on the roofline.  Its tools plot and compare "
	           "those files.  Without a GPU it runs on the host backend, the portable C "
	           "reference.\n");
	command_list(f, tools);
	fprintf(f, ".PP\n\\fBf8bench\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR prints what the "
	           "sections below say of each command.\n");
	fprintf(f, ".SH BENCHMARKS\n");
	for (int i = 0; f8b_benches[i]; i++)
		f8b_run_man(f, f8b_benches[i]);
	f8b_run_man(f, NULL);
	fprintf(f, ".SH TOOLS\n");
	for (int i = 0; tools[i]; i++)
		f8b_cmd_man(f, tools[i]);
	fprintf(f, ".SH FILES\n"
	           ".TP\n.I inputs/shapes/*.txt\nthe shape sets \\fB\\-\\-shapes\\fR names "
	           "(installed under the package's data directory, or \\fB$F8B_INPUTS\\fR)\n"
	           ".TP\n.I roofline/\nthe gnuplot templates of \\fBf8bench report\\fR and the "
	           "datasheet peaks (\\fB$F8B_ROOFLINE\\fR)\n");
	fprintf(f, ".SH SEE ALSO\n"
	           "\\fBmpiexec\\fR(1), \\fBh5dump\\fR(1), \\fBgnuplot\\fR(1); the README and "
	           "doc/ of the source tree: doc/architecture.md, doc/formulas.md, "
	           "doc/results.md, doc/compare.md, doc/ci.md.\n");
}
