#!/usr/bin/env bash
# gemm-profile.sh - Nsight Compute on f8bench's own fp8 GEMM (--impl f8b):
# one launch of the kernel the host picks for each of (the picks of 835b2a4)
#   fast        8192^3 tensorwise, fast_accum on  (128x256)
#   promote8k   8192^3 tensorwise, fast_accum off (128x256 in halves)
#   promote4k   4096^3 tensorwise, fast_accum off (128x256 in halves)
#   block8k     8192^3 blockwise 1x128 x 128x128  (128x256 in halves)
#   colsc8k     8192^3 blockwise-1x128, A and B 1x128 (BLOCK_1X128: 128x256
#               in halves, B's column scales through the producer's ring;
#               not run by default)
#   colsc16k    the same at 16384^3 (where its operand reads miss L2 most:
#               experiments/f8b-gemm-groupm/; not run by default)
#   tw4k, ax4k  8192x4096x4096 (M x K x N), tensorwise or axiswise, fast_accum
#               off; twfast4k, axfast4k the same with it on: where the
#               axiswise epilogue's cost per tile goes
#               (experiments/f8b-gemm-ax-epilogue/; not run by default)
# with the sections that say where a warp's time goes (SpeedOfLight,
# ComputeWorkloadAnalysis, MemoryWorkloadAnalysis, SchedulerStats,
# WarpStateStats, Occupancy, LaunchStats), as text: OUT/ncu-NAME.txt.
# The clocks are left as the GPU runs them (--clock-control none: this
# suite changes no GPU clock or setting); ncu flushes the caches before
# the launch (its default), so the rates are near, not equal to, the
# benchmark's; the shares are what matters.
#   scripts/gemm-profile.sh BUILD OUT
# BUILD: a configured and built tree (its f8bench); NCU (default: ncu on
# the PATH, else /usr/local/cuda/bin/ncu); CASES (default: fast promote8k
# promote4k block8k; colsc8k, colsc16k and the 4k pairs only when named);
# SECTIONS (more ncu sections, e.g. SourceCounters: the stall samples by
# instruction); TAG (a suffix of the files' names); SOURCE=1: also the
# SourceCounters section and, per case, OUT/ncu-NAME-sass.csv, ncu's
# source page of the kernel: every SASS instruction with its executions
# and warp stall samples by reason (where in the loop the warps wait).
set -uo pipefail
build=${1:?usage: gemm-profile.sh BUILD OUT}
out=${2:?usage: gemm-profile.sh BUILD OUT}
build=$(cd "$build" && pwd) || exit 2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
f8b=$build/f8bench
[ -x "$f8b" ] || { echo "gemm-profile.sh: no f8bench in $build (build it first)" >&2; exit 2; }
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$ncu" ] || { echo "gemm-profile.sh: no ncu ($ncu)" >&2; exit 2; }
status=0
for name in ${CASES:-fast promote8k promote4k block8k}; do
	case $name in
	fast) args=(--shapes 8192x8192x8192 --scaling tensorwise --fast-accum on) ;;
	promote8k) args=(--shapes 8192x8192x8192 --scaling tensorwise --fast-accum off) ;;
	promote4k) args=(--shapes 4096x4096x4096 --scaling tensorwise --fast-accum off) ;;
	block8k) args=(--shapes 8192x8192x8192 --scaling blockwise --fast-accum off) ;;
	colsc8k) args=(--shapes 8192x8192x8192 --scaling blockwise-1x128 --fast-accum off) ;;
	colsc16k) args=(--shapes 16384x16384x16384 --scaling blockwise-1x128 --fast-accum off) ;;
	tw4k | ax4k | twfast4k | axfast4k)
		sc=tensorwise fa=off
		case $name in ax*) sc=axiswise ;; esac
		case $name in *fast*) fa=on ;; esac
		args=(--shapes 8192x4096x4096 --scaling "$sc" --fast-accum "$fa") ;;
	*) echo "gemm-profile.sh: unknown case '$name'" >&2; exit 2 ;;
	esac
	# the first launch of the kernel: the one the check runs before timing
	extra=()
	for sec in ${SECTIONS:-}; do extra+=(--section "$sec"); done
	[ "${SOURCE:-0}" = 1 ] && extra+=(--section SourceCounters)
	txt="$out/ncu-$name${TAG:-}.txt"
	rep=$(mktemp -u "${TMPDIR:-/tmp}/ncu-$name.XXXXXX")
	"$ncu" --target-processes all --clock-control none -k regex:f8b_fp8_gemm_kernel -c 1 \
		"${extra[@]}" \
		--section SpeedOfLight --section ComputeWorkloadAnalysis \
		--section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
		--section Occupancy --section LaunchStats -o "$rep" \
		"$f8b" gemm --impl f8b "${args[@]}" --dtypes e4m3:e4m3 --warmup 1 --min-samples 1 \
		--max-samples 2 -o "$out/$name.h5" >"$txt" 2>&1 || status=1
	"$ncu" -i "$rep.ncu-rep" --page details >>"$txt" 2>&1 || status=1
	if [ "${SOURCE:-0}" = 1 ]; then
		"$ncu" -i "$rep.ncu-rep" --page source --csv --print-source sass \
			>"$out/ncu-$name${TAG:-}-sass.csv" 2>&1 || status=1
	fi
	rm -f "$out/$name.h5" "$rep.ncu-rep"
	echo "== $name: $(grep -E 'f8b_fp8_gemm_kernel' "$txt" | head -1 | cut -c1-120)"
	grep -E 'Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Registers Per Thread|Dynamic Shared Memory Per Block' "$txt" | head -12
done
exit $status
