#!/bin/bash
# submit-sweep.sh - submits a sharded sweep and its merge:
#   scripts/slurm/submit-sweep.sh [-b BENCH] [-n SHARDS] [-o OUT_DIR] [-- SBATCH_OPTIONS...]
# gemm-sweep.sbatch running `f8bench BENCH` (default gemm; lls, say) as an
# array of SHARDS tasks (default 4), then
# merge.sbatch with --dependency=afterok on the array, so it runs only after
# every task succeeded and is cancelled (--kill-on-invalid-dep) when one
# failed.  Prints the two job ids, one "NAME JOBID" line each:
#   sweep 1234
#   merge 1235
# OUT_DIR (default ./f8b-sweep-<UTC time>) gets the shards, BENCH.h5, the
# report and the jobs' logs.  SBATCH_OPTIONS (--partition, --account, ...)
# go to both jobs; F8B_ARGS (the sweep's options; F8B_GEMM_ARGS for gemm),
# F8BENCH and the other variables of bench-env.sh are passed on from this
# environment.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=4
bench=gemm
out="f8b-sweep-$(date -u +%Y%m%d-%H%M%S)"
usage() { sed -n '2,/^set /p' "$0" | sed -e '/^set /d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-b) bench=${2:?-b needs a benchmark name}; shift 2 ;;
	-n) shards=${2:?-n needs a number}; shift 2 ;;
	-o) out=${2:?-o needs a directory}; shift 2 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	*) echo "submit-sweep.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case $shards in '' | *[!0-9]* | 0) echo "submit-sweep.sh: -n '$shards': a positive number" >&2; exit 2 ;; esac
case $bench in '' | *[!a-z0-9_-]*) echo "submit-sweep.sh: -b '$bench': a benchmark name (gemm, lls)" >&2; exit 2 ;; esac
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
export F8B_OUT_DIR="$out" F8B_SLURM_DIR="$here" F8B_SHARDS="$shards" F8B_BENCH="$bench"

sweep=$(sbatch --parsable --array="0-$((shards - 1))" --output="$out/logs/$bench-%A_%a.out" \
	"$@" "$here/gemm-sweep.sbatch")
sweep=${sweep%%;*} # "id;cluster" on multi-cluster sites
merge=$(sbatch --parsable --dependency="afterok:$sweep" --kill-on-invalid-dep=yes \
	--output="$out/logs/merge-%j.out" "$@" "$here/merge.sbatch")
merge=${merge%%;*}
echo "sweep $sweep"
echo "merge $merge"
