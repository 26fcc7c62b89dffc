#!/bin/sh
# mpi_collectives.sh - collective samples time the collective, not the host.
# Every NCCL sample once read a constant ~3.9 ms on an H200 pair, whatever
# the size: under mpirun's default binding (one core per rank) the enqueue
# of each call (a thread NCCL starts per call on a non-blocking
# communicator, kept off the core by a spinning poller) was timed.  Run
# exactly that way (plain mpiexec -n 2, no --bind-to), these checks fail if
# it comes back:
#   - at 64 and 256 MiB, the all-gather's per-call time from f8bench's
#     own samples (an adaptive batch, ~1 ms of calls per sample) agrees
#     within 10% with the per-call time of a long back-to-back batch
#     (--batch 50): a timed enqueue or rank skew shows up in one and not
#     the other;
#   - a 1 MiB all-gather is under 50 us (NVLink: ~12-15 us; a timed
#     enqueue reads 40 us to 4 ms);
#   - the adaptive batch was used (batch > 1 at 1 MiB) and the host keeps
#     up: at least 200 samples of the 1 MiB case within the 10 s cap (a
#     3.9 ms enqueue per call allows ~40).
# Needs mpiexec and 2 GPUs; skips (exit 77) otherwise.
. "${srcdir:-.}/tests/tap.sh"
skip77() {
	echo "1..0 # SKIP $*"
	exit 77
}
[ -n "$MPIEXEC" ] || skip77 "no mpiexec found by configure"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "${ngpu:-0}" -ge 2 ] || skip77 "needs 2 GPUs (found ${ngpu:-0})"
cd "$tmp" || exit 1
export NCCL_NVLS_ENABLE=0
extra=$(ompi_flags)
diag "$MPIEXEC $extra -n 2 (default binding), $($MPIEXEC --version 2>&1 | head -1)"
C="ceilings --backend cuda --kinds allgather --coll-sizes 1M,64M,256M -q"
$MPIEXEC $extra -n 2 "$F8BENCH" $C -o adaptive.h5 >adaptive.txt 2>&1
rc=$?
ok $rc "mpiexec -n 2 f8bench ceilings --kinds allgather (adaptive batch)"
[ $rc = 0 ] || diag "$(tail -5 adaptive.txt)"
$MPIEXEC $extra -n 2 "$F8BENCH" $C --batch 50 -o long.h5 >long.txt 2>&1
rc=$?
ok $rc "the same with a long back-to-back batch (--batch 50)"
[ $rc = 0 ] || diag "$(tail -5 long.txt)"
"$F8BENCH" export adaptive.h5 --table ceilings >adaptive.csv &&
	"$F8BENCH" export long.h5 --table ceilings >long.csv
ok $? "export both"
# column COL of the all-gather of BYTES in FILE
col() {
	awk -F, -v b="$2" -v k="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["kind"] == "allgather" && $c["bytes"] == b { print $c[k] }' "$1"
}
# median time of the all-gather of BYTES in FILE (us)
us() {
	awk -v t="$(col "$1" "$2" time_median_s)" 'BEGIN { printf "%.2f", 1e6 * t }'
}
for b in 67108864 268435456; do
	a=$(us adaptive.csv $b) t=$(us long.csv $b)
	diag "all-gather $b B: $a us per call (batch $(col adaptive.csv $b batch)), $t us in a batch of 50"
	r=$(awk -v a="$a" -v t="$t" 'BEGIN { print (a > 0 && t > 0 && a <= 1.10 * t && a >= 0.90 * t) ? 0 : 1 }')
	ok "$r" "$((b / 1048576)) MiB: per-sample time within 10% of a long batch's per call ($a vs $t us)"
done
a=$(us adaptive.csv 1048576)
n=$(col adaptive.csv 1048576 samples)
k=$(col adaptive.csv 1048576 batch)
diag "all-gather 1 MiB: $a us per call, batch $k, $n samples"
r=$(awk -v a="$a" 'BEGIN { print (a > 0 && a < 50) ? 0 : 1 }')
ok "$r" "1 MiB all-gather under 50 us ($a us)"
r=$(awk -v k="$k" 'BEGIN { print (k > 1) ? 0 : 1 }')
ok "$r" "1 MiB: an adaptive batch of back-to-back calls (batch $k)"
r=$(awk -v k="$(col long.csv 1048576 batch)" 'BEGIN { print (k == 50) ? 0 : 1 }')
ok "$r" "--batch 50 recorded in the batch column"
r=$(awk -v n="$n" 'BEGIN { print (n >= 200) ? 0 : 1 }')
ok "$r" "1 MiB: the host keeps up ($n samples within the 10 s cap, at least 200)"
done_testing
