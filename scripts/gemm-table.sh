#!/bin/sh
# gemm-table.sh - print chosen columns of a results file's gemm table as an
# aligned text table (or Markdown with -m), from f8bench export.
#   scripts/gemm-table.sh [-m] FILE.h5 [COLUMN...]
# Default columns: M K N scaling fast_accum a_dtype b_dtype status
# time_median_s tflops pct_peak speedup_vs_bf16 sqnr_db.
md=0
[ "${1:-}" = -m ] && { md=1; shift; }
file=${1:?usage: gemm-table.sh [-m] FILE.h5 [COLUMN...]}
shift
cols=${*:-m k n scaling fast_accum a_dtype b_dtype status time_median_s tflops pct_peak speedup_vs_bf16 sqnr_db}
f8b=${F8BENCH:-f8bench}
# Fields split as RFC 4180 writes them (scripts/csv.awk): a message with
# a comma stays one column.
"$f8b" export "$file" --table gemm | awk -v want="$cols" -v md="$md" "$(cat "$(dirname "$0")/csv.awk")"'
function fmt(v) {
	if (v ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ && v ~ /[.e]/) return sprintf("%.4g", v)
	return v
}
NR == 1 {
	n = split(want, w, " ")
	nh = split_csv($0, h)
	for (i = 1; i <= nh; i++) idx[h[i]] = i
	for (j = 1; j <= n; j++) {
		if (!(w[j] in idx)) { print "gemm-table: no column " w[j] > "/dev/stderr"; exit 2 }
		line = line (j > 1 ? (md ? " | " : "  ") : "") w[j]
	}
	print (md ? "| " line " |" : line)
	if (md) { sep = "|"; for (j = 1; j <= n; j++) sep = sep " --- |"; print sep }
	next
}
{
	delete f
	split_csv($0, f)
	line = ""
	for (j = 1; j <= n; j++) line = line (j > 1 ? (md ? " | " : "  ") : "") fmt(f[idx[w[j]]])
	print (md ? "| " line " |" : line)
}' | { if [ $md = 1 ] || ! command -v column >/dev/null; then cat; else column -t; fi; }
