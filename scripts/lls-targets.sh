#!/bin/sh
# lls-targets.sh - the lls issue's targets, computed from results files
# (f8bench export + awk, nothing else), as Markdown on standard output.
#   scripts/lls-targets.sh DIR   (DIR holds lls-sweep.h5 and, for the bf16
#                                 baseline check, gemm-sweep.h5; the repeat
#                                 and flush runs, lls-repeat-*.h5 and
#                                 lls-flush-*.h5, in DIR or, as results/h100
#                                 keeps them, in DIR/experiments/lls-repeat/
#                                 and DIR/experiments/lls-flush/)
# Every figure is read from the files by column name; nothing is typed in.
set -eu
dir=${1:?usage: lls-targets.sh DIR}
f8b=${F8BENCH:-f8bench}
csv() { "$f8b" export "$1" --table "$2"; }
# A CSV reader for awk (quoted fields may hold commas: recipe_long, fuses),
# then columns by name from the header line.
AWKLIB='
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
NR == 1 { for (i = 1; i <= nf; i++) c[F[i]] = i; next }
function v(name) { if (!(name in c)) { print "missing column " name > "/dev/stderr"; exit 2 } return F[c[name]] }
function shape() { return v("m") "x" v("k") "x" v("n") }
function ok() { return v("status") == "ok" }
function square() { return v("m") == v("k") && v("k") == v("n") }
'
TARGET='
# The issue'"'"'s step-speedup target of a recipe at a square size, "-" if none.
function target(recipe, size,    all, t, j) {
	all["tensorwise"] = "0.80 1.00 1.30 1.65 1.88"
	all["axiswise"] = "- - 1.00 1.30 1.60"
	all["lw-axiswise-gw-hp"] = "- - 1.10 1.35 1.50"
	if (!(recipe in all)) return "-"
	split(all[recipe], t, " ")
	for (j = 1; j <= 5; j++) if (size == 512 * 2 ^ j) return t[j]
	return "-"
}
'
AWKLIB=$AWKLIB$TARGET
lls=$dir/lls-sweep.h5
[ -f "$lls" ] || { echo "lls-targets.sh: no $lls (run the lls sweep first: results/README.md)" >&2; exit 2; }
# Scratch files of the joins below, removed however the script ends.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lls-targets.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The step speedup per recipe and size: STAT median (the targets'
# statistic, speedup_vs_bf16, each cell beside its target) or min (bf16's
# fastest sample over the recipe's, same run).
speedup_table() {
	echo "| recipe | 1024 | 2048 | 4096 | 8192 | 16384 |"
	echo "| --- | --- | --- | --- | --- | --- |"
	csv "$lls" lls | awk -v stat="$1" "$AWKLIB"'
ok() && square() && v("graph") == 1 {
	s[v("recipe"), v("m")] = stat == "min" ? v("time_min_s") : v("speedup_vs_bf16")
	seen[v("recipe")] = 1
}
END {
	split("1024 2048 4096 8192 16384", sz, " ")
	if (stat == "min") { # the ratio of the fastest samples
		for (j = 1; j <= 5; j++)
			for (r in seen) {
				if (r == "bf16" || !((r, sz[j]) in s)) continue
				if (("bf16", sz[j]) in s && s[r, sz[j]] + 0 > 0)
					s[r, sz[j]] = s["bf16", sz[j]] / s[r, sz[j]]
				else
					delete s[r, sz[j]]
			}
	}
	nr = split("tensorwise tensorwise-delayed axiswise lw-axiswise-gw-hp blockwise", rs, " ")
	for (i = 1; i <= nr; i++) {
		r = rs[i]
		if (!(r in seen)) continue
		line = "| " r
		for (j = 1; j <= 5; j++) {
			if (!((r, sz[j]) in s)) { line = line " | -"; continue }
			m = s[r, sz[j]] + 0
			t = stat == "min" ? "-" : target(r, sz[j])
			mark = t == "-" ? "" : (m >= t + 0 ? " (target >= " t ": met)" : " (target >= " t ": **missed**)")
			line = line sprintf(" | %.2fx%s", m, mark)
		}
		print line " |"
	}
}'
}

