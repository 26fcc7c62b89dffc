/* results_prov.c - provenance: the key/value list, and its attributes in a
 * results file (written on the root and on /runs/<id>, read back). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_int.h"
#include "results/h5prov.h"

/* ---- provenance ------------------------------------------------------- */

int f8b_prov_set(struct f8b_provenance *p, const char *key, const char *fmt, ...)
{
	struct f8b_kv *kv = NULL;
	va_list ap;
	int len;

	if (!key || !key[0] || strlen(key) >= sizeof kv->key)
		return F8B_ERR(F8B_EINVAL,
		               "provenance key '%s' is empty or longer than %zu characters",
		               key ? key : "(null)", sizeof kv->key - 1);
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->kv[i].key, key) == 0)
			kv = &p->kv[i];
	if (!kv) {
		if (p->n == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 16;
			struct f8b_kv *v = realloc(p->kv, cap * sizeof *v);
			if (!v)
				return F8B_ERR(F8B_ENOMEM, "no memory for %zu provenance entries",
				               cap);
			p->kv = v;
			p->cap = cap;
		}
		kv = &p->kv[p->n++];
		snprintf(kv->key, sizeof kv->key, "%s", key);
	}
	va_start(ap, fmt);
	len = vsnprintf(kv->value, sizeof kv->value, fmt, ap);
	va_end(ap);
	/* A long value (a command line, say) is cut, and says so. */
	if (len >= (int)sizeof kv->value)
		memcpy(kv->value + sizeof kv->value - 4, "...", 4);
	return F8B_OK;
}

const char *f8b_prov_get(const struct f8b_provenance *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->kv[i].key, key) == 0)
			return p->kv[i].value;
	return NULL;
}

void f8b_prov_free(struct f8b_provenance *p)
{
	free(p->kv);
	p->kv = NULL;
	p->n = p->cap = 0;
}

/* ---- attributes -------------------------------------------------------- */

int f8b_h5_write_int_attr(hid_t file, const char *path, const char *name, int value)
{
	hid_t sp = H5Screate(H5S_SCALAR), a = -1;
	int rc = F8B_OK;

	if (sp >= 0)
		a = H5Acreate2(file, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, H5T_NATIVE_INT, &value) < 0)
		rc = H5_ERR(path, "write attribute '%s'", name);
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

bool f8b_h5_reserved_key(const char *key)
{
	return strcmp(key, F8B_ATTR_SCHEMA) == 0 || strcmp(key, F8B_ATTR_FORMAT) == 0;
}

/* Provenance as fixed-length string attributes of object `obj` ("/" or
 * "/runs/N"); h5py reads them as bytes, h5dump prints them. */
int f8b_h5_write_prov(hid_t file, const char *path, const char *obj,
                      const struct f8b_provenance *prov)
{
	for (size_t i = 0; prov && i < prov->n; i++) {
		if (H5LTset_attribute_string(file, obj, prov->kv[i].key, prov->kv[i].value) < 0)
			return H5_ERR(path, "write provenance attribute '%s' on '%s'",
			              prov->kv[i].key, obj);
	}
	return F8B_OK;
}

struct prov_ctx {
	struct f8b_provenance *p;
	const char *path;
	int rc;
};

/* One attribute as text: strings as they are, numbers printed; other
 * types and arrays are not provenance and are skipped. */
