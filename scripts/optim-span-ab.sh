#!/bin/sh
# optim-span-ab.sh - an A/B of the fp8 states' span (blocks of 128 each warp
# of the fused AdamW pass takes, F8B_OPTIM_FP8_SPAN in
# kernels/optim_elem.cuh; doc/optim.md): f8bench is rebuilt with each span,
# and each build runs the fp32 and fp8 variants with predicted scaling at
# the Llama 3 8B and Llama 2 70B layer scales, each row with its split
# sequence timed beside it, then issue 24's targets for each file
# (scripts/optim-targets.sh).  The build is left at the default span.
#   scripts/optim-span-ab.sh BUILD OUT [CEILINGS.h5]
# BUILD: a configured and built tree; OUT is created; CEILINGS.h5 as in
# scripts/optim-gpu.sh.  SPANS (default "4 2 1"), STEPS (20), MACRO (the
# span's macro: F8B_OPTIM_FP8_SPAN, the fp8 variant's, by default, or
# F8B_OPTIM_FP8M16_SPAN, fp8-master16's), VARIANTS (fp32,fp8), TAG (a
# suffix of the files' names).
set -u
build=${1:?usage: optim-span-ab.sh BUILD OUT [CEILINGS.h5]}
out=${2:?usage: optim-span-ab.sh BUILD OUT [CEILINGS.h5]}
ceil=${3:-}
build=$(cd "$build" && pwd) || exit 2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
export F8B_INPUTS="${F8B_INPUTS:-$src/inputs}"
copt=
[ -n "$ceil" ] && copt="--ceilings $ceil"
status=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
say "== optim span A/B on $(hostname) $(date -u +%FT%TZ), ${F8B_GIT_DESCRIBE:-$(cd "$src" && git describe --always --dirty 2>/dev/null)}"
command -v nvidia-smi >/dev/null 2>&1 &&
	say "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)"
rebuild() { # SPAN, or nothing for the default
	touch "$src/kernels/optim.cu" "$src/kernels/optim_sync.cu"
	if [ -n "$1" ]; then
		make -C "$build" -j"$(nproc)" NVCCFLAGS="-D${MACRO:-F8B_OPTIM_FP8_SPAN}=$1" f8bench
	else
		make -C "$build" -j"$(nproc)" f8bench
	fi >>"$out/build.log" 2>&1
}
for span in ${SPANS:-4 2 1}; do
	if ! rebuild "$span"; then
		say "span $span: build failed (build.log)"
		status=1
		continue
	fi
	f="$out/optim-span$span${TAG:-}.h5"
	rm -f "$f"
	app=
	for set in llama3-8b llama2-70b; do
		# shellcheck disable=SC2086
		"$build/f8bench" optim --shapes "$set" --steps "${STEPS:-20}" --variant "${VARIANTS:-fp32,fp8}" \
			--scaling predicted --graph on $copt $app -o "$f" >>"$out/optim.log" 2>&1 || status=1
		app=--append
	done
	say "${MACRO:-F8B_OPTIM_FP8_SPAN}=$span (${VARIANTS:-fp32,fp8}):"
	for set in llama3-8b llama2-70b; do
		F8BENCH="$build/f8bench" sh "$src/scripts/optim-targets.sh" "$f" "$set" \
			>"$out/targets-span$span${TAG:-}-$set.md" 2>>"$out/optim.log" || status=1
		say "  $set: $(grep -E '^- fp8' "$out/targets-span$span${TAG:-}-$set.md" | tr '\n' ' ')"
	done
done
rebuild "" || { say "rebuild at the default span failed"; status=1; }
exit $status
