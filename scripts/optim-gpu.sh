#!/bin/sh
# optim-gpu.sh - the optim benchmark on a GPU node (doc/optim.md): the GPU
# test (host against GPU, bit for bit), then f8bench optim at Llama 3 8B
# layer scale, every variant x scaling (dynamic in two launches and in
# one with a grid barrier, dynamic-sync) with graphs on and off (tensorwise),
# the same with an axiswise fp8 weight (graphs on), stochastic rounding
# over 10/30/100 steps, two other chunk thresholds, and a Llama 2 70B
# layer (fp32 and fp8), into OUT/optim.h5;
# a log of each, and a short table last (issue 24's figures, read from the
# file by column name), then the issue's targets (scripts/optim-targets.sh).
#   scripts/optim-gpu.sh BUILD OUT [CEILINGS.h5]
#   QUICK=1 scripts/optim-gpu.sh BUILD OUT [CEILINGS.h5]
# BUILD is a configured and built tree (its f8bench and tests/gpu/); OUT is
# created.  CEILINGS.h5 (f8bench ceilings' file) gives the measured copy
# bandwidth the rows' pct_of_copy_bw is taken against; without it, the
# datasheet's.  Environment: SHAPES (default llama3-8b) or PARAMS
# (--params counts instead, e.g. for a dry run on the host), STEPS (100),
# EXTRA (more f8bench options, e.g. "--chunk-bytes 256K").
# QUICK=1 (a few minutes on one H100): the GPU test, then every variant
# with predicted, dynamic and dynamic-sync scaling (tensorwise, graphs on,
# STEPS default 20) at Llama 3 8B and Llama 2 70B layer scale: dynamic's
# two launches beside dynamic-sync's one; each row with its split
# sequence timed beside it; the targets for both scales (targets.md for
# Llama 2 70B, targets-8b.md); and, where cuobjdump is found, the SASS
# instruction mix of the fp8 and fp8-master16 fused kernels (sass-fp8.txt).
set -u
build=${1:?usage: optim-gpu.sh BUILD OUT [CEILINGS.h5]}
out=${2:?usage: optim-gpu.sh BUILD OUT [CEILINGS.h5]}
ceil=${3:-}
build=$(cd "$build" && pwd) || exit 2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
f8b=$build/f8bench
[ -x "$f8b" ] || { echo "optim-gpu.sh: no f8bench in $build (build it first)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
export F8B_INPUTS="${F8B_INPUTS:-$src/inputs}"
if [ -n "${PARAMS:-}" ]; then
	set_opt="--params $PARAMS"
else
	set_opt="--shapes ${SHAPES:-llama3-8b}"
fi
quick=${QUICK:-0}
[ "$quick" = 1 ] && steps=${STEPS:-20} || steps=${STEPS:-100}
copt=
if [ -n "$ceil" ]; then
	[ -r "$ceil" ] || { echo "optim-gpu.sh: cannot read $ceil" >&2; exit 2; }
	copt="--ceilings $ceil"
fi
status=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
say "== optim on $(hostname) $(date -u +%FT%TZ), ${F8B_GIT_DESCRIBE:-$(cd "$src" && git describe --always --dirty 2>/dev/null)}"
command -v nvidia-smi >/dev/null 2>&1 &&
	say "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)"

# 1. host against GPU, bit for bit
make -C "$build" tests/gpu/test_optim >"$out/build-test.log" 2>&1
(cd "$build" && srcdir="$src" ./tests/gpu/test_optim) >"$out/test_optim.log" 2>&1
rc=$?
[ $rc = 77 ] && say "tests/gpu/test_optim: skipped ($(head -1 "$out/test_optim.log"))" && rc=0
say "tests/gpu/test_optim: exit $rc, $(grep -c '^ok' "$out/test_optim.log") ok, $(grep -c '^not ok' "$out/test_optim.log") not ok"
grep '^not ok' "$out/test_optim.log" | head -20 | tee -a "$out/summary.txt"
[ $rc = 0 ] || status=1

# 2. the benchmark (QUICK: below); else tensorwise, graph on and off, then
# axiswise, graph on, ...
run() {
	say "+ f8bench optim $*"
	"$f8b" optim "$@" >>"$out/optim.log" 2>&1
	rc=$?
	grep -E 'wrote|error' "$out/optim.log" | tail -1 | tee -a "$out/summary.txt"
	[ $rc = 0 ] || status=1
}
rm -f "$out/optim.h5"
: >"$out/optim.log"
if [ "$quick" = 1 ]; then
	# both layer scales (or the PARAMS set alone), every variant
	app=
	sets="--shapes=llama3-8b --shapes=llama2-70b"
	[ -n "${PARAMS:-}" ] && sets="--params=$PARAMS"
	for set in $sets; do
		# shellcheck disable=SC2086
		run $set --steps "$steps" --variant fp32,bf16,fp8,fp8-master16 \
			--scaling predicted,dynamic,dynamic-sync --granularity tensorwise --graph on $copt \
			${EXTRA:-} $app -o "$out/optim.h5"
		app=--append
	done
else
	# shellcheck disable=SC2086
	run $set_opt --steps "$steps" --variant fp32,bf16,fp8,fp8-master16 \
		--scaling dynamic,dynamic-sync,delayed,predicted --granularity tensorwise --graph on,off \
		$copt ${EXTRA:-} \
		-o "$out/optim.h5"
	# shellcheck disable=SC2086
	run $set_opt --steps "$steps" --variant fp32,bf16,fp8,fp8-master16 \
		--scaling dynamic,dynamic-sync,delayed,predicted --granularity axiswise --graph on $copt \
		${EXTRA:-} \
		--append -o "$out/optim.h5"
	# stochastic rounding of the bf16 master, and the SQNR against steps
	# shellcheck disable=SC2086
	run $set_opt --steps 10,30,"$steps" --variant fp8-master16 --stochastic on \
		--scaling dynamic,predicted --graph on $copt ${EXTRA:-} --append -o "$out/optim.h5"

	# the chunk threshold (fp32 and fp8, predicted), and a Llama 2 70B layer
	for cb in 256K 4M; do
		# shellcheck disable=SC2086
		run $set_opt --steps "$steps" --variant fp32,fp8 --scaling predicted --graph on \
			--chunk-bytes $cb $copt ${EXTRA:-} --append -o "$out/optim.h5"
	done
	if [ -z "${PARAMS:-}" ]; then
		# shellcheck disable=SC2086
		run --shapes llama2-70b --steps "$steps" --variant fp32,fp8 \
			--scaling dynamic,dynamic-sync,predicted \
			--graph on $copt ${EXTRA:-} --append -o "$out/optim.h5"
	fi
fi

# 3. the table
"$f8b" export "$out/optim.h5" --table optim >"$out/optim.csv" 2>>"$out/optim.log" || status=1
awk '
function split_csv(line, out,    n, i, ch, f, q) {
	n = 0; f = ""; q = 0
	for (i = 1; i <= length(line); i++) {
		ch = substr(line, i, 1)
		if (q) {
			if (ch == "\"" && substr(line, i + 1, 1) == "\"") { f = f "\""; i++ }
			else if (ch == "\"") q = 0
			else f = f ch
		} else if (ch == "\"") q = 1
		else if (ch == ",") { out[++n] = f; f = "" }
		else f = f ch
	}
	out[++n] = f
	return n
}
{ nf = split_csv($0, F) }
NR == 1 { for (i = 1; i <= nf; i++) c[F[i]] = i
	printf "%-10s %5s %-12s %-12s %-10s %2s %2s %4s %8s %7s %5s %6s %6s %6s %6s %6s %5s %3s %s\n", "label", "chunk", "variant", "scaling", "gran", "gr", "sr", "st", "ms", "GB/s", "%cp", "xfp32", "xsplit", "B/par", "w dB", "w8 dB", "sat", "bx", "status"
	next }
function v(n) { return F[c[n]] }
{ printf "%-10.10s %4dK %-12s %-12s %-10s %2s %2s %4s %8.4f %7.1f %5.1f %6.3f %6.3f %6.3f %6.1f %6.2f %5s %3s %s\n", v("label"), v("chunk_bytes") / 1024, v("variant"), v("scaling"), v("granularity"), v("graph"), v("stochastic"), v("steps"), 1e3 * v("time_median_s"), v("gbps"), v("pct_of_copy_bw"), v("speedup_vs_fp32"), v("fused_speedup"), v("step_bytes_per_param"), v("sqnr_w_db"), v("sqnr_w8_db"), v("saturated"), v("bitexact"), v("status") }
' "$out/optim.csv" >"$out/table.txt" 2>>"$out/optim.log"
F8BENCH=$f8b "$src/scripts/optim-targets.sh" "$out/optim.h5" >"$out/targets.md" 2>>"$out/optim.log"
files="optim.h5 optim.csv optim.log test_optim.log summary.txt table.txt targets.md"
if [ "$quick" = 1 ]; then
	F8BENCH=$f8b "$src/scripts/optim-targets.sh" "$out/optim.h5" llama3-8b \
		>"$out/targets-8b.md" 2>>"$out/optim.log"
	files="$files targets-8b.md"
	# the fused pass's machine code (tensorwise, cast in the pass) of fp8
	# (variant 2) and fp8-master16 (3): instructions by opcode
	if command -v cuobjdump >/dev/null 2>&1; then
		: >"$out/sass-fp8.txt"
		for k in 2:fp8 3:fp8-master16; do
			cuobjdump -sass "$build/kernels/optim.o" 2>/dev/null | awk -v id="${k%%:*}" -v name="${k#*:}" '
				/Function :/ { p = index($0, "optim_kernelILi" id "ELb1ELb1ELb1ELb0E") > 0 }
				p && /\/\*[0-9a-f]+\*\// { op = $2; if (op ~ /^@/) op = $3
					sub(/;$/, "", op); split(op, o, "."); n[o[1]]++; tot++ }
				END { printf "%s fused kernel: %d instructions\n", name, tot; fflush()
					for (k in n) printf "%6d %s\n", n[k], k | "sort -k1,1nr"
					close("sort -k1,1nr") }' \
				>>"$out/sass-fp8.txt"
		done
		files="$files sass-fp8.txt"
	fi
fi
say "== exit status $status; files in $out: $files"
say "   (gr graph, sr stochastic, st steps, %cp of copy bandwidth, xsplit = split / fused time, bx bit-exact)"
cat "$out/table.txt"
echo
grep '^- ' "$out/targets.md"
[ "$quick" = 1 ] && echo && echo "llama3-8b:" && grep '^- ' "$out/targets-8b.md"
exit $status
