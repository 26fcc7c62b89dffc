/* same_args.c - every rank of a run must have been given the same
 * arguments: the case list, the split of cases over ranks and every
 * collective depend on it, and ranks that disagree would otherwise wait
 * for each other forever or write rows that mean different things.
 * Rank 0's argument list is broadcast; a rank whose list differs names the
 * first option that differs, and rank 0 reports the lowest such rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/comm.h"

#define ARGS_MAX 16384 /* bytes of rank 0's arguments compared */
#define WHY_MAX  400

/* The option an argument belongs to: itself, or the option before it. */
static const char *option_of(int argc, char **argv, int i)
{
	if (i < argc && argv[i][0] == '-')
		return argv[i];
	if (i - 1 >= 1 && i - 1 < argc && argv[i - 1][0] == '-')
		return argv[i - 1];
	return "an argument";
}

int f8b_comm_same_args(int argc, char **argv, int rank, int size)
{
	if (size <= 1)
		return F8B_OK;
	char *buf = calloc(1, ARGS_MAX), *whys = NULL;
	char why[WHY_MAX] = "";
	if (!buf)
		return F8B_ERR(F8B_ENOMEM, "argument check");
	int len = 0;
	if (rank == 0)
		for (int i = 1; i < argc; i++) {
			size_t n = strlen(argv[i]) + 1;
			if ((size_t)len + n > ARGS_MAX)
				break;
			memcpy(buf + len, argv[i], n);
			len += (int)n;
		}
	int rc = f8b_comm_bcast(&len, sizeof len);
	if (rc == F8B_OK)
		rc = f8b_comm_bcast(buf, (size_t)len);
	if (rc == F8B_OK && rank != 0) {
		int i = 1, off = 0;
		while (off < len && i < argc && !strcmp(buf + off, argv[i])) {
			off += (int)strlen(buf + off) + 1;
			i++;
		}
		if (off < len || i < argc) {
			const char *theirs = off < len ? buf + off : "(nothing)";
			const char *mine = i < argc ? argv[i] : "(nothing)";
			int w = snprintf(
			    why, sizeof why,
			    "the ranks were given different arguments: at %.40s, rank 0 has "
			    "'%.60s' "
			    "and rank %d has '%.60s' (every rank must run the same command)",
			    option_of(argc, argv, i < argc ? i : argc - 1), theirs, rank, mine);
			(void)w;
		}
	}
	if (rc == F8B_OK && rank == 0 && !(whys = calloc((size_t)size, WHY_MAX)))
		rc = F8B_ERR(F8B_ENOMEM, "argument check");
	if (rc == F8B_OK)
		rc = f8b_comm_gather(why, whys, WHY_MAX);
	int bad = why[0] != 0;
	if (rc == F8B_OK)
		rc = f8b_comm_max_int(&bad);
	if (rc == F8B_OK && bad) {
		const char *first = "another rank was given different arguments";
		for (int r = 1; whys && r < size; r++)
			if (whys[(size_t)r * WHY_MAX]) {
				first = whys + (size_t)r * WHY_MAX;
				break;
			}
		rc = F8B_ERR(F8B_EINVAL, "%s", rank == 0 ? first : (why[0] ? why : first));
	}
	free(buf);
	free(whys);
	return rc;
}
