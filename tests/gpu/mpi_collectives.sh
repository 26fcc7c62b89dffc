#!/bin/sh
# mpi_collectives.sh - collective samples time the collective, not the host.
# Every NCCL sample once read a constant ~3.9 ms on an H200 pair (the host's
# hand-off of a non-blocking communicator's enqueue was timed).  Two checks
# catch that coming back: a cold sample of a large all-gather agrees with
# the per-call time of a back-to-back batch (within 10%), and a 1 MiB
# all-gather is not above a few tens of microseconds.  Needs 2 GPUs.
. "${srcdir:-.}/tests/tap.sh"
[ -n "$MPIEXEC" ] || skip_all "no mpiexec found by configure"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "${ngpu:-0}" -ge 2 ] || skip_all "needs 2 GPUs (found ${ngpu:-0})"
cd "$tmp" || exit 1
export NCCL_NVLS_ENABLE=0
extra=$(ompi_flags --bind-to none)
C="ceilings --backend cuda --kinds allgather --coll-sizes 1M,64M,256M -q"
$MPIEXEC $extra -n 2 "$F8BENCH" $C -o cold.h5 >cold.txt 2>&1
rc=$?
ok $rc "mpiexec -n 2 f8bench ceilings --kinds allgather (cold samples)"
[ $rc = 0 ] || diag "$(tail -5 cold.txt)"
$MPIEXEC $extra -n 2 "$F8BENCH" $C --batch 20 -o batch.h5 >batch.txt 2>&1
rc=$?
ok $rc "the same with --batch 20"
[ $rc = 0 ] || diag "$(tail -5 batch.txt)"
"$F8BENCH" export cold.h5 --table ceilings >cold.csv && "$F8BENCH" export batch.h5 --table ceilings >batch.csv
ok $? "export both"
# median time of the all-gather of BYTES in FILE (µs)
us() {
	awk -F, -v b="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["kind"] == "allgather" && $c["bytes"] == b { printf "%.2f", 1e6 * $c["time_median_s"] }' "$1"
}
for b in 67108864 268435456; do
	c=$(us cold.csv $b) t=$(us batch.csv $b)
	diag "all-gather $b B: cold sample $c us, batch per call $t us"
	r=$(awk -v c="$c" -v t="$t" 'BEGIN { print (c > 0 && t > 0 && c <= 1.10 * t && c >= 0.90 * t) ? 0 : 1 }')
	ok "$r" "$((b / 1048576)) MiB: a cold sample is within 10% of a batched call ($c vs $t us)"
done
c=$(us cold.csv 1048576)
diag "all-gather 1 MiB: $c us"
r=$(awk -v c="$c" 'BEGIN { print (c > 0 && c < 50) ? 0 : 1 }')
ok "$r" "1 MiB all-gather under 50 us ($c us)"
done_testing
