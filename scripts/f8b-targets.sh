#!/bin/sh
# f8b-targets.sh - issue 23's targets for f8bench's own GEMM (--impl f8b),
# checked on side-by-side results files (f8bench export + awk, nothing
# else), as Markdown on standard output:
#   scripts/f8b-targets.sh GEMM.h5 [LLS.h5]... [-- REPEAT.h5...]
# GEMM.h5: an `f8bench gemm --impl cublaslt,f8b` file (impl-sweep.sh's
# gemm-impl-sweep.h5); LLS.h5: `f8bench lls --gemm-impl cublaslt,f8b`
# files (lls-impl-sweep.h5, experiments/f8b-lls-16384/...).  Each ratio
# is of two rows of one file, so of one process.  REPEAT.h5 (after --):
# files that are processes of one command, run again and again; each is
# taken by what it holds:
#   - gemm files (impl-sweep.sh's gemm-impl-sweep.h5, one per process:
#     results/h100/experiments/f8b-gemm-repeat/): section 2 then ends
#     with the targets of sections 1 and 2 judged on the median over
#     them of each process's ratio, per shape, with its least and
#     greatest (the ratios of one process move by about 3% rms from one
#     process to the next);
#   - lls files (lls-impl-ab.sh's lls-K-lanesL.h5): section 4 then adds,
#     per shape and recipe, the median over them of each process's
#     ratio, with its least and greatest, judged on that median.
#   1. tensorwise, fast_accum on: f8b / cuBLASLt TFLOP/s >= 0.97 (stretch
#      1.03) at every square shape from 4096 and every llama3-8b /
#      llama2-70b layer;
#   2. fast_accum off (promotion every 128 of K), tensorwise, axiswise and
#      blockwise 1x128 x 128x128: f8b over cuBLASLt's tensorwise
#      fast_accum-on TFLOP/s >= 0.95 at the same shapes;
#      Sections 1 and 2 end with the same counts on the fastest samples
#      (each row's least time), no target: the medians of a sweep move by
#      about 3% rms from one run to the next under the power cap
#      (results/h100/experiments/f8b-lls-spread/sweep-repeat.txt);
#   3. accuracy, every f8b row beside cuBLASLt's row of the same case:
#      SQNR within 0.1 dB (not below cuBLASLt's by more), relative error
#      no worse (f8b's <= cuBLASLt's; the ratio is printed);
#   4. the lls step, cuBLASLt's step time over f8b's: tensorwise >= 1.02,
#      axiswise >= 1.04 (8192^3) / 1.12 (16384^3), blockwise >= 1.08 /
#      1.10, lw-axiswise-gw-hp >= 1 (no slower), at 8192^3 and 16384^3,
#      on the medians; beside them, no target, the fastest steps' ratio;
#      with REPEAT files, the same targets on the median over processes;
#   5. no target, the arithmetic of 4: each lls GEMM timed alone
#      (lls_kernels), cuBLASLt's time over f8b's, the forward GEMM with
#      cuBLASLt's sigmoid pass against f8b's fused one;
#   6. no target, each lls step beside the sum of its kernels timed alone
#      (kernels_time_s): how much each implementation's step runs under
#      that sum, and the ratio of the two implementations on each
#      measure (where they part, the kernels alone do not explain the
#      step: results/h100/experiments/f8b-lls-interleave/);
#   7. the targets of 4 on the traced steps (traced_time_median_s, files
#      from 9417aea on): each implementation's steps sampled one after
#      another, where --interleave samples them in turn
#      (results/h100/experiments/f8b-lls-instep/);
#   8. no target, section 5 on each GEMM's time inside that traced step
#      (lls_kernels' in_step_median_s).
# Rows: e4m3 x e4m3 with a bf16 D and no D^T (the issue's targets), status
# ok.  A ratio is printed to three decimals, or to as many more as it takes
# not to round it onto the other side of its target (0.9698, not 0.970).
# Exit status: 0 when the tables were made (whatever they say), 2 on bad
# usage or an unreadable file.
set -eu
usage="usage: f8b-targets.sh GEMM.h5 [LLS.h5]... [-- REPEAT.h5...]"
[ $# -ge 1 ] && [ "$1" != -- ] || { echo "f8b-targets.sh: $usage" >&2; exit 2; }
gemm=$1
shift
# "$@" rotated once through, the first -- dropped: the LLS files (nlls of
# them), then the REPEAT files (nrep)
nlls=0 dash=0
for a; do
	shift
	if [ $dash = 0 ] && [ "$a" = -- ]; then dash=1; continue; fi
	[ $dash = 1 ] || nlls=$((nlls + 1))
	set -- "$@" "$a"
done
nrep=$(($# - nlls))
[ $dash = 0 ] || [ $nrep -gt 0 ] || { echo "f8b-targets.sh: no file after --; $usage" >&2; exit 2; }
# each FN FROM TO FILE...: FN FILE for the files at positions FROM..TO
# (the LLS files: 1 $nlls; the REPEAT files: $((nlls + 1)) $#)
each() {
	fn=$1 from=$2 to=$3 i=0
	shift 3
	for f; do
		i=$((i + 1))
		[ $i -ge "$from" ] && [ $i -le "$to" ] && "$fn" "$f"
	done
	return 0
}
f8b=${F8BENCH:-f8bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# table FILE TABLE CSV: FILE's TABLE as CSV, or exit 2 naming FILE
table() {
	"$f8b" export "$1" --table "$2" -o "$3" 2>"$tmp/err" ||
		{ echo "f8b-targets.sh: $1: $(cat "$tmp/err")" >&2; exit 2; }
}
table "$gemm" gemm "$tmp/gemm.csv"
# The REPEAT files: those with a gemm table (ngrep of them, as
# $tmp/rgemm-I.csv, their names in gnames), the others lls files (nlrep
# of them, their paths a line each in $tmp/lrep.list, for section 4)
ngrep=0 nlrep=0 gnames=
: >"$tmp/lrep.list"
classify() {
	if "$f8b" export "$1" --table gemm -o "$tmp/rgemm-$((ngrep + 1)).csv" 2>/dev/null; then
		ngrep=$((ngrep + 1))
		gnames="$gnames${gnames:+ }$(basename "$1")"
	else
		[ -r "$1" ] || { echo "f8b-targets.sh: $1: cannot read it" >&2; exit 2; }
		nlrep=$((nlrep + 1))
		printf '%s\n' "$1" >>"$tmp/lrep.list"
	fi
}
each classify $((nlls + 1)) $# "$@"
# Columns by name, fields split as RFC 4180 writes them (scripts/csv.awk).
AWKLIB="$(cat "$(dirname "$0")/csv.awk" "$(dirname "$0")/csv-cols.awk")"'
function isnum(x) { return x ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ }
function v(name,   x) { x = F[c[name]]; return isnum(x) ? x + 0 : x }
function shape() { return v("m") "x" v("k") "x" v("n") }
function impl() { return v("impl") == "" ? "cublaslt" : v("impl") }
function gi() { return v("gemm_impl") == "" ? "cublaslt" : v("gemm_impl") }
# a row of the targets: ok, e4m3 x e4m3 -> bf16, no D^T, an fp8 scaling
function mine() {
	return v("status") == "ok" && v("a_dtype") == "e4m3" && v("b_dtype") == "e4m3" &&
	       v("out_dtype") == "bf16" && v("out_t") != 1 &&
	       (v("scaling") == "tensorwise" || v("scaling") == "axiswise" || v("scaling") == "blockwise")
}
# ratio r as printed: three decimals, more where three would round it onto
# the other side of a target (a, or b where b > 0), so that no printed
# ratio reads as met when it is not (0.9698 is not 0.970)
function rat(r, a, b,   d, s) {
	for (d = 3; d < 7; d++) {
		s = sprintf("%.*f", d, r)
		if (((s + 0 >= a) == (r >= a)) && (b <= 0 || (s + 0 >= b) == (r >= b))) break
	}
	return s
}
# tally(T, j, x, goal): ratio x joins group j of T: T[j, "n"] ratios,
# T[j, "met"] of them >= goal, T[j, "lo"] and T[j, "hi"] the least and
# greatest; counted(T, j, goal, unit): "MET of N[unit] (LO-HI)"
function tally(T, j, x, goal) {
	if (T[j, "n"]++ == 0) { T[j, "lo"] = x; T[j, "hi"] = x }
	if (x < T[j, "lo"]) T[j, "lo"] = x
	if (x > T[j, "hi"]) T[j, "hi"] = x
	T[j, "met"] += x >= goal
}
function counted(T, j, goal, unit) {
	return sprintf("%d of %d%s (%s-%s)", T[j, "met"], T[j, "n"], unit, rat(T[j, "lo"], goal), rat(T[j, "hi"], goal))
}
# the lls target of shape sh and recipe r (the cuBLASLt step over the f8b one), 0: none
function lls_goal(sh, r) {
	if (r == "tensorwise") return (sh == "8192x8192x8192" || sh == "16384x16384x16384") ? 1.02 : 0
	if (r == "axiswise") return sh == "8192x8192x8192" ? 1.04 : sh == "16384x16384x16384" ? 1.12 : 0
	if (r == "blockwise") return sh == "8192x8192x8192" ? 1.08 : sh == "16384x16384x16384" ? 1.10 : 0
	if (r == "lw-axiswise-gw-hp") return (sh == "8192x8192x8192" || sh == "16384x16384x16384") ? 1.0 : 0
	return 0
}
# a shape the speed targets name: square from 4096, or a layer of the two models
function target() {
	return (v("m") == v("k") && v("k") == v("n") && v("m") >= 4096) ||
	       v("label") ~ /^(llama3-8b|llama2-70b)\./
}
'

echo "## f8b against issue 23's targets"
echo
echo "From \`$(basename "$gemm")\` (\`$gemm\`); each ratio is of two rows of that file."
echo
echo "### 1. Tensorwise, fast_accum on: f8b / cuBLASLt >= 0.97 (stretch >= 1.03)"
echo
echo "| shape | label | cuBLASLt TFLOP/s | f8b TFLOP/s | f8b / cuBLASLt | verdict |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
awk "$AWKLIB"'
mine() && target() && v("scaling") == "tensorwise" && v("fast_accum") == 1 {
	k = shape() " | " v("label"); if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	t[k, impl()] = v("tflops"); tmin[k, impl()] = v("time_min_s")
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		if (!((k, "cublaslt") in t) || !((k, "f8b") in t)) { printf "| %s | | | | a row missing |\n", k; miss++; continue }
		r = t[k, "f8b"] / t[k, "cublaslt"]
		verdict = r >= 1.03 ? "met, stretch" : r >= 0.97 ? "met" : "not met"
		met += r >= 0.97; str += r >= 1.03; all++
		if (tmin[k, "cublaslt"] > 0 && tmin[k, "f8b"] > 0)
			tally(fst, 1, tmin[k, "cublaslt"] / tmin[k, "f8b"], 0.97)
		printf "| %s | %.1f | %.1f | %s | %s |\n", k, t[k, "cublaslt"], t[k, "f8b"], rat(r, 0.97, 1.03), verdict
	}
	printf "\nMet at %d of %d shapes (the stretch at %d)%s.\n", met, all, str, miss ? sprintf("; %d without both rows", miss) : ""
	if (fst[1, "n"]) printf "On the fastest samples (each row\047s least time, at the highest clock it ran): at or above 0.97 at %s.\n", counted(fst, 1, 0.97, "")
}' "$tmp/gemm.csv"

echo
echo "### 2. fast_accum off (promotion every 128 of K): f8b over cuBLASLt's tensorwise fast_accum-on TFLOP/s >= 0.95"
echo
echo "f8b's rows, and beside them cuBLASLt's own fast_accum-off rows over the same tensorwise fast row"
echo "(blockwise: cuBLASLt has no fast mode for it), for reference."
echo
echo "| shape | label | cuBLASLt tensorwise fast TFLOP/s | f8b tensorwise | f8b axiswise | f8b blockwise | cuBLASLt tensorwise | cuBLASLt axiswise | cuBLASLt blockwise |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
awk "$AWKLIB"'
mine() && target() {
	k = shape() " | " v("label"); if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	if (impl() == "cublaslt" && v("scaling") == "tensorwise" && v("fast_accum") == 1) { base[k] = v("tflops"); bmin[k] = v("time_min_s") }
	if (impl() == "f8b" && v("fast_accum") == 0) { t[k, v("scaling")] = v("tflops"); tmin[k, v("scaling")] = v("time_min_s") }
	if (impl() == "cublaslt" && v("fast_accum") == 0) lt[k, v("scaling")] = v("tflops")
}
END {
	ns = split("tensorwise axiswise blockwise", sc, " ")
	for (i = 1; i <= n; i++) {
		k = order[i]; line = sprintf("| %s | %s |", k, (k in base) ? sprintf("%.1f", base[k]) : "-")
		for (j = 1; j <= ns; j++) {
			if ((k in base) && ((k, sc[j]) in t)) {
				r = t[k, sc[j]] / base[k]; tally(f8t, j, r, 0.95)
				line = line sprintf(" %s%s |", rat(r, 0.95), r >= 0.95 ? " (met)" : "")
				if (bmin[k] > 0 && tmin[k, sc[j]] > 0)
					tally(fst, j, bmin[k] / tmin[k, sc[j]], 0.95)
			} else line = line " - |"
		}
		for (j = 1; j <= ns; j++) {
			if ((k in base) && ((k, sc[j]) in lt)) {
				r = lt[k, sc[j]] / base[k]; tally(ltt, j, r, 0.95)
				line = line sprintf(" %s |", rat(r, 0.95))
			} else line = line " - |"
		}
		print line
	}
	printf "\n"
	for (j = 1; j <= ns; j++)
		if (f8t[j, "n"]) printf "- f8b %s: met at %s\n", sc[j], counted(f8t, j, 0.95, " shapes")
		else printf "- f8b %s: no rows\n", sc[j]
	for (j = 1; j <= ns; j++)
		if (ltt[j, "n"]) printf "- cuBLASLt\047s own %s: at or above 0.95 at %s\n", sc[j], counted(ltt, j, 0.95, " shapes")
	for (j = 1; j <= ns; j++)
		if (fst[j, "n"]) printf "- f8b %s on the fastest samples (each row\047s least time; the same shapes, the same row of cuBLASLt): at or above 0.95 at %s\n", sc[j], counted(fst, j, 0.95, "")
}' "$tmp/gemm.csv"

# Sections 1 and 2 over the gemm REPEAT files: per file, per target
# shape, "SHAPE | LABEL<TAB>TWf TWp AXp BLK" (f8b's fast row over
# cuBLASLt's, then f8b's promotion rows over cuBLASLt's tensorwise fast
# row; -1 where a row is missing), then the median over the files
if [ $ngrep -gt 0 ]; then
	# a header line first: AWKLIB's csv-cols.awk takes line 1 as one
	printf 'shape\tratios\n' >"$tmp/grep.txt"
	i=0
	while [ $i -lt $ngrep ]; do
		i=$((i + 1))
		awk "$AWKLIB"'
		mine() && target() {
			k = shape() " | " v("label"); if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			t[k, impl(), v("scaling"), v("fast_accum")] = v("tflops")
		}
		function q(k, im, sc, fa) { return ((k, "cublaslt", "tensorwise", 1) in t) && ((k, im, sc, fa) in t) ? t[k, im, sc, fa] / t[k, "cublaslt", "tensorwise", 1] : -1 }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				printf "%s\t%.17g %.17g %.17g %.17g\n", k, q(k, "f8b", "tensorwise", 1), q(k, "f8b", "tensorwise", 0),
				       q(k, "f8b", "axiswise", 0), q(k, "f8b", "blockwise", 0)
			}
		}' "$tmp/rgemm-$i.csv"
	done >>"$tmp/grep.txt"
	echo
	echo "#### Sections 1 and 2 over $ngrep processes"
	echo
	echo "The files after -- that hold gemm rows, processes of one command ($gnames):"
	echo "each process's ratio per shape, and the median over them, on which the targets are judged here."
	echo "Each cell: the median, then the least and greatest in brackets."
	echo
	echo "| shape | label | processes | tensorwise fast, f8b / cuBLASLt (>= 0.97) | f8b tensorwise promotion (>= 0.95) | f8b axiswise | f8b blockwise |"
	echo "| --- | --- | ---: | --- | --- | --- | --- |"
	awk -F '\t' "$AWKLIB$(cat "$(dirname "$0")/median.awk")"'
	{
		k = $1; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		split($2, x, " ")
		for (j = 1; j <= 4; j++)
			if (x[j] > 0) {
				r[k, j, ++nr[k, j]] = x[j]
				if (nr[k, j] == 1 || x[j] < lo[k, j]) lo[k, j] = x[j]
				if (nr[k, j] == 1 || x[j] > hi[k, j]) hi[k, j] = x[j]
			}
		np[k]++
	}
	function med(k, j,    a_, i) { for (i = 1; i <= nr[k, j]; i++) a_[i] = r[k, j, i]; return median(a_, nr[k, j]) }
	END {
		split("0.97 0.95 0.95 0.95", goal, " ")
		split("tensorwise fast|f8b tensorwise promotion|f8b axiswise promotion|f8b blockwise", name, "|")
		for (i = 1; i <= n; i++) {
			k = order[i]; line = sprintf("| %s | %d |", k, np[k])
			for (j = 1; j <= 4; j++) {
				if (!nr[k, j]) { line = line " - |"; continue }
				m = med(k, j); tally(M, j, m, goal[j] + 0)
				line = line sprintf(" %s (%s-%s)%s |", rat(m, goal[j] + 0), rat(lo[k, j], goal[j] + 0), rat(hi[k, j], goal[j] + 0),
				                    m >= goal[j] + 0 ? " met" : "")
				if (nr[k, j] < np[k]) line = substr(line, 1, length(line) - 2) sprintf(", %d processes |", nr[k, j])
			}
			print line
		}
		printf "\n"
		for (j = 1; j <= 4; j++)
			if (M[j, "n"]) printf "- %s, on the median over processes: met at %s\n", name[j], counted(M, j, goal[j] + 0, " shapes")
	}' "$tmp/grep.txt"
fi

echo
echo "### 3. Accuracy: f8b beside cuBLASLt's row of the same case (SQNR within 0.1 dB, relative error no worse)"
echo
awk "$AWKLIB"'
mine() {
	k = shape() " " v("label") " " v("scaling") " fast_accum=" v("fast_accum")
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	s[k, impl()] = v("sqnr_db"); e[k, impl()] = v("rel_error")
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		if (!((k, "f8b") in s)) continue
		if (!((k, "cublaslt") in s)) { alone++; continue }
		pairs++
		d = s[k, "f8b"] - s[k, "cublaslt"]; q = e[k, "cublaslt"] > 0 ? e[k, "f8b"] / e[k, "cublaslt"] : 1
		if (pairs == 1 || d < dmin) { dmin = d; kd = k }
		if (pairs == 1 || q > qmax) { qmax = q; kq = k }
		if (d < -0.1) { bads++; bad = bad sprintf("\n  - %s: SQNR %.2f against %.2f dB", k, s[k, "f8b"], s[k, "cublaslt"]) }
		if (e[k, "f8b"] > e[k, "cublaslt"]) { bade++; worse = worse sprintf("\n  - %s: rel_error %.6g against %.6g (x%.6f)", k, e[k, "f8b"], e[k, "cublaslt"], q) }
	}
	printf "- %d cases with both rows; %d f8b rows without a cuBLASLt row of their mode (cuBLASLt has no blockwise fast_accum on).\n", pairs, alone
	if (pairs) {
		printf "- SQNR, f8b minus cuBLASLt: at least %+.2g dB (%s). Within 0.1 dB: %s.%s\n", dmin, kd, bads ? sprintf("not met at %d", bads) : "met at every case", bad
		printf "- Relative error, f8b over cuBLASLt: at most x%.6f (%s). No worse: %s.%s\n", qmax, kq, bade ? sprintf("not met at %d", bade) : "met at every case", worse
	}
}' "$tmp/gemm.csv"

