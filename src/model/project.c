/* project.c - the allgather step past one node (project.h). */
#include "model/project.h"

#include <math.h>

static const struct f8b_proj_link *link_of(const struct f8b_proj_net *net, int ranks,
                                           struct f8b_proj_link *tmp)
{
	if (ranks <= net->gpus_per_node)
		return &net->intra;
	tmp->busbw = fmin(net->intra.busbw, net->inter.busbw);
	tmp->alpha_s = net->inter.alpha_s;
	return tmp;
}

double f8b_proj_ring(const struct f8b_proj_net *net, double bytes, int ranks)
{
	if (ranks <= 1)
		return 0;
	struct f8b_proj_link tmp;
	const struct f8b_proj_link *l = link_of(net, ranks, &tmp);
	double r = ranks;
	return (r - 1) * l->alpha_s + (r - 1) / r * bytes / l->busbw;
}

double f8b_proj_loglat(const struct f8b_proj_net *net, double bytes, int ranks)
{
	if (ranks <= 1)
		return 0;
	struct f8b_proj_link tmp;
	const struct f8b_proj_link *l = link_of(net, ranks, &tmp);
	double r = ranks;
	return ceil(log2(r)) * l->alpha_s + (r - 1) / r * bytes / l->busbw;
}

static double coll(const struct f8b_proj_net *net, double bytes, int ranks)
{
	return net->lower ? f8b_proj_loglat(net, bytes, ranks) : f8b_proj_ring(net, bytes, ranks);
}

double f8b_proj_allreduce_small(const struct f8b_proj_net *net, int ranks)
{
	if (ranks <= 1)
		return 0;
	struct f8b_proj_link tmp;
	const struct f8b_proj_link *l = link_of(net, ranks, &tmp);
	double ring = 2.0 * (ranks - 1) * l->alpha_s, tree = 2.0 * ceil(log2(ranks)) * l->alpha_s;
	return fmin(ring, tree);
}

/* The communication queue: work starts when the queue is free and its
 * dependency is met. */
static double queue(double *free_at, double ready, double dur)
{
	double start = fmax(*free_at, ready);
	*free_at = start + dur;
	return *free_at;
}

int f8b_proj_run(const struct f8b_proj_step *st, const struct f8b_proj_net *net, int ranks,
                 struct f8b_proj_result *out)
{
	int L = st->layers, P = st->prefetch, U = 2 * st->layers;
	if (L < 1 || L > F8B_PROJ_MAX_LAYERS || P < 0 || ranks < 1 || !(st->slowdown >= 1) ||
	    net->gpus_per_node < 1 || !(net->intra.busbw > 0) || !(net->inter.busbw > 0))
		return -1;
	if (P > U - 1)
		P = U - 1;
	double gath[2 * F8B_PROJ_MAX_LAYERS], used[2 * F8B_PROJ_MAX_LAYERS];
	double rs_done[F8B_PROJ_MAX_LAYERS + 2];
	double comm = 0, comp = 0, comm_sum = 0, comp_sum = 0, s = st->slowdown;
	if (st->amax_allreduce) {
		double t = st->measured ? st->ar_s : f8b_proj_allreduce_small(net, ranks);
		comm_sum += t;
		queue(&comm, 0, t);
	}
	/* issue(u): after use u-(P+1) left its slot */
#define ISSUE(u)                                                                                   \
	do {                                                                                       \
		if ((u) < U) {                                                                     \
			double t_ =                                                                \
			    st->measured ? st->ag_s[(u)] : coll(net, st->ag_bytes[(u)], ranks);    \
			comm_sum += t_;                                                            \
			gath[(u)] = queue(&comm, (u) >= P + 1 ? used[(u)-P - 1] : 0, t_);          \
		}                                                                                  \
	} while (0)
	for (int u = 0; u <= P; u++)
		ISSUE(u);
	for (int l = 0; l < L; l++) {
		comp = fmax(comp, gath[l]) + s * st->fwd_s[l];
		comp_sum += s * st->fwd_s[l];
		used[l] = comp;
		ISSUE(l + P + 1);
	}
	for (int l = 0; l < L + 2; l++)
		rs_done[l] = 0;
	for (int l = L - 1; l >= 0; l--) {
		int u = U - 1 - l;
		comp = fmax(comp, gath[u]) + s * st->gi_s[l];
		comp = fmax(comp, l + 2 < L ? rs_done[l + 2] : 0) + s * st->gw_s[l];
		comp_sum += s * (st->gi_s[l] + st->gw_s[l]);
		used[u] = comp;
		ISSUE(u + P + 1);
		double t = st->measured ? st->rs_s[l] : coll(net, st->rs_bytes[l], ranks);
		comm_sum += t;
		rs_done[l] = queue(&comm, comp, t);
	}
#undef ISSUE
	out->step_s = fmax(comp, comm);
	out->compute_s = comp_sum;
	out->comm_s = comm_sum;
	out->exposed_s = out->step_s - comp_sum;
	return 0;
}
