/* results_write.c - a results file being written: created as a temporary
 * file and renamed once complete, or opened to append (its schema checked);
 * rows appended and flushed; closed, or abandoned (removed when this run
 * created it and wrote no row). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/results_int.h"

/* ---- table and runs ---------------------------------------------------- */

/* An empty, chunked, extendible H5TB table with the schema's columns packed
 * (no struct padding in the file), plus FIELD_<i>_UNIT beside H5TB's
 * FIELD_<i>_NAME. */
static int make_table(hid_t file, const char *path, const struct f8b_table_schema *s)
{
	const char **names = calloc(s->nfields, sizeof *names);
	size_t *offs = calloc(s->nfields, sizeof *offs);
	hid_t *types = calloc(s->nfields, sizeof *types);
	size_t off = 0, i;
	int rc = F8B_OK;

	for (i = 0; types && i < s->nfields; i++)
		types[i] = -1;
	if (!names || !offs || !types) {
		rc = F8B_ERR(F8B_ENOMEM, "no memory for the %zu columns of table '%s'", s->nfields,
		             s->name);
		goto out;
	}
	for (i = 0; i < s->nfields; i++) {
		names[i] = s->fields[i].name;
		offs[i] = off;
		off += f8b_h5_field_file_size(&s->fields[i]);
		types[i] = f8b_h5_column_type(&s->fields[i], true);
		if (types[i] < 0) {
			rc = H5_ERR(path, "make the type of column '%s'", names[i]);
			goto out;
		}
	}
	/* Compression stays off: rows are small and few, and the deflate
	 * filter is optional in HDF5 builds. */
	if (H5TBmake_table(s->title ? s->title : s->name, file, s->name, s->nfields, 0, off, names,
	                   offs, types, F8B_CHUNK_ROWS, NULL, 0, NULL) < 0) {
		rc = H5_ERR(path, "create table '%s'", s->name);
		goto out;
	}
	for (i = 0; i < s->nfields; i++) {
		char attr[32];
		snprintf(attr, sizeof attr, "FIELD_%zu_UNIT", i);
		if (H5LTset_attribute_string(file, s->name, attr, s->fields[i].unit) < 0) {
			rc = H5_ERR(path, "write the unit of column '%s'", names[i]);
			goto out;
		}
	}
out:
	for (i = 0; types && i < s->nfields; i++)
		f8b_h5_close_type(&types[i]);
	free(names);
	free(offs);
	free(types);
	return rc;
}

/* Run ids are the names of /runs' subgroups; the next is one past the
 * largest (names that are not numbers are someone else's and ignored). */
static int next_run_id(hid_t file, const char *path, int *id)
{
	H5G_info_t info;
	hid_t g = H5Gopen2(file, F8B_RUNS, H5P_DEFAULT);
	long max = -1;
	int rc = F8B_OK;

	if (g < 0 || H5Gget_info(g, &info) < 0) {
		rc = H5_ERR(path, "list the runs in group " F8B_RUNS);
		goto out;
	}
	for (hsize_t i = 0; i < info.nlinks; i++) {
		char name[32], *end;
		ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
		                                 sizeof name, H5P_DEFAULT);
		if (len < 0) {
			rc = H5_ERR(path, "list the runs in group " F8B_RUNS);
			goto out;
		}
		if (len == 0 || (size_t)len >= sizeof name || name[0] < '0' || name[0] > '9')
			continue;
		errno = 0;
		long v = strtol(name, &end, 10);
		if (*end == '\0' && errno == 0 && v > max)
			max = v;
	}
	if (max >= INT_MAX) {
		rc = F8B_ERR(F8B_EIO, "results file '%s': run id %ld in " F8B_RUNS " is too large",
		             path, max);
		goto out;
	}
	*id = (int)(max + 1);
out:
	if (g >= 0)
		H5Gclose(g);
	return rc;
}

