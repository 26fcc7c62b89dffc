#!/usr/bin/env bash
# gemm-kernel-gpu.sh - f8bench's own sm_90a fp8 GEMM (--impl f8b, issue 23)
# on an H100: its tests, the tests under compute-sanitizer, what the
# compiler made of it, and its speed beside cuBLASLt in one process.
#
#   scripts/gemm-kernel-gpu.sh BUILD_DIR OUT_DIR
#
# e.g. from the top of a checkout, on an H100 node with the CUDA 13 toolkit:
#   scripts/gemm-kernel-gpu.sh _gpu gpu-out; cat gpu-out/summary.txt
#
# BUILD_DIR: a build tree of this source (configured there if it has no
# Makefile yet: bootstrap + configure); the script runs `make` for the two
# programs it needs.  Order: tests, benchmark, tiles, sass, sanitizer - the most
# telling first, each step under its own time limit, so that the whole run
# stays within about 9 minutes after the build even when the kernel hangs
# (a wait that never ends traps after ~17 s: ptx/mbarrier.cuh).
# Environment:
#   SHAPES  the benchmark's --shapes (default: 4096, 8192, 16384 cubed and
#           the four llama3-8b layers at M = 8192; e.g. SHAPES=llama3-8b)
#   TILE_SHAPES  shapes on which every f8b tile is timed (--autotune)
#   TEST_TIMEOUT (150), BENCH_TIMEOUT (200), TILES_TIMEOUT (90),
#   SANITIZER_TIMEOUT (60 per tool): seconds
# Leaves in OUT_DIR: test_f8b_gemm.log, sanitizer-{memcheck,racecheck,
# synccheck}.log, sass.txt, resource-usage.txt, gemm-impl.h5 (+ .csv),
# gemm-f8b-tiles.h5 (+ .csv), tiles.log, table.txt,
# bench.log, summary.txt.  Every step runs whatever an earlier one did: a
# wrong kernel is reported as wrong, and the table at the end still comes.
# Exit status: 0 when every step passed, 1 otherwise.
set -uo pipefail
build=${1:?usage: scripts/gemm-kernel-gpu.sh BUILD_DIR OUT_DIR}
out=${2:?usage: scripts/gemm-kernel-gpu.sh BUILD_DIR OUT_DIR}
mkdir -p "$out" "$build"
build=$(cd "$build" && pwd)
out=$(cd "$out" && pwd)
shapes=${SHAPES:-4096x4096x4096,8192x8192x8192,16384x16384x16384,8192x4096x6144,8192x4096x4096,8192x4096x28672,8192x14336x4096}
bench_timeout=${BENCH_TIMEOUT:-200}
test_timeout=${TEST_TIMEOUT:-150}
san_timeout=${SANITIZER_TIMEOUT:-60}
tiles_timeout=${TILES_TIMEOUT:-90}
tile_shapes=${TILE_SHAPES:-8192x8192x8192}
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
failed=()
fail() {
	failed+=("$1")
	say "FAILED: $1"
}
f8bench="$build/f8bench"
test_bin="$build/tests/gpu/test_f8b_gemm"
kobj="$build/kernels/gemm/sm90_fp8_gemm_tensorwise.o"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)

say "== gemm-kernel-gpu.sh on $(hostname) at $(date -u +%FT%TZ)"
say "source: $(git -C "$(dirname "$0")/.." describe --always --dirty 2>/dev/null || echo unknown)"
say "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"

# ---- build what is needed
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$build/Makefile" ]; then
	say "configuring $build"
	if ! (cd "$src" && ./bootstrap && cd "$build" && "$src/configure") >"$out/configure.log" 2>&1; then
		fail "configure (tail of configure.log below)"
		tail -n 20 "$out/configure.log" | tee -a "$summary"
		exit 1
	fi
fi
if ! make -C "$build" -j"$(nproc)" f8bench tests/gpu/test_f8b_gemm >"$out/build.log" 2>&1; then
	fail "build (tail of build.log below)"
	tail -n 40 "$out/build.log" | tee -a "$summary"
	say "nothing else can run"
	exit 1
fi
say "build: ok"

