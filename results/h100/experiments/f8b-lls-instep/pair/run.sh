#!/usr/bin/env bash
# pair: scripts/gemm-time.cu's GT_PAIR mode, f8b's PROMOTE kernel at
# 8192^3 in two instances sampled one after the other and in turn: both
# random (the same power), then random beside all-ones (a low-power
# pattern), each way round; FAST the same.  From the top of a checkout:
#   results/h100/experiments/f8b-lls-instep/pair/run.sh OUT
set -uo pipefail
out=${1:?OUT}
mkdir -p "$out"
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Isrc -Ikernels \
	scripts/gemm-time.cu -o "$out/gemm-time" || exit 1
for mode in promote fast; do
	GT_PAIR=rand "$out/gemm-time" $mode
	GT_PAIR=one "$out/gemm-time" $mode
	GT_FILL=one GT_PAIR=rand "$out/gemm-time" $mode
	GT_PAIR=rand "$out/gemm-time" $mode
done >"$out/pair.txt" 2>&1
rm -f "$out/gemm-time"
