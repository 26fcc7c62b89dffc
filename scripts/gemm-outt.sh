#!/usr/bin/env bash
# gemm-outt.sh - the transposed write's GPU call (doc/gemm-kernels.md
# "Transposed write", results/h100/experiments/f8b-gemm-outt/): one job on
# one GPU that
#   1. builds BASE (a tree before the transposed write) and NEW side by
#      side with scripts/gpu-ab.sh and times both on the fp8 GEMMs without
#      D^T (one round: f8b and cuBLASLt, tensorwise, axiswise and blockwise,
#      fast_accum on and off at 4096^3 and 8192^3), to show that the
#      epilogue's new branch costs the old paths nothing;
#   2. builds NEW's GPU GEMM tests and runs tests/gpu/test_f8b_gemm (every
#      pass, D^T in each) and tests/gpu/test_gemm_cuda;
#   3. times NEW with --out-t off,on: bf16 D for every scaling and both
#      fast_accum, and e4m3 D (tensorwise and axiswise), ROUNDS rounds.
#
#   scripts/gemm-outt.sh OUT BASE.tar NEW.tar [ROUNDS]
#
# BASE.tar and NEW.tar: `git archive -o X.tar COMMIT -- . ':!results'`.
# Writes OUT/ab/ (gpu-ab's files), OUT/tests/*.txt (TAP logs), OUT/t/ (the
# --out-t files); each step is cut at its own timeout so that the rest
# still runs.  Exit status: 0 when every step passed.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: gemm-outt.sh OUT BASE.tar NEW.tar [ROUNDS]" >&2; exit 2; }
out=$1 base=$2 new=$3 rounds=${4:-2}
case $rounds in '' | *[!0-9]*) echo "gemm-outt.sh: ROUNDS '$rounds' is not a number" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/tests" || exit 1
out=$(cd "$out" && pwd)
export AB_BUILDS=${AB_BUILDS:-/tmp/outt-builds}
rc=0
shapes=4096x4096x4096,8192x8192x8192
echo "== 1. base against new, no D^T"
AB_TIMEOUT=${OUTT_AB_TIMEOUT:-150} "$here/gpu-ab.sh" "$out/ab" 1 base="$base" new="$new" -- \
	gemm --impl cublaslt,f8b --shapes $shapes --dtypes e4m3:e4m3 \
	--scaling tensorwise,axiswise,blockwise --fast-accum on,off --max-time 0.3 || rc=1
b=$AB_BUILDS/src-new/b
echo "== 2. GPU tests"
make -C "$b" -j"$(nproc)" tests/gpu/test_f8b_gemm tests/gpu/test_gemm_cuda >"$out/tests/build.txt" 2>&1 ||
	{ rc=1; tail -20 "$out/tests/build.txt"; }
for t in test_f8b_gemm test_gemm_cuda; do
	[ -x "$b/tests/gpu/$t" ] || continue
	timeout "${OUTT_TEST_TIMEOUT:-200}" "$b/tests/gpu/$t" >"$out/tests/$t.txt" 2>&1
	s=$?
	echo "$t: exit $s, $(grep -c '^ok' "$out/tests/$t.txt") ok, $(grep -c '^not ok' "$out/tests/$t.txt") not ok"
	grep '^not ok' "$out/tests/$t.txt" | head -20
	[ $s = 0 ] || rc=1
done
echo "== 3. D alone and with D^T"
mkdir -p "$out/t"
for k in $(seq 1 "$rounds"); do
	timeout 120 "$b/f8bench" gemm --impl f8b --shapes $shapes --dtypes e4m3:e4m3 \
		--scaling tensorwise,axiswise,blockwise --fast-accum on,off --out-t off,on \
		--max-time 0.3 -o "$out/t/bf16-$k.h5" >"$out/t/bf16-$k.txt" 2>&1 || rc=1
	timeout 90 "$b/f8bench" gemm --impl f8b --shapes $shapes --dtypes e4m3:e4m3 \
		--scaling tensorwise,axiswise --fast-accum on,off --out-t off,on --out-dtype e4m3 \
		--max-time 0.3 -o "$out/t/e4m3-$k.h5" >"$out/t/e4m3-$k.txt" 2>&1 || rc=1
done
grep -h '^\[' "$out"/t/*-1.txt | sed 's/^.*| //'
exit $rc
