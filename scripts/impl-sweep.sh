#!/usr/bin/env bash
# impl-sweep.sh - issue 23's side-by-side sweeps of the two GEMM
# implementations (cuBLASLt and f8bench's own sm_90a kernel, --impl /
# --gemm-impl), each in one process, on one GPU:
#   gemm: the pow2, llama3-8b and llama2-70b shapes, tensorwise, axiswise
#     and blockwise, fast_accum on and off, e4m3 x e4m3 -> gemm-impl-sweep.h5
#   gemm1x128: blockwise-1x128 (A and B 1x128, the blockwise recipe's
#     grad_weight GEMM) and tensorwise, fast_accum on and off, at 4096^3,
#     8192^3 and 16384^3 -> gemm-1x128.h5 (about 70 s on an H100)
#   lls:  every recipe on both implementations at 4096^3 and 8192^3
#     -> lls-impl.h5
# then a short table of each (summary.txt): per shape, f8b over cuBLASLt
# with fast accumulation (issue 23's first target, >= 0.97) and f8b's
# promotion over cuBLASLt's tensorwise fast row (>= 0.95); per shape,
# blockwise-1x128 on both and f8b's over each of cuBLASLt's
# blockwise-1x128 and tensorwise fast rows; per lls case, the step time of
# each implementation, their ratio, and the ratio of their traced steps
# (each implementation's sampled one after another; "-" where the file
# has none).
#   scripts/impl-sweep.sh BUILD OUT [CEILINGS.h5]
# BUILD: a configured and built tree (its f8bench); OUT is created.
# PARTS (default "gemm gemm1x128 lls"), GEMM_SHAPES
# (pow2,llama3-8b,llama2-70b), GEMM_DTYPES (the gemm part's --dtypes,
# default e4m3:e4m3; e.g. e4m3:e4m3,e5m2:e4m3: the rows of another pair
# are a table line of their own, the pair after the label), GEMM1X128_SHAPES
# (4096x4096x4096,8192x8192x8192,16384x16384x16384), LLS_SHAPES
# (4096x4096x4096,8192x8192x8192), LLS_RECIPES (lls's --recipe; default
# every recipe), LLS_ARGS (more lls options, split at spaces, after the
# part's own, so that they win: e.g. "--warmup 300 --min-time 1
# --max-time 3", the long warm-up of results/h100/experiments/
# f8b-lls-warmup/, with a LLS_TIMEOUT to match), GEMM_TIMEOUT (330),
# GEMM1X128_TIMEOUT (120), LLS_TIMEOUT (200): seconds; on a time-out the
# rows so far are kept.  GEMM_REPEAT (default 1): the gemm part run that
# many times, one process after another, into gemm-impl-sweep.h5, then
# gemm-impl-sweep-2.h5 and on, each with its own table: one process's
# ratios move by about 3% rms from one to the next under an H100's power
# cap, and scripts/f8b-targets.sh judges the gemm targets on the median
# over such files passed after its -- (results/h100/experiments/
# f8b-gemm-repeat/).  Exit status: 0 when every part ran to its end and
# its table was read.
set -uo pipefail
build=${1:?usage: impl-sweep.sh BUILD OUT [CEILINGS.h5]}
out=${2:?usage: impl-sweep.sh BUILD OUT [CEILINGS.h5]}
ceil=${3:-}
build=$(cd "$build" && pwd) || exit 2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
export F8B_INPUTS="${F8B_INPUTS:-$src/inputs}"
f8b=$build/f8bench
[ -x "$f8b" ] || { echo "impl-sweep.sh: no f8bench in $build (build it first)" >&2; exit 2; }
copt=()
[ -n "$ceil" ] && copt=(--ceilings "$ceil")
parts=" ${PARTS:-gemm gemm1x128 lls} "
for p in $parts; do
	case $p in gemm | gemm1x128 | lls) ;; *) echo "impl-sweep.sh: unknown part '$p' in PARTS (gemm, gemm1x128, lls)" >&2; exit 2 ;; esac
done
nrep=${GEMM_REPEAT:-1}
case $nrep in '' | *[!0-9]* | 0) echo "impl-sweep.sh: GEMM_REPEAT '$nrep' is not a count of 1 or more" >&2; exit 2 ;; esac
status=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
say "== impl-sweep.sh on $(hostname) $(date -u +%FT%TZ), ${F8B_GIT_DESCRIBE:-$(cd "$src" && git describe --always --dirty 2>/dev/null)}"
command -v nvidia-smi >/dev/null 2>&1 &&
	say "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)"
