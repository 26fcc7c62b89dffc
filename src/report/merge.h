/* merge.h - `f8bench merge OUT IN...`: joins the result files of one
 * benchmark (the shards of a sweep, say) into one new file.
 *
 * Knows benchmarks only through their descriptors (f8b_benches[]): the
 * table an input holds names its benchmark, the descriptor's schema is the
 * column set every input must have, and its same_case finds duplicates.
 * Refused, with one line and nothing written: an input of another
 * benchmark or schema, inputs run on different GPU models (unless
 * --allow-mixed), a case in more than one row (unless --keep-last, which
 * keeps the last row in the order of the arguments), an existing OUT.
 * Each input's /runs/<id> groups are copied under new run ids and the rows'
 * run_id follows them; /runs/0 and the root attributes are the first
 * input's provenance plus "merged_from".  Details: doc/slurm.md.
 */
#ifndef F8B_MERGE_H
#define F8B_MERGE_H

#include "core/common.h"
#include "core/options.h"

/* argv[0] = "merge".  Returns the exit status: 0 merged, 2 bad input or a
 * refusal, 1 an I/O failure while writing. */
int f8b_merge_main(int argc, char **argv);
/* Its --help and man page section (core/options.h). */
extern const struct f8b_cmd_doc f8b_merge_doc;

#endif
