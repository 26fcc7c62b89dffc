/* ag_report.h - what the allgather report's files share (ag_report.c:
 * data files, the projection; ag_report_md.c: CSV and report.md). */
#ifndef F8B_AG_REPORT_H
#define F8B_AG_REPORT_H

#include "bench/allgather/ag_int.h"
#include "model/project.h"
#include "report/report.h"

#define ARPT_NR 8 /* projected rank counts: 8 .. 1024 */
extern const int f8b_arpt_ranks[ARPT_NR];

/* The projection of one row. */
struct arpt_proj {
	bool ok;
	double at_measured;                         /* predicted step at the row's own ranks */
	double step[ARPT_NR], exposed_pct[ARPT_NR]; /* ring collectives: the upper bound */
	double step_lo[ARPT_NR];                    /* log-latency collectives: the lower bound */
	/* The check across rank counts: this row's step predicted from the
	 * same case measured on fewer ranks (from_ranks; 0: none), with the
	 * node's measured collectives. */
	int from_ranks;
	double cross;
};

struct arpt {
	struct f8b_report_ctx ctx;
	const struct f8b_allgather_row **rows; /* every file's, sorted */
	size_t n;
	struct arpt_proj *proj; /* [n] */
	struct f8b_proj_link intra;
	struct f8b_proj_net net;
	char intra_src[320];
	struct f8b_ceilings_row *nccl; /* a ceilings file's all-gather rows */
	size_t nnccl;
	bool has_key_tokens; /* rows at 2048 or 8192 tokens: the projection plots those */
	int nspeed, nbus, nproj;
};

bool f8b_arpt_same_setting(const struct f8b_allgather_row *a, const struct f8b_allgather_row *b);
/* "registered, default CTAs, in place": how a row's collectives ran
 * (older files: plain, default, out of place). */
void f8b_arpt_variant(const struct f8b_allgather_row *r, char *buf, size_t n);
/* Where the ok bf16 row of r's case is in A->rows, or A->n. */
size_t f8b_arpt_bf16_of(const struct arpt *A, const struct f8b_allgather_row *r);
/* The projection's step of a measured row (doc/allgather.md "Projection"). */
void f8b_arpt_step_of(const struct f8b_allgather_row *r, struct f8b_proj_step *st);
int f8b_arpt_write_csv(struct arpt *A);
int f8b_arpt_markdown(void *state, FILE *md, bool drawn);

#endif
