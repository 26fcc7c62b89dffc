/* run_case.c - one case, or one --interleave group of cases, from the
 * memory check to its row's status (runner.c runs them in rounds): the
 * memory check, setup, one checked launch, the measurement if the check
 * passed, the derived columns and detail rows, teardown. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run_case.h"

#include <stdio.h>
#include <string.h>

#include "harness/comm.h"
#include "harness/memcheck.h"
#include "results/schema.h"

/* Collective cases: every rank must reach the same verdict at each step, or
 * the ranks that went on would wait forever in the next collective. */
static int agree(const struct f8b_bench *b, int rc)
{
	if (!b->collective)
		return rc;
	int worst = rc;
	if (f8b_comm_max_int(&worst) != F8B_OK)
		return F8B_EMPI;
	if (worst != F8B_OK && rc == F8B_OK)
		return F8B_ERR(worst, "another rank failed this case (%s)", f8b_status_name(worst));
	return rc;
}

static void set_str(void *row, size_t off, size_t size, const char *s)
{
	char *p = (char *)row + off;
	memset(p, 0, size);
	snprintf(p, size, "%s", s);
}

/* Sets string column `col` of row, when the table has one by that name. */
static void set_column(const struct f8b_table_schema *s, void *row, const char *col, const char *v)
{
	for (size_t f = 0; f < s->nfields; f++)
		if (s->fields[f].type == F8B_FT_STR && !strcmp(s->fields[f].name, col))
			set_str(row, s->fields[f].offset, s->fields[f].size, v);
}

/* The columns that say which case a row is (its key and run id), set
 * before anything runs, so that a row says it even when nothing did. */
static void case_key(const struct f8b_bench *b, const struct f8b_run *run, size_t i, void *row)
{
	b->case_key(run->cfg, i, row);
	*(int32_t *)((char *)row + b->off_run_id) = run->run_id;
}

/* A case up to its measurement: the memory check, setup, one checked
 * launch.  *ok: the check passed; *state: the driver's, to tear down. */
static int case_prepare(const struct f8b_bench *b, struct f8b_run *run, size_t i, void *row,
                        void **state, bool *ok)
{
	*state = NULL;
	*ok = false;
	case_key(b, run, i, row);
	f8b_clear_error();
	/* A case that cannot fit is refused before it allocates anything. */
	int rc = f8b_case_fits(b, run, i);
	if (rc == F8B_OK) {
		rc = b->setup(run, i, row, state);
	} else {
		/* setup, which fills these, does not run: say where anyway */
		set_column(b->schema, row, "backend", run->ops->name);
		set_column(b->schema, row, "gpu", run->dev.name);
	}
	rc = agree(b, rc);
	if (rc == F8B_OK)
		rc = b->launch(*state);
	if (rc == F8B_OK)
		rc = run->ops->sync(run->be);
	if (rc == F8B_OK)
		rc = b->check(*state, row, ok);
	rc = agree(b, rc);
	if (b->collective && rc == F8B_OK) {
		int wrong = !*ok; /* wrong on any rank is wrong */
		rc = f8b_comm_max_int(&wrong) == F8B_OK ? F8B_OK : F8B_EMPI;
		*ok = !wrong;
	}
	return rc;
}

/* After a measurement m: the derived columns and the detail rows. */
static int case_finish(const struct f8b_bench *b, void *state, const struct f8b_measure_result *m,
                       void *row, void *detail, uint32_t *ndetail)
{
	int rc = b->finish(state, m, row);
	if (rc == F8B_OK && b->detail && detail) {
		size_t nd = b->detail(state, row, detail);
		*ndetail = (uint32_t)(nd < b->detail_max ? nd : b->detail_max);
	}
	return rc;
}

/* Teardown and the row's status: ok or wrong, else unsupported or error
 * with the message (msg: the error's text, when it was kept earlier; NULL:
 * f8b_last_error()).  Returns a status only for failures that end the
 * sweep (device lost). */
