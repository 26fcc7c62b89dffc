#!/bin/sh
# ci-gate.sh - the regression gate a CI job runs: a named quick sweep,
# compared with the committed baseline of this GPU model, with the outputs
# CI systems read.  doc/ci.md describes it; doc/compare.md the verdicts.
#
#   scripts/ci-gate.sh [--sweep quick|accuracy] [--out DIR] [--update-baseline]
#                      [--baselines DIR | --baseline FILE] [--new FILE]
#                      [--f8bench PATH] [-- COMPARE_OPTIONS...]
#
# Sweeps (fixed shapes and seed, so BASE and NEW are the same command line):
#   quick     on the GPU: gemm at 2048^3, 4096^3, 8192^3 x tensorwise /
#             axiswise / blockwise x fast_accum on/off (each shape with its
#             bf16 case), and lls (every recipe) at 4096^3; timings gated
#             at --tolerance 5% (doc/ci.md says why), accuracy at 0.5 dB.
#   accuracy  on the host backend: gemm at 256^3, 512x1024x256 and
#             400x656x272 x every granularity x fast_accum x e4m3:e4m3 and
#             e4m3:e5m2, and lls (every recipe) at 256^3; a few seconds.
#             The host backend computes the same bits on every machine, so
#             only status and accuracy are judged, exactly
#             (--no-timing --accuracy-tolerance 0): any change in a gated
#             SQNR or relative error fails.
#   Default: for --new FILE, the one its backend implies; else quick where
#   nvidia-smi lists a GPU, else accuracy.
#
# The baseline is DIR/<pci id>-<sweep>.h5 for a GPU (e.g. 0x2330-quick.h5,
# the PCI device id the run records in its provenance, as the datasheet
# lookup keys GPUs) and DIR/host-<sweep>.h5 for the host backend; DIR is
# results/baselines of this tree unless --baselines.
#
# Writes into OUT (default gate-out): new.h5 (the sweep), sweep.log,
# compare.txt (compare's table), junit.xml (one testcase per case: slower,
# missing and less-accurate are failures, wrong an error) and summary.md,
# which is also appended to $GITHUB_STEP_SUMMARY when that is set.
#
# Exit status: compare's (0 no regression, 1 a case slower, wrong, missing
# or less accurate, 2 bad input such as runs on different GPU models); 2 as
# well for a bad option, a sweep that wrote no file, or no baseline for this
# GPU (run with --update-baseline on it and commit the file).  With
# --update-baseline: NEW (after a comparison for information, if a baseline
# was there) becomes the baseline, exit 0.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
sweep='' out=gate-out baselines=$top/results/baselines baseline='' new='' update=0 f8b=''

