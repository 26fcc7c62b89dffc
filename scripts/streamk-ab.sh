#!/usr/bin/env bash
# streamk-ab.sh - the f8b GEMM's stream-K tail (kernels/gemm/streamk.h,
# doc/gemm-kernels.md "Stream-K tail") on a GPU: checks, then an A/B.
#
#   scripts/streamk-ab.sh BUILD OUTDIR [ROUNDS]
#
# BUILD: a configured and built tree (its f8bench).  Every f8bench run
# checks each case against the double reference before timing it, so:
#  1. forced tails (F8B_KGEMM_STREAMK=force: any left-over round cut into
#     ranges down to one K-block, so tiles with many partners) at small
#     shapes, ragged ones among them, in every scaling and fast_accum, and
#     with f32, e4m3 (with its amax) and D^T outputs: the tail's sums must
#     pass the same checks as whole tiles;
#  2. the A/B: GEMM_SHAPES (default 8192^3 and 16384^3) in tensorwise,
#     axiswise and blockwise, fast_accum on and off, beside cuBLASLt in
#     one process, with F8B_KGEMM_STREAMK=0 (whole tiles) and 1 (the
#     default: the tail where the plan's model takes it) in turn, ROUNDS
#     times (default 2); the row's algo_desc says " sk=R/C" where the
#     tail ran.
# Leaves OUTDIR/*.h5, *.log and summary.txt (f8b's TFLOP/s over
# cuBLASLt's same-mode row, per run).  Exit status 0 when every run
# exited 0.
set -uo pipefail
b=${1:?usage: scripts/streamk-ab.sh BUILD OUTDIR [ROUNDS]}
out=${2:?usage: scripts/streamk-ab.sh BUILD OUTDIR [ROUNDS]}
rounds=${3:-2}
f8b=$b/f8bench
mkdir -p "$out"
status=0
say() { echo "$*" | tee -a "$out/summary.txt"; }

# run NAME LIMIT ENV... -- ARGS...: f8bench ARGS -o OUTDIR/NAME.h5
run() {
	local name=$1 limit=$2
	shift 2
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	rm -f "$out/$name.h5"
	local t0=$(date +%s)
	env "${envs[@]}" timeout "$limit" "$f8b" "$@" -o "$out/$name.h5" >"$out/$name.log" 2>&1
	local rc=$?
	[ $rc = 0 ] || status=1
	say "$name: exit $rc in $(($(date +%s) - t0)) s (${envs[*]} f8bench $*)"
	grep -iE 'wrong|fail|error' "$out/$name.log" | head -5 | tee -a "$out/summary.txt"
}

small=2048x1024x2304,4096x1024x4352,2000x1008x2288,4096x2048x4352
q=(--min-time 0.01 --max-time 0.05 -q)
run force-modes 150 F8B_KGEMM_STREAMK=force -- gemm --impl f8b --shapes "$small" \
	--scaling tensorwise,axiswise,blockwise,blockwise-1x128 --fast-accum on,off "${q[@]}"
run force-f32 60 F8B_KGEMM_STREAMK=force -- gemm --impl f8b --shapes "$small" \
	--scaling tensorwise,blockwise --fast-accum on,off --out-dtype f32 "${q[@]}"
run force-e4m3 60 F8B_KGEMM_STREAMK=force -- gemm --impl f8b --shapes "$small" \
	--scaling tensorwise,axiswise --fast-accum on,off --out-dtype e4m3 "${q[@]}"
run force-outt 60 F8B_KGEMM_STREAMK=force -- gemm --impl f8b --shapes "$small" \
	--scaling tensorwise,blockwise --fast-accum on,off --out-t on "${q[@]}"
# the rows whose plan took a tail: an f8b row's workspace_bytes (its parts'
# slots; 0 for whole tiles)
src=$(cd "$(dirname "$0")/.." && pwd)
CSVAWK="$(cat "$src/scripts/csv.awk" "$src/scripts/csv-cols.awk")"$'\n'
for n in force-modes force-f32 force-e4m3 force-outt; do
	"$f8b" export "$out/$n.h5" --table gemm -o "$out/$n.csv" 2>>"$out/$n.log" || continue
	say "  $n: $(awk "$CSVAWK"'F[c["impl"]] == "f8b" { n++; t += F[c["workspace_bytes"]] > 0; bad += F[c["status"]] != "ok" }
		END { printf "%d f8b rows, %d with a tail, %d not ok", n, t, bad }' "$out/$n.csv")"
done

shapes=${GEMM_SHAPES:-8192x8192x8192,16384x16384x16384}
for r in $(seq 1 "$rounds"); do
	for sk in 0 1; do
		run "ab-sk$sk-r$r" 200 F8B_KGEMM_STREAMK=$sk -- gemm --impl cublaslt,f8b \
			--shapes "$shapes" --scaling tensorwise,axiswise,blockwise --fast-accum on,off \
			--max-time 0.3 -q
		"$f8b" export "$out/ab-sk$sk-r$r.h5" --table gemm -o "$out/ab-sk$sk-r$r.csv" 2>/dev/null
	done
done
# f8b over cuBLASLt, same shape, scaling and fast_accum; blockwise and the
# promoting rows also over cuBLASLt's tensorwise fast row (the issue's
# target)
for f in "$out"/ab-sk*.csv; do
	[ -f "$f" ] || continue
	say "== $(basename "$f" .csv): f8b TFLOP/s, / cuBLASLt same mode, / cuBLASLt tensorwise fast"
	awk "$CSVAWK"'
	F[c["scaling"]] != "none" {
		s = F[c["m"]] "x" F[c["k"]] "x" F[c["n"]]; fa = F[c["fast_accum"]] == 1 ? "on" : "off"
		k = s " " F[c["scaling"]] " " fa
		tf[k, F[c["impl"]]] = F[c["status"]] == "ok" ? F[c["tflops"]] : 0
		if (F[c["impl"]] == "f8b") tail[k] = F[c["workspace_bytes"]] > 0
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		if (F[c["scaling"]] == "tensorwise" && fa == "on" && F[c["impl"]] == "cublaslt")
			twf[s] = tf[k, "cublaslt"]
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, p, " "); a = tf[k, "f8b"]; l = tf[k, "cublaslt"]
			r1 = l > 0 ? a / l : 0; r2 = twf[p[1]] > 0 ? a / twf[p[1]] : 0
			printf "  %-36s %8.1f %6.3f %6.3f %s\n", k, a, r1, r2, (tail[k] ? "tail" : "whole")
		}
	}' "$f" | tee -a "$out/summary.txt"
done
exit $status
