/* comm.h - MPI: init, rank, local rank -> GPU, row gathering.
 * (NCCL collectives join this module with the all-gather benchmark.) */
#ifndef F8B_COMM_H
#define F8B_COMM_H

#include "common.h"

struct f8b_comm {
	int rank, size;
	int local_rank, local_size; /* among ranks on this node */
	char host[64];
	char mpi_version[256]; /* MPI_Get_library_version, first line */
};

/* MPI_Init (errors returned, not fatal) and the fields above; sets the
 * error-message context to "host:rank N". */
int f8b_comm_init(int *argc, char ***argv, struct f8b_comm *c);
void f8b_comm_finalize(void);
/* Aborts every rank (only main decides to call this). */
void f8b_comm_abort(int code);

/* Rank 0 receives `bytes` from every rank into recv (size*bytes). */
int f8b_comm_gather(const void *send, void *recv, size_t bytes);
int f8b_comm_bcast(void *buf, size_t bytes);
/* Logical OR / max of an int over ranks (all ranks get the result). */
int f8b_comm_max_int(int *v);
int f8b_comm_barrier(void);
/* Element-wise maximum of n doubles over ranks (all ranks get it). */
int f8b_comm_max_double(double *v, int n);
/* Gathers a fixed-size string from every rank to rank 0 (size*n bytes). */
int f8b_comm_gather_str(const char *s, char *recv, size_t n);

#endif
