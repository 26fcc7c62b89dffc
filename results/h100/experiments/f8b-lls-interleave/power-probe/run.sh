#!/usr/bin/env bash
# power-probe: SM clock and board power sampled (~10 Hz) while one f8bench
# gemm process times cuBLASLt's and f8b's GEMMs, each case for >= 4 s;
# each progress line stamped, so the samples can be split by case.
# From the top of a checkout with a GPU build in _gpu_build (or F8BENCH):
#   results/h100/experiments/f8b-lls-interleave/power-probe/run.sh OUT
set -uo pipefail
out=${1:?OUT}
mkdir -p "$out"
( while :; do echo "$(date +%s.%N) $(nvidia-smi --query-gpu=power.draw,clocks.sm,temperature.gpu --format=csv,noheader,nounits)"; sleep 0.05; done ) > "$out/smi.txt" &
smi=$!
sleep 2
echo "$(date +%s.%N) start" > "$out/marks.txt"
"${F8BENCH:-_gpu_build/f8bench}" gemm --impl cublaslt,f8b --shapes 8192x8192x8192 --scaling axiswise,tensorwise,blockwise \
	--fast-accum off,on --dtypes e4m3:e4m3 --min-time 4 --max-time 6 --ceilings results/h100/ceilings.h5 \
	-o "$out/power-probe.h5" 2>&1 | while IFS= read -r l; do echo "$(date +%s.%N) $l"; done >> "$out/marks.txt"
sleep 2
kill $smi
