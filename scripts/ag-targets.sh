#!/bin/sh
# ag-targets.sh - the all-gather issue's targets, computed from results
# files (f8bench export + awk; every figure read by column name, CSV fields
# split as RFC 4180 writes them), as Markdown on standard output.
#   scripts/ag-targets.sh AG.h5 [COLLECTIVES.h5 [NCCL_TESTS.txt [REPORT_DIR]]]
# AG.h5: f8bench allgather rows (a sweep, an A/B of buffer modes);
# COLLECTIVES.h5: f8bench ceilings --kinds allgather rows;
# NCCL_TESTS.txt: the output of nccl-tests' all_gather_perf runs (each
# after a "+ all_gather_perf ..." line, as scripts/ag-node.sh writes it),
# the standalone reference; REPORT_DIR: `f8bench report ... -o REPORT_DIR`,
# whose ag-validation.csv holds the projection's checks.  "" skips one.
# The targets are issue 22's (2 GPUs, each comparison within one job).
set -eu
ag=${1:?usage: ag-targets.sh AG.h5 [COLLECTIVES.h5 [NCCL_TESTS.txt [REPORT_DIR]]]}
coll=${2:-}
nt=${3:-}
rep=${4:-}
f8b=${F8BENCH:-f8bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$f8b" export "$ag" --table allgather >"$tmp/ag.csv"
# split_csv (scripts/csv.awk) and v(name): the fields of the current line by
# header name; v_opt(name) for a column older files lack ("" there).
CSV="$(cat "$(dirname "$0")/csv.awk")"'
function v(n) { if (!(n in c)) { print "missing column " n > "/dev/stderr"; exit 2 } return f[c[n]] }
function v_opt(n) { return (n in c) ? f[c[n]] : "" }
function variant(   b, p, o, x) { b = v("nccl_buffers"); p = v("cta_policy"); o = v_opt("optimizer")
	x = (v_opt("rs_stream") == "own" ? ", RS on its own stream" : "") \
	    (o != "" && o != "none" ? ", adamw " o " " v_opt("update") : "")
	return (b == "" ? "plain" : b) ", " (p == "" ? "default" : p) " CTAs, " (v("in_place") + 0 ? "in place" : "out of place") x }'
# The rules every CSV reader below starts with: skip comments, read the
# header, split each row into f[].
RULES='/^#/ { next }
!hdr { nh = split_csv($0, h); delete c; for (i = 1; i <= nh; i++) c[h[i]] = i; hdr = 1; next }
{ delete f; split_csv($0, f) }'

echo "### fp8 all-gather step: D=8192, L=8 (each cell measured / target)"
echo
echo "| ranks | collectives | tokens/rank | fp8-allgather vs bf16 | vs fp8-compute | exposed comm | all-gather busbw kept | wait per gather | GEMM TFLOP/s kept |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
awk "$CSV$RULES"'
v("status") == "ok" && v("d_out") == 8192 && v("d_in") == 8192 && v("layers") == 8 {
	k = v("ranks") SUBSEP variant() SUBSEP v("tokens_per_rank")
	if (!(k in keys)) order[++n] = k
	keys[k] = 1
	if (v("mode") == "fp8-allgather") { sp[k] = v("speedup_vs_bf16"); t[k] = v("time_median_s")
		ex[k] = v("exposed_pct"); kept[k] = v("ag_busbw_kept_pct"); gk[k] = v("gemm_kept_pct")
		w = v_opt("ag_wait_s"); if (w != "" && w !~ /nan/) wt[k] = w }
	if (v("mode") == "fp8-compute") tc[k] = v("time_median_s")
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, p, SUBSEP); big = p[3] == 8192; small = p[3] == 2048
		tgt = small ? " / >= 1.00" : big ? " / >= 1.60" : ""
		vc = (k in tc) && (k in t) ? sprintf("%.3f / >= 1", tc[k] / t[k]) : "-"
		e = (k in ex) ? sprintf("%.1f%%%s", ex[k], small ? " / <= 15%" : big ? " / <= 5%" : "") : "-"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], p[3],
			(k in sp) ? sprintf("%.3fx%s", sp[k], tgt) : "-", vc, e,
			(k in kept) ? sprintf("%.1f%%%s", kept[k], big ? " / >= 90%" : "") : "-",
			(k in wt) ? sprintf("%.1f us", 1e6 * wt[k]) : "-",
			(k in gk) ? sprintf("%.1f%%%s", gk[k], big ? " / >= 95%" : "") : "-"
	}
	if (n == 0) print "| - | - | - | no ok row with D=8192, L=8 | | | | | |"
}' "$tmp/ag.csv"
echo
echo "On one rank there is no communication to save: busbw is 0 and the kept"
echo "percentages are not defined. A collective inside the step is timed on the"
echo "rank that started it last; the wait is what the first rank spent at it"
echo "before the last one came (\"-\": a file from before ag_wait_s, whose"
echo "in-step times include that wait)."
echo
if [ -n "$coll" ]; then
	"$f8b" export "$coll" --table ceilings >"$tmp/coll.csv"
	echo "### Standalone all-gather bus bandwidth (f8bench ceilings), GB/s"
	echo
	echo "| ranks | collectives | 1 MiB (target >= 40) | 256 MiB | 1 GiB |"
	echo "| --- | --- | ---: | ---: | ---: |"
	awk "$CSV$RULES"'
	v("kind") == "allgather" && v("status") == "ok" {
		k = v("ranks") SUBSEP variant()
		if (!(k in keys)) order[++n] = k
		keys[k] = 1; bw[k, v("bytes")] = v("value") / 1e9
	}
	END {
		for (i = 1; i <= n; i++) { k = order[i]; split(k, p, SUBSEP)
			printf "| %s | %s | %s | %s | %s |\n", p[1], p[2],
				(k, 1048576) in bw ? sprintf("%.1f", bw[k, 1048576]) : "-",
				(k, 268435456) in bw ? sprintf("%.1f", bw[k, 268435456]) : "-",
				(k, 1073741824) in bw ? sprintf("%.1f", bw[k, 1073741824]) : "-" }
	}' "$tmp/coll.csv"
	echo