echo "### Step speedup of fp8 over bf16, square M=K=N, graph on (each row: the target, then what was measured)"
echo
speedup_table median

echo
echo "### The same ratios from each step's fastest sample (bf16 min / fp8 min, same run, graph on)"
echo
echo "Not the targets' statistic (they take medians). Where the two tables differ, the"
echo 'clocks (under the power cap: columns `throttled`, `sm_mhz_min`) moved one step more'
echo "than the other between its fastest and its typical sample."
echo
speedup_table min

# Repeats: the same command run several times in one job on one build
# (DIR/lls-repeat-*.h5, any shapes and recipes), each run's median
# speedup; shows how far one run's figure is from the next.
set -- "$dir"/lls-repeat-*.h5
[ -f "$1" ] || set -- "$dir"/experiments/lls-repeat/lls-repeat-*.h5
if [ -f "$1" ]; then
	echo
	echo "### Repeat runs of one build: the step speedup (median of each run) over the runs of lls-repeat-*.h5, graph on"
	echo
	echo "Each file is one run of the same command on one build, run one after another in one job."
	echo "The spread is the power cap's: compare it with a target before calling a cell met or missed."
	echo
	echo "| shape | recipe | runs | min | median | max | target | runs that met it |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for f in "$@"; do
		csv "$f" lls | awk "$AWKLIB"'ok() && v("graph") == 1 && v("recipe") != "bf16" { print shape(), v("m"), v("recipe"), v("speedup_vs_bf16") }'
	done | awk "$TARGET"'
	{ k = $1 SUBSEP $3; if (!(k in n)) { order[++no] = k; sh[k] = $1; sz[k] = $2; rc[k] = $3 }
	  x[k, ++n[k]] = $4 + 0 }
	END { for (i = 1; i <= no; i++) { k = order[i]; m = n[k]
		for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) # sort the runs
			if (x[k, b] < x[k, a]) { t = x[k, a]; x[k, a] = x[k, b]; x[k, b] = t }
		med = m % 2 ? x[k, (m + 1) / 2] : (x[k, m / 2] + x[k, m / 2 + 1]) / 2
		t = target(rc[k], sz[k]); met = 0
		if (t != "-") for (a = 1; a <= m; a++) if (x[k, a] >= t + 0) met++
		printf "| %s | %s | %d | %.2fx | %.2fx | %.2fx | %s | %s |\n", sh[k], rc[k], m, x[k, 1], med, x[k, m],
			t == "-" ? "-" : ">= " t, t == "-" ? "-" : met " of " m } }'
fi

echo
echo "### The same step without a CUDA graph (tensorwise, --graph off), beside graph on"
echo
echo "| shape | graph on: step ms | speedup | graph off: step ms | speedup | launches |"
echo "| --- | --- | --- | --- | --- | --- |"
csv "$lls" lls | awk "$AWKLIB"'
ok() && v("recipe") == "tensorwise" {
	k = shape(); if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	t[k, v("graph")] = v("time_median_s") * 1e3; s[k, v("graph")] = v("speedup_vs_bf16")
	if (v("graph") == 0) l[k] = v("launches")
}
END { for (i = 1; i <= n; i++) { k = order[i]
	if (!((k, 0) in t)) continue
	printf "| %s | %.4g | %.2fx | %.4g | %.2fx | %s |\n", k, t[k, 1], s[k, 1], t[k, 0], s[k, 0], l[k] } }'