static int case_close(const struct f8b_bench *b, void *row, void *state, int rc, bool ok,
                      const char *msg)
{
	const size_t ss = F8B_STR, ms = F8B_MSG; /* every table's status/message */
	if (state)
		b->teardown(state);
	if (rc == F8B_OK) {
		set_str(row, b->off_status, ss, ok ? F8B_ROW_OK : F8B_ROW_WRONG);
		return F8B_OK;
	}
	set_str(row, b->off_status, ss,
	        rc == F8B_EUNSUPPORTED ? F8B_ROW_UNSUPPORTED : F8B_ROW_ERROR);
	set_str(row, b->off_message, ms, msg ? msg : f8b_last_error());
	/* A device error can leave the context unusable: stop the sweep. */
	return rc == F8B_EDEVICE ? rc : F8B_OK;
}

/* One case: prepared, measured if it was right, closed. */
int f8b_run_case(const struct f8b_bench *b, struct f8b_run *run, size_t i, void *row, void *detail,
                 uint32_t *ndetail)
{
	void *state;
	bool ok;
	int rc = case_prepare(b, run, i, row, &state, &ok);
	if (rc == F8B_OK && ok) {
		struct f8b_measure_result m;
		struct f8b_measure_opts mo = run->mopts;
		if (b->tune)
			b->tune(state, &mo);
		rc = f8b_measure(run->ops, run->be, b->launch, state, &mo, &m, NULL);
		if (rc == F8B_OK)
			rc = case_finish(b, state, &m, row, detail, ndetail);
	}
	return case_close(b, row, state, rc, ok, NULL);
}

/* A group of cases (--interleave, independent benchmarks): each prepared
 * in turn, all set up at once; those that were right measured together,
 * their samples in turn (f8b_measure_group); then each finished and
 * closed.  rows[g], detail[g], ndetail[g]: case cases[g]'s.  A case that
 * fails keeps its own status and message; the others go on. */
int f8b_run_group(const struct f8b_bench *b, struct f8b_run *run, const size_t *cases, size_t n,
                  void *const *rows, void *const *detail, uint32_t **ndetail)
{
	void *state[F8B_GROUP_MAX] = {0}, *ctx[F8B_GROUP_MAX];
	bool ok[F8B_GROUP_MAX] = {0};
	int rc[F8B_GROUP_MAX];
	char msg[F8B_GROUP_MAX][F8B_MSG];
	size_t idx[F8B_GROUP_MAX], nm = 0;
	f8b_launch_fn fn[F8B_GROUP_MAX];
	struct f8b_measure_opts mo[F8B_GROUP_MAX];
	struct f8b_measure_result m[F8B_GROUP_MAX];
	bool lost = false; /* a device error: the rest of the group is not run */
	for (size_t g = 0; g < n; g++) {
		if (lost) {
			case_key(b, run, cases[g], rows[g]);
			rc[g] = F8B_EDEVICE;
			snprintf(msg[g], sizeof msg[g],
			         "not run: a case before it in its group "
			         "failed on the device");
			continue;
		}
		rc[g] = case_prepare(b, run, cases[g], rows[g], &state[g], &ok[g]);
		snprintf(msg[g], sizeof msg[g], "%s", rc[g] ? f8b_last_error() : "");
		lost = rc[g] == F8B_EDEVICE;
		if (rc[g] == F8B_OK && ok[g]) {
			idx[nm] = g;
			fn[nm] = b->launch;
			ctx[nm] = state[g];
			mo[nm] = run->mopts;
			if (b->tune)
				b->tune(state[g], &mo[nm]);
			nm++;
		}
	}
	if (lost) {
		/* its members set up before the loss are not measured either,
		 * and say so rather than pass as ok untimed */
		for (size_t j = 0; j < nm; j++) {
			rc[idx[j]] = F8B_EDEVICE;
			snprintf(msg[idx[j]], sizeof msg[idx[j]],
			         "not measured: a case after it in its group failed on the device");
		}
	} else if (nm > 0) {
		int mrc = f8b_measure_group(run->ops, run->be, (int)nm, fn, ctx, mo, m);
		for (size_t j = 0; j < nm; j++) {
			const size_t g = idx[j];
			rc[g] = mrc != F8B_OK ? mrc
			                      : case_finish(b, state[g], &m[j], rows[g], detail[g],
			                                    ndetail[g]);
			snprintf(msg[g], sizeof msg[g], "%s", rc[g] ? f8b_last_error() : "");
		}
	}
	int fatal = F8B_OK;
	for (size_t g = 0; g < n; g++) {
		int r = case_close(b, rows[g], state[g], rc[g], ok[g], msg[g]);
		fatal = fatal != F8B_OK ? fatal : r;
	}
	return fatal;
}
