#!/bin/sh
# ag-targets.sh - the allgather issue's targets, computed from results
# files (f8bench export + awk; every figure read by column name), as
# Markdown on standard output.
#   scripts/ag-targets.sh AG.h5 [COLLECTIVES.h5] [REPORT_DIR]
# AG.h5: an f8bench allgather sweep; COLLECTIVES.h5: f8bench ceilings
# --kinds allgather from the same job (NCCL's own all-gather, the busbw
# reference); REPORT_DIR: `f8bench report AG.h5 -o REPORT_DIR`, whose
# ag-validation.csv holds the projection's check against each measured R.
set -eu
ag=${1:?usage: ag-targets.sh AG.h5 [COLLECTIVES.h5] [REPORT_DIR]}
coll=${2:-}
rep=${3:-}
f8b=${F8BENCH:-f8bench}
"$f8b" export "$ag" --table allgather >/tmp/ag-targets.$$.csv
trap 'rm -f /tmp/ag-targets.$$.*' EXIT
A=/tmp/ag-targets.$$.csv
HDR='BEGIN { FS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
function v(n) { if (!(n in c)) { print "missing column " n > "/dev/stderr"; exit 2 } return $c[n] }'

echo "### fp8 all-gather step: D=8192, L=8 (targets from the issue; each cell measured / target)"
echo
echo "| ranks | GPU | tokens/rank | fp8-allgather vs bf16 | fp8-allgather vs fp8-compute | exposed comm | all-gather busbw kept | GEMM TFLOP/s kept |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
awk "$HDR"'
v("status") == "ok" && v("d_out") == 8192 && v("d_in") == 8192 && v("layers") == 8 {
	k = v("ranks") SUBSEP v("tokens_per_rank")
	keys[k] = 1; gpu[k] = v("gpu")
	if (v("mode") == "fp8-allgather") { sp[k] = v("speedup_vs_bf16"); t[k] = v("time_median_s")
		ex[k] = v("exposed_pct"); kept[k] = v("ag_busbw_kept_pct"); gk[k] = v("gemm_kept_pct") }
	if (v("mode") == "fp8-compute") tc[k] = v("time_median_s")
}
END {
	n = 0
	for (k in keys) order[++n] = k
	for (i = 2; i <= n; i++) for (j = i; j > 1; j--) {
		split(order[j - 1], a, SUBSEP); split(order[j], b, SUBSEP)
		if (a[1] + 0 > b[1] + 0 || (a[1] == b[1] && a[2] + 0 > b[2] + 0)) { x = order[j]; order[j] = order[j - 1]; order[j - 1] = x }
	}
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, p, SUBSEP)
		tgt = p[2] == 2048 ? " / >= 1.00" : p[2] == 8192 ? " / >= 1.60" : ""
		vc = (k in tc) && (k in t) ? sprintf("%.3f / >= 1", tc[k] / t[k]) : "-"
		e = (k in ex) ? sprintf("%.1f%%%s", ex[k], p[2] == 8192 ? " / <= 10%" : "") : "-"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], gpu[k], p[2],
			(k in sp) ? sprintf("%.3fx%s", sp[k], tgt) : "-", vc, e,
			(k in kept) ? sprintf("%.1f%% / >= 85%%", kept[k]) : "-",
			(k in gk) ? sprintf("%.1f%% / >= 90%%", gk[k]) : "-"
	}
	if (n == 0) print "| - | - | - | no ok row with D=8192, L=8 | | | | |"
}' "$A"
echo
echo "The speedup targets are for 2 x H200; on one rank there is no communication"
echo "to save (busbw is 0 and the kept percentages are not defined)."
echo
if [ -n "$coll" ]; then
	"$f8b" export "$coll" --table ceilings >/tmp/ag-targets.$$.coll.csv
	echo "### Standalone all-gather busbw against NCCL's own plain call (same job), >= 256 MiB"
	echo
	echo "| ranks | mode | bytes | ours (GB/s) | NCCL plain (GB/s, nearest size) | ratio / target |"
	echo "| --- | --- | --- | --- | --- | --- |"
	awk 'BEGIN { FS = "," }
	FNR == 1 { file++; delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
	file == 1 && $c["kind"] == "allgather" && $c["status"] == "ok" { m++; nb[m] = $c["bytes"]; bw[m] = $c["value"] / 1e9; rk[m] = $c["ranks"] }
	file == 2 && $c["status"] == "ok" && $c["ag_bytes"] >= 268435456 && $c["ranks"] > 1 {
		best = 0; bd = 1e300
		for (i = 1; i <= m; i++) if (rk[i] == $c["ranks"]) { d = $c["ag_bytes"] / nb[i]; d = d > 1 ? d : 1 / d; if (d < bd) { bd = d; best = i } }
		printf "| %s | %s | %.0f | %.1f | %s | %s |\n", $c["ranks"], $c["mode"], $c["ag_bytes"], $c["ag_busbw_gbps"],
			best ? sprintf("%.1f at %.0f B", bw[best], nb[best]) : "-",
			best ? sprintf("%.3f / >= 0.97", $c["ag_busbw_gbps"] / bw[best]) : "-"
		rows++
	}
	END { if (!rows) print "| - | - | - | no ok row of 2+ ranks gathers 256 MiB or more (--weights 16384 does) | | |" }
	' /tmp/ag-targets.$$.coll.csv "$A"
	echo
fi
if [ -n "$rep" ] && [ -f "$rep/ag-validation.csv" ]; then
	echo "### The projection against every measured R (within 15%)"
	echo
	echo "| ranks | mode | tokens/rank | measured (ms) | predicted (ms) | predicted / measured |"
	echo "| --- | --- | --- | --- | --- | --- |"
	awk 'BEGIN { FS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ r = $c["predicted_s"] / $c["measured_s"]
	  printf "| %s | %s | %s | %.3f | %.3f | %.3f%s |\n", $c["ranks"], $c["mode"], $c["tokens_per_rank"],
		1e3 * $c["measured_s"], 1e3 * $c["predicted_s"], r, (r >= 0.85 && r <= 1.15) ? "" : " (outside 15%)" }' "$rep/ag-validation.csv"
	echo
fi