echo
echo "### 4. The lls step: cuBLASLt's step time over f8b's (> 1: f8b faster)"
echo
if [ $nlls -eq 0 ] && [ $nlrep -eq 0 ]; then
	echo "No lls file given."
	exit 0
fi
# pairs FILE: per shape and recipe of FILE's lls table with both
# implementations, "SHAPE RECIPE LT F8B LTMIN F8BMIN LTSUM F8BSUM LTTR
# F8BTR" (the steps' median and least times, the sums of their kernels
# timed alone and the traced steps' medians, s; a sum or traced time 0
# where the file has none), in the table's order
pairs() {
	table "$1" lls "$tmp/lls.csv"
	awk "$AWKLIB"'
	v("status") == "ok" && v("recipe") != "bf16" {
		k = shape() " " v("recipe"); if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		t[k, gi()] = v("time_median_s"); tmin[k, gi()] = v("time_min_s"); tsum[k, gi()] = isnum(v("kernels_time_s")) ? v("kernels_time_s") : 0
		ttr[k, gi()] = ("traced_time_median_s" in c) && isnum(v("traced_time_median_s")) ? v("traced_time_median_s") : 0
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (!((k, "cublaslt") in t) || !((k, "f8b") in t)) continue
			printf "%s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", k, t[k, "cublaslt"], t[k, "f8b"], tmin[k, "cublaslt"],
			       tmin[k, "f8b"], tsum[k, "cublaslt"], tsum[k, "f8b"], ttr[k, "cublaslt"], ttr[k, "f8b"]
		}
	}' "$tmp/lls.csv"
}
# the ratio of medians and the fastest steps' ratio (or -1) of a pairs line
PAIRAWK='
function ratio() { return $3 / $4 }
function fastest() { return ($5 > 0 && $6 > 0) ? $5 / $6 : -1 }
'
# the header line of pairs lines (AWKLIB's csv-cols.awk takes it)
PAIRHEAD="shape recipe lt f8b ltmin f8bmin ltsum f8bsum lttr f8btr"
# paired FILE PROG: the awk program PROG (after AWKLIB and PAIRAWK; `file`
# is FILE's name) over FILE's pairs lines
paired() {
	{ echo "$PAIRHEAD"; pairs "$1"; } | awk -v file="$(basename "$1")" "$AWKLIB$PAIRAWK$2"
}
if [ $nlls -gt 0 ]; then
	echo "Medians of one process; the target is judged on them. Beside them, the fastest steps' ratio:"
	echo "under the power cap a median can fall in either of two clock modes from one process to the"
	echo "next, the fastest step is at the full clock (results/h100/experiments/f8b-lls-spread/)."
	echo "A file sampled with --interleave (lls-impl-sweep.h5, the in-step files) takes the two steps"
	echo "in turn, and under the cap each then runs at a clock the other's power sets, which costs f8b"
	echo "2-7% (results/h100/experiments/f8b-lls-instep/); section 7 has the steps sampled one"
	echo "implementation at a time."
	echo
	echo "| file | shape | recipe | cuBLASLt ms | f8b ms | cuBLASLt / f8b | target | verdict | fastest steps, cuBLASLt / f8b |"
	echo "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |"
