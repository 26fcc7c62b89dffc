#!/usr/bin/env bash
# sigmoid-ab.sh - the lls step on f8b's GEMM with the sigmoid fused into
# the forward GEMM's epilogue, against the separate sigmoid_fwd pass, in
# one job (doc/lls.md "The fused sigmoid").
#
#   scripts/sigmoid-ab.sh BUILD_DIR OUT_DIR [CEILINGS]
#
# BUILD_DIR: built (scripts/gemm-kernel-gpu.sh builds it).  Runs
#   f8bench lls --gemm-impl f8b --shapes SHAPES --recipe RECIPES
# twice per round, fused (the default) and with F8B_LLS_SIGMOID_SEPARATE=1,
# alternating for ROUNDS rounds (default 1), each under LLS_TIMEOUT
# seconds (default 120), into OUT_DIR/lls-fused.h5 and lls-separate.h5
# (appended), and prints the step and the forward GEMM (+ sigmoid_fwd)
# of each from the lls and lls_kernels tables.
# Environment: SHAPES (4096 and 8192 cubed), RECIPES
# (tensorwise,axiswise,blockwise), ROUNDS, LLS_TIMEOUT.
set -uo pipefail
build=${1:?usage: scripts/sigmoid-ab.sh BUILD_DIR OUT_DIR [CEILINGS]}
out=${2:?usage: scripts/sigmoid-ab.sh BUILD_DIR OUT_DIR [CEILINGS]}
ceil=${3:-}
mkdir -p "$out"
f8b="$(cd "$build" && pwd)/f8bench"
shapes=${SHAPES:-4096x4096x4096,8192x8192x8192}
recipes=${RECIPES:-tensorwise,axiswise,blockwise}
status=0
# columns by name, fields split as RFC 4180 writes them (scripts/csv.awk)
CSVAWK="$(cat "$(dirname "$0")/csv.awk" "$(dirname "$0")/csv-cols.awk")"$'\n'
for r in $(seq 1 "${ROUNDS:-1}"); do
	for side in fused separate; do
		sep=0
		[ $side = separate ] && sep=1
		echo "+ round $r: F8B_LLS_SIGMOID_SEPARATE=$sep f8bench lls --gemm-impl f8b --shapes $shapes --recipe $recipes --min-time 0.2 --max-time 1 ${ceil:+--ceilings $ceil} -o lls-$side.h5 --append"
		F8B_LLS_SIGMOID_SEPARATE=$sep timeout "${LLS_TIMEOUT:-120}" "$f8b" lls --gemm-impl f8b \
			--shapes "$shapes" --recipe "$recipes" --min-time 0.2 --max-time 1 \
			${ceil:+--ceilings "$ceil"} -o "$out/lls-$side.h5" --append >>"$out/lls-$side.log" 2>&1 || status=1
	done
done
for side in fused separate; do
	echo "== $side: the step (recipe, MxKxN, impl, median s, kernels s, status)"
	"$f8b" export "$out/lls-$side.h5" --table lls 2>/dev/null | awk "$CSVAWK"'
		{ print F[c["recipe"]], F[c["m"]] "x" F[c["k"]] "x" F[c["n"]], F[c["gemm_impl"]], F[c["time_median_s"]], F[c["kernels_time_s"]], F[c["status"]] }'
	echo "== $side: the forward GEMM and sigmoid_fwd (recipe, M, index, kernel, fuses, median s)"
	"$f8b" export "$out/lls-$side.h5" --table lls_kernels 2>/dev/null | awk "$CSVAWK"'
		F[c["index"]] <= 4 && (F[c["kernel"]] == "gemm" || F[c["kernel"]] == "sigmoid_fwd") { print F[c["recipe"]], F[c["m"]], F[c["index"]], F[c["kernel"]], F[c["fuses"]], F[c["time_median_s"]] }'
done
exit $status
