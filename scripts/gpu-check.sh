#!/usr/bin/env bash
# gpu-check.sh - what to run on a new GPU node (and what f8bench's own GPU
# runs do): build from source, run the whole test suite with the GPU tests,
# run the GPU tests under compute-sanitizer, and a quick benchmark.
#
#   scripts/gpu-check.sh OUTDIR [--no-tests | --no-sanitizers | --sanitizers-only]
#                               [--no-bench] [--tests SET] [--sweep PART]...
#                               (PART: see gpu-sweep.sh)
#
# --no-tests: neither make check nor the sanitizer runs.  The whole check
# outgrew one 10-minute device call (make check alone took 388 s on an
# H100 at 263dd00), so it also runs in two: --no-sanitizers (the build,
# make check, the quick benchmarks), then --sanitizers-only (the build and
# the test programs, not run; the quick benchmarks; compute-sanitizer
# memcheck on the GPU tests and the lls and allgather runs).  --no-bench
# leaves the two quick benchmarks out (about a minute): with the
# transposed write's test cases the build and make check alone take about
# 8 of a call's 10 minutes (results/h100/gpu-check-summary-cadf2b4.txt).
# --tests SET: the tests make check runs (TESTS=...): all (the default),
# gemm (test_f8b_gemm's main and ping-pong passes, its layers, its
# cluster and direct passes) or rest (every other test, test_f8b_gemm's
# e4m3 pass among them: the longest one alone, about 6 minutes), so that
# make check can also run in two calls: --no-sanitizers --no-bench
# --tests gemm, then --tests rest (at 68c7d9a the whole of it ran past a
# call's 600 s: results/h100/gpu-check-summary-68c7d9a.txt).  The summary
# names the set.
#
# Leaves in OUTDIR: summary.txt (what passed, the quick benchmark's rows),
# logs.tar.gz (build, test and sanitizer logs, nvidia-smi), quick.h5, and
# with --sweep the reference sweep files of results/ (see results/README.md).
# On a node with several GPUs (nvidia-smi -L) it also runs the multi-GPU
# test tests/gpu/mpi_collectives.sh (in make check, or alone with
# --no-tests; its log is OUTDIR/mpi_collectives.log) and a short collectives
# check, mpiexec -n NGPU f8bench ceilings --kinds allgather,allreduce at
# 1 MiB, 64 MiB and 1 GiB (OUTDIR/collectives-check.h5); the full sweep is
# --sweep collectives.
# Exit status: 0 when the build, the tests and the sanitizer runs passed.
set -uo pipefail
out=${1:?usage: scripts/gpu-check.sh OUTDIR [--no-tests | --no-sanitizers | --sanitizers-only] [--no-bench] [--tests all|gemm|rest] [--sweep PART]...}
shift
sweep=
tests=1 san=1 bench=1 tset=all
while [ $# -gt 0 ]; do
	case $1 in
	--sweep) sweep="$sweep ${2:?--sweep PART}"; shift 2 ;;
	--no-tests) tests=0 san=0; shift ;;
	--no-sanitizers) san=0; shift ;;
	--sanitizers-only) tests=0 san=1; shift ;;
	--no-bench) bench=0; shift ;;
	--tests)
		tset=${2:-}
		case $tset in
		all | gemm | rest) ;;
		*) echo "gpu-check.sh: --tests takes all, gemm or rest (not '$tset')" >&2; exit 2 ;;
		esac
		shift 2 ;;
	*) echo "gpu-check.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
logs=$(mktemp -d)
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
# Multi-GPU hosts: NVLink multicast stays off (shared machines).
export NCCL_NVLS_ENABLE=0
# Open MPI refuses root unless told; these machines run commands as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
jobs=$(nproc 2>/dev/null || echo 4)

say "== f8bench gpu-check on $(hostname) at $(date -u +%FT%TZ)"
nvidia-smi >"$logs/nvidia-smi.txt" 2>&1 && say "$(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader)"

