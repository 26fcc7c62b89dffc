#!/usr/bin/env bash
# f8b-lls-instep: the lls step at 8192^3, both GEMM implementations
# sampled in turn, with each kernel's time inside the step
# (lls_kernels.in_step_median_s) beside its time alone.
# From the top of a checkout with a GPU build in _gpu_build (or F8BENCH):
#   results/h100/experiments/f8b-lls-instep/run.sh OUT [RECIPES] [SHAPES]
set -uo pipefail
out=${1:?OUT}
recipes=${2:-tensorwise,axiswise,blockwise}
shapes=${3:-8192x8192x8192}
mkdir -p "$out"
f=${F8BENCH:-_gpu_build/f8bench}
"$f" lls --shapes "$shapes" --recipe "$recipes" --gemm-impl cublaslt,f8b --interleave \
	--ceilings results/h100/ceilings.h5 -o "$out/lls-instep.h5" >"$out/lls-instep-output.txt" 2>&1
echo "f8bench lls: exit $?" >>"$out/lls-instep-output.txt"
"$f" export "$out/lls-instep.h5" --table lls >"$out/lls.csv"
"$f" export "$out/lls-instep.h5" --table lls_kernels >"$out/lls-kernels.csv"
