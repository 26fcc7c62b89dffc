/* comm.c - MPI plumbing.  Errors come back as statuses with MPI's own
 * error string; MPI_ERRORS_RETURN is set so a failing call does not abort
 * behind our back. */
#define _POSIX_C_SOURCE 200809L
#include "comm.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int mpi_err(int rc, const char *call)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	return F8B_ERR(F8B_EMPI, "%s: %s", call, msg);
}

#define F8B_MPI(call)                                                          \
	do {                                                                   \
		int f8b_mpi_rc_ = (call);                                      \
		if (f8b_mpi_rc_ != MPI_SUCCESS)                                \
			return mpi_err(f8b_mpi_rc_, #call);                    \
	} while (0)

int f8b_comm_init(int *argc, char ***argv, struct f8b_comm *c)
{
	memset(c, 0, sizeof *c);
	int inited = 0;
	MPI_Initialized(&inited);
	if (!inited)
		F8B_MPI(MPI_Init(argc, argv));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	F8B_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &c->rank));
	F8B_MPI(MPI_Comm_size(MPI_COMM_WORLD, &c->size));

	/* Ranks sharing a node pick GPUs by their rank among that node. */
	MPI_Comm node;
	F8B_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank,
				    MPI_INFO_NULL, &node));
	F8B_MPI(MPI_Comm_rank(node, &c->local_rank));
	F8B_MPI(MPI_Comm_size(node, &c->local_size));
	MPI_Comm_free(&node);

	if (gethostname(c->host, sizeof c->host) != 0)
		snprintf(c->host, sizeof c->host, "unknown");
	c->host[sizeof c->host - 1] = '\0';
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;
	MPI_Get_library_version(v, &len);
	v[strcspn(v, "\n")] = '\0';
	v[sizeof c->mpi_version - 1] = '\0'; /* first line is enough */
	memcpy(c->mpi_version, v, strlen(v) + 1);
	f8b_set_error_context(c->host, c->rank);
	return F8B_OK;
}

void f8b_comm_finalize(void)
{
	int fin = 0;
	MPI_Finalized(&fin);
	if (!fin)
		MPI_Finalize();
}

void f8b_comm_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

int f8b_comm_gather(const void *send, void *recv, size_t bytes)
{
	F8B_MPI(MPI_Gather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, 0,
			   MPI_COMM_WORLD));
	return F8B_OK;
}

int f8b_comm_bcast(void *buf, size_t bytes)
{
	F8B_MPI(MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
	return F8B_OK;
}

int f8b_comm_max_int(int *v)
{
	int in = *v;
	F8B_MPI(MPI_Allreduce(&in, v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	return F8B_OK;
}

int f8b_comm_max_double(double *v, int n)
{
	double in[8];
	if (n > 8)
		return F8B_ERR(F8B_EINTERNAL, "max of %d doubles", n);
	memcpy(in, v, sizeof *v * (size_t)n);
	F8B_MPI(MPI_Allreduce(in, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	return F8B_OK;
}

int f8b_comm_barrier(void)
{
	F8B_MPI(MPI_Barrier(MPI_COMM_WORLD));
	return F8B_OK;
}

int f8b_comm_gather_str(const char *s, char *recv, size_t n)
{
	char buf[256];
	if (n > sizeof buf)
		return F8B_ERR(F8B_EINTERNAL, "gather_str of %zu bytes", n);
	memset(buf, 0, n);
	snprintf(buf, n, "%s", s);
	return f8b_comm_gather(buf, recv, n);
}
