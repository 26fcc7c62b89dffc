/* test_project.c - the allgather projection (src/model/project.c): the
 * ring formula, the network past one node, and the replay of the step's
 * two queues on cases worked out by hand. */
#include <math.h>
#include <string.h>

#include "model/project.h"
#include "tap.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static struct f8b_proj_net net(double intra_bw, double intra_a, double inter_bw, double inter_a)
{
	return (struct f8b_proj_net){{intra_bw, intra_a}, {inter_bw, inter_a}, 8, false};
}

int main(void)
{
	struct f8b_proj_net n = net(400e9, 10e-6, 50e9, 5e-6);
	/* ring: alpha + (R-1)/R S / busbw */
	tap_ok(f8b_proj_ring(&n, 1e9, 1) == 0, "one rank: no collective");
	tap_ok(near(f8b_proj_ring(&n, 1e9, 8), 7 * 10e-6 + 7.0 / 8 * 1e9 / 400e9),
	       "8 ranks, one node: intra-node alpha and busbw (%g s)", f8b_proj_ring(&n, 1e9, 8));
	tap_ok(near(f8b_proj_ring(&n, 1e9, 16), 15 * 5e-6 + 15.0 / 16 * 1e9 / 50e9),
	       "16 ranks, two nodes: held to the network's busbw (%g s)",
	       f8b_proj_ring(&n, 1e9, 16));
	struct f8b_proj_net fast = net(100e9, 10e-6, 400e9, 5e-6);
	tap_ok(near(f8b_proj_ring(&fast, 1e9, 16), 15 * 5e-6 + 15.0 / 16 * 1e9 / 100e9),
	       "a network faster than the node is held to the node's busbw");
	tap_ok(near(f8b_proj_allreduce_small(&n, 1024), 2 * 10 * 5e-6),
	       "1024 ranks: the small all-reduce takes the tree (2 log2 R alpha)");
	tap_ok(near(f8b_proj_loglat(&n, 1e9, 1024), 10 * 5e-6 + 1023.0 / 1024 * 1e9 / 50e9),
	       "log-latency bound, 1024 ranks: 10 latency steps (%g s)",
	       f8b_proj_loglat(&n, 1e9, 1024));
	tap_ok(f8b_proj_loglat(&n, 1e9, 1024) < f8b_proj_ring(&n, 1e9, 1024) &&
	           near(f8b_proj_loglat(&n, 1e9, 2), f8b_proj_ring(&n, 1e9, 2)),
	       "the bound is below the ring past 2 ranks, equal at 2");
	tap_ok(near(f8b_proj_allreduce_small(&n, 2), 2 * 10e-6),
	       "2 ranks: the ring (2 (R-1) alpha)");

	/* One layer, prefetch 1, 2 ranks, alpha 0: a gather of S bytes takes
	 * S/2/busbw.  gathers 1 s each, forward 2 s, grad_input 1 s, dW 1 s,
	 * reduce-scatter 0.5 s:
	 *   comm: gather0 0..1, gather1 1..2; compute: fwd 1..3, gi 3..4,
	 *   dW 4..5; reduce-scatter 5..5.5.  Step 5.5 s. */
	struct f8b_proj_net z = net(1e9, 0, 1e9, 0);
	struct f8b_proj_step st;
	memset(&st, 0, sizeof st);
	st.layers = 1;
	st.prefetch = 1;
	st.fwd_s[0] = 2;
	st.gi_s[0] = 1;
	st.gw_s[0] = 1;
	st.ag_bytes[0] = st.ag_bytes[1] = 2e9;
	st.rs_bytes[0] = 1e9;
	st.slowdown = 1;
	struct f8b_proj_result r;
	int rc = f8b_proj_run(&st, &z, 2, &r);
	tap_ok(rc == 0 && near(r.step_s, 5.5) && near(r.compute_s, 4) && near(r.comm_s, 2.5) &&
	           near(r.exposed_s, 1.5),
	       "one layer by hand: step %g s (5.5), compute %g (4), comm %g (2.5)", r.step_s,
	       r.compute_s, r.comm_s);
	/* One rank: nothing to wait for, the step is its compute. */
	rc = f8b_proj_run(&st, &z, 1, &r);
	tap_ok(rc == 0 && near(r.step_s, 4) && near(r.exposed_s, 0),
	       "one rank: the step is the compute (%g s)", r.step_s);
	/* Two layers, prefetch 0 against 1: prefetch hides a gather. */
	st.layers = 2;
	st.fwd_s[1] = 2;
	st.gi_s[1] = 1;
	st.gw_s[1] = 1;
	st.ag_bytes[2] = st.ag_bytes[3] = 2e9;
	st.rs_bytes[1] = 1e9;
	struct f8b_proj_result r0, r1;
	st.prefetch = 0;
	f8b_proj_run(&st, &z, 2, &r0);
	st.prefetch = 1;
	f8b_proj_run(&st, &z, 2, &r1);
	/* P=0: g0 0..1 f0 1..3 g1 3..4 f1 4..6 g2(bwd l1) 6..7 gi 7..8 dW 8..9
	 *      g3(bwd l0) 9..10 rs1 10..10.5 gi0 10..11 dW0 11..12 rs0 12..12.5
	 * P=1: g0 0..1 g1 1..2 f0 1..3 g2 3..4 f1 3..5 g3 5..6 bwd1: gi 5..6
	 *      dW 6..7 rs1 7..7.5; bwd0: gi 7..8 (g3 done at 6) dW 8..9 rs0 9..9.5 */
	tap_ok(near(r0.step_s, 12.5), "two layers without prefetch: %g s (12.5)", r0.step_s);
	tap_ok(near(r1.step_s, 9.5), "two layers, prefetch 1: %g s (9.5)", r1.step_s);
	/* Communication-bound: the step is at least the collectives. */
	st.ag_bytes[0] = st.ag_bytes[1] = st.ag_bytes[2] = st.ag_bytes[3] = 40e9;
	f8b_proj_run(&st, &z, 2, &r);
	tap_ok(r.step_s >= r.comm_s && r.exposed_s > 0,
	       "communication-bound: step %g s >= its collectives %g s", r.step_s, r.comm_s);
	/* A slowdown stretches the compute. */
	st.ag_bytes[0] = st.ag_bytes[1] = st.ag_bytes[2] = st.ag_bytes[3] = 2e9;
	st.slowdown = 1.1;
	f8b_proj_run(&st, &z, 1, &r);
	tap_ok(near(r.step_s, 1.1 * 8), "slowdown 1.1 at one rank: %g s (8.8)", r.step_s);
	st.slowdown = 0.5;
	tap_ok(f8b_proj_run(&st, &z, 2, &r) == -1, "a slowdown below 1 is refused");
	return tap_done();
}
