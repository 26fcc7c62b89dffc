/* provenance.h - what produced a results file: versions, time, host,
 * command line, backend, every rank's GPU, MPI library and ranks. */
#ifndef F8B_PROVENANCE_H
#define F8B_PROVENANCE_H

#include "backend/backend.h"
#include "harness/comm.h"
#include "results/results.h"

/* Collective: every rank calls it; rank 0's *p gets the full record
 * (other ranks' GPUs included).  The command line is quoted so that it
 * can be pasted back into a shell. */
int f8b_provenance_collect(struct f8b_provenance *p, const struct f8b_comm *c,
                           const struct f8b_device_info *dev, const char *backend, int argc,
                           char **argv);

/* "f8bench 0.1.0 (git v0.1.0-3-gabcdef)" */
const char *f8b_version_string(void);

#endif
