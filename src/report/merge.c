/* merge.c - `f8bench merge OUT IN...` (merge.h).
 *
 * Every input is read and checked whole before anything is written, so a
 * refusal leaves no file behind.  The output is built as "OUT.merge.<pid>"
 * beside OUT (f8b_results_open/append/close, then the copied /runs groups
 * and the run_id column) and put in place with link(), which, unlike
 * rename(), never replaces an OUT that appeared meanwhile: a reader sees no
 * OUT or the whole merged file.
 *
 * A benchmark's detail table (lls_kernels) comes along: every input's
 * detail rows, in order, their run_id remapped like the rows', less the
 * detail of a row --keep-last dropped (same run and key columns).
 *
 * Duplicates are found with the descriptor's same_case over all row pairs:
 * O(rows^2), about 10^8 cheap comparisons for a 10,000-row sweep, well
 * under the time it took to measure those rows. */
#define _POSIX_C_SOURCE 200809L
#include "report/merge.h"
#include "report/merge_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "core/options.h"
#include "harness/bench.h"
#include "results/h5prov.h"
#include "results/results.h"

enum { OPT_ALLOW_MIXED = 1000, OPT_KEEP_LAST, OPT_QUIET, OPT_HELP };
static const struct f8b_option merge_options[] = {
    {"allow-mixed", OPT_ALLOW_MIXED, 0, NULL,
     "merge inputs that ran on different GPU models (refused by default)"},
    {"keep-last", OPT_KEEP_LAST, 0, NULL,
     "when a case is in more than one row, keep the last one (in the\norder of the "
     "arguments) instead of refusing"},
    {"quiet", OPT_QUIET, 'q', NULL, "no summary line"},
    {"help", OPT_HELP, 0, NULL, "this text"},
    {0},
};

struct merge_cfg {
	bool allow_mixed, keep_last, quiet, help;
};

static int on_opt(void *ctx, int table, int key, const char *arg)
{
	struct merge_cfg *c = ctx;
	(void)arg;
	if (table == -1 || key == OPT_HELP)
		c->help = true;
	else if (key == OPT_ALLOW_MIXED)
		c->allow_mixed = true;
	else if (key == OPT_KEEP_LAST)
		c->keep_last = true;
	else if (key == OPT_QUIET)
		c->quiet = true;
	return F8B_OK;
}

/* The benchmark whose table the file holds; exactly one is accepted. */
static int file_bench(hid_t f, const char *path, const struct f8b_bench **out)
{
	int version = -1;
	hid_t a = H5Aexists_by_name(f, "/", "schema_version", H5P_DEFAULT) > 0
	              ? H5Aopen(f, "schema_version", H5P_DEFAULT)
	              : -1;
	if (a >= 0) {
		if (H5Aread(a, H5T_NATIVE_INT, &version) < 0)
			version = -1;
		H5Aclose(a);
	}
	if (version < 0)
		return F8B_ERR(F8B_EINVAL, "'%s' is not an f8bench results file", path);
	if (version != F8B_SCHEMA_VERSION)
		return F8B_ERR(F8B_EINVAL,
		               "'%s' has schema version %d, this f8bench merges version %d", path,
		               version, F8B_SCHEMA_VERSION);
	*out = NULL;
	for (int i = 0; f8b_benches[i]; i++) {
		if (H5Lexists(f, f8b_benches[i]->schema->name, H5P_DEFAULT) <= 0)
			continue;
		if (*out)
			return F8B_ERR(F8B_EINVAL,
			               "'%s' holds the tables of two benchmarks (%s and %s); merge "
			               "joins files of one",
			               path, (*out)->name, f8b_benches[i]->name);
		*out = f8b_benches[i];
	}
	if (!*out)
		return F8B_ERR(F8B_EINVAL, "'%s' holds no benchmark table", path);
	return F8B_OK;
}

static bool schema_has(const struct f8b_table_schema *s, const char *name)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].name, name))
			return true;
	return false;
}

static bool late_column(const struct f8b_table_schema *s, const char *name)
{
	for (const char *const *l = s->late_columns; l && *l; l++)
		if (!strcmp(*l, name))
			return true;
	return false;
}

