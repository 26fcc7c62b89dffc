#!/bin/sh
# scripts/lls-targets.sh on the committed H100 sweep (results/h100): it
# runs, reads every column it needs (a renamed column ends it with "missing
# column"), prints each of its tables with a row per recipe, and the
# fastest-sample table's tensorwise 4096 cell is bf16's min over
# tensorwise's min, read here from the file by another route.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
cd "$tmp" || exit 1
[ -f "$top/results/h100/lls-sweep.h5" ] || skip_all "no results/h100/lls-sweep.h5"
[ -f "$top/results/h100/gemm-sweep.h5" ] || skip_all "no results/h100/gemm-sweep.h5"

F8BENCH="$F8BENCH" sh "$top/scripts/lls-targets.sh" "$top/results/h100" >t.md 2>t.err
ok $? "lls-targets.sh runs on results/h100"
! grep -q "missing column" t.err
ok $? "every column it reads is in the files"
n=$(grep -c '^### ' t.md)
[ "$n" -ge 8 ]
ok $? "it prints its tables ($n headings)"
for r in tensorwise axiswise lw-axiswise-gw-hp blockwise; do
	c=$(grep -c "^| $r |" t.md)
	[ "$c" -ge 2 ]
	ok $? "$r has a row in both speedup tables ($c rows)"
