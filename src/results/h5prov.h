/* h5prov.h - provenance reads for the code outside src/results/ that opens
 * results files with HDF5 itself (report/compare_rows.c, report/merge.c). */
#ifndef F8B_H5PROV_H
#define F8B_H5PROV_H

#include <stddef.h>

#include <hdf5.h>

/* Attribute `name` of object obj ("/" or "/runs/N") as text (strings as
 * they are, fixed- or variable-length; numbers printed); "" when the
 * object or attribute is absent or unreadable. */
void f8b_h5_attr_text(hid_t f, const char *obj, const char *name, char *out, size_t n);

/* The GPU model of obj's provenance: "NAME (pci ID)", "NAME" without a
 * PCI id, "" without a device name. */
void f8b_h5_gpu_model(hid_t f, const char *obj, char *out, size_t n);

#endif
