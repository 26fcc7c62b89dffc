#!/usr/bin/env bash
# f8b-gemm-ragged-pick/sweep: every tile of f8b's modes timed at shapes
# whose M or N is not a multiple of the tile (--autotune 6 -v: candidate 0
# is the host's pick, each candidate's time printed).
# From the top of a checkout with a GPU build in _gpu_build (or F8BENCH):
#   results/h100/experiments/f8b-gemm-ragged-pick/sweep/run.sh OUT
set -uo pipefail
out=${1:?OUT}
mkdir -p "$out"
f=${F8BENCH:-_gpu_build/f8bench}
shapes=1008x4096x4096,2000x4096x4096,3008x4096x4096,4000x4096x4112,5008x4096x4096
shapes=$shapes,6000x4096x4096,8000x4096x4096,16000x4096x4096,4096x4096x3008,4096x4096x5008
shapes=$shapes,8192x4096x4000,4000x4096x11008,8000x4096x14336,3008x4096x28672,12000x4096x6144
shapes=$shapes,2000x8192x28672
common="--impl f8b --shapes $shapes --dtypes e4m3:e4m3 --autotune 6 --max-time 0.3 -v --ceilings results/h100/ceilings.h5"
"$f" gemm $common --scaling tensorwise --fast-accum on,off -o "$out/ragged-tw.h5" >"$out/ragged-tw-output.txt" 2>&1
echo "f8bench gemm: exit $?" >>"$out/ragged-tw-output.txt"
"$f" gemm $common --scaling blockwise,blockwise-1x128 --fast-accum off -o "$out/ragged-blk.h5" >"$out/ragged-blk-output.txt" 2>&1
echo "f8bench gemm: exit $?" >>"$out/ragged-blk-output.txt"