# ---- the tests
tap_summary() { # LOG: "N ok, M not ok, S skipped" and the first failures
	local log=$1
	local ok notok skip
	ok=$(grep -c '^ok ' "$log")
	notok=$(grep -c '^not ok ' "$log")
	skip=$(grep -c '^ok .*# SKIP' "$log")
	echo "$((ok - skip)) passed, $notok failed, $skip skipped; plan: $(grep -E '^1\.\.[0-9]+' "$log" | tail -1)"
}
timeout "$test_timeout" "$test_bin" >"$out/test_f8b_gemm.log" 2>&1
rc=$?
say "test_f8b_gemm (exit $rc): $(tap_summary "$out/test_f8b_gemm.log")"
say "layer tests (tma, wgmma, ring): $(grep -c '^ok .* - layer ' "$out/test_f8b_gemm.log") ok, $(grep -c '^not ok .* - layer ' "$out/test_f8b_gemm.log") not ok"
grep -E '^not ok' "$out/test_f8b_gemm.log" | head -20 | tee -a "$summary"
grep -E 'DIAGNOSIS' "$out/test_f8b_gemm.log" | head -8 | tee -a "$summary"
grep -E '^# f8b M=.*rel_error' "$out/test_f8b_gemm.log" | head -12 >>"$summary"
case $rc in
0) ;;
77) fail "test_f8b_gemm skipped everything (exit 77: no usable GPU)" ;;
124) fail "test_f8b_gemm timed out after ${test_timeout} s (a hung kernel traps after ~17 s: see the log's last case)" ;;
*) fail "test_f8b_gemm (exit $rc, see test_f8b_gemm.log; its last lines:)"; tail -n 5 "$out/test_f8b_gemm.log" | tee -a "$summary" ;;
esac

# ---- speed beside cuBLASLt, one process
rm -f "$out/gemm-impl.h5"
timeout "$bench_timeout" "$f8bench" gemm --impl cublaslt,f8b --shapes "$shapes" \
	--dtypes e4m3:e4m3 --scaling tensorwise --fast-accum on --max-time 3 -o "$out/gemm-impl.h5" \
	>"$out/bench.log" 2>&1
rc=$?
say "f8bench gemm --impl cublaslt,f8b --shapes $shapes --dtypes e4m3:e4m3 --scaling tensorwise --fast-accum on --max-time 3 (exit $rc; 124 = timed out after $bench_timeout s, rows so far kept)"
[ $rc -eq 0 ] || { fail "benchmark (exit $rc, see bench.log)"; tail -n 15 "$out/bench.log" | tee -a "$summary"; }
if [ -f "$out/gemm-impl.h5" ] && "$f8bench" export "$out/gemm-impl.h5" --table gemm -o "$out/gemm-impl.csv" 2>>"$out/bench.log"; then
	grep -E '^f8bench gemm: .*impl=f8b: (wrong|unsupported|error)' "$out/bench.log" | head -5 | tee -a "$summary"
	{
	echo "TFLOP/s, e4m3 x e4m3 tensorwise fast_accum on, bf16 out (medians, one process; tile: cuBLASLt tile id, 20 = 128x128, 23 = 128x256):"
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["scaling"] != "tensorwise" { next }
	{
		key = $c["m"] "x" $c["k"] "x" $c["n"]
		if (!(key in seen)) { seen[key] = 1; order[++n] = key }
		im = $c["impl"]
		st[key, im] = $c["status"]
		tf[key, im] = $c["tflops"]
		re[key, im] = $c["rel_error"]
		tl[key, im] = $c["algo_tile"]
	}
	END {
		printf "  %-20s %10s %10s %7s  %-24s %s\n", "MxKxN", "cublaslt", "f8b", "ratio", "f8b status (tile)", "rel_error cublaslt / f8b"
		for (i = 1; i <= n; i++) {
			k = order[i]
			a = tf[k, "cublaslt"]; b = tf[k, "f8b"]
			r = (st[k, "cublaslt"] == "ok" && st[k, "f8b"] == "ok" && a > 0) ? sprintf("%.3f", b / a) : "-"
			printf "  %-20s %10.1f %10.1f %7s  %-24s %.2e / %.2e\n", k, a, b, r, st[k, "f8b"] " (" tl[k, "f8b"] ")", re[k, "cublaslt"], re[k, "f8b"]
		}
	}' "$out/gemm-impl.csv"
	} >"$out/table.txt"