fi
# lls_rows FILE: section 4's rows of one LLS file
lls_rows() {
	paired "$1" '
		{
			r = ratio(); g = lls_goal($1, $2); q = fastest()
			printf "| %s | %s | %s | %.4f | %.4f | %s | %s | %s | %s |\n", file, $1, $2, 1e3 * $3, 1e3 * $4, rat(r, g),
				g ? sprintf(">= %.2f", g) : "-", g ? (r >= g ? "met" : "not met") : "", (q > 0) ? sprintf("%.3f", q) : "-"
		}'
}
each lls_rows 1 $nlls "$@"

# REPEAT: each file's ratio per shape and recipe, then the median over
# the files
if [ $nlrep -gt 0 ]; then
	echo "$PAIRHEAD" >"$tmp/rep.txt"
	names=
	while IFS= read -r f; do
		pairs "$f" >>"$tmp/rep.txt"
		names="$names${names:+ }$(basename "$f")"
	done <"$tmp/lrep.list"
	echo
	echo "Over $nlrep processes of one command (the lls files after --: $names): each process's ratio"
	echo "of medians, and the median over them, on which the target is judged here."
	echo
	echo "| shape | recipe | processes | median cuBLASLt / f8b | least | greatest | target | verdict on the median | median of the fastest steps' ratios |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |"
	awk "$AWKLIB$PAIRAWK$(cat "$(dirname "$0")/median.awk")"'
	{
		k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k; sh[k] = $1; rc[k] = $2 }
		x = ratio(); r[k, ++nr[k]] = x
		if (nr[k] == 1 || x < lo[k]) lo[k] = x
		if (nr[k] == 1 || x > hi[k]) hi[k] = x
		if (fastest() > 0) fs[k, ++nf[k]] = fastest()
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; m = median_of(r, k, nr[k]); g = lls_goal(sh[k], rc[k])
			printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", sh[k], rc[k], nr[k], rat(m, g), rat(lo[k], g), rat(hi[k], g),
				g ? sprintf(">= %.2f", g) : "-", g ? (m >= g ? "met" : "not met") : "",
				nf[k] ? sprintf("%.3f", median_of(fs, k, nf[k])) : "-"
		}
	}' "$tmp/rep.txt"
