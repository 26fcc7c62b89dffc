/* nvml_dl.h - the driver's management library (NVML), loaded at run time.
 *
 * libnvidia-ml.so.1 exists only where an NVIDIA driver is installed, so it
 * is dlopen()ed, never linked: the same binary starts on a machine without
 * it, and every query then answers "unknown" (false) instead of failing.
 * Nothing here prints or aborts.
 *
 * Clocks-event ("throttle") reasons, the NVML bitmask returned by
 * nvmlDeviceGetCurrentClocksEventReasons (named ...ClocksThrottleReasons
 * before driver 535; same bits), from nvml.h "ClocksEventReasons":
 *   0x001 GPU idle                   0x002 applications clocks setting
 *   0x004 SW power cap               0x008 HW slowdown
 *   0x010 sync boost                 0x020 SW thermal slowdown
 *   0x040 HW thermal slowdown        0x080 HW power brake slowdown
 *   0x100 display clock setting
 * A sample counts as throttled when any bit other than idle and the
 * applications-clocks setting is set: those two describe a clock that was
 * chosen (nothing to run, or a user-pinned clock), every other one a clock
 * pulled below what the GPU would otherwise run.
 */
#ifndef F8B_NVML_DL_H
#define F8B_NVML_DL_H

#include <stdbool.h>
#include <stddef.h>

#define F8B_NVML_REASON_GPU_IDLE   0x1ULL
#define F8B_NVML_REASON_APP_CLOCKS 0x2ULL
/* Reasons that are not a throttle (see above). */
#define F8B_NVML_REASONS_BENIGN (F8B_NVML_REASON_GPU_IDLE | F8B_NVML_REASON_APP_CLOCKS)

struct f8b_nvml;

/* Loads NVML, initialises it and finds the device by PCI bus id
 * ("0000:3b:00.0", from cudaDeviceGetPCIBusId) or, failing that, by UUID
 * ("GPU-..." as NVML prints it); either may be NULL.  Returns NULL with a
 * one-line reason in why (e.g. "libnvidia-ml.so.1 not found: ...") when
 * the library, a required symbol or the device is missing. */
struct f8b_nvml *f8b_nvml_open(const char *pci_bus_id, const char *uuid, char *why, size_t n);
void f8b_nvml_close(struct f8b_nvml *nv);

/* Each returns false (and leaves outputs untouched) when nv is NULL or the
 * query is unavailable on this driver / device. */
bool f8b_nvml_driver_version(struct f8b_nvml *nv, char *buf, size_t n); /* "580.95.05" */
bool f8b_nvml_pci_device_id(struct f8b_nvml *nv, unsigned *id);         /* 0x2330 (H100 SXM) */
bool f8b_nvml_clocks(struct f8b_nvml *nv, unsigned *sm_mhz, unsigned *mem_mhz);
bool f8b_nvml_clock_reasons(struct f8b_nvml *nv, unsigned long long *reasons);

/* True when reasons holds a bit other than F8B_NVML_REASONS_BENIGN. */
bool f8b_nvml_is_throttled(unsigned long long reasons);

#endif
