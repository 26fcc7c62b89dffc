#!/usr/bin/env bash
# gpu-job.sh - one GPU job that checks a tree and times what it added, in a
# fixed wall-clock budget, with its output packed into a few files (a job
# whose results come back through a narrow channel, or a CI artifact).
#
#   scripts/gpu-job.sh OUTDIR [BUDGET_S]
#
# Runs, in this order, each under what is left of BUDGET_S (default 540):
#   1. scripts/gpu-check.sh (build, make check with the GPU and multi-GPU
#      tests, the quick benchmarks, compute-sanitizer): the verdict;
#   2. scripts/gemm-kernel-gpu.sh on the same build (f8bench's own GEMM:
#      its tests, one shape beside cuBLASLt, SASS), shortened;
#   3. scripts/optim-gpu.sh on the same build, shortened.
# Leaves OUTDIR/summary.txt (every step's summary, in order), and
# OUTDIR/job.tar.gz (everything else: logs, HDF5 files).  Set
# F8B_GIT_DESCRIBE to the commit when the tree travels without its .git.
# Exit status: gpu-check's.
set -uo pipefail
out=${1:?usage: scripts/gpu-job.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
t0=$(date +%s)
left() { echo $((budget - ($(date +%s) - t0))); }
summary="$out/summary.txt"
: >"$summary"

timeout $(($(left) - 90)) "$src/scripts/gpu-check.sh" "$work/gpu-check"
status=$?
[ $status = 124 ] && echo "gpu-check.sh: stopped at its share of the budget" >>"$work/gpu-check/summary.txt"
{ echo "== gpu-check.sh (exit $status)"; cat "$work/gpu-check/summary.txt"; } >>"$summary"

if [ -x "$src/scripts/gemm-kernel-gpu.sh" ] && [ "$(left)" -gt 80 ]; then
	t=$(($(left) - 45))
	SHAPES=${SHAPES:-8192x8192x8192,4096x4096x4096} TILE_SHAPES=8192x8192x8192 \
		TEST_TIMEOUT=$((t / 3)) BENCH_TIMEOUT=$((t / 3)) TILES_TIMEOUT=$((t / 6)) SANITIZER_TIMEOUT=10 \
		timeout "$t" "$src/scripts/gemm-kernel-gpu.sh" "$src/_gpu_build" "$work/gemm-kernel" \
		>"$work/gemm-kernel.log" 2>&1
	{ echo "== gemm-kernel-gpu.sh (exit $?)"; cat "$work/gemm-kernel/summary.txt" 2>/dev/null; } >>"$summary"
fi
if [ -x "$src/scripts/optim-gpu.sh" ] && [ "$(left)" -gt 30 ]; then
	STEPS=${STEPS:-20} timeout $(($(left) - 15)) "$src/scripts/optim-gpu.sh" "$src/_gpu_build" "$work/optim" \
		"$src/results/h100/ceilings.h5" \
		>"$work/optim.log" 2>&1
	{ echo "== optim-gpu.sh (exit $?)"; tail -40 "$work/optim.log"; } >>"$summary"
fi
tar -czf "$out/job.tar.gz" -C "$work" . && rm -rf "$work"
echo "== gpu-job.sh: $(($(date +%s) - t0)) s" >>"$summary"
tail -60 "$summary"
exit $status
