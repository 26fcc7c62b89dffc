#!/bin/sh
# gemm-targets.sh - the GEMM issue's targets, computed from results files
# (f8bench export + awk, nothing else), as Markdown on standard output.
#   scripts/gemm-targets.sh DIR    (DIR holds gemm-sweep.h5, gemm-repeat.h5,
#                                   gemm-autotune.h5, gemm-outliers.h5: the
#                                   last three in DIR, as gpu-sweep.sh leaves
#                                   them, or in DIR/experiments/gemm-extra/,
#                                   as results/h100 keeps them)
set -eu
dir=${1:?usage: gemm-targets.sh DIR}
f8b=${F8BENCH:-f8bench}
# DIR/NAME, else DIR/experiments/gemm-extra/NAME.
extra() { if [ -f "$dir/$1" ]; then echo "$dir/$1"; else echo "$dir/experiments/gemm-extra/$1"; fi; }
csv() { "$f8b" export "$1" --table gemm; }
# Every script below reads columns by name from the CSV header, its fields
# split as RFC 4180 writes them (scripts/csv.awk: a message with a comma
# stays one field).
AWKLIB="$(cat "$(dirname "$0")/csv.awk" "$(dirname "$0")/csv-cols.awk")"'
# a number as a number (split_csv gives strings, which compare as text)
function v(name,   x) { x = F[c[name]]; return x ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ ? x + 0 : x }
function shape() { return v("m") "x" v("k") "x" v("n") }
function ok() { return v("status") == "ok" }
'

echo "### fp8 tensorwise, fast_accum on, 8192^3 (target >= 1500 TFLOP/s and >= 1.85x bf16)"
echo
csv "$dir/gemm-sweep.h5" | awk "$AWKLIB"'
ok() && shape() == "8192x8192x8192" && v("scaling") == "tensorwise" && v("fast_accum") == 1 {
	printf "- %s:%s: %.0f TFLOP/s, %.3fx the bf16 GEMM of the same run (bf16 %.0f TFLOP/s); SM clock %d-%d MHz, %d of %d samples with a clocks-event reason (mask 0x%x)\n",
		v("a_dtype"), v("b_dtype"), v("tflops"), v("speedup_vs_bf16"),
		2 * v("m") * v("n") * v("k") / v("bf16_time_median_s") / 1e12,
		v("sm_mhz_min"), v("sm_mhz_max"), v("throttled"), v("samples"), v("throttle_reasons")
}'

echo
echo "### axiswise vs tensorwise, square shapes >= 4096, fast_accum on (target: within 3%)"
echo
echo "| shape | dtypes | tensorwise TFLOP/s | axiswise TFLOP/s | axiswise/tensorwise |"
echo "| --- | --- | --- | --- | --- |"
csv "$dir/gemm-sweep.h5" | awk "$AWKLIB"'
ok() && v("m") == v("k") && v("k") == v("n") && v("m") >= 4096 && v("fast_accum") == 1 {
	key = shape() " | " v("a_dtype") ":" v("b_dtype")
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	t[key, v("scaling")] = v("tflops")
}
END { for (i = 1; i <= n; i++) { k = order[i]
	printf "| %s | %.0f | %.0f | %+.1f%% |\n", k, t[k, "tensorwise"], t[k, "axiswise"], 100 * (t[k, "axiswise"] / t[k, "tensorwise"] - 1) } }'

echo
echo "### What turning fast_accum off costs, per granularity (median over every shape, e4m3:e4m3)"
echo
csv "$dir/gemm-sweep.h5" | awk "$AWKLIB"'
ok() && v("scaling") != "none" && v("a_dtype") == "e4m3" && v("b_dtype") == "e4m3" {
	key = shape() " " v("label") " " v("scaling")
	t[key, v("fast_accum")] = v("time_median_s"); sc[key] = v("scaling")
}
END {
	for (k in sc) if ((k, 1) in t && (k, 0) in t) { r = t[k, 0] / t[k, 1]; s = sc[k]; cnt[s]++; sum[s] += r; if (r > mx[s]) mx[s] = r }
	for (k in sc) if (!((k, 1) in t) && (k, 0) in t) nofa[sc[k]]++
	ng = split("tensorwise axiswise blockwise blockwise-1x128", g, " ")
	for (i = 1; i <= ng; i++) { s = g[i]
		if (cnt[s]) printf "- %s: fast_accum off takes %.3fx the time of on, on average over %d shapes (worst %.3fx)\n", s, sum[s] / cnt[s], cnt[s], mx[s]
		else if (nofa[s]) printf "- %s: no fast_accum variant runs (cuBLASLt reports it unsupported on this GPU); %d shapes ran with fast_accum off\n", s, nofa[s]
	}
}'

