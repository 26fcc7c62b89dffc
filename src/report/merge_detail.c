/* merge_detail.c - a benchmark's detail table (lls: lls_kernels) in
 * `f8bench merge`: read with each input, dropped with the rows --keep-last
 * drops, gathered for the merged file with run ids remapped like the rows'
 * (merge.c). */
#include "report/merge_int.h"

#include <stdlib.h>
#include <string.h>

#include "results/results.h"

/* Offset of column name in s, -1 when s has none (or another type). */
static long field_off(const struct f8b_table_schema *s, const char *name, enum f8b_field_type type)
{
	for (size_t i = 0; s && i < s->nfields; i++)
		if (!strcmp(s->fields[i].name, name) && s->fields[i].type == type)
			return (long)s->fields[i].offset;
	return -1;
}

/* The run a detail row names (its run_id column), -1 without one. */
static int32_t detail_run(const struct f8b_bench *b, const unsigned char *drow)
{
	long off = field_off(b->detail_schema, "run_id", F8B_FT_I32);
	int32_t id = -1;
	if (off >= 0)
		memcpy(&id, drow + off, sizeof id);
	return id;
}

/* The detail table of an input that has one: same columns as this
 * f8bench's, every row naming one of the file's runs. */
int f8b_merge_load_detail(hid_t f, struct part *p, const struct f8b_bench *b)
{
	const struct f8b_table_schema *ds = b->detail_schema;
	if (!ds || H5Lexists(f, ds->name, H5P_DEFAULT) <= 0)
		return F8B_OK;
	F8B_TRY(f8b_merge_check_columns(f, p->path, ds));
	void *rows = NULL;
	F8B_TRY(f8b_results_read(p->path, ds, &rows, &p->dn));
	p->drows = rows;
	if (!(p->dkeep = malloc(p->dn + 1)))
		return F8B_ERR(F8B_ENOMEM, "%zu %s rows of '%s'", p->dn, ds->name, p->path);
	memset(p->dkeep, 1, p->dn + 1);
	for (size_t j = 0; j < p->dn; j++)
		if (f8b_merge_run_index(p, detail_run(b, p->drows + j * ds->row_size)) < 0)
			return F8B_ERR(
			    F8B_EINVAL, "'%s': row %zu of %s names run %d, which /runs lacks",
			    p->path, j, ds->name, (int)detail_run(b, p->drows + j * ds->row_size));
	return F8B_OK;
}

/* Whether detail row d belongs to main row r (both of one input): the
 * same run and the same values in every key column the detail table
 * also has (lls: m, k, n, recipe). */
static bool detail_of(const struct f8b_bench *b, const unsigned char *d, const unsigned char *r)
{
	const struct f8b_table_schema *ms = b->schema, *ds = b->detail_schema;
	if (detail_run(b, d) != f8b_merge_row_run(b, r))
		return false;
	for (const char *const *k = b->key_columns; k && *k; k++)
		for (size_t i = 0; i < ms->nfields; i++) {
			const struct f8b_field *mf = &ms->fields[i];
			long off = strcmp(mf->name, *k) ? -1 : field_off(ds, mf->name, mf->type);
			if (off < 0)
				continue;
			size_t dsize = 0;
			for (size_t j = 0; j < ds->nfields; j++)
				if ((long)ds->fields[j].offset == off)
					dsize = ds->fields[j].size;
			const void *x = r + mf->offset, *y = d + off;
			bool same = mf->type == F8B_FT_STR
			                ? strncmp(x, y, mf->size < dsize ? mf->size : dsize) == 0
			                : memcmp(x, y, mf->size) == 0;
			if (!same)
				return false;
		}
	return true;
}

/* The detail rows of the rows --keep-last dropped go with them. */
void f8b_merge_drop_details(const struct f8b_bench *b, struct part *parts, size_t np,
                            const unsigned char *keep)
{
	size_t g = 0, rs = b->schema->row_size;
	for (size_t k = 0; k < np; k++) {
		struct part *p = &parts[k];
		for (size_t j = 0; j < p->n; j++, g++) {
			if (keep[g])
				continue;
			for (size_t d = 0; d < p->dn; d++)
				if (p->dkeep[d] &&
				    detail_of(b, p->drows + d * b->detail_schema->row_size,
				              p->rows + j * rs))
					p->dkeep[d] = 0;
		}
	}
}

int f8b_merge_gather_details(const struct f8b_bench *b, const struct part *parts, size_t np,
                             unsigned char **rows, int32_t **ids, size_t *n, bool *any)
{
	size_t total = 0;
	*any = false;
	*n = 0;
	for (size_t k = 0; k < np; k++) {
		*any |= parts[k].drows != NULL;
		for (size_t d = 0; d < parts[k].dn; d++)
			total += parts[k].dkeep[d];
	}
	const size_t ds = *any ? b->detail_schema->row_size : 0;
	*rows = malloc(total * ds + 1);
	*ids = malloc((total + 1) * sizeof **ids);
	if (!*rows || !*ids)
		return F8B_ERR(F8B_ENOMEM, "%zu detail rows", total);
	for (size_t k = 0; k < np; k++)
		for (size_t d = 0; d < parts[k].dn; d++) {
			const unsigned char *drow = parts[k].drows + d * ds;
			if (!parts[k].dkeep[d])
				continue;
			memcpy(*rows + *n * ds, drow, ds);
			(*ids)[(*n)++] = parts[k].first_new + (int32_t)f8b_merge_run_index(
			                                          &parts[k], detail_run(b, drow));
		}
	return F8B_OK;
}