echo
echo "### What the GEMMs leave: bf16 step / (fp8 GEMMs as measured + the other kernels at the roofline), graph on"
echo
echo "An estimate of the best fp8 step these GEMMs allow: its three GEMMs (cuBLASLt's, each timed"
echo "alone in the same run) plus its other kernels at the copy bandwidth on the bytes they move."
echo 'It is not a bound: inside the step a kernel may find part of its input in L2, and under the'
echo "power cap the GEMMs may clock higher between memory-bound kernels than back to back, so a"
echo "measured step can beat it (by 3-8% at 16384^3, on one lane; on two lanes kernels also"
echo "overlap). \"free casts\": the same with the other kernels costing nothing, which no cast"
echo "kernel can beat unless the GEMMs run faster in the step than alone. A target above it needs"
echo "faster GEMMs; one between the two needs casts cheaper than the roofline of their bytes."
echo
echo "| shape | recipe | lanes | bf16 step ms | fp8 GEMMs ms | other kernels at roofline ms | estimate | free casts | measured | target | |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
steps=$tmp/steps
csv "$lls" lls | awk "$AWKLIB"'
ok() && square() && v("graph") == 1 && v("recipe") != "bf16" {
	print v("run_id"), v("m"), v("recipe"), v("lanes"), v("bf16_time_median_s"), v("speedup_vs_bf16")
}' >"$steps"
csv "$lls" lls_kernels | awk -v steps="$steps" "$AWKLIB"'
BEGIN {
	while ((getline line < steps) > 0) {
		split(line, a, " "); k = a[1] SUBSEP a[2] SUBSEP a[3]
		want[k] = ++n; key[n] = k; sz[n] = a[2]; rc[n] = a[3]; ln[n] = a[4]; bt[n] = a[5]; sp[n] = a[6]
	}
}
ok() { k = v("run_id") SUBSEP v("m") SUBSEP v("recipe")
	if (k in want) { if (v("kernel") == "gemm") g[k] += v("time_median_s"); else o[k] += v("predicted_time_s") } }
END { for (i = 1; i <= n; i++) { k = key[i]
	if (!(k in g) || g[k] <= 0) continue
	t = target(rc[i], sz[i])
	b = bt[i] / (g[k] + o[k]); f = bt[i] / g[k]
	verdict = t == "-" ? "" : sp[i] + 0 >= t + 0 ? "met" : t + 0 > f ? "missed: **the target is above free casts**" : t + 0 > b ? "missed: the target is between the estimate and free casts" : "missed: the target is below the estimate"
	printf "| %sx%sx%s | %s | %s | %.4g | %.4g | %.4g | %.2fx | %.2fx | %.2fx | %s | %s |\n", sz[i], sz[i], sz[i], rc[i], ln[i],
		bt[i] * 1e3, g[k] * 1e3, o[k] * 1e3, b, f, sp[i], t == "-" ? "-" : ">= " t, verdict } }'

echo
echo "### Predicted step time (roofline) against measured, shapes >= 4096 (target: within 20%)"
echo
echo "| shape | recipe | graph | measured ms | predicted ms | predicted/measured | |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
csv "$lls" lls | awk "$AWKLIB"'
ok() && v("m") + 0 >= 4096 {
	r = v("predicted_time_s") / v("time_median_s")
	printf "| %s | %s | %s | %.4g | %.4g | %.2f | %s |\n", shape(), v("recipe"), v("graph") == 1 ? "on" : "off",
		v("time_median_s") * 1e3, v("predicted_time_s") * 1e3, r, (r >= 0.8 && r <= 1.2) ? "met" : "**missed**"
}'

echo
echo "### Is the bf16 step a strong baseline? Its GEMMs against the gemm benchmark's bf16 at the same shape (target >= 95%)"
echo
gemm=$dir/gemm-sweep.h5
if [ -f "$gemm" ]; then
	# The gemm table's bf16 time per square shape (every fp8 row of a shape
	# carries the bf16 GEMM of its run; take the best, as the benchmark's
	# own figure for that shape).
	csv "$gemm" gemm | awk "$AWKLIB"'
	ok() && square() && v("bf16_time_median_s") + 0 > 0 {
		tf = 2 * v("m") * v("k") * v("n") / v("bf16_time_median_s") / 1e12
		if (tf > best[v("m")]) best[v("m")] = tf
	}
	END { for (m in best) print m, best[m] }' >"$tmp/gemm"
	echo "| shape | GEMM | lls bf16 TFLOP/s | gemm benchmark bf16 TFLOP/s | ratio | |"
	echo "| --- | --- | --- | --- | --- | --- |"
	csv "$lls" lls_kernels | awk -v ref="$tmp/gemm" "$AWKLIB"'
	BEGIN { while ((getline line < ref) > 0) { split(line, a, " "); g[a[1]] = a[2] } }
	ok() && square() && v("recipe") == "bf16" && v("kernel") == "gemm" && (v("m") in g) {
		r = v("tflops") / g[v("m")]
		printf "| %s | %s | %.0f | %.0f | %.0f%% | %s |\n", shape(), v("tensor"), v("tflops"), g[v("m")], 100 * r, (r >= 0.95) ? "met" : "**missed**"
	}'
