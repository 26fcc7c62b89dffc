#!/usr/bin/env bash
# stagger-ab.sh - f8b's promoting GEMMs with the consumer warpgroups
# staggered on the tensor cores or not (F8B_KGEMM_STAGGER, doc/gemm-kernels.md
# "Staggered warpgroups"), beside cuBLASLt, in one job.
#
#   scripts/stagger-ab.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR: a build tree of this source (configured already; the script
# makes f8bench and tests/gpu/test_f8b_gemm there).  First the small GEMM
# tests under each setting (F8B_TEST_SMALL=1: ragged shapes, every
# mode and tile), then ROUNDS rounds (default 1) of
#   F8B_KGEMM_STAGGER=S f8bench gemm --impl cublaslt,f8b --shapes SHAPES
#     --scaling tensorwise,axiswise,blockwise --fast-accum on,off
# for each S of SETTINGS (default "0 1 2"), appended to
# OUT_DIR/gemm-stagger-S.h5, and a table of every row with fast_accum off:
# TFLOP/s per setting, and each over cuBLASLt's tensorwise fast_accum-on
# row of the same process (issue 23's target: >= 0.95).
# Environment: SHAPES (4096 and 8192 cubed), SETTINGS, ROUNDS,
# GEMM_TIMEOUT (150 s a run), TEST_TIMEOUT (100 s a setting).
set -uo pipefail
usage="usage: scripts/stagger-ab.sh BUILD_DIR OUT_DIR"
build=${1:?$usage}
out=${2:?$usage}
mkdir -p "$out"
build=$(cd "$build" && pwd) || exit 2
out=$(cd "$out" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
shapes=${SHAPES:-4096x4096x4096,8192x8192x8192}
settings=${SETTINGS:-0 1 2}
status=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
say "== stagger-ab.sh on $(hostname) $(date -u +%FT%TZ), ${F8B_GIT_DESCRIBE:-$(cd "$src" && git describe --always --dirty 2>/dev/null)}"
command -v nvidia-smi >/dev/null 2>&1 &&
	say "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)"
if ! { make -C "$build" src/git-version.h &&
	make -C "$build" -j"$(nproc)" f8bench tests/gpu/test_f8b_gemm; } >"$out/build.log" 2>&1; then
	say "build failed (tail of build.log):"
	tail -n 30 "$out/build.log" | tee -a "$out/summary.txt"
	exit 1
fi
grep -q 'wgmma.mma_async instructions are serialized' "$out/build.log" &&
	{ say "FAILED: ptxas serialised the wgmma of a kernel (build.log)"; status=1; }
for s in $settings; do
	F8B_KGEMM_STAGGER=$s F8B_TEST_SMALL=1 timeout "${TEST_TIMEOUT:-100}" \
		"$build/tests/gpu/test_f8b_gemm" >"$out/test-stagger-$s.log" 2>&1
	rc=$?
	say "F8B_KGEMM_STAGGER=$s test_f8b_gemm (small): exit $rc, $(grep -c '^ok ' "$out/test-stagger-$s.log") ok, $(grep -c '^not ok' "$out/test-stagger-$s.log") not ok"
	[ $rc = 0 ] || { status=1; grep '^not ok' "$out/test-stagger-$s.log" | head -5 | tee -a "$out/summary.txt"; }
done
CSVAWK="$(cat "$src/scripts/csv.awk" "$src/scripts/csv-cols.awk")"$'\n'
for r in $(seq 1 "${ROUNDS:-1}"); do
	for s in $settings; do
		say "+ round $r: F8B_KGEMM_STAGGER=$s f8bench gemm --impl cublaslt,f8b --shapes $shapes --dtypes e4m3:e4m3 --scaling tensorwise,axiswise,blockwise --fast-accum on,off --max-time 0.3 -o gemm-stagger-$s.h5 --append"
		F8B_KGEMM_STAGGER=$s timeout "${GEMM_TIMEOUT:-150}" "$build/f8bench" gemm --impl cublaslt,f8b \
			--shapes "$shapes" --dtypes e4m3:e4m3 --scaling tensorwise,axiswise,blockwise \
			--fast-accum on,off --max-time 0.3 -o "$out/gemm-stagger-$s.h5" --append \
			>>"$out/gemm-stagger-$s.log" 2>&1 || { status=1; say "  exit $? (see gemm-stagger-$s.log)"; }
	done
done
say "fast_accum off, e4m3 x e4m3, bf16 out: TFLOP/s (each round's row), and / lt TW-fast of the same process"
for s in $settings; do
	"$build/f8bench" export "$out/gemm-stagger-$s.h5" --table gemm -o "$out/gemm-stagger-$s.csv" 2>>"$out/gemm-stagger-$s.log" ||
		{ say "  setting $s: no gemm table"; status=1; continue; }
	awk -v S="$s" "$CSVAWK"'
	{
		shape = F[c["m"]] "x" F[c["k"]] "x" F[c["n"]]
		fa = (F[c["fast_accum"]] == 1 || F[c["fast_accum"]] == "on") ? "on" : "off"
		if (F[c["impl"]] == "cublaslt" && F[c["scaling"]] == "tensorwise" && fa == "on")
			lt[shape] = F[c["tflops"]]
		if (fa == "off" && F[c["scaling"]] != "none")
			printf "  stagger %s %-16s %-10s %-8s %8.1f TFLOP/s  / lt TW-fast %s  %s tile %s, SM %s-%s MHz\n", S, shape,
				F[c["scaling"]], F[c["impl"]], F[c["tflops"]],
				(lt[shape] > 0 ? sprintf("%.3f", F[c["tflops"]] / lt[shape]) : "-"), F[c["status"]],
				F[c["algo_tile"]], F[c["sm_mhz_min"]], F[c["sm_mhz_max"]]
	}' "$out/gemm-stagger-$s.csv" | tee -a "$out/summary.txt"
done
exit $status
