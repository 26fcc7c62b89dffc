/* test_ag_text.c - what the allgather benchmark prints for a person:
 * an exposed share below zero is noise and is said to be, never printed
 * as a negative share of the step (src/bench/allgather/ag_cfg.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/allgather/ag_int.h"
#include "tap.h"

int main(void)
{
	struct f8b_allgather_row r = {0};
	char buf[256];
	r.time_median_s = 0.0255;
	r.time_noise = 0.021;
	r.speedup_vs_bf16 = 1.3;
	r.ag_busbw_gbps = 300;

	r.exposed_pct = 12.34;
	f8b_ag_exposed_str(&r, buf, sizeof buf);
	tap_ok(!strcmp(buf, "12.3%"), "a positive share prints as a share (%s)", buf);

	r.exposed_pct = -8.3;
	f8b_ag_exposed_str(&r, buf, sizeof buf);
	tap_ok(strstr(buf, "none") && strstr(buf, "noise") && strstr(buf, "2.1%"),
	       "a negative share says none, noise, with the step's noise figure (%s)", buf);
	f8b_ag_summarize(&r, buf, sizeof buf);
	tap_ok(!strstr(buf, "exposed comm -"), "the progress line shows no negative share (%s)",
	       buf);

	r.exposed_pct = NAN;
	f8b_ag_exposed_str(&r, buf, sizeof buf);
	tap_ok(!strstr(buf, "none"), "not measured is not 'none' (%s)", buf);
	return tap_done();
}
