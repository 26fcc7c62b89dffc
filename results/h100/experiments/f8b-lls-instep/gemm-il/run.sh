#!/usr/bin/env bash
# gemm-il: the two implementations' GEMMs at 8192^3 timed alone, four
# processes one after the other, without and with --interleave in turn
# (off, on, off, on), to see whether sampling in turn moves the GEMMs'
# ratio as it moves the lls steps' (../README.md).
# From the top of a checkout with a GPU build in _gpu_build (or F8BENCH):
#   results/h100/experiments/f8b-lls-instep/gemm-il/run.sh OUT
set -uo pipefail
out=${1:?OUT}
mkdir -p "$out"
f=${F8BENCH:-_gpu_build/f8bench}
i=0
for il in off on off on; do
	i=$((i + 1))
	flag=; [ $il = on ] && flag=--interleave
	"$f" gemm --impl cublaslt,f8b --shapes 8192x8192x8192 --scaling tensorwise,axiswise,blockwise \
		--fast-accum off --dtypes e4m3:e4m3 --min-time 1 --max-time 2 $flag \
		--ceilings results/h100/ceilings.h5 -o "$out/gemm-$i-il$il.h5" >"$out/gemm-$i-il$il-output.txt" 2>&1
	echo "f8bench gemm: exit $?" >>"$out/gemm-$i-il$il-output.txt"
done
