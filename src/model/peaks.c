/* peaks.c - datasheet table lookup (roofline/datasheet.tsv). */
#define _DEFAULT_SOURCE /* realpath */
#include "model/peaks.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool f8b_roofline_data_dir(const char *file, char *out, size_t n)
{
	const char *dirs[3] = {getenv("F8B_ROOFLINE"), NULL, NULL};
#ifdef F8B_PKGDATADIR
	dirs[1] = F8B_PKGDATADIR "/roofline";
#endif
#ifdef F8B_SRCDIR
	dirs[2] = F8B_SRCDIR "/roofline";
#endif
	for (int i = 0; i < 3; i++) {
		char p[4096];
		if (!dirs[i] || !dirs[i][0])
			continue;
		snprintf(p, sizeof p, "%s/%s", dirs[i], file);
		if (access(p, R_OK) == 0 && realpath(dirs[i], out) && strlen(out) < n)
			return true;
	}
	return false;
}

static FILE *open_table(void)
{
	char dir[4096], path[4200];
	if (!f8b_roofline_data_dir("datasheet.tsv", dir, sizeof dir))
		return NULL;
	snprintf(path, sizeof path, "%s/datasheet.tsv", dir);
	return fopen(path, "r");
}

/* Case-insensitive substring, for the name fallback. */
static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] &&
		       tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

void f8b_peaks_lookup(const struct f8b_device_info *dev, struct f8b_peaks *p)
{
	memset(p, 0, sizeof *p);
	snprintf(p->how, sizeof p->how, "unknown");
	FILE *f = open_table();
	if (!f)
		return;
	char line[512];
	struct f8b_peaks by_name = {0};
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char *save = NULL;
		char *id = strtok_r(line, "\t", &save);
		char *name = strtok_r(NULL, "\t", &save);
		char *bf = strtok_r(NULL, "\t", &save);
		char *f8 = strtok_r(NULL, "\t", &save);
		char *bw = strtok_r(NULL, "\t\n", &save);
		if (!id || !name || !bf || !f8 || !bw)
			continue;
		struct f8b_peaks row = {.known = true,
		                        .bf16_tflops = atof(bf),
		                        .fp8_tflops = atof(f8),
		                        .hbm_tbs = atof(bw)};
		snprintf(row.name, sizeof row.name, "%s", name);
		unsigned pci = (unsigned)strtoul(id, NULL, 0);
		if (dev->pci_device_id && pci == dev->pci_device_id) {
			*p = row;
			snprintf(p->how, sizeof p->how, "pci id 0x%04x", pci);
			fclose(f);
			return;
		}
		/* Fallback: the first word pair of the datasheet name ("H100 SXM5")
		 * reduced to its model ("H100") found in the device name. */
		char model[32];
		snprintf(model, sizeof model, "%s", name);
		model[strcspn(model, " ")] = '\0';
		if (!by_name.known && model[0] && contains(dev->name, model)) {
			by_name = row;
			snprintf(by_name.how, sizeof by_name.how, "name match '%s'", model);
		}
	}
	fclose(f);
	if (by_name.known)
		*p = by_name;
}

double f8b_peak_tflops(const struct f8b_peaks *p, enum f8b_dtype t)
{
	if (!p->known)
		return NAN;
	double v = f8b_dtype_is_fp8(t) ? p->fp8_tflops : p->bf16_tflops;
	return v > 0 ? v : NAN;
}
