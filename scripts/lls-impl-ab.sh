#!/usr/bin/env bash
# lls-impl-ab.sh - the lls step on cuBLASLt's GEMMs against f8b's, in
# several processes, the two implementations' order swapped from one
# process to the next: the way to tell an lls step ratio from the spread
# between processes (a few percent under the power cap: the TW step at
# 8192³ ranged 3.06-3.24 ms over six runs of one build,
# results/h100/experiments/lls-repeat/) and from the order the rows ran in.
#
#   scripts/lls-impl-ab.sh OUTDIR ROUNDS -- LLS-ARGS...
#
# Round k (1..ROUNDS) runs, for each lane setting L of AB_LANES,
#   f8bench lls --gemm-impl ORDER --lanes L LLS-ARGS -o OUTDIR/lls-k-lanesL.h5
# (log: the same name, .log), ORDER being cublaslt,f8b in odd rounds and
# f8b,cublaslt in even ones.  LLS-ARGS must hold neither -o/--output,
# --gemm-impl nor --lanes.  Then each file's lls table is exported
# (lls-k-lanesL.csv; this run's rows together in OUTDIR/rows.txt) and
# OUTDIR/summary.txt written: one line per round, lane setting, shape and
# recipe with both steps' medians, cuBLASLt's over f8b's (> 1: f8b
# faster), the fastest steps' ratio, the per-kernel sums and each row's
# samples; then, per lane setting, shape and recipe, the median, least and
# greatest ratio over the rounds, the median ratio of the rounds that
# ran cuBLASLt first and of those that ran f8b first (which ran first is
# read from the table: f8bench writes the rows in the order they ran),
# and the median over the rounds of the fastest steps' ratio and of the
# kernel sums' ratio.  Under a power cap a process's median can fall in
# either of two clock modes, and a row that ran into the slower one took
# more samples (results/h100/experiments/f8b-lls-spread/): the samples
# columns show which rows did; the fastest steps' and kernel sums'
# ratios did not move with it there.
# Warm the step for about a second before sampling (--warmup 300 at
# 8192^3) and sample longer (--min-time 1 --max-time 3): every sample then
# runs at the capped clock, and the tensorwise ratio held at 1.005-1.042
# over four processes (results/h100/experiments/f8b-lls-warmup/).
# A row that is not ok is named and left out.
# Environment: F8BENCH (the f8bench to run, default f8bench on PATH, else
# ./f8bench), AB_LANES (space-separated, default "2"; e.g. "2 1"),
# AB_TIMEOUT (seconds per run, default 600), AB_BUDGET (seconds: start no
# round after this much time, default none).
# Exit status: 0 when every run succeeded and every row was ok.
set -uo pipefail
usage="usage: lls-impl-ab.sh OUTDIR ROUNDS -- LLS-ARGS..."
die() { echo "lls-impl-ab.sh: $*" >&2; exit 2; }
[ $# -ge 3 ] || die "$usage"
out=$1 rounds=$2
shift 2
case $rounds in '' | *[!0-9]*) die "ROUNDS '$rounds' is not a number ($usage)" ;; esac
[ "$rounds" -ge 1 ] || die "ROUNDS must be at least 1"
[ "$1" = "--" ] || die "no '--' before the lls arguments ($usage)"
shift
[ $# -ge 1 ] || die "no lls arguments ($usage)"
for a in "$@"; do
	case $a in
	-o | -o* | --output | --output=*) die "leave -o/--output out: each run writes OUTDIR/lls-ROUND-lanesL.h5" ;;
	--gemm-impl | --gemm-impl=*) die "leave --gemm-impl out: each round runs both, in turn first" ;;
	--lanes | --lanes=*) die "leave --lanes out: AB_LANES sets them" ;;
	esac
done
lanes=${AB_LANES:-2}
for l in $lanes; do
	case $l in 1 | 2 | auto) ;; *) die "AB_LANES: '$l' is not 1, 2 or auto" ;; esac
done
[ -n "$lanes" ] || die "AB_LANES is empty"
f8bench=${F8BENCH:-}
if [ -z "$f8bench" ]; then
	f8bench=$(command -v f8bench 2>/dev/null || echo ./f8bench)
fi
[ -x "$f8bench" ] || die "no f8bench at '$f8bench' (set F8BENCH)"
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
csvawk=$(cat "$here/csv.awk" "$here/csv-cols.awk") || die "csv.awk or csv-cols.awk missing beside the script"
# rows_of CSV ROUND LANES: each row of an exported lls table as: round,
# the implementation that ran first, lanes, shape, recipe, impl, status,
# step, fastest step and kernel sum in ms, and samples ("-" where the
# table has no such column).  Which ran first: the implementation of the
# first row of each shape and recipe.
rows_of() {
	awk -v k="$2" -v l="$3" "$csvawk"'
	{
		sr = F[c["m"]] "x" F[c["k"]] "x" F[c["n"]] " " F[c["recipe"]]
		if (!(sr in first)) first[sr] = F[c["gemm_impl"]]
		printf "%s %s %s %sx%sx%s %s %s %s %.6f %.6f %.6f %s\n", k, first[sr], l, F[c["m"]], F[c["k"]],
		       F[c["n"]], F[c["recipe"]], F[c["gemm_impl"]], F[c["status"]],
		       F[c["time_median_s"]] * 1000, F[c["time_min_s"]] * 1000,
		       F[c["kernels_time_s"]] * 1000, (("samples" in c) && F[c["samples"]] != "") ? F[c["samples"]] : "-"
	}' "$1"
}
rows=$out/rows.txt
: >"$rows"
t0=$(date +%s)
status=0

