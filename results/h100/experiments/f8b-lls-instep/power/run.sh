#!/usr/bin/env bash
# power: board power and SM clock sampled (~20 Hz) while the axiswise lls
# step at 8192^3 runs on one implementation per process, cuBLASLt's then
# f8b's, each measurement (the step, each kernel alone) held for 5 s, so
# the step's own window can be found in the trace: the first 5 s of high
# power after the fp8 case's set-up and check.  Each process's start and
# end are stamped in marks.txt.
# From the top of a checkout with a GPU build in _gpu_build (or F8BENCH):
#   results/h100/experiments/f8b-lls-instep/power/run.sh OUT
set -uo pipefail
out=${1:?OUT}
mkdir -p "$out"
f=${F8BENCH:-_gpu_build/f8bench}
( while :; do echo "$(date +%s.%N) $(nvidia-smi --query-gpu=power.draw,clocks.sm,temperature.gpu --format=csv,noheader,nounits)"; sleep 0.03; done ) > "$out/smi.txt" &
smi=$!
sleep 2
: > "$out/marks.txt"
for impl in cublaslt f8b; do
	echo "$(date +%s.%N) start $impl" >> "$out/marks.txt"
	"$f" lls --shapes 8192x8192x8192 --recipe axiswise --gemm-impl $impl --min-time 5 --max-time 5 --max-samples 100000 \
		--ceilings results/h100/ceilings.h5 -o "$out/lls-$impl.h5" 2>&1 |
		while IFS= read -r l; do echo "$(date +%s.%N) $l"; done >> "$out/marks.txt"
	echo "$(date +%s.%N) end $impl" >> "$out/marks.txt"
	sleep 2
done
kill $smi