int f8b_h5_read_attr_text(hid_t a, const char *path, const char *name, char *out, size_t n)
{
	hid_t t = H5Aget_type(a), sp = H5Aget_space(a), mt = -1;
	int rc = F8B_OK;

	out[0] = '\0';
	if (t < 0 || sp < 0) {
		rc = H5_ERR(path, "read attribute '%s'", name);
		goto out;
	}
	if (H5Sget_simple_extent_npoints(sp) != 1)
		goto out;
	switch (H5Tget_class(t)) {
	case H5T_INTEGER: {
		long long v;
		if (H5Aread(a, H5T_NATIVE_LLONG, &v) < 0)
			rc = H5_ERR(path, "read attribute '%s'", name);
		else
			snprintf(out, n, "%lld", v);
		break;
	}
	case H5T_FLOAT: {
		double v;
		if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0)
			rc = H5_ERR(path, "read attribute '%s'", name);
		else
			snprintf(out, n, "%.17g", v);
		break;
	}
	case H5T_STRING:
		mt = H5Tcopy(H5T_C_S1);
		/* In the attribute's own character set: HDF5 does not convert
		 * between ASCII and UTF-8 (h5py writes UTF-8). */
		if (mt >= 0 && H5Tset_cset(mt, H5Tget_cset(t)) < 0)
			f8b_h5_close_type(&mt);
		if (H5Tis_variable_str(t) > 0) {
			/* As h5py writes them by default. */
			char *s = NULL;
			if (mt < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Aread(a, mt, &s) < 0) {
				rc = H5_ERR(path, "read attribute '%s'", name);
				break;
			}
			snprintf(out, n, "%s", s ? s : "");
			H5free_memory(s);
		} else {
			if (mt < 0 || H5Tset_size(mt, n) < 0 ||
			    H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 || H5Aread(a, mt, out) < 0)
				rc = H5_ERR(path, "read attribute '%s'", name);
		}
		break;
	default: break;
	}
out:
	f8b_h5_close_type(&mt);
	f8b_h5_close_type(&t);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

void f8b_h5_attr_text(hid_t f, const char *obj, const char *name, char *out, size_t n)
{
	out[0] = '\0';
	/* H5Lexists wants every group above the last link to exist. */
	if (strcmp(obj, "/") != 0) {
		char parent[256];
		const char *slash = strrchr(obj, '/');
		snprintf(parent, sizeof parent, "%.*s", (int)(slash ? slash - obj : 0), obj);
		if ((parent[0] && H5Lexists(f, parent, H5P_DEFAULT) <= 0) ||
		    H5Lexists(f, obj, H5P_DEFAULT) <= 0)
			return;
	}
	if (H5Aexists_by_name(f, obj, name, H5P_DEFAULT) <= 0)
		return;
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0)
		return;
	if (f8b_h5_read_attr_text(a, obj, name, out, n) != F8B_OK)
		out[0] = '\0';
	H5Aclose(a);
}

void f8b_h5_gpu_model(hid_t f, const char *obj, char *out, size_t n)
{
	char name[128], pci[32];
	f8b_h5_attr_text(f, obj, "device_name", name, sizeof name);
	f8b_h5_attr_text(f, obj, "device_pci_id", pci, sizeof pci);
	if (name[0] && pci[0])
		snprintf(out, n, "%s (pci %s)", name, pci);
	else
		snprintf(out, n, "%s", name);
}

static herr_t prov_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
	struct prov_ctx *c = data;
	struct f8b_kv kv;
	hid_t a;
	(void)info;

	if (strlen(name) >= sizeof kv.key)
		return 0; /* not one of ours */
	a = H5Aopen(loc, name, H5P_DEFAULT);
	if (a < 0) {
		c->rc = H5_ERR(c->path, "open attribute '%s'", name);
		return -1;
	}
	c->rc = f8b_h5_read_attr_text(a, c->path, name, kv.value, sizeof kv.value);
	H5Aclose(a);
	if (c->rc == F8B_OK)
		c->rc = f8b_prov_set(c->p, name, "%s", kv.value);
	return c->rc == F8B_OK ? 0 : -1;
}

int f8b_results_read_provenance(const char *path, struct f8b_provenance *p)
{
	struct prov_ctx c = {p, path, F8B_OK};
	hsize_t idx = 0;
	hid_t f;

	f8b_h5_quiet();
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return H5_ERR(path, "open it for reading");
	if (H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, &idx, prov_cb, &c) < 0 && c.rc == F8B_OK)
		c.rc = H5_ERR(path, "list the attributes of its root group");
	H5Fclose(f);
	return c.rc;
}