# Paths inside this tree are shown relative to it.
rel() { case $1 in "$top"/*) echo "${1#"$top"/}" ;; *) echo "$1" ;; esac; }
usage() {
	sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
}
die() {
	echo "ci-gate: $*" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--sweep) sweep=${2:?--sweep needs quick or accuracy}; shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--baselines) baselines=${2:?--baselines needs a directory}; shift ;;
	--baseline) baseline=${2:?--baseline needs a file}; shift ;;
	--new) new=${2:?--new needs a results file}; shift ;;
	--f8bench) f8b=${2:?--f8bench needs a path}; shift ;;
	--update-baseline) update=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (accepted: --sweep, --out, --baselines, --baseline, --new, --f8bench, --update-baseline, --help, -- COMPARE_OPTIONS)" ;;
	esac
	shift
done

extra=$* # compare options after --, for the summary

# f8bench: --f8bench, $F8BENCH, the build directories of this tree, PATH.
if [ -z "$f8b" ]; then
	for c in "${F8BENCH:-}" "$top/f8bench" "$top/_b/f8bench" "$top/_ci/f8bench" \
		"$(command -v f8bench 2>/dev/null)"; do
		[ -n "$c" ] && [ -x "$c" ] && { f8b=$c; break; }
	done
fi
[ -n "$f8b" ] && [ -x "$f8b" ] || die "no f8bench: build it, or name it with --f8bench PATH or \$F8BENCH"

# The sweep's name picks its options and its baseline.  Default: the one
# the run's backend implies (a --new file's, else this machine's).
if [ -z "$sweep" ] && [ -n "$new" ]; then
	case $("$f8b" export "$new" --provenance 2>/dev/null | sed -n 's/^backend: //p') in
	host) sweep=accuracy ;;
	"") ;;
	*) sweep=quick ;;
	esac
fi
if [ -z "$sweep" ]; then
	if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then sweep=quick; else sweep=accuracy; fi
fi
# The sweeps: S_GEMM, S_LLS and S_OPTIM (accuracy only) are the benchmarks' options, S_CMP compare's.
case $sweep in
quick)
	S_GEMM="--shapes 2048x2048x2048,4096x4096x4096,8192x8192x8192 --scaling tensorwise,axiswise,blockwise --fast-accum on,off --dtypes e4m3:e4m3"
	S_LLS="--shapes 4096x4096x4096"
	S_CMP="--tolerance 5%"
	;;
accuracy)
	T="--backend host --min-time 0 --min-samples 1 --max-samples 1 --warmup 0"
	S_GEMM="$T --shapes 256x256x256,512x1024x256,400x656x272 --scaling tensorwise,axiswise,blockwise --fast-accum on,off --dtypes e4m3:e4m3,e4m3:e5m2"
	S_LLS="$T --shapes 256x256x256"
	# the scalings named: dynamic-sync's host rows are dynamic's two passes
	# bit for bit (tests/test_optim, tests/cli_optim.sh), so the committed
	# baseline need not grow by them
	S_OPTIM="$T --params 300x129,77,1000 --steps 20 --granularity tensorwise,axiswise --scaling dynamic,delayed,predicted"
	# --force: the host backend records the CPU as its "GPU", and its
	# numbers do not depend on which CPU computed them.
	S_CMP="--no-timing --accuracy-tolerance 0 --force"
	;;
*) die "--sweep '$sweep': accepted: quick, accuracy" ;;
esac

mkdir -p "$out" || die "cannot create '$out'"
rm -f "$out/junit.xml" "$out/summary.md" "$out/compare.txt"

# The sweep, unless a results file was given.
if [ -z "$new" ]; then
	new=$out/new.h5
	rm -f "$new"
	echo "ci-gate: $sweep sweep -> $new"
	{
		echo "+ f8bench gemm --seed 1 $S_GEMM -q -o $new"
		"$f8b" gemm --seed 1 $S_GEMM -q -o "$new"
		echo "+ f8bench lls --seed 1 $S_LLS -q -o $new --append"
		"$f8b" lls --seed 1 $S_LLS -q -o "$new" --append
		if [ -n "${S_OPTIM:-}" ]; then
			echo "+ f8bench optim --seed 1 $S_OPTIM -q -o $new --append"
			"$f8b" optim --seed 1 $S_OPTIM -q -o "$new" --append
		fi
	} >"$out/sweep.log" 2>&1
	# A wrong case makes the sweep exit 1 but is in the file, where
	# compare reports it; no file at all is no run.
	[ -f "$new" ] || { cat "$out/sweep.log" >&2; die "the $sweep sweep wrote no results (log: $out/sweep.log)"; }
fi
[ -f "$new" ] || die "--new '$new': no such file"

# This run's GPU, from the provenance it recorded.
prov=$("$f8b" export "$new" --provenance 2>&1) || die "cannot read '$new': $prov"
pkey() { printf '%s\n' "$prov" | sed -n "s/^$1: //p" | head -1; }
backend=$(pkey backend) pci=$(pkey device_pci_id) gpu=$(pkey device_name)
if [ -z "$baseline" ]; then
	if [ "$backend" = host ]; then
		baseline=$baselines/host-$sweep.h5
	elif [ -n "$pci" ] && [ "$pci" != 0x0000 ]; then
		baseline=$baselines/$pci-$sweep.h5
	else
		die "'$new' records no PCI id for its GPU ($gpu): name the baseline with --baseline FILE"
	fi
fi
echo "ci-gate: $gpu (backend $backend, pci ${pci:-?}), baseline $(rel "$baseline")"

summary_head() {
	echo "## f8bench gate: \`$sweep\` sweep on $gpu: $1"
	echo
	echo "- baseline: \`$(rel "$baseline")\` (backend $backend, PCI id ${pci:-unknown})"
	echo "- new: \`$(rel "$new")\`"
	echo "- compare options: \`$S_CMP${extra:+ $extra}\`"
	echo
}
publish() {
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
}

if [ "$update" = 1 ]; then
	if [ -f "$baseline" ]; then
		echo "ci-gate: the old baseline against this run, for information:"
		"$f8b" compare "$baseline" "$new" $S_CMP "$@" | tail -1
	fi
	mkdir -p "$(dirname "$baseline")" || die "cannot create $(dirname "$baseline")"
	cp "$new" "$baseline.tmp.$$" && mv "$baseline.tmp.$$" "$baseline" ||
		{ rm -f "$baseline.tmp.$$"; die "cannot write '$baseline'"; }
	echo "ci-gate: wrote $(rel "$baseline"): commit it with the change that moved the numbers"
	exit 0
fi

if [ ! -f "$baseline" ]; then
	msg="no baseline $(rel "$baseline") for $gpu (pci ${pci:-unknown}): run scripts/ci-gate.sh --sweep $sweep --update-baseline on this machine and commit the file"
	{ summary_head "no baseline"; echo "$msg"; } >"$out/summary.md"
	# One errored testcase, so a CI system that reads only the JUnit
	# file still shows why the gate did not run.
	cat >"$out/junit.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="f8bench gate" tests="1" failures="0" errors="1">
  <testsuite name="gate" tests="1" failures="0" errors="1" skipped="0" time="0">
    <testcase classname="gate" name="baseline" time="0">
      <error type="no-baseline" message="no baseline for this GPU"/>
      <system-out>$(printf '%s' "$msg" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g')</system-out>
    </testcase>
  </testsuite>
</testsuites>
EOF
	publish
	die "$msg"
fi

"$f8b" compare "$baseline" "$new" $S_CMP "$@" --junit "$out/junit.xml" \
	--markdown "$out/compare.md" >"$out/compare.txt" 2>&1
status=$?
cat "$out/compare.txt"
case $status in 0) verdict=pass ;; 1) verdict=regression ;; *) verdict="error (exit $status)" ;; esac
{
	summary_head "$verdict"
	if [ -f "$out/compare.md" ]; then
		sed '1{/^## /d}' "$out/compare.md"
	else
		echo '```'
		cat "$out/compare.txt"
		echo '```'
	fi
} >"$out/summary.md"
rm -f "$out/compare.md"
publish
echo "ci-gate: $verdict (exit $status); outputs in $out"
exit "$status"
