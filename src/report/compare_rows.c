/* compare_rows.c - the rows compare reads: the columns a benchmark's
 * descriptor names, located in its schema; one row per case from each
 * side (the newest, or a given run's); the GPU model each side ran on. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "report/compare_int.h"
#include "results/h5prov.h"
#include "results/results.h"

/* ---------------------------------------------------------------- columns */

static const struct f8b_field *field_named(const struct f8b_table_schema *s, const char *name)
{
	for (size_t i = 0; name && i < s->nfields; i++)
		if (!strcmp(s->fields[i].name, name))
			return &s->fields[i];
	return NULL;
}

/* The offsets of the columns compare reads, from the descriptor's names. */
int f8b_cmp_find_cols(const struct f8b_bench *b, struct cmp_cols *c)
{
	const struct f8b_table_schema *s = b->schema;
	const struct f8b_field *st = field_named(s, "status"), *msg = field_named(s, "message");
	const struct f8b_field *run = field_named(s, "run_id"), *gpu = field_named(s, "gpu");
	const struct f8b_field *t = field_named(s, b->time_column);
	const struct f8b_field *no = field_named(s, b->noise_column);
	const struct f8b_field *th = field_named(s, b->throttled_column);

	if (!st || !msg || !run || !gpu || !t || !no || t->type != F8B_FT_F64 ||
	    no->type != F8B_FT_F64 || (th && th->type != F8B_FT_I32))
		return F8B_ERR(
		    F8B_EINTERNAL,
		    "benchmark '%s' names no usable status/message/run_id/gpu/time/noise "
		    "columns for compare",
		    b->name);
	*c = (struct cmp_cols){.status = st->offset,
	                       .status_n = st->size,
	                       .message = msg->offset,
	                       .message_n = msg->size,
	                       .run_id = run->offset,
	                       .gpu = gpu->offset,
	                       .gpu_n = gpu->size,
	                       .time = t->offset,
	                       .noise = no->offset,
	                       .throttled = th ? (long)th->offset : -1};
	for (const struct f8b_gate_column *g = b->accuracy; g && g->name; g++) {
		const struct f8b_field *f = field_named(s, g->name);
		if (!f || f->type != F8B_FT_F64 || c->nacc == CMP_MAX_ACC)
			return F8B_ERR(F8B_EINTERNAL,
			               "benchmark '%s': accuracy column '%s' unusable", b->name,
			               g->name);
		c->acc[c->nacc] = f->offset;
		c->acc_name[c->nacc] = g->name;
		c->acc_better[c->nacc++] = g->better;
	}
	return F8B_OK;
}

bool f8b_cmp_status_is(const struct cmp_cols *c, const unsigned char *row, const char *s)
{
	return strncmp(cmp_str(row, c->status), s, c->status_n) == 0 && strlen(s) < c->status_n;
}

/* ---------------------------------------------------------------- one side */

/* Picks one row per case: the newest (a later run, or later in the file
 * within a run) among the rows of the wanted run(s).  Quadratic in the
 * number of cases, which is fine for sweeps of thousands. */
static int pick_rows(const struct f8b_bench *b, const struct cmp_cols *c, struct cmp_side *s)
{
	const size_t rs = b->schema->row_size;
	s->pick = malloc((s->nrows ? s->nrows : 1) * sizeof *s->pick);
	if (!s->pick)
		return F8B_ERR(F8B_ENOMEM, "%zu rows of '%s'", s->nrows, s->path);
	for (size_t i = 0; i < s->nrows; i++) {
		const unsigned char *r = s->rows + i * rs;
		size_t j;
		if (s->want_run != ANY_RUN && cmp_i32(r, c->run_id) != s->want_run)
			continue;
		for (j = 0; j < s->npick; j++)
			if (b->same_case(s->rows + s->pick[j] * rs, r))
				break;
		if (j == s->npick)
			s->pick[s->npick++] = i;
		else if (cmp_i32(r, c->run_id) >= cmp_i32(s->rows + s->pick[j] * rs, c->run_id))
			s->pick[j] = i;
	}
	if (s->npick > 0)
		return F8B_OK;
	if (s->nrows == 0)
		return F8B_ERR(F8B_EINVAL, "%s '%s': its %s table has no rows", s->label, s->path,
		               b->schema->name);

	/* The run asked for is not there: list those that are, ascending. */
	char list[256] = "";
	size_t len = 0;
	for (int last = -1; len + 16 < sizeof list;) {
		int next = -1;
		for (size_t i = 0; i < s->nrows; i++) {
			int id = cmp_i32(s->rows + i * rs, c->run_id);
			if (id > last && (next < 0 || id < next))
				next = id;
		}
		if (next < 0)
			break;
		len +=
		    (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? ", " : "", next);
		last = next;
	}
	return F8B_ERR(F8B_EINVAL, "%s '%s' has no %s rows of run %d (its runs: %s)", s->label,
	               s->path, b->schema->name, s->want_run, list);
}