for k in $(seq 1 "$rounds"); do
	if [ -n "${AB_BUDGET:-}" ] && [ $(($(date +%s) - t0)) -ge "$AB_BUDGET" ]; then
		echo "lls-impl-ab.sh: AB_BUDGET of $AB_BUDGET s spent: no round $k"
		break
	fi
	if [ $((k % 2)) -eq 1 ]; then order=cublaslt,f8b; else order=f8b,cublaslt; fi
	for l in $lanes; do
		f=$out/lls-$k-lanes$l
		rm -f "$f.h5" "$f.csv"
		echo "+ [round $k/$rounds, lanes $l] f8bench lls --gemm-impl $order --lanes $l $* -o $f.h5"
		timeout "${AB_TIMEOUT:-600}" "$f8bench" lls --gemm-impl "$order" --lanes "$l" "$@" \
			-o "$f.h5" >"$f.log" 2>&1
		rc=$?
		echo "lls-impl-ab.sh: round $k, lanes $l: exit $rc at $(($(date +%s) - t0)) s"
		if [ $rc -ne 0 ]; then
			status=1
			tail -n 5 "$f.log" >&2
		fi
		if [ -f "$f.h5" ] && ! "$f8bench" export "$f.h5" --table lls -o "$f.csv" >>"$f.log" 2>&1; then
			echo "lls-impl-ab.sh: round $k, lanes $l: no lls table in $f.h5" >&2
			status=1
		fi
		[ -f "$f.csv" ] && rows_of "$f.csv" "$k" "$l" >>"$rows"
	done
done

awk "$(cat "$here/median.awk")"'
{
	key = $1 SUBSEP $3 SUBSEP $4 SUBSEP $5
	if ($7 != "ok") { bad[++nbad] = sprintf("round %s, lanes %s, %s %s, %s: %s", $1, $3, $4, $5, $6, $7); next }
	first[key] = $2
	step[key, $6] = $8; fastest[key, $6] = $9; kern[key, $6] = $10; ns[key, $6] = $11
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
}
END {
	print "# lls-impl-ab.sh: cuBLASLt'"'"'s time over f8b'"'"'s (> 1: f8b faster), each row one process"
	printf "%-5s %-8s %-5s %-18s %-18s %9s %9s %7s %7s %9s %9s %5s %5s\n", "round", "first", "lanes",
	       "shape", "recipe", "lt ms", "f8b ms", "ratio", "fastest", "lt kern", "f8b kern", "lt n", "f8b n"
	for (i = 1; i <= nk; i++) {
		key = order[i]
		if (!((key, "cublaslt") in step) || !((key, "f8b") in step)) continue
		split(key, p, SUBSEP)
		r = step[key, "cublaslt"] / step[key, "f8b"]
		rf = fastest[key, "cublaslt"] / fastest[key, "f8b"]
		rk = kern[key, "f8b"] > 0 ? kern[key, "cublaslt"] / kern[key, "f8b"] : 0
		printf "%-5s %-8s %-5s %-18s %-18s %9.4f %9.4f %7.3f %7.3f %9.4f %9.4f %5s %5s\n", p[1], first[key],
		       p[2], p[3], p[4], step[key, "cublaslt"], step[key, "f8b"], r, rf, kern[key, "cublaslt"],
		       kern[key, "f8b"], ns[key, "cublaslt"], ns[key, "f8b"]
		g = p[2] SUBSEP p[3] SUBSEP p[4]
		if (!(g in gseen)) { gseen[g] = 1; gorder[++ng] = g }
		all[g, ++na[g]] = r; fst[g, na[g]] = rf; krn[g, na[g]] = rk
		if (first[key] == "cublaslt") ltf[g, ++nl[g]] = r; else f8f[g, ++nf[g]] = r
		if (!(g in lo) || r < lo[g]) lo[g] = r
		if (!(g in hi) || r > hi[g]) hi[g] = r
	}
	print ""
	print "# over the rounds: the ratio'"'"'s median, least and greatest; the median of the rounds that ran cuBLASLt first, and of those that ran f8b first; the median of the fastest steps'"'"' ratio and of the kernel sums'"'"'"
	printf "%-5s %-18s %-18s %6s %7s %7s %7s %9s %9s %7s %7s\n", "lanes", "shape", "recipe", "rounds",
	       "median", "least", "most", "lt first", "f8b first", "fastest", "kern"
	for (i = 1; i <= ng; i++) {
		g = gorder[i]
		split(g, p, SUBSEP)
		a = nl[g] ? sprintf("%.3f", median_of(ltf, g, nl[g])) : "-"
		b = nf[g] ? sprintf("%.3f", median_of(f8f, g, nf[g])) : "-"
		printf "%-5s %-18s %-18s %6d %7.3f %7.3f %7.3f %9s %9s %7.3f %7.3f\n", p[1], p[2], p[3], na[g],
		       median_of(all, g, na[g]), lo[g], hi[g], a, b, median_of(fst, g, na[g]),
		       median_of(krn, g, na[g])
	}
	if (nbad) {
		print ""
		print "# rows not ok (left out):"
		for (i = 1; i <= nbad; i++) print bad[i]
	}
	exit (nbad > 0)
}' "$rows" >"$out/summary.txt" || status=1
cat "$out/summary.txt"
exit $status