status=0
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
build="$src/_gpu_build"
rm -rf "$build"
mkdir -p "$build"
t0=$(date +%s)
if ! (cd "$src" && ./bootstrap) >"$logs/bootstrap.log" 2>&1 ||
	! (cd "$build" && "$src/configure") >"$logs/configure.log" 2>&1 ||
	! make -C "$build" -j"$jobs" >"$logs/build.log" 2>&1; then
	say "BUILD FAILED (see logs.tar.gz)"
	for f in "$logs"/*.log; do echo "== $f"; tail -n 30 "$f"; done
	tar -czf "$out/logs.tar.gz" -C "$logs" .
	exit 1
fi
say "build: ok in $(($(date +%s) - t0)) s ($(grep -c 'warning:' "$logs/build.log") warnings)"
grep -A3 'warning:' "$logs/build.log" | head -40 >>"$summary"

if [ $tests = 1 ]; then
t0=$(date +%s)
# --tests: the f8b GEMM's GPU tests but its e4m3 pass, or every other test
gemm_tests="tests/gpu/test_f8b_gemm tests/gpu/test_f8b_gemm_layers tests/gpu/f8b_gemm_direct.sh"
set_args=()
if [ "$tset" != all ]; then
	all_tests=$(make -s -C "$build" list-tests) || status=1
	if [ "$tset" = gemm ]; then
		list=$gemm_tests
	else
		list=$(printf '%s\n' $all_tests | grep -vxF -f <(printf '%s\n' $gemm_tests) | tr '\n' ' ')
	fi
	set_args=("TESTS=$list")
	say "tests ($tset): $(echo $list | wc -w) of $(echo $all_tests | wc -w)"
fi
make -C "$build" -j"$jobs" check "${set_args[@]}" >"$logs/check.log" 2>&1 || status=1
cp "$build/test-suite.log" "$logs/" 2>/dev/null
for f in "$build"/tests/*.log "$build"/tests/gpu/*.log; do cp "$f" "$logs/" 2>/dev/null; done
say "make check${set_args:+ ($tset)}: $([ $status = 0 ] && echo ok || echo FAILED) in $(($(date +%s) - t0)) s"
grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' "$build/test-suite.log" | tee -a "$summary"
# the failures first (a list of skips once hid them past its 40th line),
# then the skips
grep -hE '^not ok' "$build"/tests/gpu/*.log "$build"/tests/*.log 2>/dev/null | head -40 | tee -a "$summary"
grep -hE '^ok .*# SKIP' "$build"/tests/gpu/*.log "$build"/tests/*.log 2>/dev/null | head -40 | tee -a "$summary"
grep -h '^# ' "$build"/tests/gpu/*.log 2>/dev/null | head -60 >>"$summary"
elif [ $san = 1 ]; then
	# the test programs the sanitizer runs below, built, none run
	make -C "$build" -j"$jobs" check TESTS= >"$logs/check-build.log" 2>&1 || {
		say "building the test programs FAILED (see logs.tar.gz)"
		status=1
	}
fi
# The allgather benchmark on this node's GPUs (2 when there are: NCCL's
# direct and network paths), its exact checks and first numbers.
say "== allgather on min(2, $ngpu) GPUs (tests/gpu/mpi_allgather.sh)"
grep -hE '^(ok|not ok|# )' "$build/tests/gpu/mpi_allgather.log" 2>/dev/null | tee -a "$summary"

# Several GPUs: the multi-GPU test (run by make check after the other GPU
# tests, alone otherwise) and a short collectives sweep, on idle GPUs.
if [ "$ngpu" -gt 1 ]; then
	say "== collectives on $ngpu GPUs (tests/gpu/mpi_collectives.sh)"
	coll_log="$build/tests/gpu/mpi_collectives.log"
	if [ $tests = 0 ] || [ ! -s "$coll_log" ]; then
		coll_log="$out/mpi_collectives.log"
		mpiexec_cmd=$(sed -n 's/^MPIEXEC = //p' "$build/Makefile")
		(cd "$build" && srcdir="$src" F8BENCH="$build/f8bench" MPIEXEC="$mpiexec_cmd" \
			F8B_INPUTS="$src/inputs" sh "$src/tests/gpu/mpi_collectives.sh") >"$coll_log" 2>&1
		[ $? = 0 ] || status=1
	else
		cp "$coll_log" "$out/mpi_collectives.log"
		grep -q '^not ok' "$coll_log" && status=1
	fi
	grep -hE '^(ok|not ok|1\.\.|# )' "$coll_log" | tee -a "$summary"
	say "== collectives check: mpiexec -n $ngpu f8bench ceilings --kinds allgather,allreduce"
	mpiexec -n "$ngpu" "$build/f8bench" ceilings --kinds allgather,allreduce \
		--coll-sizes 1M,64M,1G -o "$out/collectives-check.h5" >"$logs/collectives-check.log" 2>&1 ||
		status=1
	grep -E 'all(gather|reduce)|wrote|error' "$logs/collectives-check.log" | tee -a "$summary"
fi

f8b="$build/f8bench"
export F8B_INPUTS="$src/inputs" F8B_ROOFLINE="$src/roofline"
if [ $bench = 1 ]; then
	say "== quick benchmark"
	"$f8b" gemm --shapes 4096x4096x4096,8192x8192x8192 --dtypes e4m3:e4m3 -o "$out/quick.h5" \
		>"$logs/quick.log" 2>&1 || status=1
	cat "$logs/quick.log" >>"$summary"
	tail -16 "$logs/quick.log"
	say "== quick lls benchmark"
	"$f8b" lls --shapes 4096x4096x4096 --min-time 0.2 -o "$out/quick-lls.h5" \
		>"$logs/quick-lls.log" 2>&1 || status=1
	cat "$logs/quick-lls.log" >>"$summary"
	tail -8 "$logs/quick-lls.log"
else
	say "== quick benchmarks: left out (--no-bench)"
fi

for part in $sweep; do
	"$src/scripts/gpu-sweep.sh" "$f8b" "$out" "$part" >"$logs/sweep-$part.log" 2>&1 || status=1
	grep -E '^\+ f8bench|wrote|error|wrong|unsupported' "$logs/sweep-$part.log" | head -80 | tee -a "$summary"
done
tar -czf "$out/logs.tar.gz" -C "$logs" .
# compute-sanitizer memcheck on the GPU tests (last: it is slow).
if [ $san = 1 ]; then
if command -v compute-sanitizer >/dev/null 2>&1; then
	# The verdict is memcheck's own error summary: timing assertions cannot
	# hold under instrumentation, and deliberate API errors (a test of
	# out-of-memory handling) are not memory errors.
	for t in test_kernels test_gemm_cuda test_harness_gpu test_lls_kernels test_lls_fused test_ag_ops \
		test_optim; do
		(cd "$build" && srcdir="$src" timeout 240 compute-sanitizer --tool memcheck \
			--leak-check full --report-api-errors no "tests/gpu/$t") \
			>"$logs/sanitizer-$t.log" 2>&1
		if grep -q 'ERROR SUMMARY: 0 errors' "$logs/sanitizer-$t.log"; then
			say "compute-sanitizer memcheck $t: clean ($(grep -c '^ok' "$logs/sanitizer-$t.log") assertions ran)"
		else
			say "compute-sanitizer memcheck $t: ERRORS"
			grep -m 20 '=========' "$logs/sanitizer-$t.log" >>"$summary"
			status=1
		fi
	done
	# The lls step end to end (every recipe, eager and as a graph).
	for g in off on; do
		(cd "$build" && timeout 300 compute-sanitizer --tool memcheck --leak-check full \
			--report-api-errors no ./f8bench lls --shapes 256x512x384 --graph $g --min-time 0 \
			--min-samples 1 --max-samples 2 --warmup 0 -q -o "$logs/sanitizer-lls-$g.h5") \
			>"$logs/sanitizer-lls-$g.log" 2>&1
		if grep -q 'ERROR SUMMARY: 0 errors' "$logs/sanitizer-lls-$g.log" &&
			grep -q ' 0 wrong, .* 0 error' "$logs/sanitizer-lls-$g.log"; then
			say "compute-sanitizer memcheck f8bench lls --graph $g: clean ($(grep -o 'wrote.*' "$logs/sanitizer-lls-$g.log"))"
		else
			say "compute-sanitizer memcheck f8bench lls --graph $g: ERRORS"
			grep -m 20 -E '=========|error' "$logs/sanitizer-lls-$g.log" >>"$summary"
			status=1
		fi
	done
	# The allgather step end to end on one rank (every mode, NCCL).
	(cd "$build" && timeout 300 compute-sanitizer --tool memcheck --leak-check full \
		--report-api-errors no ./f8bench allgather --weights 1024 --layers 3 --tokens 256 \
		--min-time 0 --min-samples 1 --max-samples 2 --warmup 0 -q \
		-o "$logs/sanitizer-allgather.h5") >"$logs/sanitizer-allgather.log" 2>&1
	if grep -q 'ERROR SUMMARY: 0 errors' "$logs/sanitizer-allgather.log" &&
		grep -q ' 0 wrong, .* 0 error' "$logs/sanitizer-allgather.log"; then
		say "compute-sanitizer memcheck f8bench allgather: clean ($(grep -o 'wrote.*' "$logs/sanitizer-allgather.log"))"
	else
		say "compute-sanitizer memcheck f8bench allgather: ERRORS"
		grep -m 20 -E '=========|error' "$logs/sanitizer-allgather.log" >>"$summary"
		status=1
	fi
	# The allgather step with the optimizer, each layer's update on its own
	# queue (--update overlap), on one rank.
	(cd "$build" && timeout 300 compute-sanitizer --tool memcheck --leak-check full \
		--report-api-errors no ./f8bench allgather --weights 1024 --layers 3 --tokens 256 \
		--modes fp8-allgather --optimizer fp8 --update overlap \
		--min-time 0 --min-samples 1 --max-samples 2 --warmup 0 -q \
		-o "$logs/sanitizer-allgather-opt.h5") >"$logs/sanitizer-allgather-opt.log" 2>&1
	if grep -q 'ERROR SUMMARY: 0 errors' "$logs/sanitizer-allgather-opt.log" &&
		grep -q ' 0 wrong, .* 0 error' "$logs/sanitizer-allgather-opt.log"; then
		say "compute-sanitizer memcheck f8bench allgather --optimizer fp8 --update overlap: clean ($(grep -o 'wrote.*' "$logs/sanitizer-allgather-opt.log"))"
	else
		say "compute-sanitizer memcheck f8bench allgather --optimizer fp8 --update overlap: ERRORS"
		grep -m 20 -E '=========|error' "$logs/sanitizer-allgather-opt.log" >>"$summary"
		status=1
	fi
	# The optim step end to end (every variant and scaling, graph on and off).
	(cd "$build" && timeout 300 compute-sanitizer --tool memcheck --leak-check full \
		--report-api-errors no ./f8bench optim --params 1000x300,77,4096 --steps 3 \
		--graph on,off --min-time 0 --min-samples 1 --max-samples 2 --warmup 0 -q \
		-o "$logs/sanitizer-optim.h5") >"$logs/sanitizer-optim.log" 2>&1
	if grep -q 'ERROR SUMMARY: 0 errors' "$logs/sanitizer-optim.log" &&
		grep -q ' 0 wrong, .* 0 error' "$logs/sanitizer-optim.log"; then
		say "compute-sanitizer memcheck f8bench optim: clean ($(grep -o 'wrote.*' "$logs/sanitizer-optim.log"))"
	else
		say "compute-sanitizer memcheck f8bench optim: ERRORS"
		grep -m 20 -E '=========|error' "$logs/sanitizer-optim.log" >>"$summary"
		status=1
	fi
else
	say "compute-sanitizer: not found"
fi
fi
tar -czf "$out/logs.tar.gz" -C "$logs" .
rm -rf "$logs"
say "== gpu-check: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