CSVAWK="$(cat "$src/scripts/csv.awk" "$src/scripts/csv-cols.awk")"$'\n'
# The gemm parts' rows: per shape ("MxKxN label", then the fp8 operands'
# dtype pair where it is not e4m3:e4m3), scaling, fast_accum and impl,
# the status and TFLOP/s; t() a row's TFLOP/s (0 unless ok), r() a ratio
# of two (or "-").
GEMMAWK='
{
	shape = F[c["m"]] "x" F[c["k"]] "x" F[c["n"]] (F[c["label"]] != "" ? " " F[c["label"]] : "")
	if (("a_dtype" in c) && F[c["a_dtype"]] != "bf16") {
		dt = F[c["a_dtype"]] ":" F[c["b_dtype"]]
		if (dt != "e4m3:e4m3")
			shape = shape " " dt
	}
	if (!(shape in seen)) { seen[shape] = 1; order[++n] = shape }
	fa = (F[c["fast_accum"]] == 1 || F[c["fast_accum"]] == "on") ? "on" : "off"
	k = shape SUBSEP F[c["scaling"]] SUBSEP fa SUBSEP F[c["impl"]]
	st[k] = F[c["status"]]; tf[k] = F[c["tflops"]]
}
function r(a, b) { return (a > 0 && b > 0) ? sprintf("%.3f", a / b) : "-" }
function t(s, sc, fa, im,    k) { k = s SUBSEP sc SUBSEP fa SUBSEP im; return st[k] == "ok" ? tf[k] : 0 }
'
# rows_not_ok CSV: how many rows of a table are not ok
rows_not_ok() { awk "$CSVAWK"'F[c["status"]] != "ok" { n++ } END { print n + 0 }' "$1"; }
# run_part NAME TABLE TIMEOUT ARGS...: f8bench ARGS (its -o is
# $out/NAME.h5, its log $out/NAME.log) under TIMEOUT seconds, then the
# file's TABLE as $out/NAME.csv; fails when that cannot be read
run_part() {
	local name=$1 table=$2 limit=$3
	shift 3
	say "+ f8bench $* -o $out/$name.h5"
	rm -f "$out/$name.h5"
	timeout "$limit" "$f8b" "$@" -o "$out/$name.h5" >"$out/$name.log" 2>&1
	local rc=$?
	say "  exit $rc (124: timed out, rows so far kept)"
	[ $rc = 0 ] || status=1
	"$f8b" export "$out/$name.h5" --table "$table" -o "$out/$name.csv" 2>>"$out/$name.log" && return 0
	say "  no $table table to read"
	status=1
	return 1
}

# gemm_part NAME: the gemm part's command into NAME.h5, and its table
gemm_part() {
	local name=$1
	if run_part "$name" gemm "${GEMM_TIMEOUT:-330}" gemm --impl cublaslt,f8b \
		--shapes "${GEMM_SHAPES:-pow2,llama3-8b,llama2-70b}" --scaling tensorwise,axiswise,blockwise \
		--fast-accum on,off --dtypes "${GEMM_DTYPES:-e4m3:e4m3}" --max-time 0.3 "${copt[@]}"; then
		say "gemm, dtypes ${GEMM_DTYPES:-e4m3:e4m3} (a pair but e4m3:e4m3 named after the shape), bf16 out, TFLOP/s (medians, one process); fast: f8b / cuBLASLt, both fast_accum on (target >= 0.97 tensorwise);"
		say "promotion and blockwise: f8b over cuBLASLt's tensorwise fast_accum-on row (target >= 0.95)"
		awk "$CSVAWK$GEMMAWK"'
		END {
			printf "  %-42s %8s %8s %6s %6s | %6s %6s %6s  (promotion, blockwise / lt TW-fast)\n", "MxKxN label", "lt TW", "f8b TW", "TW", "AX", "TW", "AX", "BLK"
			for (i = 1; i <= n; i++) {
				s = order[i]; lt = t(s, "tensorwise", "on", "cublaslt")
				printf "  %-42s %8.1f %8.1f %6s %6s | %6s %6s %6s\n", s, lt, t(s, "tensorwise", "on", "f8b"),
					r(t(s, "tensorwise", "on", "f8b"), lt), r(t(s, "axiswise", "on", "f8b"), t(s, "axiswise", "on", "cublaslt")),
					r(t(s, "tensorwise", "off", "f8b"), lt), r(t(s, "axiswise", "off", "f8b"), lt), r(t(s, "blockwise", "off", "f8b"), lt)
			}
		}' "$out/$name.csv" | tee -a "$out/summary.txt"
		say "  rows not ok: $(rows_not_ok "$out/$name.csv")"
	fi
}