fi

[ $nlls -gt 0 ] || exit 0 # section 5 reads the LLS files' kernels
echo
echo "### 5. The lls step's GEMMs: cuBLASLt's time over f8b's, each timed alone (> 1: f8b faster)"
echo
echo "From each file's \`lls_kernels\` table. f8b's forward GEMM has the sigmoid fused; cuBLASLt's"
echo "step runs it as the \`sigmoid_fwd\` pass, so its output column is that GEMM plus that pass."
echo "lw-axiswise-gw-hp's grad_weight is cuBLASLt's bf16 GEMM in both."
echo
echo "| file | shape | recipe | output ms: cuBLASLt + sigmoid, f8b | ratio | grad_input ms | ratio | grad_weight ms | ratio |"
echo "| --- | --- | --- | --- | ---: | --- | ---: | --- | ---: |"
# kern_rows FILE [COLUMN]: section 5's rows of one LLS file, from the
# kernel rows' COLUMN (time_median_s: timed alone; section 8 passes
# in_step_median_s, and rows without a number there are left out)
kern_rows() {
	table "$1" lls_kernels "$tmp/kern.csv"
	awk -v file="$(basename "$1")" -v col="${2:-time_median_s}" "$AWKLIB"'
	v("status") == "ok" && v("recipe") != "bf16" && (v("kernel") == "gemm" || v("kernel") == "sigmoid_fwd") &&
	(col in c) && isnum(v(col)) {
		k = shape() " | " v("recipe"); if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		# the forward GEMM and the sigmoid pass both count as the output
		w = v("kernel") == "sigmoid_fwd" ? "output" : v("tensor")
		t[k, gi(), w] += v(col)
	}
	function cell(k, w) {
		if (!((k, "cublaslt", w) in t) || !((k, "f8b", w) in t)) return "- | -"
		return sprintf("%.3f, %.3f | %.3f", 1e3 * t[k, "cublaslt", w], 1e3 * t[k, "f8b", w], t[k, "cublaslt", w] / t[k, "f8b", w])
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (!((k, "cublaslt", "output") in t) || !((k, "f8b", "output") in t)) continue
			printf "| %s | %s | %s | %s | %s |\n", file, k, cell(k, "output"), cell(k, "grad_input"), cell(k, "grad_weight")
		}
	}' "$tmp/kern.csv"
}
each kern_rows 1 $nlls "$@"

