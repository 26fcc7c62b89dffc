#!/usr/bin/env bash
# ab-summary.sh - the rounds of an A/B (scripts/gpu-ab.sh's OUTDIR: one
# file per build and round, LABEL-ROUND.h5) summed up per case: each
# build's mean over its rounds, with the least and the greatest, and each
# later build's speed over the first's, the ratio of the means.  gpu-ab.sh
# writes it to OUTDIR/summary.txt after its rounds; run it by hand on an
# older A/B's folder (a study's summary.txt, regenerated).
#
#   scripts/ab-summary.sh [--f8bench PATH] OUTDIR LABEL [LABEL]...
#
# The first LABEL is the base.  Tables read (f8bench export FILE --table T):
#   gemm  per M K N, scaling, fast_accum, dtypes, impl (and D^T): TFLOP/s;
#         speed = new / base;
#   lls   per M K N, recipe, graph, lanes, gemm_impl: the step's median in
#         ms; speed = base / new (above 1: new is faster).
# A row whose status is not ok is left out of the means and counted on a
# line of its own.  F8BENCH (or --f8bench): the f8bench that exports
# (default: f8bench on PATH).  Exit status: 0 with at least one row
# summed, 1 when no file held a row, 2 on bad arguments.
set -uo pipefail
usage="usage: ab-summary.sh [--f8bench PATH] OUTDIR LABEL [LABEL]..."
case ${1:-} in -h | --help)
	sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac
f8=${F8BENCH:-f8bench}
if [ "${1:-}" = --f8bench ]; then
	f8=${2:?$usage}
	shift 2
fi
[ $# -ge 2 ] || { echo "ab-summary.sh: $usage" >&2; exit 2; }
dir=$1
shift
[ -d "$dir" ] || { echo "ab-summary.sh: no such folder: $dir" >&2; exit 2; }
for l in "$@"; do
	case $l in '' | *[!A-Za-z0-9._-]*) echo "ab-summary.sh: label '$l': letters, digits, . _ - only" >&2; exit 2 ;; esac
done
csv=$(cat "$(dirname "$0")/csv.awk")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Every (label, round) file's rows of both tables, as "table|label|key|value|status".
for l in "$@"; do
	for f in "$dir/$l"-*.h5; do
		[ -f "$f" ] || continue
		r=${f##*/"$l"-}
		r=${r%.h5}
		case $r in '' | *[!0-9]*) continue ;; esac
		for t in gemm lls; do
			"$f8" export "$f" --table "$t" >"$tmp/x.csv" 2>/dev/null || continue
			awk -v t="$t" -v l="$l" "$csv"'
			NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) c[h[i]] = i; next }
			{
				split_csv($0, v)
				shape = v[c["m"]] "x" v[c["k"]] "x" v[c["n"]]
				if (t == "gemm") {
					key = shape " " v[c["scaling"]] " fast_accum=" v[c["fast_accum"]] " " \
					      v[c["a_dtype"]] ":" v[c["b_dtype"]] "->" v[c["out_dtype"]] " " v[c["impl"]] \
					      (("out_t" in c) && v[c["out_t"]] == 1 ? " +D^T" : "")
					val = v[c["tflops"]]
				} else {
					key = shape " " v[c["recipe"]] " graph=" v[c["graph"]] " lanes=" v[c["lanes"]] \
					      " " v[c["gemm_impl"]]
					val = v[c["time_median_s"]] * 1000
				}
				print t "|" l "|" key "|" val "|" v[c["status"]]
			}' "$tmp/x.csv" >>"$tmp/rows"
		done
	done
done
[ -s "$tmp/rows" ] || { echo "ab-summary.sh: no gemm or lls rows in $dir for: $*" >&2; exit 1; }

labels="$*"
awk -F'|' -v labels="$labels" '
BEGIN { nl = split(labels, L, " ") }
{
	t = $1; l = $2; k = $3; x = $4 + 0
	id = t SUBSEP k
	if (!(id in seen)) { seen[id] = 1; order[++nk] = id; tab[nk] = t; name[nk] = k }
	if ($5 != "ok") { bad[l]++; next }
	n[id, l]++; s[id, l] += x
	if (!((id, l) in lo) || x < lo[id, l]) lo[id, l] = x
	if (!((id, l) in hi) || x > hi[id, l]) hi[id, l] = x
}
END {
	for (i = 1; i <= nk; i++) w = length(name[i]) > w ? length(name[i]) : w
	for (tt = 1; tt <= 2; tt++) {
		t = tt == 1 ? "gemm" : "lls"
		head = 0
		for (i = 1; i <= nk; i++) {
			if (tab[i] != t) continue
			if (!head) {
				print "# " t ": " (t == "gemm" ? "TFLOP/s" : "the step, ms") \
				      ", each build'"'"'s mean over its rounds (least-greatest); speed " \
				      (t == "gemm" ? "new / base" : "base / new") " of the means, base = " L[1]
				head = 1
			}
			id = order[i]
			line = sprintf("%-*s", w, name[i])
			for (j = 1; j <= nl; j++) {
				if (!((id, L[j]) in n)) { line = line sprintf("  %s -", L[j]); continue }
				m[j] = s[id, L[j]] / n[id, L[j]]
				fmt = t == "gemm" ? "  %s %.1f (%.1f-%.1f, %d)" : "  %s %.4f (%.4f-%.4f, %d)"
				line = line sprintf(fmt, L[j], m[j], lo[id, L[j]], hi[id, L[j]], n[id, L[j]])
			}
			for (j = 2; j <= nl; j++)
				if (((id, L[1]) in n) && ((id, L[j]) in n) && m[1] > 0 && m[j] > 0)
					line = line sprintf("  %s/%s %.3f", L[j], L[1], t == "gemm" ? m[j] / m[1] : m[1] / m[j])
			print line
		}
	}
	for (j = 1; j <= nl; j++)
		if (bad[L[j]]) print "# " L[j] ": " bad[L[j]] " rows not ok, left out"
}' "$tmp/rows"