if [[ $parts == *" gemm "* ]]; then
	gemm_part gemm-impl-sweep
	for ((i = 2; i <= nrep; i++)); do
		say "== the gemm part again, process $i of $nrep"
		gemm_part "gemm-impl-sweep-$i"
	done
	if [ "$nrep" -gt 1 ]; then
		say "== $nrep processes of one command: scripts/f8b-targets.sh GEMM.h5 -- $out/gemm-impl-sweep*.h5"
		say "   judges the gemm targets on the median over them"
	fi
fi

if [[ $parts == *" gemm1x128 "* ]]; then
	if run_part gemm-1x128 gemm "${GEMM1X128_TIMEOUT:-120}" gemm --impl cublaslt,f8b \
		--shapes "${GEMM1X128_SHAPES:-4096x4096x4096,8192x8192x8192,16384x16384x16384}" \
		--scaling blockwise-1x128,tensorwise --fast-accum on,off --dtypes e4m3:e4m3 \
		--max-time 0.3 "${copt[@]}"; then
		say "gemm blockwise-1x128 (A and B 1x128: the blockwise recipe's grad_weight), e4m3 x e4m3, fast_accum off,"
		say "TFLOP/s (medians, one process); f8b over cuBLASLt's blockwise-1x128 and over its tensorwise fast_accum-on row"
		awk "$CSVAWK$GEMMAWK"'
		function v(x) { return x > 0 ? sprintf("%.1f", x) : "-" }
		END {
			printf "  %-30s %8s %8s %8s %12s\n", "MxKxN label", "lt 1x128", "f8b", "f8b / lt", "/ lt TW-fast"
			for (i = 1; i <= n; i++) {
				s = order[i]; a = t(s, "blockwise-1x128", "off", "cublaslt"); b = t(s, "blockwise-1x128", "off", "f8b")
				printf "  %-30s %8s %8s %8s %12s\n", s, v(a), v(b), r(b, a), r(b, t(s, "tensorwise", "on", "cublaslt"))
			}
		}' "$out/gemm-1x128.csv" | tee -a "$out/summary.txt"
		say "  rows not ok: $(rows_not_ok "$out/gemm-1x128.csv") (cuBLASLt has no blockwise-1x128 with fast_accum on)"
	fi
fi

if [[ $parts == *" lls "* ]]; then
	if run_part lls-impl lls "${LLS_TIMEOUT:-200}" lls --gemm-impl cublaslt,f8b \
		--shapes "${LLS_SHAPES:-4096x4096x4096,8192x8192x8192}" \
		${LLS_RECIPES:+--recipe "$LLS_RECIPES"} --min-time 0.2 --max-time 1 "${copt[@]}" \
		${LLS_ARGS:-}; then
		say "lls step, ms (medians); lt / f8b: cuBLASLt's step time over f8b's (> 1: f8b faster); traced: the same"
		say "ratio of the traced steps (traced_time_median_s: each implementation's steps one after another, doc/lls.md)"
		awk "$CSVAWK"'
		{
			shape = F[c["m"]] "x" F[c["k"]] "x" F[c["n"]]
			k = shape " " F[c["recipe"]]
			if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			im = F[c["gemm_impl"]] == "" ? "cublaslt" : F[c["gemm_impl"]]
			st[k, im] = F[c["status"]]; tm[k, im] = F[c["time_median_s"]]
			tt[k, im] = ("traced_time_median_s" in c) ? F[c["traced_time_median_s"]] + 0 : 0
		}
		END {
			printf "  %-34s %10s %10s %8s %8s\n", "shape recipe", "cublaslt", "f8b", "lt / f8b", "traced"
			for (i = 1; i <= n; i++) {
				k = order[i]; a = tm[k, "cublaslt"]; b = tm[k, "f8b"]
				both = st[k, "cublaslt"] == "ok" && st[k, "f8b"] == "ok"
				ta = tt[k, "cublaslt"]; tb = tt[k, "f8b"]
				printf "  %-34s %10s %10s %8s %8s  %s %s\n", k, (st[k, "cublaslt"] == "ok" ? sprintf("%.4f", 1e3 * a) : "-"),
					(st[k, "f8b"] == "ok" ? sprintf("%.4f", 1e3 * b) : "-"),
					(both && b > 0 ? sprintf("%.3f", a / b) : "-"),
					(both && ta > 0 && tb > 0 ? sprintf("%.3f", ta / tb) : "-"),
					st[k, "cublaslt"], st[k, "f8b"]
			}
		}' "$out/lls-impl.csv" | tee -a "$out/summary.txt"
	fi
fi
exit $status
