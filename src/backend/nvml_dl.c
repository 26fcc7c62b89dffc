/* nvml_dl.c - NVML through dlopen: driver version, PCI id, clocks, reasons.
 *
 * The few NVML types and entry points used are declared here from the
 * NVML API reference (docs.nvidia.com/deploy/nvml-api), so neither nvml.h
 * nor libnvidia-ml is needed to build.  NVML keeps its ABI by versioning
 * symbol names (_v2, _v3), so each lookup names the version whose struct
 * layout is declared below.
 */
#define _POSIX_C_SOURCE 200809L
#include "backend/nvml_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_ret;                       /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t, opaque */

#define NVML_OK                 0
#define NVML_CLOCK_SM           1 /* nvmlClockType_t */
#define NVML_CLOCK_MEM          2
#define NVML_DRIVER_VERSION_LEN 80 /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */

/* nvmlPciInfo_t as written by nvmlDeviceGetPciInfo_v3 (68 bytes).  The
 * older _v2 writes a 52-byte struct whose first 36 bytes are the same, so
 * one buffer serves both and pci_device_id sits at the same offset. */
struct nvml_pci_info {
	char bus_id_legacy[16];
	unsigned domain, bus, device;
	unsigned pci_device_id; /* device id << 16 | vendor id (0x10DE) */
	unsigned pci_subsystem_id;
	char bus_id[32];
};

typedef nvml_ret (*fn_void)(void);
typedef const char *(*fn_error_string)(nvml_ret);
typedef nvml_ret (*fn_handle_by_str)(const char *, nvml_device *);
typedef nvml_ret (*fn_clock)(nvml_device, int, unsigned *);
typedef nvml_ret (*fn_reasons)(nvml_device, unsigned long long *);
typedef nvml_ret (*fn_driver_version)(char *, unsigned);
typedef nvml_ret (*fn_pci_info)(nvml_device, struct nvml_pci_info *);

struct f8b_nvml {
	void *lib;
	nvml_device dev;
	fn_void shutdown;
	fn_clock clock_info;
	fn_reasons reasons;
	fn_driver_version driver_version;
	fn_pci_info pci_info;
};

/* dlsym returns an object pointer; POSIX guarantees it converts to a
 * function pointer (dlsym(3), "Application Usage"). */
static void *sym(void *lib, const char *name)
{
	return lib ? dlsym(lib, name) : NULL;
}

static const char *nvml_error(void *lib, nvml_ret r, char *buf, size_t n)
{
	fn_error_string es = (fn_error_string)sym(lib, "nvmlErrorString");
	const char *s = es ? es(r) : NULL;

	if (s)
		return s;
	snprintf(buf, n, "NVML error %d", r);
	return buf;
}

struct f8b_nvml *f8b_nvml_open(const char *pci_bus_id, const char *uuid, char *why, size_t n)
{
	char ebuf[32];
	struct f8b_nvml *nv;
	fn_void init;
	fn_handle_by_str by_bus, by_uuid;
	nvml_ret r = NVML_OK;

