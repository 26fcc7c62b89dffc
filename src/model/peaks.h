/* peaks.h - datasheet ceilings of a GPU, read from roofline/datasheet.tsv
 * and looked up by PCI device id (the device's name only as a fallback,
 * which is reported as such). */
#ifndef F8B_PEAKS_H
#define F8B_PEAKS_H

#include "backend/backend.h"

struct f8b_peaks {
	bool known;
	char name[64];      /* datasheet row's name */
	char how[64];       /* "pci id 0x2330", "name match", "unknown" */
	double bf16_tflops; /* dense */
	double fp8_tflops;  /* dense; 0 = no fp8 */
	double hbm_tbs;
};

/* The roofline/ data directory that holds `file` (datasheet.tsv, the
 * gnuplot templates): $F8B_ROOFLINE, then the installed data directory,
 * then the source tree.  Its real path into out; false when none has it. */
bool f8b_roofline_data_dir(const char *file, char *out, size_t n);

/* Never fails: an unknown device gives known=false (pct_peak is NaN). */
void f8b_peaks_lookup(const struct f8b_device_info *dev, struct f8b_peaks *p);
/* Peak for a GEMM whose operands are of dtype t (bf16 or fp8). */
double f8b_peak_tflops(const struct f8b_peaks *p, enum f8b_dtype t);

#endif
