/* peaks.h - datasheet ceilings of a GPU, read from roofline/datasheet.tsv
 * and looked up by PCI device id (the device's name only as a fallback,
 * which is reported as such). */
#ifndef F8B_PEAKS_H
#define F8B_PEAKS_H

#include "backend.h"

struct f8b_peaks {
	bool known;
	char name[64];      /* datasheet row's name */
	char how[64];       /* "pci id 0x2330", "name match", "unknown" */
	double bf16_tflops; /* dense */
	double fp8_tflops;  /* dense; 0 = no fp8 */
	double hbm_tbs;
};

/* Never fails: an unknown device gives known=false (pct_peak is NaN). */
void f8b_peaks_lookup(const struct f8b_device_info *dev, struct f8b_peaks *p);
/* Peak for a GEMM whose operands are of dtype t (bf16 or fp8). */
double f8b_peak_tflops(const struct f8b_peaks *p, enum f8b_dtype t);

#endif
