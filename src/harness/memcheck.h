/* memcheck.h - refuse a case that cannot fit in the backend's memory before
 * it allocates anything.  Without this, a case too large for host memory
 * allocates until the kernel's OOM killer ends the process, and nothing is
 * recorded.  What slips through (another process allocating meanwhile, a
 * driver without the hook) still meets the out-of-memory handling of the
 * backends: an F8B_ENOMEM error row. */
#ifndef F8B_MEMCHECK_H
#define F8B_MEMCHECK_H

#include "harness/bench.h"

/* A case may take at most this fraction of the free memory: the rest is
 * headroom for what case_bytes leaves out (allocator rounding, library
 * workspaces, the page cache the kernel is slow to give back). */
#define F8B_MEM_USABLE 0.9

/* "512 B", "1.5 KiB", "48.0 GiB". */
void f8b_format_bytes(double bytes, char *buf, size_t n);
/* F8B_OK when need <= F8B_MEM_USABLE * free_bytes; else F8B_EUNSUPPORTED
 * with "needs 48.0 GiB, 21.3 GiB free on WHERE (...)". */
int f8b_mem_fits(int64_t need, size_t free_bytes, const char *where);
/* The check for case i of b on run's backend: b->case_bytes against
 * run->ops->mem_info.  F8B_OK when either hook is absent or mem_info
 * fails (nothing known, nothing refused). */
int f8b_case_fits(const struct f8b_bench *b, const struct f8b_run *run, size_t i);

#endif
