/* man.h - the man page, f8bench.1 (`f8bench man`, run by the build). */
#ifndef F8B_MAN_H
#define F8B_MAN_H

#include <stdio.h>

#include "core/options.h"
#include "harness/bench.h"

/* Writes the page: every benchmark of f8b_benches[] and every tool of
 * tools (NULL-terminated), each from the text and tables of its --help. */
void f8b_man_write(FILE *f, const struct f8b_cmd_doc *const *tools);

#endif