fi
if [ -n "$coll" ] && [ -n "$nt" ] && [ -f "$nt" ]; then
	# nccl-tests' rows: size count type redop root, then out-of-place time
	# algbw busbw #wrong, then in-place time algbw busbw #wrong.
	echo "### Against nccl-tests' best variant (>= 256 MiB: target >= 97%)"
	echo
	echo "| bytes | f8bench best (GB/s, collectives) | nccl-tests best (GB/s, variant) | ratio |"
	echo "| --- | --- | --- | --- |"
	awk "$CSV"'
	FNR == 1 { file++ }
	file == 1 && /^\+ all_gather_perf/ { var = $0; sub(/^\+ all_gather_perf /, "", var); next }
	file == 1 && /^\+/ { var = ""; next }
	file == 1 && var != "" && $1 ~ /^[0-9]+$/ && NF >= 13 && ($1 == 268435456 || $1 == 1073741824) {
		if ($8 > nb[$1]) { nb[$1] = $8; nv[$1] = var " (out of place)" }
		if ($12 > nb[$1]) { nb[$1] = $12; nv[$1] = var " (in place)" }
		next
	}
	file == 1 { next }
	file == 2 && /^#/ { next }
	file == 2 && !hdr2 { nh = split_csv($0, h); delete c; for (i = 1; i <= nh; i++) c[h[i]] = i; hdr2 = 1; next }
	file == 2 { delete f; split_csv($0, f)
		g = v("value") / 1e9; b = v("bytes")
		if (v("kind") == "allgather" && v("status") == "ok" && (!(b in ob) || g > ob[b])) {
			ob[b] = g; ov[b] = variant() } }
	END {
		split("268435456 1073741824", sizes, " ")
		for (i = 1; i <= 2; i++) { s = sizes[i]
			if (!(s in nb) || !(s in ob)) continue
			printf "| %d MiB | %.1f (%s) | %.1f (%s) | %.3f%s |\n", s / 1048576, ob[s], ov[s], nb[s], nv[s],
				ob[s] / nb[s], (ob[s] / nb[s] >= 0.97) ? "" : " (under 97%)" }
	}' "$nt" "$tmp/coll.csv"
	echo
fi
if [ -n "$rep" ] && [ -f "$rep/ag-validation.csv" ]; then
	echo "### The projection against the measured steps (within 15%)"
	echo
	echo "| check | from ranks | ranks | collectives | mode | tokens/rank | predicted / measured |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	awk "$CSV$RULES"'
	{ r = v("predicted_s") / v("measured_s")
	  printf "| %s | %s | %s | %s | %s | %s | %.3f%s |\n", v("check"), v("from_ranks"), v("ranks"), v("variant"),
		v("mode"), v("tokens_per_rank"), r, (r >= 0.85 && r <= 1.15) ? "" : " (outside 15%)" }' "$rep/ag-validation.csv"
	echo
fi