else
	echo "(no gemm-sweep.h5 in $dir)"
fi

echo
echo "### The bf16 step's other kernels against the measured copy bandwidth (target >= 85%)"
echo
echo "| shape | kernel | GB/s | % of copy bandwidth | |"
echo "| --- | --- | --- | --- | --- |"
csv "$lls" lls_kernels | awk "$AWKLIB"'
ok() && square() && v("recipe") == "bf16" && v("kernel") != "gemm" && v("m") + 0 >= 4096 {
	printf "| %s | %s | %.0f | %.1f%% | %s |\n", shape(), v("kernel"), v("gbps"), v("pct_of_bw"), (v("pct_of_bw") + 0 >= 85) ? "met" : "**missed**"
}'

echo
echo "### Cast kernels at 8192x8192 (bf16 input): % of the measured copy bandwidth on the bytes each moves (target >= 85%)"
echo
echo 'Not listed: `scales` and `history_scale`, which move a few KB (a launch, not a bandwidth).'
echo
echo "| recipe | kernel | tensor | what it fuses | MB moved | time us | GB/s | % of copy bw | |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
csv "$lls" lls_kernels | awk "$AWKLIB"'
ok() && shape() == "8192x8192x8192" && v("recipe") != "bf16" && v("kernel") != "gemm" && v("kernel") != "scales" && v("kernel") != "history_scale" {
	printf "| %s | %s | %s | %s | %.1f | %.1f | %.0f | %.1f%% | %s |\n", v("recipe"), v("kernel"), v("tensor"), v("fuses"),
		v("bytes") / 1e6, v("time_median_s") * 1e6, v("gbps"), v("pct_of_bw"), (v("pct_of_bw") + 0 >= 85) ? "met" : "**missed**"
}'

# The kernels that write (almost) nothing, after each flush: DIR/lls-flush-write.h5
# and lls-flush-read.h5 are one build's runs of the same command, one after
# the other in one job, with --flush-by write (the default) and read.
fw=$dir/lls-flush-write.h5 fr=$dir/lls-flush-read.h5
if [ ! -f "$fw" ] && [ ! -f "$fr" ]; then
	fw=$dir/experiments/lls-flush/lls-flush-write.h5 fr=$dir/experiments/lls-flush/lls-flush-read.h5
