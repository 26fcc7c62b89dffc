#!/bin/sh
# scripts/ag-targets.sh on the committed 2x H100 files (results/h100x2):
# it runs, reads every column it needs by name (quoted CSV fields, such as
# a transport or a message with commas, do not shift the columns), gives a
# row per configuration of the A/B, compares the standalone all-gather with
# nccl-tests' best variant, and its speedup cells are the file's own
# numbers, read here by another route.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
cd "$tmp" || exit 1
d=$top/results/h100x2/experiments/nccl-buffers
[ -f "$d/allgather-ab.h5" ] && [ -f "$top/results/h100x2/collectives.h5" ] || skip_all "no results/h100x2 A/B files"
F8BENCH="$F8BENCH" sh "$top/scripts/ag-targets.sh" "$d/allgather-ab.h5" "$top/results/h100x2/collectives.h5" \
	"$d/nccl-tests.txt" "$d/report-allgather" >t.md 2>t.err
ok $? "ag-targets.sh runs on results/h100x2"
! grep -q "missing column" t.err
ok $? "every column it reads is in the files"
for v in "plain, default CTAs, out of place" "registered, default CTAs, in place" \
	"symmetric, default CTAs, in place" "symmetric, zero CTAs, in place"; do
	n=$(grep -c "^| 2 | $v | \(2048\|8192\) |" t.md)
	ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "$v: a row at 2048 and 8192 tokens/rank ($n)"
done
got=$(grep "^| 2 | registered, default CTAs, in place | 8192 |" t.md | awk -F'|' '{ print $5 }' | sed 's/x.*//; s/ //g')
want=$(csv_get "$(F8BENCH="$F8BENCH" "$F8BENCH" export "$d/allgather-ab.h5" --table allgather >ab.csv && echo ab.csv)" \
	speedup_vs_bf16 mode=fp8-allgather tokens_per_rank=8192 nccl_buffers=registered | awk '{ printf "%.3f", $1 }')
ok "$([ -n "$got" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" "the speedup cell is the file's (table $got, file $want)"
n=$(grep -c '^| \(256\|1024\) MiB | .* | 0\.[0-9]*' t.md)
ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "against nccl-tests' best variant at 256 MiB and 1 GiB ($n rows)"
n=$(grep -c '^| ranks | 1 | 2 |' t.md)
ok "$([ "$n" -ge 8 ] && echo 0 || echo 1)" "the projection across rank counts is listed ($n rows)"
done_testing
