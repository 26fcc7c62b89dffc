/* provenance.c - the provenance record written with every run. */
#define _POSIX_C_SOURCE 200809L
#include "harness/provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "git-version.h"

const char *f8b_version_string(void)
{
	return PACKAGE_NAME " " PACKAGE_VERSION " (git " F8B_GIT_DESCRIBE ")";
}

/* Appends arg to buf, single-quoted when it holds shell metacharacters. */
static void append_quoted(char *buf, size_t n, const char *arg)
{
	size_t k = strlen(buf);
	bool plain = arg[0] != '\0' && strspn(arg, "abcdefghijklmnopqrstuvwxyz"
	                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                           "0123456789-_=.,/:+%@") == strlen(arg);
	if (k && k + 1 < n)
		buf[k++] = ' ';
	if (plain) {
		snprintf(buf + k, n - k, "%s", arg);
		return;
	}
	if (k + 1 < n)
		buf[k++] = '\'';
	for (const char *s = arg; *s && k + 5 < n; s++) {
		if (*s == '\'') {
			memcpy(buf + k, "'\\''", 4);
			k += 4;
		} else {
			buf[k++] = *s;
		}
	}
	if (k + 1 < n)
		buf[k++] = '\'';
	buf[k < n ? k : n - 1] = '\0';
}

int f8b_provenance_collect(struct f8b_provenance *p, const struct f8b_comm *c,
                           const struct f8b_device_info *dev, const char *backend, int argc,
                           char **argv)
{
	/* Every rank's device, gathered to rank 0 (one GPU per rank). */
	enum { W = 256 };
	char mine[W];
	snprintf(mine, sizeof mine, "rank %d %.40s: %.100s [%.47s]", c->rank, c->host, dev->name,
	         dev->uuid[0] ? dev->uuid : "no uuid");
	char *all = NULL;
	if (c->rank == 0 && !(all = calloc((size_t)c->size, W)))
		return F8B_ERR(F8B_ENOMEM, "provenance");
	int rc = f8b_comm_gather_str(mine, all, W);
	if (rc != F8B_OK || c->rank != 0) {
		free(all);
		return rc;
	}

	/* argv starts at the subcommand (main strips "f8bench"). */
	char cmd[1024] = "f8bench";
	for (int i = 0; i < argc; i++)
		append_quoted(cmd, sizeof cmd, argv[i]);
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);

	f8b_prov_set(p, "f8bench_version", "%s", PACKAGE_VERSION);
	f8b_prov_set(p, "git_describe", "%s", F8B_GIT_DESCRIBE);
	f8b_prov_set(p, "utc_time", "%s", now);
	f8b_prov_set(p, "host", "%s", c->host);
	f8b_prov_set(p, "command_line", "%s", cmd);
	f8b_prov_set(p, "backend", "%s", backend);
	f8b_prov_set(p, "device_name", "%s", dev->name);
	f8b_prov_set(p, "device_pci_id", "0x%04x", dev->pci_device_id);
	f8b_prov_set(p, "compute_capability", "%d.%d", dev->cc_major, dev->cc_minor);
	f8b_prov_set(p, "sm_count", "%d", dev->sm_count);
	f8b_prov_set(p, "device_memory_bytes", "%zu", dev->mem_bytes);
	f8b_prov_set(p, "l2_bytes", "%zu", dev->l2_bytes);
	f8b_prov_set(p, "driver_version", "%s",
	             dev->driver_version[0] ? dev->driver_version : "unknown");
	f8b_prov_set(p, "cuda_runtime_version", "%s",
	             dev->runtime_version[0] ? dev->runtime_version : "n/a");
	f8b_prov_set(p, "cublaslt_version", "%s",
	             dev->cublaslt_version[0] ? dev->cublaslt_version : "n/a");
	f8b_prov_set(p, "nccl_version", "%s", dev->nccl_version[0] ? dev->nccl_version : "n/a");
	f8b_prov_set(p, "mpi_library", "%s", c->mpi_version);
	f8b_prov_set(p, "mpi_ranks", "%d", c->size);
	/* NCCL_* settings (algorithm, protocol, transports) change collective
	 * bandwidth: rank 0's, space separated ("none" when unset). */
	extern char **environ;
	char nccl[1024] = "";
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "NCCL_", 5))
			append_quoted(nccl, sizeof nccl, *e);
	f8b_prov_set(p, "nccl_env", "%s", nccl[0] ? nccl : "none");

	/* All ranks' devices, one per line. */
	size_t len = (size_t)c->size * (W + 1) + 1;
	char *list = calloc(1, len);
	if (!list) {
		free(all);
		return F8B_ERR(F8B_ENOMEM, "provenance");
	}
	for (int r = 0; r < c->size; r++) {
		strncat(list, all + (size_t)r * W, W);
		if (r + 1 < c->size)
			strcat(list, "\n");
	}
	f8b_prov_set(p, "rank_devices", "%.1000s", list);
	free(list);
	free(all);
	return F8B_OK;
}
