#!/usr/bin/env bash
# gpu-ab.sh - one benchmark command on several builds of f8bench, in one
# job on one GPU, alternating: the way to tell whether a change made a
# kernel faster, when runs in different jobs differ by a few percent
# (power cap, clocks) and runs in one job do not.
#
#   scripts/gpu-ab.sh OUTDIR ROUNDS LABEL=SRC [LABEL=SRC]... -- F8BENCH-ARGS...
#
# SRC is a source tree (a directory) or a tar archive of one, such as
#   git archive -o base.tar 2a422ce
# Each is unpacked into OUTDIR/src-LABEL (a directory is copied there,
# its .git and build folders left out), built there (bootstrap, configure,
# make f8bench; the builds run side by side), with F8B_GIT_DESCRIBE=LABEL
# (whatever the environment says), so each file's provenance names its own
# build: a label such as base-2a422ce says both.
# Then ROUNDS rounds, each running every build in the order given:
#   f8bench F8BENCH-ARGS -o OUTDIR/LABEL-ROUND.h5   (log: LABEL-ROUND.log)
# F8BENCH-ARGS must not hold -o/--output.  A file per run.  At the end,
# each build's first-round file is compared with the first build's
#   f8bench compare --detail LABEL1-1.h5 LABEL-1.h5 > OUTDIR/compare-LABEL.txt
# (with the last build's f8bench: --detail also compares lls's kernels),
# and every round's gemm and lls rows are summed up per case
#   scripts/ab-summary.sh --f8bench LAST OUTDIR LABEL... > OUTDIR/summary.txt
# (each build's mean over its rounds, least and greatest, and its speed
# over the first build's).
# Environment: AB_JOBS (make jobs per build, default: cores / builds),
# AB_TIMEOUT (seconds per run, default 600), AB_BUDGET (seconds: start no
# round after this much time, default none), AB_BUILDS (a directory: the
# builds live in AB_BUILDS/src-LABEL instead of OUTDIR/src-LABEL, and one
# that has b/f8bench already, from an earlier run with the same LABEL=SRC,
# is not rebuilt: a second benchmark on the same builds, into another
# OUTDIR).
# Exit status: 0 when every build and every run succeeded.
set -uo pipefail
usage="usage: gpu-ab.sh OUTDIR ROUNDS LABEL=SRC [LABEL=SRC]... -- F8BENCH-ARGS..."
[ $# -ge 2 ] || { echo "gpu-ab.sh: $usage" >&2; exit 2; }
out=$1 rounds=$2
shift 2
case $rounds in '' | *[!0-9]*) echo "gpu-ab.sh: ROUNDS '$rounds' is not a number ($usage)" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] || { echo "gpu-ab.sh: ROUNDS must be at least 1" >&2; exit 2; }
labels=() srcs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
	*=*) ;;
	*) echo "gpu-ab.sh: '$1' is not LABEL=SRC ($usage)" >&2; exit 2 ;;
	esac
	l=${1%%=*} s=${1#*=}
	case $l in '' | *[!A-Za-z0-9._-]*) echo "gpu-ab.sh: label '$l': letters, digits, . _ - only" >&2; exit 2 ;; esac
	for x in "${labels[@]}"; do [ "$x" = "$l" ] && { echo "gpu-ab.sh: label '$l' given twice" >&2; exit 2; }; done
	[ -e "$s" ] || { echo "gpu-ab.sh: $l: no such tree or archive: $s" >&2; exit 2; }
	labels+=("$l") srcs+=("$(cd "$(dirname "$s")" && pwd)/$(basename "$s")")
	shift
