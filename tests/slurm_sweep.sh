#!/usr/bin/env bash
# The Slurm templates (scripts/slurm/) on a real one-node Slurm: starts
# munged, slurmctld and slurmd from tests/slurm/ in a temporary directory,
# submits with the host backend a sharded sweep and its merge
# (submit-sweep.sh), a sweep whose task 1 fails, allgather.sbatch (2 ranks
# through srun) and ceilings.sbatch (twice), and checks: every array task
# ran, the merged file holds every case once, the merge started only after
# the array ended, the report exists, a failed task keeps the merge from
# running; then stops the daemons it started, by pid.
# Skips (TAP plan "1..0 # SKIP") unless run as root with Slurm and munge
# installed (scripts/install-deps.sh --test installs slurm-wlm and munge).
. "${srcdir:-.}/tests/tap.sh"
srcdir=$(cd "$srcdir" && pwd)

[ "$(id -u)" = 0 ] || skip_all "not root (the test cluster's daemons run as root)"
for c in slurmctld slurmd sbatch scontrol sinfo munged runuser; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c (apt-get install slurm-wlm munge)"
done
getent passwd munge >/dev/null || skip_all "no munge user (apt-get install munge)"
[ -z "${F8B_SKIP_SLURM:-}" ] || skip_all "F8B_SKIP_SLURM is set"

. "$srcdir/tests/slurm/cluster.sh"
D="$tmp/cluster"
trap 'slurm_stop "$D"; rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # munged (as the munge user) reaches its socket through it
cd "$tmp" || exit 1

slurm_start "$D" 2>start.err
rc=$?
ok $rc "a one-node Slurm cluster starts (munged, slurmctld, slurmd)"
if [ $rc != 0 ]; then
	diag "$(cat start.err)"
	done_testing
	exit
fi

S="$srcdir/scripts/slurm"
export F8BENCH F8B_INPUTS F8B_SLURM_DIR="$S"
Q="--backend host --min-time 0 --min-samples 3 --max-samples 3 --warmup 1 -q"
# Two small shapes x (bf16 + 2 fp8): 6 cases, 2 per shard.
printf '256 256 256 t.square\n256 512 128 t.rect\n' >two.txt
export F8B_GEMM_ARGS="$Q --shapes $tmp/two.txt --scaling tensorwise,blockwise --fast-accum on"

# ---- submissions: a good sweep, a sweep with a broken shard, allgather,
# ceilings.  Task 1 of the second sweep finds a shard file that is not HDF5.
"$S/submit-sweep.sh" -n 3 -o sw >sw.ids 2>sw.err
ok $? "submit-sweep.sh submits the sweep and the merge"
sweep=$(sed -n 's/^sweep //p' sw.ids)
merge=$(sed -n 's/^merge //p' sw.ids)
[ -n "$sweep" ] && [ -n "$merge" ]
ok $? "submit-sweep.sh prints both job ids ($(tr '\n' ' ' <sw.ids))"
mkdir -p bad && echo "not a results file" >bad/gemm-shard-1.h5
"$S/submit-sweep.sh" -n 3 -o bad >bad.ids 2>>sw.err
ok $? "a second sweep is submitted"
bad_sweep=$(sed -n 's/^sweep //p' bad.ids)
bad_merge=$(sed -n 's/^merge //p' bad.ids)
# The same templates run an lls sweep (F8B_BENCH through -b).
LLS_ARGS="$Q --shapes 64x64x64,128x128x128 --recipe bf16,tensorwise"
F8B_ARGS="$LLS_ARGS" "$S/submit-sweep.sh" -b lls -n 2 -o ls >ls.ids 2>>sw.err
ok $? "submit-sweep.sh -b lls submits an lls sweep"
lls_merge=$(sed -n 's/^merge //p' ls.ids)
mkdir -p coll
ag=$(F8B_OUT_DIR="$tmp/coll" F8B_ALLGATHER_ARGS="$Q --weights 64 --layers 2 --tokens 32 --max-time 1" \
	sbatch --parsable --nodes=1 --ntasks-per-node=2 --gpus-per-node=1 --cpus-per-task=1 \
	--output="$tmp/coll/ag-%j.out" "$S/allgather.sbatch" 2>>sw.err)