static int make_run_group(hid_t file, const char *path, int id, const struct f8b_provenance *prov)
{
	char name[48];
	hid_t g;
	htri_t have = H5Lexists(file, F8B_RUNS, H5P_DEFAULT);

	if (have < 0)
		return H5_ERR(path, "look for group " F8B_RUNS);
	if (!have) {
		g = H5Gcreate2(file, F8B_RUNS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		if (g < 0)
			return H5_ERR(path, "create group " F8B_RUNS);
		H5Gclose(g);
	}
	snprintf(name, sizeof name, F8B_RUNS "/%d", id);
	g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return H5_ERR(path, "create group %s", name);
	H5Gclose(g);
	return f8b_h5_write_prov(file, path, name, prov);
}

/* Schema version, format, creating run's provenance, empty table, /runs/0. */
static int write_new_file(hid_t file, const char *path, const struct f8b_table_schema *s,
                          const struct f8b_provenance *prov)
{
	F8B_TRY(f8b_h5_write_int_attr(file, path, F8B_ATTR_SCHEMA, F8B_SCHEMA_VERSION));
	if (H5LTset_attribute_string(file, "/", F8B_ATTR_FORMAT, F8B_FORMAT_VALUE) < 0)
		return H5_ERR(path, "write attribute '" F8B_ATTR_FORMAT "'");
	F8B_TRY(f8b_h5_write_prov(file, path, "/", prov));
	F8B_TRY(make_table(file, path, s));
	return make_run_group(file, path, 0, prov);
}

/* ---- open / create ----------------------------------------------------- */

/* The directory that will hold path must exist and be writable, or the
 * user gets HDF5's long create error instead of this line.  (access() says
 * yes to root everywhere; then H5Fcreate is the check.) */
static int check_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK) == 0)
		return F8B_OK;
	if (errno == ENOENT)
		return F8B_ERR(F8B_EIO,
		               "cannot create results file '%s': directory '%s' does not exist",
		               path, dir);
	if (errno == ENOTDIR)
		return F8B_ERR(F8B_EIO, "cannot create results file '%s': '%s' is not a directory",
		               path, dir);
	return F8B_ERR(F8B_EIO,
	               "cannot create results file '%s': directory '%s' is not writable (%s)", path,
	               dir, strerror(errno));
}

static int refuse_existing(const char *path)
{
	return F8B_ERR(F8B_EIO,
	               "results file '%s' already exists; refusing to overwrite it (pass --append "
	               "to add this run's rows to it, or choose another output file)",
	               path);
}

/* Puts the finished temporary file at path without replacing anything:
 * link() fails with EEXIST where rename() would silently overwrite a file
 * that appeared since we looked.  File systems without hard links get a
 * re-check and rename(). */
static int publish(const char *tmp, const char *path)
{
	struct stat st;

	if (link(tmp, path) == 0) {
		unlink(tmp);
		return F8B_OK;
	}
	if (errno == EEXIST)
		return refuse_existing(path);
	if (lstat(path, &st) == 0)
		return refuse_existing(path);
	if (rename(tmp, path) != 0)
		return F8B_ERR(F8B_EIO, "cannot rename '%s' to results file '%s': %s", tmp, path,
		               strerror(errno));
	return F8B_OK;
}

