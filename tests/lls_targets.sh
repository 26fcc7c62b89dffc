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
done_testing
