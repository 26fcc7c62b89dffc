#!/usr/bin/env bash
# run.sh OUT [ROUNDS] - the f8b-gemm-block-cost study's GPU call, from the
# top of a checkout whose kernels carry the study's switches (the branch
# study-block-cost, or block-cost.patch here applied with git apply):
# scripts/gemm-time.cu built three ways, each variant's BLOCK kernel
# (1x128 x 128x128 scales, 128x256 in halves) timed in turn with the base
# build's PROMOTE as the reference, ROUNDS rounds (default 3), and each
# build's SASS kept (cuobjdump) for the loop's instruction count.
#   base   the kernels as they are;
#   off32  BLOCK's scale loads from per-thread row pointers with a 32-bit
#          offset a K-block (no 64-bit kb * m product);
#   noscl  BLOCK reads K-block 0's scales every time (loop-invariant: no
#          loads, no address arithmetic and no products a K-block, the
#          FFMAs kept). Its sums are wrong on purpose (the scales are 1);
#   l1fix  BLOCK reads K-block 0's scales anew every K-block (an index
#          that is a run-time 0): the loads and products stay in the
#          loop, hit L1, with little address arithmetic;
#   ahead2 BLOCK with three scale sets in turn, each K-block's scales
#          read two K-blocks before their use (one in base): a candidate
#          fix, exact (its sums are right), untested on a GPU.
# VARIANTS (default "base off32 noscl") and SHAPES ("M N K" quads, "one"
# as a 4th word: one CTA) pick what runs.
set -uo pipefail
out=${1:?usage: run.sh OUT [ROUNDS]}
rounds=${2:-3}
grep -q GT_NOSCL kernels/gemm/sm90_fp8_gemm_consumer.cuh || {
	echo "run.sh: these kernels have no study switches: check out the branch study-block-cost," >&2
	echo "  or git apply results/h100/experiments/f8b-gemm-block-cost/block-cost.patch" >&2
	exit 2
}
mkdir -p "$out"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
b=/tmp/block-cost
mkdir -p $b
variants=${VARIANTS:-base off32 noscl}
for v in $variants; do
	case $v in base) f= ;; off32) f=-DGT_OFF32 ;; noscl) f=-DGT_NOSCL ;; l1fix) f=-DGT_L1FIX ;; ahead2) f=-DGT_AHEAD2 ;;
	*) echo "run.sh: no variant $v" >&2; exit 2 ;; esac
	"$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Isrc -Ikernels $f \
		scripts/gemm-time.cu -o $b/$v -Xptxas -v >"$out/ptxas-$v.txt" 2>&1 &
done
wait
for v in $variants; do
	[ -x $b/$v ] || { echo "run.sh: build $v failed" >&2; tail "$out/ptxas-$v.txt" >&2; exit 1; }
	cuobjdump -sass $b/$v | xz >"$out/sass-$v.txt.xz"
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$out/gpu.txt"
: >"$out/times.txt"
for r in $(seq 1 "$rounds"); do
	IFS=, read -r -a shapes <<<"${SHAPES:-8192 8192 8192,4096 4096 4096,8192 4096 4096,1024 1024 8192 one}"
	for s in "${shapes[@]}"; do
		set -- $s
		g=
		[ "${4:-}" = one ] && g=1
		for v in base:promote $(printf '%s:block ' $variants); do
			line=$(env ${g:+GT_GRID=$g} $b/${v%%:*} ${v#*:} $1 $2 $3 2>&1)
			echo "$r ${v%%:*} $line" | tee -a "$out/times.txt"
		done
	done
done
# summary.txt: per shape and build:mode, the rounds' times, their mean, and
# the mean over base:promote's and over base:block's (call4/summary.txt's form)
{
	echo "# f8b-gemm-block-cost: scripts/gemm-time.cu (the kernel alone, L2 warm, median of 10 back-to-back launches), $rounds round(s)."
	echo "# Columns: M N K (gemm-time's order), build:mode, the rounds' ms, their mean, the mean over base:promote's, over base:block's."
	sed -E 's/^([0-9]+) ([a-z0-9]+) gemm-time ([a-z]+) ([0-9x]+) .*launches ([0-9.]+) ms.*/\1 \2 \3 \4 \5/' "$out/times.txt" |
		awk 'NF == 5 { k = $4 " " $2 ":" $3; t[k] = t[k] " " $5; s[k] += $5; n[k]++ }
		END {
			for (k in t) {
				split(k, a, " ")
				m = s[k] / n[k]
				pk = a[1] " base:promote"; bk = a[1] " base:block"
				pr = (pk in n) ? s[pk] / n[pk] : 0; bl = (bk in n) ? s[bk] / n[bk] : 0
				printf "%-15s %-14s %s  mean %.4f  /promote %.3f  /block %.3f\n", a[1], a[2], t[k], m,
					(pr > 0) ? m / pr : 0, (bl > 0) ? m / bl : 0
			}
		}' | sort -k1,1 -k2,2
} >"$out/summary.txt"
cat "$out/summary.txt"
