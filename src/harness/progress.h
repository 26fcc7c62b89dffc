/* progress.h - case i/N, elapsed, ETA: a live line on a terminal, one plain
 * line per case otherwise (logs, sbatch output).  Rank 0 only. */
#ifndef F8B_PROGRESS_H
#define F8B_PROGRESS_H

#include <stdio.h>

#include "core/common.h"

struct f8b_progress {
	FILE *f;
	size_t total, done;
	double t0;
	bool tty, quiet, open_line;
};

void f8b_progress_init(struct f8b_progress *p, FILE *f, size_t total, bool quiet);
/* One finished case: `what` describes it, `result` its outcome. */
void f8b_progress_step(struct f8b_progress *p, const char *what, const char *result);
/* A message that must not be overwritten by the live line. */
void f8b_progress_note(struct f8b_progress *p, const char *msg);
void f8b_progress_end(struct f8b_progress *p);
/* "1:02:03" / "2:03" into buf. */
void f8b_format_duration(double s, char *buf, size_t n);

#endif
