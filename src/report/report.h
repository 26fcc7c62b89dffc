/* report.h - f8bench report: results files in, plots and a Markdown summary
 * out.  Reads finished HDF5 files only; it never measures and never
 * initialises MPI, so it runs on a laptop with the files copied back from
 * the GPU nodes (doc/report.md).
 *
 *   f8bench report FILE.h5... -o DIR [--ceilings CEILINGS.h5]
 *
 * writes into DIR: CSV and gnuplot data files, plot-vars.gp, report.md,
 * and, through gnuplot and the templates in roofline/, roofline, speedup
 * and sqnr plots as PNG and SVG. */
#ifndef F8B_REPORT_H
#define F8B_REPORT_H

/* The subcommand's main: argv[0] is "report".  Prints its own errors.
 * Exit status: 0 everything written; 1 data and report.md written but no
 * plots (gnuplot not found, or gnuplot failed: see DIR/gnuplot.log);
 * 2 bad arguments or unreadable input, nothing useful written. */
int f8b_report_main(int argc, char **argv);

#endif