/* The file's table must have exactly the schema's columns: the merged file
 * is written with the schema, so any other column would be lost or made
 * up.  The one exception is a column the schema lists as late (results.h):
 * a file from before it reads it with its documented default.  (Files from
 * before any other column joined the schema: merge them with the f8bench
 * that wrote them.) */
int f8b_merge_check_columns(hid_t f, const char *path, const struct f8b_table_schema *s)
{
	hid_t d = H5Dopen2(f, s->name, H5P_DEFAULT), t = d >= 0 ? H5Dget_type(d) : -1;
	int n = t >= 0 && H5Tget_class(t) == H5T_COMPOUND ? H5Tget_nmembers(t) : -1;
	int rc =
	    n < 0 ? F8B_ERR(F8B_EINVAL, "'%s': table '%s' is not readable", path, s->name) : F8B_OK;
	size_t matched = 0;
	for (int i = 0; rc == F8B_OK && i < n; i++) {
		char *name = H5Tget_member_name(t, (unsigned)i);
		if (name && schema_has(s, name))
			matched++;
		else
			rc = F8B_ERR(F8B_EINVAL,
			             "'%s' has another schema: its %s table has a column '%s' that "
			             "this f8bench's lacks",
			             path, s->name, name ? name : "?");
		H5free_memory(name);
	}
	if (rc == F8B_OK && matched != s->nfields) {
		for (size_t i = 0; i < s->nfields; i++)
			if (H5Tget_member_index(t, s->fields[i].name) < 0 &&
			    !late_column(s, s->fields[i].name)) {
				rc = F8B_ERR(
				    F8B_EINVAL,
				    "'%s' has another schema: its %s table lacks column '%s'", path,
				    s->name, s->fields[i].name);
				break;
			}
	}
	if (t >= 0)
		H5Tclose(t);
	if (d >= 0)
		H5Dclose(d);
	return rc;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The numbered groups of /runs, ascending, with each run's GPU model. */
static int list_runs(hid_t f, struct part *p)
{
	H5G_info_t info;
	hid_t g = H5Lexists(f, "/runs", H5P_DEFAULT) > 0 ? H5Gopen2(f, "/runs", H5P_DEFAULT) : -1;
	if (g < 0 || H5Gget_info(g, &info) < 0) {
		if (g >= 0)
			H5Gclose(g);
		return F8B_ERR(F8B_EINVAL, "'%s' has no readable /runs group", p->path);
	}
	p->runs = calloc(info.nlinks + 1, sizeof *p->runs);
	p->model = calloc(info.nlinks + 1, sizeof *p->model);
	if (!p->runs || !p->model) {
		H5Gclose(g);
		return F8B_ERR(F8B_ENOMEM, "runs of '%s'", p->path);
	}
	for (hsize_t i = 0; i < info.nlinks; i++) {
		char name[32], *end;
		ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
		                                 sizeof name, H5P_DEFAULT);
		if (len <= 0 || (size_t)len >= sizeof name || name[0] < '0' || name[0] > '9')
			continue; /* not a run of ours */
		errno = 0;
		long v = strtol(name, &end, 10);
		if (!*end && !errno && v <= 1000000000L)
			p->runs[p->nruns++] = (int)v;
	}
	H5Gclose(g);
	qsort(p->runs, p->nruns, sizeof *p->runs, cmp_int);
	for (size_t k = 0; k < p->nruns; k++) {
		char obj[48];
		snprintf(obj, sizeof obj, "/runs/%d", p->runs[k]);
		f8b_h5_gpu_model(f, obj, p->model[k], MODEL_LEN);
	}
	return F8B_OK;
}

long f8b_merge_run_index(const struct part *p, int run)
{
	const int *hit = bsearch(&run, p->runs, p->nruns, sizeof *p->runs, cmp_int);
	return hit ? (long)(hit - p->runs) : -1;
}