echo
echo "### Repeatability: the same case twice in one job, shapes >= 2048 (target: medians within 2%)"
echo
csv "$(extra gemm-repeat.h5)" | awk "$AWKLIB"'
ok() && v("m") >= 2048 {
	key = shape() " " v("scaling") " fast_accum=" v("fast_accum") " " v("a_dtype") ":" v("b_dtype")
	t[key, v("run_id")] = v("time_median_s"); keys[key] = 1
}
END {
	for (k in keys) if ((k, 0) in t && (k, 1) in t) {
		d = t[k, 1] / t[k, 0] - 1; ad = d < 0 ? -d : d; n++
		if (ad > worst) { worst = ad; wk = k }
		if (ad > 0.02) bad++
	}
	printf "- %d cases compared; largest difference %.2f%% (%s); %d beyond 2%%\n", n, 100 * worst, wk, bad
}'

echo
echo "### --autotune 8 vs the heuristic's first choice (fast_accum on, e4m3:e4m3)"
echo
echo "The autotuned median is the row's own measurement of the chosen algorithm; the heuristic's"
echo "first choice is timed again right after it (heuristic_time_median_s). Candidates are chosen"
echo "by the mean of a forward and a backward timing pass, each checked before it is timed."
echo
echo "| shape | label | scaling | heuristic ms | autotuned ms | gain | chosen rank | candidates |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
csv "$(extra gemm-autotune.h5)" | awk "$AWKLIB"'
ok() {
	h = v("heuristic_time_median_s"); b = v("time_median_s")
	printf "| %s | %s | %s | %.4f | %.4f | %+.1f%% | %d | %d |\n", shape(), v("label"), v("scaling"), 1e3 * h, 1e3 * b, 100 * (h / b - 1), v("heuristic_rank"), v("candidates_timed")
}'

echo
echo "### SQNR (dB) by granularity and fast_accum"
echo
for f in "$dir/gemm-sweep.h5" "$(extra gemm-outliers.h5)"; do
	case $f in */gemm-sweep.h5) what="normal inputs, all shapes (mean)";; *) what="inputs with 0.1% outliers x100";; esac
	echo "$what:"
	echo
	csv "$f" | awk "$AWKLIB"'
ok() { k = v("scaling") " fast_accum=" v("fast_accum") " " v("a_dtype") ":" v("b_dtype"); s[k] += v("sqnr_db"); n[k]++ }
END { for (k in s) printf "- %s: %.2f dB (%d cases)\n", k, s[k] / n[k], n[k] }' | sort
	echo
done

if [ -f "$dir/ceilings.h5" ]; then
	echo "### Ceilings measured by f8bench ceilings (ceilings.h5) beside the datasheet"
	echo
	echo "(gemm: each of the cuBLASLt heuristic's candidates measured, 0 its first choice)"
	echo
	echo "| kind | dtype | working set / shape | measured | datasheet |"
	echo "| --- | --- | --- | --- | --- |"
	"$f8b" export "$dir/ceilings.h5" --table ceilings | awk "$AWKLIB"'
	ok() && (v("kind") != "read" && v("kind") != "write" || v("bytes") >= 268435456) {
		u = v("unit"); x = v("value"); d = v("datasheet_value")
		if (u == "B/s") { s = sprintf("%.2f TB/s", x / 1e12); ds = d == "nan" ? "" : sprintf("%.2f TB/s", d / 1e12) }
		else if (u == "FLOP/s") { s = sprintf("%.0f TFLOP/s", x / 1e12); ds = sprintf("%.0f TFLOP/s", d / 1e12) }
		else { s = sprintf("%.2f us", x * 1e6); ds = "" }
		w = v("kind") == "gemm" ? shape() ", algorithm " v("candidate") : v("kind") == "launch" ? "empty kernel" : sprintf("%.0f MiB", v("bytes") / 1048576)
		printf "| %s | %s | %s | %s | %s |\n", v("kind"), v("dtype"), w, s, ds
	}'
	echo
fi

echo "### Roofline model against the measurement, every dimension >= 4096 (target: within 25%)"
echo
csv "$dir/gemm-sweep.h5" | awk "$AWKLIB"'
ok() && v("m") >= 4096 && v("k") >= 4096 && v("n") >= 4096 && v("pct_of_roofline") != "nan" {
	r = v("pct_of_roofline") / 100; n++; src = v("roofline_source")
	if (n == 1 || r < lo) { lo = r; lok = shape() " " v("scaling") " fast_accum=" v("fast_accum") " " v("a_dtype") ":" v("b_dtype") }
	if (n == 1 || r > hi) { hi = r; hik = shape() " " v("scaling") " fast_accum=" v("fast_accum") " " v("a_dtype") ":" v("b_dtype") }
	if (r < 0.75 || r > 1.25) miss++
}
END {
	if (!n) { print "- no row carries a roofline prediction"; exit }
	printf "- %d rows, %s ceilings; predicted/measured from %.2f (%s) to %.2f (%s); %d outside 0.75..1.25\n", n, src, lo, lok, hi, hik, miss
}'