else
	fail "no gemm-impl.h5 table to read"
fi

# ---- every tile of f8b's table (--autotune: the fastest kept, the host's
# pick timed beside it), on two shapes: does the cluster tile pay?
rm -f "$out/gemm-f8b-tiles.h5"
timeout "$tiles_timeout" "$f8bench" gemm --impl f8b --autotune 8 --shapes "$tile_shapes" \
	--dtypes e4m3:e4m3 --scaling tensorwise --fast-accum on --max-time 3 \
	-o "$out/gemm-f8b-tiles.h5" >"$out/tiles.log" 2>&1
rc=$?
say "f8bench gemm --impl f8b --autotune 8 --shapes $tile_shapes (exit $rc)"
[ $rc -eq 0 ] || fail "tile autotune run (exit $rc, see tiles.log)"
if [ -f "$out/gemm-f8b-tiles.h5" ] &&
	"$f8bench" export "$out/gemm-f8b-tiles.h5" --table gemm -o "$out/gemm-f8b-tiles.csv" 2>>"$out/tiles.log"; then
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["impl"] == "f8b" {
		f = 2 * $c["m"] * $c["n"] * $c["k"] / 1e12
		h = $c["heuristic_time_median_s"]
		printf "  %sx%sx%s: %s, fastest tile %s stages %s cluster id %s (3 = 2x1x1): %.1f TFLOP/s; host pick %.1f TFLOP/s\n", $c["m"], $c["k"], $c["n"], $c["status"], $c["algo_tile"], $c["algo_stages"], $c["algo_cluster"], $c["tflops"], (h > 0 ? f / h : 0)
	}' "$out/gemm-f8b-tiles.csv" | tee -a "$summary"
fi

# ---- what the compiler made of the kernel
if [ -x "$cuobjdump" ] && [ -f "$kobj" ]; then
	"$cuobjdump" -sass "$kobj" >"$out/sass.txt" 2>&1
	"$cuobjdump" -res-usage "$kobj" >"$out/resource-usage.txt" 2>&1
	say "sass of $(basename "$kobj"): per kernel: QGMMA / UTMALDG / SYNCS / WARPGROUP / local memory (LDL+STL)"
	awk '/Function :/ { if (f) printf "  %-80.80s %5d %4d %4d %4d %4d\n", f, q, t, s, w, l; f = $3; q = t = s = w = l = 0 }
	     /QGMMA/ { q++ } /UTMALDG/ { t++ } /SYNCS/ { s++ } /WARPGROUP/ { w++ } /[^A-Z](LDL|STL)[. ]/ { l++ }
	     END { if (f) printf "  %-80.80s %5d %4d %4d %4d %4d\n", f, q, t, s, w, l }' "$out/sass.txt" | tee -a "$summary"
	grep -q QGMMA "$out/sass.txt" || fail "no QGMMA instruction in the kernel's sass"
	say "resource usage (kernels with it): $(grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' "$out/resource-usage.txt" | sort | uniq -c | tr -s ' ' | paste -sd ';')"
	grep -q USETMAXREG "$out/sass.txt" || say "note: no USETMAXREG in the sass (setmaxnreg dropped?)"
else
	fail "cuobjdump or $kobj missing"
fi

# ---- the tests on small shapes under compute-sanitizer
if [ -x "$sanitizer" ]; then
	for tool in memcheck racecheck synccheck; do
		F8B_TEST_SMALL=1 timeout "$san_timeout" "$sanitizer" --tool "$tool" --error-exitcode 99 \
			"$test_bin" >"$out/sanitizer-$tool.log" 2>&1
		rc=$?
		say "compute-sanitizer $tool (exit $rc): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tail -1) / $(tap_summary "$out/sanitizer-$tool.log")"
		[ $rc -eq 0 ] || fail "compute-sanitizer $tool (exit $rc, see sanitizer-$tool.log)"
	done
else
	fail "compute-sanitizer not found"
fi

say ""
status=0
if [ ${#failed[@]} -eq 0 ]; then
	say "ALL STEPS PASSED"
else
	say "${#failed[@]} STEP(S) FAILED:"
	for f in "${failed[@]}"; do say "  - $f"; done
	status=1
fi
say ""
[ -s "$out/table.txt" ] && say "$(cat "$out/table.txt")"
exit $status
