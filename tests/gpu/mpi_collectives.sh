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
C="ceilings --backend cuda --kinds allgather --coll-sizes 1M,64M,256M --in-place off -q"
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
	csv_get "$1" "$3" kind=allgather bytes="$2" in_place=0
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

# Every buffer mode and CTA policy, in place and not: each row checked
# (position-weighted checksums of every rank's part) and recorded.  An
# NCCL too old for a mode makes its rows unsupported, naming the version.
$MPIEXEC $extra -n 2 "$F8BENCH" ceilings --backend cuda --kinds allgather,allreduce \
	--coll-sizes 1M,64M --nccl-buffers plain,registered,symmetric \
	--nccl-cta-policy default,efficiency,zero --min-time 0.05 -q -o modes.h5 >modes.txt 2>&1
rc=$?
ok $rc "ceilings in every buffer mode, CTA policy and placement"
[ $rc = 0 ] || diag "$(tail -5 modes.txt)"
"$F8BENCH" export modes.h5 --table ceilings >modes.csv
for b in plain registered symmetric; do
	for p in default efficiency zero; do
		[ $p = zero ] && [ $b != symmetric ] && continue
		for ip in 0 1; do
			st=$(csv_get modes.csv status kind=allgather bytes=67108864 nccl_buffers=$b cta_policy=$p in_place=$ip)
			v=$(csv_get modes.csv value kind=allgather bytes=67108864 nccl_buffers=$b cta_policy=$p in_place=$ip)
			r=1
			case "$st" in ok | unsupported) r=0 ;; esac
			ok $r "64 MiB all-gather, $b buffers, $p CTAs, in_place=$ip: $st ($(awk -v v="$v" 'BEGIN { printf "%.1f", v / 1e9 }') GB/s busbw)"
		done
	done
done
n=$(csv_get modes.csv status | grep -vcx ok)
ok "$([ "$n" = 0 ] && echo 0 || echo 1)" "every row ok ($n not)"
[ "$n" = 0 ] || diag "$(grep -v ',ok,' modes.csv | head -5)"
done_testing