/* The new file, flushed, takes its name. */
static int publish_now(struct f8b_results *r)
{
	if (!r->tmp)
		return F8B_OK;
	if (H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		return H5_ERR(r->tmp, "flush temporary file");
	F8B_TRY(publish(r->tmp, r->path));
	free(r->tmp);
	r->tmp = NULL;
	return F8B_OK;
}

static int create_file(struct f8b_results *r, const struct f8b_provenance *prov)
{
	char tmp[PATH_MAX];
	hid_t f;
	int rc;

	struct stat st;
	F8B_TRY(check_dir(r->path));
	if (lstat(r->path, &st) == 0) /* refused now, not after the first row */
		return refuse_existing(r->path);
	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", r->path, (long)getpid()) >= (int)sizeof tmp)
		return F8B_ERR(F8B_EINVAL, "results file name '%s' is too long", r->path);
	/* TRUNC, not EXCL: a leftover with our pid is from a dead process. */
	f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(tmp, "create temporary file for '%s'", r->path);
	rc = write_new_file(f, r->path, r->schema, prov);
	if (rc == F8B_OK && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0)
		rc = H5_ERR(tmp, "flush temporary file");
	if (rc == F8B_OK && !(r->tmp = strdup(tmp)))
		rc = F8B_ERR(F8B_ENOMEM, "results file name");
	if (rc != F8B_OK) {
		H5Fclose(f);
		unlink(tmp);
		return rc;
	}
	/* Published (renamed to r->path) with its first rows: publish_now(). */
	r->file = f;
	r->created = true;
	r->run_id = 0;
	return F8B_OK;
}

static int read_schema_version(hid_t file, const char *path, int *v)
{
	htri_t have = H5Aexists_by_name(file, "/", F8B_ATTR_SCHEMA, H5P_DEFAULT);
	hid_t a;
	herr_t e;

	if (have < 0)
		return H5_ERR(path, "read the attributes of its root group");
	if (!have)
		return F8B_ERR(F8B_EIO,
		               "'%s' is not an f8bench results file (its root group has no '%s' "
		               "attribute); choose another output file",
		               path, F8B_ATTR_SCHEMA);
	a = H5Aopen(file, F8B_ATTR_SCHEMA, H5P_DEFAULT);
	if (a < 0)
		return H5_ERR(path, "open attribute '%s'", F8B_ATTR_SCHEMA);
	e = H5Aread(a, H5T_NATIVE_INT, v);
	H5Aclose(a);
	if (e < 0)
		return H5_ERR(path, "read attribute '%s' as an integer", F8B_ATTR_SCHEMA);
	return F8B_OK;
}

static int open_existing(struct f8b_results *r, const struct f8b_provenance *prov)
{
	const struct f8b_table_schema *s = r->schema;
	htri_t have;
	int v, rc;

	r->file = H5Fopen(r->path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (r->file < 0)
		return H5_ERR(r->path, "open it for appending");
	F8B_TRY(read_schema_version(r->file, r->path, &v));
	if (v != F8B_SCHEMA_VERSION)
		return F8B_ERR(F8B_EIO,
		               "results file '%s' has schema version %d but this f8bench writes "
		               "version %d; write to a new file",
		               r->path, v, F8B_SCHEMA_VERSION);
	have = H5Lexists(r->file, s->name, H5P_DEFAULT);
	if (have < 0)
		return H5_ERR(r->path, "look for table '%s'", s->name);
	if (have) {
		F8B_TRY(f8b_h5_check_table_columns(r->file, r->path, s));
	} else {
		F8B_TRY(make_table(r->file, r->path, s));
		r->created_table = true;
	}
	have = H5Lexists(r->file, F8B_RUNS, H5P_DEFAULT);
	if (have < 0)
		return H5_ERR(r->path, "look for group " F8B_RUNS);
	r->run_id = 0;
	if (have)
		F8B_TRY(next_run_id(r->file, r->path, &r->run_id));
	rc = make_run_group(r->file, r->path, r->run_id, prov);
	if (rc == F8B_OK && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		rc = H5_ERR(r->path, "flush");
	return rc;
}

static int column_layout(const struct f8b_table_schema *s, size_t *offsets, size_t *sizes);

static void results_free(struct f8b_results *r)
{
	free(r->extra_offsets);
	free(r->extra_sizes);
	free(r->extra_scratch);
	free(r->path);
	free(r->offsets);
	free(r->sizes);
	free(r->scratch);
	free(r->tmp);
	free(r);
}

int f8b_results_open(const char *path, bool append, const struct f8b_table_schema *schema,
                     const struct f8b_provenance *prov, struct f8b_results **out, int *run_id)
{
	struct f8b_results *r;
	struct stat st;
	bool exists;
	int rc;

	*out = NULL;
	f8b_h5_quiet();
	if (!path || !path[0])
		return F8B_ERR(F8B_EINVAL, "results file name is empty");
	F8B_TRY(f8b_h5_check_schema(schema));
	for (size_t i = 0; prov && i < prov->n; i++)
		if (f8b_h5_reserved_key(prov->kv[i].key))
			return F8B_ERR(
			    F8B_EINTERNAL,
			    "provenance key '%s' is reserved for the results file itself",
			    prov->kv[i].key);
	exists = lstat(path, &st) == 0;
	if (exists && !append)
		return refuse_existing(path);

	r = calloc(1, sizeof *r);
	if (!r)
		return F8B_ERR(F8B_ENOMEM, "no memory to open results file '%s'", path);
	r->file = -1;
	r->schema = schema;
	r->run_id_col = -1;
	r->path = strdup(path);
	r->offsets = calloc(schema->nfields, sizeof *r->offsets);
	r->sizes = calloc(schema->nfields, sizeof *r->sizes);
	r->scratch = malloc(F8B_BLOCK_ROWS * schema->row_size);
	if (!r->path || !r->offsets || !r->sizes || !r->scratch) {
		results_free(r);
		return F8B_ERR(F8B_ENOMEM, "no memory to open results file '%s'", path);
	}
	r->run_id_col = column_layout(schema, r->offsets, r->sizes);

	rc = exists ? open_existing(r, prov) : create_file(r, prov);
	if (rc != F8B_OK) {
		if (r->file >= 0)
			H5Fclose(r->file);
		results_free(r);
		return rc;
	}
	if (run_id)
		*run_id = r->run_id;
	*out = r;
	return F8B_OK;
}

/* ---- append / close ------------------------------------------------------ */

/* What goes to the file from a row: string columns cut to size - 1 bytes
 * and zeroed after the first NUL (numpy keeps bytes after an embedded NUL,
 * so stale bytes behind a short string would show up in h5py), and the
 * run_id column set to this run's id, so every row points at its /runs
 * group. */
static void clean_row(const struct f8b_results *r, const struct f8b_table_schema *s, int run_id_col,
                      unsigned char *row)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const struct f8b_field *f = &s->fields[i];
		if (f->type != F8B_FT_STR)
			continue;
		char *str = (char *)row + f->offset;
		str[f->size - 1] = '\0';
		size_t len = strlen(str);
		memset(str + len, 0, f->size - len);
	}
	if (run_id_col >= 0) {
		int32_t id = r->run_id;
		memcpy(row + s->fields[run_id_col].offset, &id, sizeof id);
	}
}

/* The column index of an I32 column "run_id", -1 if none; fills the
 * offsets and sizes H5TBappend_records wants. */
static int column_layout(const struct f8b_table_schema *s, size_t *offsets, size_t *sizes)
{
	int col = -1;
	for (size_t i = 0; i < s->nfields; i++) {
		offsets[i] = s->fields[i].offset;
		sizes[i] = s->fields[i].size;
		if (s->fields[i].type == F8B_FT_I32 && strcmp(s->fields[i].name, "run_id") == 0)
			col = (int)i;
	}
	return col;
}

static int append_rows(struct f8b_results *r, const struct f8b_table_schema *s,
                       const size_t *offsets, const size_t *sizes, int run_id_col,
                       unsigned char *scratch, const void *rows, size_t n)
{
	const unsigned char *src = rows;

	if (!r || (n > 0 && !rows))
		return F8B_ERR(F8B_EINTERNAL, "append of %zu rows: no open results file or no rows",
		               n);
	f8b_h5_quiet();
	while (n > 0) {
		size_t k = n < F8B_BLOCK_ROWS ? n : F8B_BLOCK_ROWS;
		memcpy(scratch, src, k * s->row_size);
		for (size_t i = 0; i < k; i++)
			clean_row(r, s, run_id_col, scratch + i * s->row_size);
		if (H5TBappend_records(r->file, s->name, k, s->row_size, offsets, sizes, scratch) <
		    0)
			return H5_ERR(r->path, "append %zu rows to table '%s'", k, s->name);
		if (s == r->schema)
			r->appended += k;
		src += k * s->row_size;
		n -= k;
	}
	/* Data and metadata on disk now, so a kill later loses nothing
	 * appended so far. */
	if (H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0)
		return H5_ERR(r->path, "flush rows to disk");
	return publish_now(r);
}

int f8b_results_append(struct f8b_results *r, const void *rows, size_t n)
{
	if (!r)
		return append_rows(r, NULL, NULL, NULL, -1, NULL, rows, n);
	return append_rows(r, r->schema, r->offsets, r->sizes, r->run_id_col, r->scratch, rows, n);
}

int f8b_results_append_extra(struct f8b_results *r, const void *rows, size_t n)
{
	if (!r || !r->extra)
		return F8B_ERR(F8B_EINTERNAL, "append of %zu detail rows: no second table", n);
	return append_rows(r, r->extra, r->extra_offsets, r->extra_sizes, r->extra_run_id_col,
	                   r->extra_scratch, rows, n);
}

int f8b_results_add_table(struct f8b_results *r, const struct f8b_table_schema *s)
{
	if (!r || !s || r->extra)
		return F8B_ERR(F8B_EINTERNAL, "add_table: no results file, no schema, or a second "
		                              "table already");
	f8b_h5_quiet();
	F8B_TRY(f8b_h5_check_schema(s));
	r->extra_offsets = calloc(s->nfields, sizeof *r->extra_offsets);
	r->extra_sizes = calloc(s->nfields, sizeof *r->extra_sizes);
	r->extra_scratch = malloc(F8B_BLOCK_ROWS * s->row_size);
	if (!r->extra_offsets || !r->extra_sizes || !r->extra_scratch)
		return F8B_ERR(F8B_ENOMEM, "no memory for table '%s' of '%s'", s->name, r->path);
	r->extra_run_id_col = column_layout(s, r->extra_offsets, r->extra_sizes);
	htri_t have = H5Lexists(r->file, s->name, H5P_DEFAULT);
	if (have < 0)
		return H5_ERR(r->path, "look for table '%s'", s->name);
	if (have) {
		F8B_TRY(f8b_h5_check_table_columns(r->file, r->path, s));
	} else {
		F8B_TRY(make_table(r->file, r->path, s));
		r->created_extra = true;
	}
	r->extra = s;
	if (H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0)
		return H5_ERR(r->path, "flush");
	return F8B_OK;
}

int f8b_results_close(struct f8b_results *r)
{
	int rc = F8B_OK;

	if (!r)
		return F8B_OK;
	if (r->file >= 0) {
		f8b_h5_quiet();
		rc = publish_now(r); /* closed without rows: the file still exists */
		if (H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0 && rc == F8B_OK)
			rc = H5_ERR(r->path, "flush");
		if (H5Fclose(r->file) < 0 && rc == F8B_OK)
			rc = H5_ERR(r->path, "close");
	}
	results_free(r);
	return rc;
}

void f8b_results_abandon(struct f8b_results *r)
{
	if (!r)
		return;
	f8b_h5_quiet();
	/* Rows already written are results; keep them (and the file). */
	if (r->appended == 0 && r->created) {
		H5Fclose(r->file);
		r->file = -1;
		unlink(r->tmp ? r->tmp : r->path);
	} else if (r->appended == 0) {
		/* An existing file: take back this run's group (and a table it
		 * added), so the file looks as if the run never opened it. */
		char name[48];
		snprintf(name, sizeof name, F8B_RUNS "/%d", r->run_id);
		H5Ldelete(r->file, name, H5P_DEFAULT);
		if (r->created_table)
			H5Ldelete(r->file, r->schema->name, H5P_DEFAULT);
		if (r->created_extra)
			H5Ldelete(r->file, r->extra->name, H5P_DEFAULT);
	}
	/* abandon is a cleanup path: its own failures have nowhere to go. */
	f8b_results_close(r);
}