done
[ "${1:-}" = "--" ] || { echo "gpu-ab.sh: no '--' before the f8bench arguments ($usage)" >&2; exit 2; }
shift
[ ${#labels[@]} -ge 1 ] || { echo "gpu-ab.sh: no LABEL=SRC ($usage)" >&2; exit 2; }
[ $# -ge 1 ] || { echo "gpu-ab.sh: no f8bench arguments ($usage)" >&2; exit 2; }
for a in "$@"; do
	case $a in -o | --output | --output=* | -o*) echo "gpu-ab.sh: leave -o/--output out: each run writes OUTDIR/LABEL-ROUND.h5" >&2; exit 2 ;; esac
done
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
t0=$(date +%s)
cores=$(nproc 2>/dev/null || echo 4)
jobs=${AB_JOBS:-$((cores / ${#labels[@]} > 0 ? cores / ${#labels[@]} : 1))}

bdir=$out
if [ -n "${AB_BUILDS:-}" ]; then
	mkdir -p "$AB_BUILDS" && bdir=$(cd "$AB_BUILDS" && pwd) || exit 1
fi

build() { # LABEL SRC
	local d="$bdir/src-$1"
	if [ -n "${AB_BUILDS:-}" ] && [ -x "$d/b/f8bench" ]; then
		echo "gpu-ab.sh: $1: reusing $d/b/f8bench (AB_BUILDS)"
		return 0
	fi
	rm -rf "$d" && mkdir -p "$d" || return 1
	if [ -d "$2" ]; then
		local src here skip=./.git
		src=$(cd "$2" && pwd -P) here=$(cd "$out" && pwd -P)
		case $here/ in "$src"/*) skip=./${here#"$src"/} ;; esac # OUTDIR inside the tree
		tar -C "$2" --exclude=./.git --exclude="$skip" --exclude=./_gpu_build --exclude=./_b \
			--exclude=./b -cf - . | tar -C "$d" -xf - || return 1
	else
		tar -C "$d" -xf "$2" || return 1
	fi
	(cd "$d" && ./bootstrap && mkdir -p b && cd b && ../configure &&
		F8B_GIT_DESCRIBE=$1 make src/git-version.h &&
		make -j"$jobs" f8bench)
}
echo "gpu-ab.sh: building ${labels[*]} ($jobs make jobs each)"
pids=()
for i in "${!labels[@]}"; do
	build "${labels[$i]}" "${srcs[$i]}" >"$out/build-${labels[$i]}.log" 2>&1 &
	pids+=($!)
done
status=0
for i in "${!labels[@]}"; do
	if wait "${pids[$i]}"; then
		echo "gpu-ab.sh: built ${labels[$i]} in $(($(date +%s) - t0)) s"
	else
		echo "gpu-ab.sh: build of ${labels[$i]} FAILED (tail of $out/build-${labels[$i]}.log):" >&2
		tail -n 20 "$out/build-${labels[$i]}.log" >&2
		status=1
	fi
done
[ $status -eq 0 ] || exit 1
for k in $(seq 1 "$rounds"); do
	if [ -n "${AB_BUDGET:-}" ] && [ $(($(date +%s) - t0)) -ge "$AB_BUDGET" ]; then
		echo "gpu-ab.sh: AB_BUDGET of $AB_BUDGET s spent: no round $k"
		break
	fi
	for l in "${labels[@]}"; do
		echo "+ [$l round $k] f8bench $* -o $out/$l-$k.h5"
		timeout "${AB_TIMEOUT:-600}" "$bdir/src-$l/b/f8bench" "$@" -o "$out/$l-$k.h5" >"$out/$l-$k.log" 2>&1
		rc=$?
		echo "gpu-ab.sh: $l round $k: exit $rc at $(($(date +%s) - t0)) s"
		[ $rc -eq 0 ] || { status=1; tail -n 5 "$out/$l-$k.log" >&2; }
	done
done
last=$bdir/src-${labels[$((${#labels[@]} - 1))]}/b/f8bench
for l in "${labels[@]:1}"; do
	[ -f "$out/${labels[0]}-1.h5" ] && [ -f "$out/$l-1.h5" ] || continue
	"$last" compare --detail "$out/${labels[0]}-1.h5" "$out/$l-1.h5" >"$out/compare-$l.txt" 2>&1
	echo "gpu-ab.sh: ${labels[0]} -> $l (round 1): $(tail -n 1 "$out/compare-$l.txt") ($out/compare-$l.txt)"
done
# Every round: each build's mean per case and its speed over the first's
if bash "$(dirname "$0")/ab-summary.sh" --f8bench "$last" "$out" "${labels[@]}" >"$out/summary.txt" 2>"$out/summary.err"; then
	echo "gpu-ab.sh: means over the rounds: $out/summary.txt"
	rm -f "$out/summary.err"
else
	echo "gpu-ab.sh: no summary over the rounds: $(head -n 1 "$out/summary.err")"
	rm -f "$out/summary.txt"
fi
exit $status