/* Opens, identifies and reads one input. */
static int load_part(struct part *p, const struct f8b_bench **b)
{
	const struct f8b_bench *fb = NULL;
	struct stat st;
	if (stat(p->path, &st) != 0)
		return F8B_ERR(F8B_EINVAL, "cannot read '%s': %s", p->path, strerror(errno));
	hid_t f = H5Fopen(p->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return F8B_ERR(F8B_EINVAL, "'%s' is not an HDF5 file", p->path);
	int rc = file_bench(f, p->path, &fb);
	if (rc == F8B_OK && *b && fb != *b)
		rc = F8B_ERR(F8B_EINVAL,
		             "'%s' holds %s results but the first input holds %s; merge joins "
		             "files of one benchmark",
		             p->path, fb->name, (*b)->name);
	if (rc == F8B_OK)
		rc = f8b_merge_check_columns(f, p->path, fb->schema);
	if (rc == F8B_OK)
		rc = list_runs(f, p);
	if (rc == F8B_OK)
		rc = f8b_merge_load_detail(f, p, fb);
	H5Fclose(f);
	F8B_TRY(rc);
	*b = fb;
	void *rows = NULL;
	F8B_TRY(f8b_results_read(p->path, fb->schema, &rows, &p->n));
	p->rows = rows;
	for (size_t j = 0; j < p->n; j++) {
		int32_t id = f8b_merge_row_run(fb, p->rows + j * fb->schema->row_size);
		if (f8b_merge_run_index(p, id) < 0)
			return F8B_ERR(F8B_EINVAL, "'%s': row %zu names run %d, which /runs lacks",
			               p->path, j, (int)id);
	}
	return F8B_OK;
}

/* Every run that wrote a row must have run on one GPU model. */
static int check_models(const struct f8b_bench *b, const struct part *parts, size_t np)
{
	const char *first = NULL, *first_path = NULL;
	for (size_t k = 0; k < np; k++)
		for (size_t j = 0; j < parts[k].n; j++) {
			const struct part *p = &parts[k];
			const char *m = p->model[f8b_merge_run_index(
			    p, f8b_merge_row_run(b, p->rows + j * b->schema->row_size))];
			if (!m[0])
				continue; /* unknown: nothing to hold against it */
			if (!first) {
				first = m;
				first_path = p->path;
			} else if (strcmp(m, first)) {
				return F8B_ERR(
				    F8B_EINVAL,
				    "'%s' ran on %s but '%s' on %s (pass --allow-mixed to "
				    "merge them anyway)",
				    first_path, first, p->path, m);
			}
		}
	return F8B_OK;
}

/* keep[g] for the rows in argument order; a case in two rows is refused,
 * or with keep_last the earlier row is dropped. */
static int find_duplicates(const struct f8b_bench *b, const struct part *parts, size_t np,
                           bool keep_last, unsigned char *keep, size_t *dropped)
{
	size_t total = 0, rs = b->schema->row_size;
	for (size_t k = 0; k < np; k++)
		total += parts[k].n;
	const unsigned char **row = malloc((total + 1) * sizeof *row);
	size_t *from = malloc((total + 1) * sizeof *from);
	int rc = row && from ? F8B_OK : F8B_ERR(F8B_ENOMEM, "%zu rows", total);
	size_t g = 0;
	for (size_t k = 0; rc == F8B_OK && k < np; k++)
		for (size_t j = 0; j < parts[k].n; j++, g++) {
			row[g] = parts[k].rows + j * rs;
			from[g] = k;
		}
	*dropped = 0;
	for (size_t j = 0; rc == F8B_OK && j < total; j++) {
		keep[j] = 1;
		for (size_t i = 0; i < j; i++) {
			if (!keep[i] || !b->same_case(row[i], row[j]))
				continue;
			if (keep_last) {
				keep[i] = 0; /* at most one kept row matches: stop here */
				(*dropped)++;
				break;
			}
			char what[160];
			b->describe(row[j], what, sizeof what);
			if (from[i] == from[j])
				rc = F8B_ERR(
				    F8B_EINVAL,
				    "case %s is twice in '%s' (pass --keep-last to keep the "
				    "later row)",
				    what, parts[from[j]].path);
			else
				rc =
				    F8B_ERR(F8B_EINVAL,
				            "case %s is in both '%s' and '%s' (pass --keep-last to "
				            "keep the row of the later file)",
				            what, parts[from[i]].path, parts[from[j]].path);
			break;
		}
	}
	free(row);
	free(from);
	return rc;
}

/* The first input's root provenance (without the attributes the results
 * file writes itself) is the merged file's. */
static int base_provenance(const char *path, struct f8b_provenance *out)
{
	struct f8b_provenance p = {0};
	int rc = f8b_results_read_provenance(path, &p);
	for (size_t i = 0; rc == F8B_OK && i < p.n; i++) {
		const char *k = p.kv[i].key;
		if (strcmp(k, "schema_version") && strcmp(k, "format") && strcmp(k, "merged_from"))
			rc = f8b_prov_set(out, k, "%s", p.kv[i].value);
	}
	f8b_prov_free(&p);
	return rc;
}

/* Copies every input's runs under their new ids, labelled with where they
 * came from, and points the rows at them. */
static int copy_runs(hid_t dst, const char *tmp, const struct part *parts, size_t np,
                     const char *merged_from)
{
	for (size_t k = 0; k < np; k++) {
		const struct part *p = &parts[k];
		hid_t src = H5Fopen(p->path, H5F_ACC_RDONLY, H5P_DEFAULT);
		if (src < 0)
			return F8B_ERR(F8B_EIO, "cannot reopen '%s'", p->path);
		for (size_t r = 0; r < p->nruns; r++) {
			char from[48], to[48], label[4200];
			snprintf(from, sizeof from, "/runs/%d", p->runs[r]);
			snprintf(to, sizeof to, "/runs/%d", p->first_new + (int)r);
			snprintf(label, sizeof label, "%s:%s", p->path, from);
			if (H5Ocopy(src, from, dst, to, H5P_DEFAULT, H5P_DEFAULT) < 0 ||
			    H5LTset_attribute_string(dst, to, "merged_from", label) < 0) {
				H5Fclose(src);
				return F8B_ERR(F8B_EIO, "'%s': cannot copy %s of '%s'", tmp, from,
				               p->path);
			}
		}
		H5Fclose(src);
	}
	if (H5LTset_attribute_string(dst, "/", "merged_from", merged_from) < 0 ||
	    H5LTset_attribute_string(dst, "/runs/0", "merged_from", merged_from) < 0)
		return F8B_ERR(F8B_EIO, "'%s': cannot write attribute merged_from", tmp);
	return F8B_OK;
}

/* Builds the merged file at tmp. */
static int write_tmp(const char *tmp, const struct f8b_bench *b, const struct part *parts,
                     size_t np, const unsigned char *keep, size_t nkeep)
{
	const size_t rs = b->schema->row_size;
	struct f8b_provenance prov = {0};
	struct f8b_results *res = NULL;
	unsigned char *rows = malloc((nkeep + 1) * rs);
	int32_t *ids = malloc((nkeep + 1) * sizeof *ids);
	unsigned char *drows = NULL;
	int32_t *dids = NULL;
	size_t len = 1, g = 0, w = 0, dw = 0;
	bool any_detail = false;
	for (size_t k = 0; k < np; k++)
		len += strlen(parts[k].path) + 1;
	char *merged_from = calloc(1, len);
	int rc = rows && ids && merged_from ? F8B_OK : F8B_ERR(F8B_ENOMEM, "%zu rows", nkeep);
	if (rc == F8B_OK)
		rc = f8b_merge_gather_details(b, parts, np, &drows, &dids, &dw, &any_detail);
	for (size_t k = 0; rc == F8B_OK && k < np; k++) {
		strcat(merged_from, parts[k].path);
		if (k + 1 < np)
			strcat(merged_from, "\n"); /* one input per line */
		for (size_t j = 0; j < parts[k].n; j++, g++) {
			if (!keep[g])
				continue;
			const unsigned char *row = parts[k].rows + j * rs;
			memcpy(rows + w * rs, row, rs);
			ids[w++] = parts[k].first_new + (int32_t)f8b_merge_run_index(
			                                    &parts[k], f8b_merge_row_run(b, row));
		}
	}
	if (rc == F8B_OK)
		rc = base_provenance(parts[0].path, &prov);
	if (rc == F8B_OK)
		rc = f8b_results_open(tmp, false, b->schema, &prov, &res, NULL);
	if (rc == F8B_OK && any_detail) /* the detail table, even when empty */
		rc = f8b_results_add_table(res, b->detail_schema);
	if (rc == F8B_OK && dw)
		rc = f8b_results_append_extra(res, drows, dw);
	if (rc == F8B_OK && nkeep)
		rc = f8b_results_append(res, rows, nkeep);
	if (res && f8b_results_close(res) != F8B_OK && rc == F8B_OK)
		rc = F8B_EIO;
	hid_t f = rc == F8B_OK ? H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT) : -1;
	if (rc == F8B_OK && f < 0)
		rc = F8B_ERR(F8B_EIO, "cannot reopen '%s'", tmp);
	if (rc == F8B_OK)
		rc = copy_runs(f, tmp, parts, np, merged_from);
	/* append wrote this file's run 0 into every row; point them home */
	size_t off = 0, size = sizeof(int32_t);
	if (rc == F8B_OK && nkeep &&
	    H5TBwrite_fields_name(f, b->schema->name, "run_id", 0, nkeep, sizeof(int32_t), &off,
	                          &size, ids) < 0)
		rc = F8B_ERR(F8B_EIO, "'%s': cannot write the run_id column", tmp);
	if (rc == F8B_OK && dw &&
	    H5TBwrite_fields_name(f, b->detail_schema->name, "run_id", 0, dw, sizeof(int32_t), &off,
	                          &size, dids) < 0)
		rc = F8B_ERR(F8B_EIO, "'%s': cannot write the run_id column of %s", tmp,
		             b->detail_schema->name);
	if (f >= 0 && H5Fclose(f) < 0 && rc == F8B_OK)
		rc = F8B_ERR(F8B_EIO, "'%s': close failed", tmp);
	f8b_prov_free(&prov);
	free(rows);
	free(ids);
	free(drows);
	free(dids);
	free(merged_from);
	return rc;
}