done
got=$(sed -n '/fastest sample/,/^### The same step without/p' t.md | awk -F'|' '$2 ~ /^ tensorwise $/ { print $5 }' | tr -d ' x')
want=$("$F8BENCH" export "$top/results/h100/lls-sweep.h5" --table lls --csv 2>/dev/null |
	awk -F, '{ gsub(/"[^"]*"/, "q") } # quoted fields (recipe_long) hold commas
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["m"] == 4096 && $c["k"] == 4096 && $c["graph"] == 1 && $c["status"] == "ok" { t[$c["recipe"]] = $c["time_min_s"] }
	END { printf "%.2f", t["bf16"] / t["tensorwise"] }')
[ -n "$got" ] && [ "$got" = "$want" ]
ok $? "fastest-sample ratio at 4096 for tensorwise: $got (bf16 min / tensorwise min: $want)"
# The GEMM estimate's "free casts" cell for tensorwise at 16384^3: the bf16
# step over the sum of the three fp8 GEMMs of the same run, by another route.
got=$(sed -n '/What the GEMMs leave/,/^### Predicted/p' t.md | awk -F'|' '$2 ~ /^ 16384x16384x16384 $/ && $3 ~ /^ tensorwise $/ { print $9 }' | tr -d ' x')
want=$("$F8BENCH" export "$top/results/h100/lls-sweep.h5" --table lls --csv 2>/dev/null |
	awk -F, '{ gsub(/"[^"]*"/, "q") }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["m"] == 16384 && $c["recipe"] == "tensorwise" && $c["graph"] == 1 { print $c["run_id"], $c["bf16_time_median_s"] }')
want=$("$F8BENCH" export "$top/results/h100/lls-sweep.h5" --table lls_kernels --csv 2>/dev/null |
	awk -F, -v run="${want% *}" -v b="${want#* }" '{ gsub(/"[^"]*"/, "q") }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["m"] == 16384 && $c["recipe"] == "tensorwise" && $c["kernel"] == "gemm" && $c["run_id"] == run { g += $c["time_median_s"]; n++ }
	END { if (n == 3) printf "%.2f", b / g }')
[ -n "$got" ] && [ "$got" = "$want" ]
ok $? "free-casts estimate at 16384 for tensorwise: $got (bf16 step / three fp8 GEMMs: $want)"
# The repeat table (results/h100/experiments/lls-repeat/lls-repeat-*.h5): its tensorwise 8192^3
# row counts every file and its max is the largest of their medians' speedups.
set -- "$top"/results/h100/experiments/lls-repeat/lls-repeat-*.h5
if [ -f "$1" ]; then
	row=$(sed -n '/^### Repeat runs/,/^### The same step without/p' t.md | awk -F'|' '$2 ~ /^ 8192x8192x8192 $/ && $3 ~ /^ tensorwise $/')
	got="$(echo "$row" | awk -F'|' '{ gsub(/[ x]/, "", $4); gsub(/[ x]/, "", $7); print $4, $7 }')"
	want=$(for f in "$@"; do "$F8BENCH" export "$f" --table lls --csv 2>/dev/null |
		awk -F, '{ gsub(/"[^"]*"/, "q") }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["m"] == 8192 && $c["recipe"] == "tensorwise" && $c["graph"] == 1 && $c["status"] == "ok" { print $c["speedup_vs_bf16"] }'
	done | awk '{ n++; if (n == 1 || $1 > m) m = $1 } END { if (n) printf "%d %.2f", n, m }')
	[ -n "$got" ] && [ "$got" = "$want" ]
	ok $? "repeat runs, tensorwise at 8192: runs and max '$got' (from the files: '$want')"
else
	skip "no results/h100/experiments/lls-repeat/lls-repeat-*.h5"
fi
# The single-pass table: lw-axiswise-gw-hp's LayerNorm cast writes the bf16
# x_ln its bf16 grad_weight reads, so it counts 5 bytes an element (2 read,
# 1 fp8, 2 bf16) and axiswise's 3; each effective TB/s is those bytes over
# the kernel's time in the file.
sp=$(sed -n '/^### Single-pass/,/^### Every recipe/p' t.md)
for r in "lw-axiswise-gw-hp 5" "axiswise 3"; do
	got=$(echo "$sp" | awk -F'|' -v r="${r% *}" '$2 == " " r " " && $3 ~ /layernorm_fwd_cast/ { gsub(/ /, "", $6); gsub(/ /, "", $9); print $6, $9 }')
	want=$("$F8BENCH" export "$top/results/h100/lls-sweep.h5" --table lls_kernels --csv 2>/dev/null |
		awk -F, -v r="${r% *}" -v per="${r#* }" '{ gsub(/"[^"]*"/, "q") }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["m"] == 8192 && $c["k"] == 8192 && $c["recipe"] == r && $c["kernel"] == "layernorm_fwd_cast" && $c["status"] == "ok" {
			printf "%d %.2f\n", per, per * $c["m"] * $c["k"] / $c["time_median_s"] / 1e12; exit }')
	[ -n "$got" ] && [ "$got" = "$want" ]
	ok $? "single-pass ${r% *} layernorm_fwd_cast: bytes per element and TB/s '$got' (from the file: '$want')"
done
# The read-only kernels' table (lls-flush-write.h5 beside lls-flush-read.h5):
# blockwise amax_t of W, its read-flush % of the copy bandwidth, from the file.
if [ -f "$top/results/h100/experiments/lls-flush/lls-flush-read.h5" ] && [ -f "$top/results/h100/experiments/lls-flush/lls-flush-write.h5" ]; then
	got=$(sed -n '/^### Kernels that only read/,/^### Single-pass/p' t.md | awk -F'|' '$2 == " blockwise " && $3 == " amax_t " && $4 == " W " { gsub(/[ %]/, "", $9); print $9 }')
	want=$("$F8BENCH" export "$top/results/h100/experiments/lls-flush/lls-flush-read.h5" --table lls_kernels --csv 2>/dev/null |
		awk -F, '{ gsub(/"[^"]*"/, "q") }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["m"] == 8192 && $c["recipe"] == "blockwise" && $c["kernel"] == "amax_t" && $c["tensor"] == "W" { printf "%.1f", $c["pct_of_bw"] }')
	[ -n "$got" ] && [ "$got" = "$want" ]
	ok $? "read-only kernels after a read flush: blockwise amax_t W at '$got'% (from the file: '$want'%)"
else
	skip "no results/h100/experiments/lls-flush/lls-flush-{read,write}.h5"
fi
done_testing