echo
echo "### 6. The lls step beside the sum of its kernels timed alone"
echo
echo "From each file's \`lls\` table: the step's median and \`kernels_time_s\`, the sum of the medians of"
echo "its kernels, each timed alone. Under: how much shorter the step is than that sum. The ratios"
echo "are cuBLASLt's over f8b's (> 1: f8b faster), of the steps and of the sums."
echo
echo "| file | shape | recipe | cuBLASLt step, sum ms | under | f8b step, sum ms | under | steps | sums |"
echo "| --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: |"
# sum_rows FILE: section 6's rows of one LLS file, from its pairs
sum_rows() {
	paired "$1" '
		$7 > 0 && $8 > 0 {
			printf "| %s | %s | %s | %.3f, %.3f | %.3f | %.3f, %.3f | %.3f | %.3f | %.3f |\n", file, $1, $2,
			       1e3 * $3, 1e3 * $7, 1e3 * ($7 - $3), 1e3 * $4, 1e3 * $8, 1e3 * ($8 - $4), $3 / $4, $7 / $8
		}'
}
each sum_rows 1 $nlls "$@"

echo
echo "### 7. The lls step traced: each implementation's steps one after another"
echo
echo "From each file's \`lls\` table where it has \`traced_time_median_s\` (f8bench from 9417aea on): the"
echo "step run eagerly with an event around each kernel, sampled like the step (flush, hold), each"
echo "implementation's samples in a row after its kernels alone, where \`--interleave\` samples the two"
echo "steps in turn. The targets of section 4 are judged here on these medians too, as a second measure"
echo "(results/h100/experiments/f8b-lls-instep/)."
echo
echo "| file | shape | recipe | cuBLASLt traced ms | f8b traced ms | traced, cuBLASLt / f8b | step, cuBLASLt / f8b | target | verdict on the traced steps |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
# traced_rows FILE: section 7's rows of one LLS file, from its pairs
traced_rows() {
	paired "$1" '
		$9 > 0 && $10 > 0 {
			r = $9 / $10; g = lls_goal($1, $2)
			printf "| %s | %s | %s | %.4f | %.4f | %s | %s | %s | %s |\n", file, $1, $2, 1e3 * $9, 1e3 * $10, rat(r, g), rat(ratio(), g),
			       g ? sprintf(">= %.2f", g) : "-", g ? (r >= g ? "met" : "not met") : ""
		}'
}
# rows_or NOTE FN FROM TO FILE...: each FN ..., or one row saying NOTE when
# it prints nothing (sections 7 and 8: files older than their columns)
rows_or() {
	note=$1
	shift
	each "$@" >"$tmp/rows.txt"
	if [ -s "$tmp/rows.txt" ]; then cat "$tmp/rows.txt"; else echo "| $note | | | | | | | | |"; fi
}
rows_or "no file given has traced steps" traced_rows 1 $nlls "$@"

echo
echo "### 8. The lls step's GEMMs inside the step: cuBLASLt's time over f8b's (> 1: f8b faster)"
echo
echo "Section 5 from each file's \`in_step_median_s\` (f8bench from 9417aea on): each GEMM's time inside"
echo "the traced step of section 7, the arithmetic of its ratio. On two lanes grad_weight runs on the"
echo "second, beside the first lane's kernels, and its time there includes what they take from it."
echo
echo "| file | shape | recipe | output ms: cuBLASLt + sigmoid, f8b | ratio | grad_input ms | ratio | grad_weight ms | ratio |"
echo "| --- | --- | --- | --- | ---: | --- | ---: | --- | ---: |"
each_in_step() { kern_rows "$1" in_step_median_s; }
rows_or "no file given has in-step times" each_in_step 1 $nlls "$@"
