/* progress.c - progress lines for long sweeps. */
#define _POSIX_C_SOURCE 200809L
#include "harness/progress.h"

#include <math.h>
#include <unistd.h>

void f8b_format_duration(double s, char *buf, size_t n)
{
	if (!(s >= 0) || s > 1e7) {
		snprintf(buf, n, "?");
		return;
	}
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

void f8b_progress_init(struct f8b_progress *p, FILE *f, size_t total, bool quiet)
{
	p->f = f;
	p->total = total;
	p->done = 0;
	p->t0 = f8b_now();
	p->tty = isatty(fileno(f));
	p->quiet = quiet;
	p->open_line = false;
}

void f8b_progress_step(struct f8b_progress *p, const char *what, const char *result)
{
	p->done++;
	if (p->quiet)
		return;
	double el = f8b_now() - p->t0;
	/* ETA from the mean time per case so far: cases differ in size, so it
	 * is rough early on and settles as the sweep goes. */
	double eta = p->done ? el / (double)p->done * (double)(p->total - p->done) : NAN;
	char e[16], r[16];
	f8b_format_duration(el, e, sizeof e);
	f8b_format_duration(eta, r, sizeof r);
	int w = snprintf(NULL, 0, "%zu", p->total);
	if (p->tty) {
		fprintf(p->f, "\r\033[K[%*zu/%zu] %3.0f%% elapsed %s ETA %s | %s: %s", w, p->done,
		        p->total, 100.0 * (double)p->done / (double)p->total, e, r, what, result);
		p->open_line = true;
	} else {
		fprintf(p->f, "[%*zu/%zu] elapsed %s ETA %s | %s: %s\n", w, p->done, p->total, e, r,
		        what, result);
	}
	fflush(p->f);
}

void f8b_progress_note(struct f8b_progress *p, const char *msg)
{
	if (p->open_line) {
		fprintf(p->f, "\r\033[K");
		p->open_line = false;
	}
	fprintf(p->f, "%s\n", msg);
	fflush(p->f);
}

void f8b_progress_end(struct f8b_progress *p)
{
	if (p->open_line)
		fprintf(p->f, "\n");
	p->open_line = false;
	fflush(p->f);
}