/* link() refuses an existing OUT atomically; file systems without hard
 * links get a re-check and rename(). */
static int publish(const char *tmp, const char *out)
{
	struct stat st;
	if (link(tmp, out) == 0) {
		unlink(tmp);
		return F8B_OK;
	}
	if (errno == EEXIST || lstat(out, &st) == 0)
		return F8B_ERR(F8B_EINVAL, "'%s' already exists; merge never overwrites a file",
		               out);
	if (rename(tmp, out) != 0)
		return F8B_ERR(F8B_EIO, "cannot rename '%s' to '%s': %s", tmp, out,
		               strerror(errno));
	return F8B_OK;
}

static void help(FILE *f)
{
	fprintf(f, "usage: f8bench merge OUT.h5 IN.h5... [--allow-mixed] [--keep-last]\n\n"
	           "Joins the results files of one benchmark (the shards of a sweep run with\n"
	           "--shard I/N, say) into the new file OUT.h5.  Refused, with nothing written:\n"
	           "an existing OUT.h5, inputs of different benchmarks or schemas, inputs run\n"
	           "on different GPU models, and a case in more than one row.  Each input's\n"
	           "runs are kept under OUT.h5's /runs with new ids (attribute merged_from);\n"
	           "a detail table (lls_kernels) comes with its rows.\n\n");
}

