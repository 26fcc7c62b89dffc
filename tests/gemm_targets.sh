#!/bin/sh
# scripts/gemm-targets.sh and scripts/gemm-table.sh on the committed H100
# files (results/h100): they run, read every column by name with quoted
# CSV fields kept whole (an unsupported row's message holds a comma), and
# compare numbers as numbers (a 4 MiB working set is not >= 256 MiB).
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
cd "$tmp" || exit 1
d=$top/results/h100
[ -f "$d/gemm-sweep.h5" ] && [ -f "$d/ceilings.h5" ] || skip_all "no results/h100 files"
F8BENCH="$F8BENCH" sh "$top/scripts/gemm-targets.sh" "$d" >t.md 2>t.err
ok $? "gemm-targets.sh runs on results/h100 ($(head -c 200 t.err))"
n=$(grep -c '^| [0-9]*x[0-9]*x[0-9]* | e4m3:e[45]m[23] | [0-9]' t.md)
ok "$([ "$n" -ge 4 ] && echo 0 || echo 1)" "the axiswise against tensorwise table has its rows ($n)"
n=$(grep -c '^| read |  | \(1\|4\|16\|64\) MiB' t.md)
ok "$([ "$n" = 0 ] && echo 0 || echo 1)" "read rows under 256 MiB are left out, as numbers ($n)"
n=$(grep -c '^| gemm | e4m3 | 8192x8192x8192, algorithm 0 |' t.md)
ok "$([ "$n" = 1 ] && echo 0 || echo 1)" "each GEMM ceiling names its heuristic candidate ($n)"
F8BENCH="$F8BENCH" sh "$top/scripts/gemm-table.sh" -m "$d/gemm-sweep.h5" m scaling status message >g.md 2>g.err
ok $? "gemm-table.sh -m runs"
line=$(grep -m 1 '| unsupported |' g.md)
ok "$(echo "$line" | grep -q -- '-> bf16, fast_accum' && echo 0 || echo 1)" \
	"a message with a comma is one cell ($(echo "$line" | cut -c1-120))"
n=$(awk -F'|' 'NR > 2 && NF != 6' g.md | wc -l)
ok "$([ "$n" = 0 ] && echo 0 || echo 1)" "every row has its 4 cells ($n rows do not)"
done_testing
