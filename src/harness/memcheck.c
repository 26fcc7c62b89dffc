/* memcheck.c - a case's memory need against what the backend has free. */
#include "harness/memcheck.h"

#include <stdio.h>

void f8b_format_bytes(double bytes, char *buf, size_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	size_t u = 0;
	while (bytes >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

int f8b_mem_fits(int64_t need, size_t free_bytes, const char *where)
{
	if ((double)need <= F8B_MEM_USABLE * (double)free_bytes)
		return F8B_OK;
	char nb[32], fb[32];
	f8b_format_bytes((double)need, nb, sizeof nb);
	f8b_format_bytes((double)free_bytes, fb, sizeof fb);
	/* Short enough for the 96-byte message column. */
	return F8B_ERR(F8B_EUNSUPPORTED, "needs %s, %s free on %s (a case may use %.0f%%)", nb, fb,
	               where, 100 * F8B_MEM_USABLE);
}

int f8b_case_fits(const struct f8b_bench *b, const struct f8b_run *run, size_t i)
{
	size_t free_bytes, total_bytes;
	if (!b->case_bytes || !run->ops->mem_info)
		return F8B_OK;
	int64_t need = b->case_bytes(run->cfg, i);
	if (need <= 0 || run->ops->mem_info(run->be, &free_bytes, &total_bytes) != F8B_OK) {
		f8b_clear_error();
		return F8B_OK;
	}
	char where[48];
	if (run->dev.device < 0)
		snprintf(where, sizeof where, "host");
	else
		snprintf(where, sizeof where, "GPU %d", run->dev.device);
	return f8b_mem_fits(need, free_bytes, where);
}