ok $? "allgather.sbatch is submitted (2 ranks)"
ceil_args="$Q --kinds read --sizes 4K:4K"
c1=$(F8B_OUT_DIR="$tmp/coll" F8B_NODE_TYPE=testnode F8B_CEILINGS_ARGS="$ceil_args" \
	sbatch --parsable --cpus-per-task=1 --output="$tmp/coll/c1-%j.out" "$S/ceilings.sbatch" 2>>sw.err)
c2=$(F8B_OUT_DIR="$tmp/coll" F8B_NODE_TYPE=testnode F8B_CEILINGS_ARGS="$ceil_args" \
	sbatch --parsable --cpus-per-task=1 --dependency="afterany:$c1" \
	--output="$tmp/coll/c2-%j.out" "$S/ceilings.sbatch" 2>>sw.err)
[ -n "$c1" ] && [ -n "$c2" ]
ok $? "ceilings.sbatch is submitted twice, one after the other"
[ -s sw.err ] && diag "$(cat sw.err)"

# The state of job $1 ("COMPLETED", "PENDING:DependencyNeverSatisfied"...).
state() { scontrol show job "$1" -o 2>/dev/null | head -1 | sed -n 's/.*JobState=\([A-Z_]*\).*Reason=\([^ ]*\).*/\1:\2/p'; }
settled() {
	case $(state "$1") in
	COMPLETED:* | FAILED:* | CANCELLED:* | TIMEOUT:* | NODE_FAIL:* | OUT_OF_MEMORY:*) return 0 ;;
	PENDING:DependencyNeverSatisfied) return 0 ;;
	esac
	return 1
}
# Bounded wait (150 s) for every job to be done or never to run.
for i in $(seq 1 300); do
	all=0
	for j in "$merge" "$bad_merge" "$lls_merge" "$ag" "$c2"; do settled "$j" || all=1; done
	[ $all = 0 ] && break
	sleep 0.5
done
ok $all "every job finished within 150 s"
[ $all = 0 ] || diag "$(squeue 2>&1)" "$(tail -5 "$D/log/slurmctld.log")"

# ---- the good sweep
scontrol show job "$sweep" -o >tasks.txt 2>&1
n_done=$(grep -c "JobState=COMPLETED" tasks.txt)
[ "$n_done" = 3 ] && [ "$(grep -o 'ArrayTaskId=[0-9]*' tasks.txt | sort -u | wc -l)" = 3 ]
ok $? "all 3 array tasks ran and completed ($n_done)"
for i in 0 1 2; do
	"$F8BENCH" export sw/gemm-shard-$i.h5 --provenance 2>/dev/null | grep -qx "shard: $i/3"
	ok $? "task $i wrote shard $i/3"
done
[ "$(state "$merge")" = "COMPLETED:None" ]
ok $? "the merge job completed ($(state "$merge"))"
keys() {
	"$F8BENCH" export "$1" --table gemm >"$1.csv" || return 1
	cols=$(head -1 "$1.csv" | tr ',' '\n' | grep -nxE 'm|k|n|label|scaling|a_gran|b_gran|fast_accum|a_dtype|b_dtype|out_dtype' | cut -d: -f1 | paste -sd, -)
	tail -n +2 "$1.csv" | cut -d, -f"$cols" | sort
}
# shellcheck disable=SC2086 # an option list
"$F8BENCH" gemm $F8B_GEMM_ARGS -o whole.h5 2>/dev/null
keys whole.h5 >whole.keys
keys sw/gemm.h5 >merged.keys 2>/dev/null
[ -s whole.keys ] && cmp -s whole.keys merged.keys && [ -z "$(uniq -d merged.keys)" ]
ok $? "the merged file holds every case of the sweep exactly once ($(wc -l <merged.keys) rows)"
last_end=$(grep -o 'EndTime=[^ ]*' tasks.txt | cut -d= -f2 | sort | tail -1)
merge_start=$(scontrol show job "$merge" -o | grep -o 'StartTime=[^ ]*' | cut -d= -f2)
[ -n "$last_end" ] && [ -n "$merge_start" ] && [[ ! "$merge_start" < "$last_end" ]]
ok $? "the merge started ($merge_start) after the last task ended ($last_end)"
[ -s sw/report/report.md ]
ok $? "the merge job wrote the report"
grep -q "merging 3 shards" sw/logs/merge-"$merge".out 2>/dev/null
ok $? "the merge job's log is in OUT_DIR/logs"