static void help_tail(FILE *f)
{
	fprintf(f, "\nExit status: 0 merged, 2 bad input or refused, 1 writing failed.\n");
}

const struct f8b_cmd_doc f8b_merge_doc = {
    .name = "merge",
    .summary = "join the results files of one benchmark (shards) into one",
    .usage = help,
    .options = merge_options,
    .tail = help_tail,
};

static int merge(const struct merge_cfg *c, const char *out, char **in, size_t np, int *exit_code)
{
	struct stat st;
	const struct f8b_bench *b = NULL;
	struct part *parts = calloc(np, sizeof *parts);
	unsigned char *keep = NULL;
	size_t total = 0, dropped = 0, nruns = 0;
	int rc = parts ? F8B_OK : F8B_ERR(F8B_ENOMEM, "inputs");
	*exit_code = 2;
	if (rc == F8B_OK && lstat(out, &st) == 0)
		rc = F8B_ERR(F8B_EINVAL, "'%s' already exists; merge never overwrites a file", out);
	for (size_t k = 0; rc == F8B_OK && k < np; k++) {
		parts[k].path = in[k];
		rc = load_part(&parts[k], &b);
		parts[k].first_new = 1 + (int)nruns; /* /runs/0 is the merge itself */
		nruns += parts[k].nruns;
		total += parts[k].n;
	}
	if (rc == F8B_OK && !c->allow_mixed)
		rc = check_models(b, parts, np);
	if (rc == F8B_OK && !(keep = calloc(total + 1, 1)))
		rc = F8B_ERR(F8B_ENOMEM, "%zu rows", total);
	if (rc == F8B_OK)
		rc = find_duplicates(b, parts, np, c->keep_last, keep, &dropped);
	if (rc == F8B_OK && dropped && b->detail_schema)
		f8b_merge_drop_details(b, parts, np, keep);
	if (rc == F8B_OK) {
		*exit_code = 1;
		char tmp[4096];
		if (snprintf(tmp, sizeof tmp, "%s.merge.%ld", out, (long)getpid()) >=
		    (int)sizeof tmp)
			rc = F8B_ERR(F8B_EINVAL, "output name '%s' is too long", out);
		if (rc == F8B_OK) {
			unlink(tmp); /* a leftover of a dead process with our pid */
			rc = write_tmp(tmp, b, parts, np, keep, total - dropped);
		}
		if (rc == F8B_OK)
			rc = publish(tmp, out);
		if (rc != F8B_OK)
			unlink(tmp);
		else
			*exit_code = 0;
	}
	if (rc == F8B_OK && !c->quiet) {
		size_t ndet = 0;
		for (size_t k = 0; k < np; k++)
			for (size_t d = 0; d < parts[k].dn; d++)
				ndet += parts[k].dkeep[d];
		printf("f8bench merge: wrote %zu %s rows", total - dropped, b->name);
		if (ndet)
			printf(" (and %zu %s rows)", ndet, b->detail_schema->name);
		printf(" from %zu files (%zu runs) to %s", np, nruns, out);
		if (dropped)
			printf("; --keep-last dropped %zu earlier rows of the same cases", dropped);
		printf("\n");
	}
	for (size_t k = 0; parts && k < np; k++) {
		free(parts[k].rows);
		free(parts[k].runs);
		free(parts[k].model);
		free(parts[k].drows);
		free(parts[k].dkeep);
	}
	free(parts);
	free(keep);
	return rc;
}

int f8b_merge_main(int argc, char **argv)
{
	struct merge_cfg c = {0};
	char **pos = calloc((size_t)argc + 1, sizeof *pos);
	int npos = 0, exit_code = 2;
	const struct f8b_option *tables[] = {merge_options, NULL};
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our own one-line errors */
	int rc = pos ? f8b_options_parse(argc, argv, tables, on_opt, &c, &pos, &npos)
	             : F8B_ERR(F8B_ENOMEM, "argv");
	if (rc == F8B_OK && c.help) {
		f8b_cmd_help(stdout, &f8b_merge_doc);
		free(pos);
		return 0;
	}
	if (rc == F8B_OK && npos < 2)
		rc =
		    F8B_ERR(F8B_EINVAL,
		            "merge takes OUT.h5 and at least one input (got %d files); see f8bench "
		            "merge --help",
		            npos);
	if (rc == F8B_OK)
		rc = merge(&c, pos[0], pos + 1, (size_t)npos - 1, &exit_code);
	if (rc != F8B_OK)
		fprintf(stderr, "f8bench merge: error: %s\n", f8b_last_error());
	free(pos);
	return rc == F8B_OK ? 0 : exit_code;
}