/* The GPU model of run `run`: its /runs/N provenance (device_name and
 * device_pci_id), else the root's (the creating run), else the gpu column
 * of one of its rows.  "NVIDIA H100 80GB HBM3 (pci 0x2330)". */
static void run_gpu(hid_t f, int run, const char *row_gpu, size_t row_gpu_n, char *out, size_t n)
{
	char obj[32];

	out[0] = '\0';
	snprintf(obj, sizeof obj, "/runs/%d", run);
	if (f >= 0)
		f8b_h5_gpu_model(f, obj, out, n);
	if (!out[0] && f >= 0)
		f8b_h5_gpu_model(f, "/", out, n);
	if (!out[0])
		snprintf(out, n, "%.*s", (int)row_gpu_n, row_gpu);
}

/* The GPU of every run that supplied a picked row; a side whose runs ran
 * on different models is refused (its timings are not one baseline). */
static int side_gpu(const struct f8b_bench *b, const struct cmp_cols *c, struct cmp_side *s,
                    bool force)
{
	const size_t rs = b->schema->row_size;
	int seen[16], nseen = 0, first = -1;
	size_t len = 0;
	int rc = F8B_OK;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t f = H5Fopen(s->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	s->gpu[0] = '\0';
	s->measure[0] = '\0';
	s->runs[0] = '\0';
	for (size_t j = 0; j < s->npick && rc == F8B_OK; j++) {
		const unsigned char *r = s->rows + s->pick[j] * rs;
		int id = cmp_i32(r, c->run_id);
		bool known = false;
		for (int k = 0; k < nseen; k++)
			known |= seen[k] == id;
		if (known)
			continue;
		if (nseen < (int)(sizeof seen / sizeof *seen))
			seen[nseen++] = id;
		if (len + 24 < sizeof s->runs)
			len += (size_t)snprintf(s->runs + len, sizeof s->runs - len, "%s%d",
			                        len ? ", " : "", id);
		if (!s->measure[0] && f >= 0) { /* how its first run was timed */
			char obj[32];
			snprintf(obj, sizeof obj, "/runs/%d", id);
			f8b_h5_attr_text(f, obj, "measure", s->measure, sizeof s->measure);
			if (!s->measure[0])
				f8b_h5_attr_text(f, "/", "measure", s->measure, sizeof s->measure);
		}
		char gpu[CMP_GPU_LEN];
		run_gpu(f, id, cmp_str(r, c->gpu), c->gpu_n, gpu, sizeof gpu);
		if (!s->gpu[0]) {
			snprintf(s->gpu, sizeof s->gpu, "%s", gpu);
			first = id;
		} else if (gpu[0] && strcmp(gpu, s->gpu) != 0 && !force) {
			rc = F8B_ERR(F8B_EINVAL,
			             "%s '%s' mixes GPU models: run %d ran on %s, run %d on %s "
			             "(pick one run with --%s-run N, or --force)",
			             s->label, s->path, first, s->gpu, id, gpu,
			             s->label[0] == 'B' ? "base" : "new");
		}
	}
	if (f >= 0)
		H5Fclose(f);
	return rc;
}

int f8b_cmp_load_side(const struct f8b_bench *b, const struct cmp_cols *c, struct cmp_side *s,
                      bool force)
{
	void *rows = NULL;
	/* The whole schema: columns a file lacks (written before they joined
	 * the schema) read as NaN, 0 or "" (results.h). */
	F8B_TRY(f8b_results_read(s->path, b->schema, &rows, &s->nrows));
	s->rows = rows;
	F8B_TRY(pick_rows(b, c, s));
	return side_gpu(b, c, s, force);
}