	if (why && n)
		why[0] = '\0';
	nv = calloc(1, sizeof *nv);
	if (!nv) {
		if (why)
			snprintf(why, n, "no memory for the NVML state");
		return NULL;
	}
	/* The .so.1 name is the driver's ABI; the unversioned libnvidia-ml.so
	 * exists only with development packages. */
	nv->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nv->lib) {
		if (why) {
			const char *e = dlerror();
			snprintf(why, n, "libnvidia-ml.so.1 not loadable: %s", e ? e : "?");
		}
		free(nv);
		return NULL;
	}
	init = (fn_void)sym(nv->lib, "nvmlInit_v2");
	nv->shutdown = (fn_void)sym(nv->lib, "nvmlShutdown");
	if (!init || !nv->shutdown) {
		if (why)
			snprintf(why, n, "libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlShutdown");
		dlclose(nv->lib);
		free(nv);
		return NULL;
	}
	r = init();
	if (r != NVML_OK) {
		if (why)
			snprintf(why, n, "nvmlInit_v2: %s",
			         nvml_error(nv->lib, r, ebuf, sizeof ebuf));
		dlclose(nv->lib);
		free(nv);
		return NULL;
	}

	/* CUDA ordinals are renumbered by CUDA_VISIBLE_DEVICES and NVML's are
	 * not, so the device is matched by PCI address (then UUID), never by
	 * index. */
	by_bus = (fn_handle_by_str)sym(nv->lib, "nvmlDeviceGetHandleByPciBusId_v2");
	by_uuid = (fn_handle_by_str)sym(nv->lib, "nvmlDeviceGetHandleByUUID");
	r = -1;
	if (by_bus && pci_bus_id && pci_bus_id[0])
		r = by_bus(pci_bus_id, &nv->dev);
	if (r != NVML_OK && by_uuid && uuid && uuid[0])
		r = by_uuid(uuid, &nv->dev);
	if (r != NVML_OK) {
		if (why)
			snprintf(why, n, "NVML does not know the device (PCI %s, UUID %s): %s",
			         pci_bus_id ? pci_bus_id : "?", uuid ? uuid : "?",
			         r == -1 ? "no lookup function"
			                 : nvml_error(nv->lib, r, ebuf, sizeof ebuf));
		nv->shutdown();
		dlclose(nv->lib);
		free(nv);
		return NULL;
	}

	nv->clock_info = (fn_clock)sym(nv->lib, "nvmlDeviceGetClockInfo");
	/* Renamed in driver 535; the old name is kept as an alias there and
	 * is the only one before it. */
	nv->reasons = (fn_reasons)sym(nv->lib, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nv->reasons)
		nv->reasons = (fn_reasons)sym(nv->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	nv->driver_version = (fn_driver_version)sym(nv->lib, "nvmlSystemGetDriverVersion");
	nv->pci_info = (fn_pci_info)sym(nv->lib, "nvmlDeviceGetPciInfo_v3");
	if (!nv->pci_info)
		nv->pci_info = (fn_pci_info)sym(nv->lib, "nvmlDeviceGetPciInfo_v2");
	return nv;
}

void f8b_nvml_close(struct f8b_nvml *nv)
{
	if (!nv)
		return;
	nv->shutdown();
	dlclose(nv->lib);
	free(nv);
}

bool f8b_nvml_driver_version(struct f8b_nvml *nv, char *buf, size_t n)
{
	char v[NVML_DRIVER_VERSION_LEN];

	if (!nv || !nv->driver_version || !buf || n == 0)
		return false;
	if (nv->driver_version(v, sizeof v) != NVML_OK)
		return false;
	v[sizeof v - 1] = '\0';
	snprintf(buf, n, "%s", v);
	return true;
}

bool f8b_nvml_pci_device_id(struct f8b_nvml *nv, unsigned *id)
{
	struct nvml_pci_info pi;

	if (!nv || !nv->pci_info || !id)
		return false;
	memset(&pi, 0, sizeof pi);
	if (nv->pci_info(nv->dev, &pi) != NVML_OK)
		return false;
	*id = pi.pci_device_id >> 16;
	return true;
}

bool f8b_nvml_clocks(struct f8b_nvml *nv, unsigned *sm_mhz, unsigned *mem_mhz)
{
	unsigned sm, mem;

	if (!nv || !nv->clock_info)
		return false;
	if (nv->clock_info(nv->dev, NVML_CLOCK_SM, &sm) != NVML_OK ||
	    nv->clock_info(nv->dev, NVML_CLOCK_MEM, &mem) != NVML_OK)
		return false;
	if (sm_mhz)
		*sm_mhz = sm;
	if (mem_mhz)
		*mem_mhz = mem;
	return true;
}

bool f8b_nvml_clock_reasons(struct f8b_nvml *nv, unsigned long long *reasons)
{
	unsigned long long r;

	if (!nv || !nv->reasons || !reasons)
		return false;
	if (nv->reasons(nv->dev, &r) != NVML_OK)
		return false;
	*reasons = r;
	return true;
}

bool f8b_nvml_is_throttled(unsigned long long reasons)
{
	return (reasons & ~F8B_NVML_REASONS_BENIGN) != 0;
}