fi
if [ -f "$fw" ] && [ -f "$fr" ]; then
	echo
	echo "### Kernels that only read, at 8192x8192: after a write flush and after a read flush (target >= 85%)"
	echo
	echo "The default L2 flush (a write) leaves the L2 full of dirty lines, and a timed kernel's misses write"
	echo "them back. A kernel that writes as much as an L2 leaves as many of its own behind, so the two"
	echo "roughly cancel; amax and amax_t write a few KB, so after a write flush they pay for up to an L2"
	echo "of write-back that is not theirs, on top of the bytes they read. After a read flush (clean lines)"
	echo "they pay for their own bytes alone. Both runs: \`lls-flush-write.h5\`, \`lls-flush-read.h5\`, one"
	echo "build, one job; the verdict is on the read flush. A kernel that only reads may pass the copy"
	echo "bandwidth: DRAM reads faster than it copies (the read and copy kinds of ceilings.h5)."
	echo
	echo "| recipe | kernel | tensor | MB moved | write flush: us | % of copy bw | read flush: us | % of copy bw | |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	{
		csv "$fw" lls_kernels | awk "$AWKLIB"'ok() && shape() == "8192x8192x8192" && (v("kernel") == "amax" || v("kernel") == "amax_t") {
			printf "w\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v("recipe"), v("index"), v("kernel"), v("tensor"), v("bytes"), v("time_median_s"), v("pct_of_bw") }'
		csv "$fr" lls_kernels | awk "$AWKLIB"'ok() && shape() == "8192x8192x8192" && (v("kernel") == "amax" || v("kernel") == "amax_t") {
			printf "r\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v("recipe"), v("index"), v("kernel"), v("tensor"), v("bytes"), v("time_median_s"), v("pct_of_bw") }'
	} | awk -F'\t' '
	{ k = $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	  row[k] = $2 " | " $4 " | " $5; mb[k] = $6 / 1e6; t[k, $1] = $7 * 1e6; p[k, $1] = $8 }
	END { for (i = 1; i <= n; i++) { k = order[i]
		if (!((k, "w") in t) || !((k, "r") in t)) continue
		printf "| %s | %.1f | %.1f | %.1f%% | %.1f | %.1f%% | %s |\n", row[k], mb[k], t[k, "w"], p[k, "w"], t[k, "r"], p[k, "r"],
			(p[k, "r"] + 0 >= 85) ? "met" : "**missed**" } }'
fi

echo
echo "### Single-pass casts at 8192x8192: effective TB/s on the minimal bytes (read bf16, write fp8, fp8^T where the kernel makes it, and bf16 where a later GEMM reads it; target >= 2.4 TB/s)"
echo
echo "| recipe | kernel | tensor | what it fuses | minimal bytes per element | time us | minimal MB | effective TB/s | |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
csv "$lls" lls_kernels | awk "$AWKLIB"'
# The issue names them: the axiswise cast (W), the delayed tensorwise cast
# (W, scale known before the data is read) and the LayerNorm fused with an
# axiswise cast (x_ln).  Minimal bytes: 2 read + 1 written per element, +1
# for a transposed copy, +2 where the kernel also writes the bf16 values
# (its bytes hold 2 more per element): lw-axiswise-gw-hp keeps grad_weight
# in bf16, so its GEMM reads x_ln in bf16 and that copy is part of the
# minimum.
ok() && shape() == "8192x8192x8192" &&
((v("kernel") == "cast_fused" && v("fuses") ~ /cast axiswise$/) ||
 (v("kernel") == "layernorm_fwd_cast" && v("fuses") ~ /cast axiswise$/) ||
 (v("recipe") == "tensorwise-delayed" && v("kernel") == "cast_fused")) {
	el = v("m") * v("k")
	per = v("fuses") ~ /\+T/ ? 4 : 3
	if (v("kernel") == "layernorm_fwd_cast" && v("bytes") >= el * (per + 2))
		per += 2
	mb = el * per
	tb = mb / v("time_median_s") / 1e12
	printf "| %s | %s | %s | %s | %d | %.1f | %.1f | %.2f | %s |\n", v("recipe"), v("kernel"), v("tensor"), v("fuses"), per,
		v("time_median_s") * 1e6, mb / 1e6, tb, (tb >= 2.4) ? "met" : "**missed**"
}'

echo
echo "### Every recipe: step time, speedup, SQNR and memory (graph on)"
echo
echo "| shape | recipe | step ms | bf16 ms | speedup | predicted ms | % of roofline | SQNR y / dx / dW dB | peak MiB | saved MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
csv "$lls" lls | awk "$AWKLIB"'
ok() && v("graph") == 1 {
	printf "| %s | %s | %.4g | %.4g | %.2fx | %.4g | %.0f%% | %.1f / %.1f / %.1f | %.0f | %.0f |\n", shape(), v("recipe"),
		v("time_median_s") * 1e3, v("bf16_time_median_s") * 1e3, v("speedup_vs_bf16"), v("predicted_time_s") * 1e3,
		v("pct_of_roofline"), v("sqnr_y_db"), v("sqnr_grad_x_db"), v("sqnr_grad_w_db"),
		v("peak_mem_bytes") / 1048576, v("saved_bytes") / 1048576
}'