# ---- the sweep with a failing task
scontrol show job "$bad_sweep" -o >bad.txt 2>&1
grep "ArrayTaskId=1 " bad.txt | grep -q "JobState=FAILED"
ok $? "task 1 of the broken sweep failed"
[ "$(grep -c 'JobState=COMPLETED' bad.txt)" = 2 ]
ok $? "its other two tasks completed"
case $(state "$bad_merge") in CANCELLED:* | PENDING:DependencyNeverSatisfied) r=0 ;; *) r=1 ;; esac
ok $r "its merge job never ran ($(state "$bad_merge"))"
scontrol show job "$bad_merge" -o | grep -q "StartTime=Unknown\|RunTime=00:00:00"
ok $? "its merge job has no run time"
[ ! -e bad/gemm.h5 ] && ! ls bad/logs | grep -q merge
ok $? "no merged file and no merge log"
scancel "$bad_merge" 2>/dev/null

# ---- the lls sweep: 4 cases over 2 shards, and every case's kernels
[ "$(state "$lls_merge")" = "COMPLETED:None" ] && [ -s ls/lls.h5 ] && [ -s ls/report/report.md ]
ok $? "the lls sweep merged into ls/lls.h5 with its report ($(state "$lls_merge"))"
# shellcheck disable=SC2086 # an option list
"$F8BENCH" lls $LLS_ARGS -o lls-whole.h5 2>/dev/null
lkeys() { "$F8BENCH" export "$1" --table "$2" 2>/dev/null | cut -d, -f1-4 | tail -n +2 | sort; }
lkeys lls-whole.h5 lls >lw.keys
lkeys ls/lls.h5 lls >lm.keys
lkeys lls-whole.h5 lls_kernels >lwk.keys
lkeys ls/lls.h5 lls_kernels >lmk.keys
[ "$(wc -l <lw.keys)" = 4 ] && cmp -s lw.keys lm.keys && cmp -s lwk.keys lmk.keys
ok $? "the merged lls file holds every case once and every case's kernels ($(wc -l <lm.keys) rows, $(wc -l <lmk.keys) kernels)"

# ---- allgather.sbatch: two ranks through srun
[ "$(state "$ag")" = "COMPLETED:None" ]
ok $? "allgather.sbatch completed ($(state "$ag"))"
f=$(ls coll/allgather-*.h5 2>/dev/null | head -1)
"$F8BENCH" export "$f" --provenance 2>/dev/null | grep -qx "mpi_ranks: 2"
ok $? "it ran f8bench allgather as 2 MPI ranks ($f)"
n=$("$F8BENCH" export "$f" --table allgather 2>/dev/null | grep -c ',ok,')
ok "$([ "$n" = 4 ] && echo 0 || echo 1)" "its four modes' rows are ok ($n)"

# ---- ceilings.sbatch, once
[ "$(state "$c1")" = "COMPLETED:None" ] && [ -s coll/ceilings-testnode.h5 ]
ok $? "ceilings.sbatch measured coll/ceilings-testnode.h5"
[ "$(state "$c2")" = "COMPLETED:None" ] && grep -q "already measured" coll/c2-"$c2".out
ok $? "a second ceilings.sbatch keeps the measured file"

# ---- the daemons go away
pids=$(cat "$D"/*.pid.own "$D/munged.pid" 2>/dev/null)
slurm_stop "$D"
alive=0
for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
[ -n "$pids" ] && [ $alive = 0 ]
ok $? "munged, slurmctld and slurmd are stopped ($(echo $pids))"
done_testing
