#!/bin/sh
# cli_report_allgather.sh - f8bench report on allgather files: the data
# files, the report.md sections, the projection to 8..1024 GPUs and its
# check against every measured rank count, the network options, and (with
# gnuplot) the three plots; with a ceilings file, NCCL's (here MPI's)
# all-gather line and the node's link taken from it.
. "${srcdir:-.}/tests/tap.sh"
[ -n "$MPIEXEC" ] || skip_all "no mpiexec found by configure"
cd "$tmp" || exit 1
Q="--backend host --min-time 0 --min-samples 3 --max-samples 5 --max-time 1 --warmup 1 -q"
extra=$(ompi_flags --oversubscribe)
$MPIEXEC $extra -n 2 "$F8BENCH" allgather $Q --weights 64 --layers 2 --tokens 32,64 -o a.h5 >a.txt 2>&1
ok $? "a 2-rank allgather file"
"$F8BENCH" allgather $Q --weights 64 --layers 2 --tokens 32,64 -o a1.h5 >a1.txt 2>&1
ok $? "a 1-rank allgather file"
"$F8BENCH" report a.h5 a1.h5 -o r >r.txt 2>&1
rc=$?
has_gp=0
command -v gnuplot >/dev/null 2>&1 && has_gp=1
ok "$([ $rc = 0 ] || { [ $has_gp = 0 ] && [ $rc = 1 ]; } && echo 0 || echo 1)" "report exits $rc"
for f in ag-vars.gp ag-speedup.dat ag-busbw.dat ag-projection.dat ag-projection.csv ag-validation.csv report.md; do
	[ -s "r/$f" ]
	ok $? "r/$f written"
done
# 16 rows (2 files x 2 tokens x 4 modes); validation: one replay line per
# ok row, and one line per 2-rank row predicted from 1 rank
n=$(csv_get r/ag-validation.csv check check=replay | wc -l)
ok "$([ "$n" = 16 ] && echo 0 || echo 1)" "the projection is checked against all 16 measured rows ($n)"
n=$(awk -F, 'NR > 1 { print $9 }' r/ag-projection.csv | sort -un | tr '\n' ' ')
ok "$([ "$n" = "8 16 32 64 128 256 512 1024 " ] && echo 0 || echo 1)" "projected to 8..1024 GPUs ($n)"
n=$(($(wc -l <r/ag-projection.csv) - 1))
ok "$([ "$n" = 128 ] && echo 0 || echo 1)" "16 rows x 8 rank counts in ag-projection.csv ($n)"
n=$(awk -F, 'NR > 1 && $1 != "bf16" && $12 == "" { bad++ } END { print bad + 0 }' r/ag-projection.csv)
ok "$([ "$n" = 0 ] && echo 0 || echo 1)" "every fp8 projection has a speedup over bf16's ($n without)"
grep -q "^## allgather: the emulated FSDP step" r/report.md
ok $? "report.md: the measured section"
grep -q "^## allgather: the step past one node (projection)" r/report.md
ok $? "report.md: the projection section"
n=$(grep -c "^### 2 x \[64 x 64\], [12] rank" r/report.md)
ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "report.md: a table per rank count ($n)"
# Across rank counts: each 2-rank row predicted from its 1-rank twin.
n=$(csv_get r/ag-validation.csv check ranks=2 | grep -cx ranks)
ok "$([ "$n" = 8 ] && echo 0 || echo 1)" "ag-validation.csv: 8 rows of 2 ranks predicted from 1 rank ($n)"
n=$(csv_get r/ag-validation.csv from_ranks check=ranks | sort -u | tr '\n' ' ')
ok "$([ "$n" = "1 " ] && echo 0 || echo 1)" "... each from 1 rank ($n)"
grep -q "^### Across rank counts" r/report.md
ok $? "report.md: the check across rank counts"
# The ring's bound is an upper one: the log-latency step is never longer.
n=$(csv_get r/ag-projection.csv predicted_step_lower_s ranks=1024 | wc -l)
bad=$(awk -F, 'NR > 1 && ($18 + 0 > $10 + 0 || $18 + 0 <= 0) { b++ } END { print b + 0 }' r/ag-projection.csv)
ok "$([ "$n" -gt 0 ] && [ "$bad" = 0 ] && echo 0 || echo 1)" "projection: a lower bound beside the ring's, never above it ($bad of $n)"
grep -q "between nodes, per GPU: 50.0 GB/s, alpha 5.0 us" r/report.md
ok $? "the default network is said (50 GB/s, 5 us)"
grep -q "within a node (up to 8 GPUs): .*these rows' standalone all-gathers" r/report.md
ok $? "without a ceilings file the node's link comes from the rows of 2 ranks"
"$F8BENCH" report a.h5 -o r2 --net-bw 25 --net-lat 8 --gpus-per-node 4 >r2.txt 2>&1
grep -q "between nodes, per GPU: 25.0 GB/s, alpha 8.0 us" r2/report.md && grep -q "up to 4 GPUs" r2/report.md
ok $? "--net-bw, --net-lat and --gpus-per-node reach the projection"
a=$(awk -F, '$1 == "fp8-allgather" && $7 == 64 && $9 == 1024 { print $10 }' r/ag-projection.csv | head -1)
b=$(awk -F, '$1 == "fp8-allgather" && $7 == 64 && $9 == 1024 { print $10 }' r2/ag-projection.csv | head -1)
ok "$(awk -v a="$a" -v b="$b" 'BEGIN { print (a > 0 && b > a) ? 0 : 1 }')" \
	"a slower network predicts a slower step at 1024 GPUs ($a s -> $b s)"
for bad in "--net-bw 0" "--net-bw x" "--net-lat -1" "--gpus-per-node 2.5"; do
	# shellcheck disable=SC2086 # an option and its value
	"$F8BENCH" report a.h5 -o r3 $bad >bad.txt 2>&1
	ok "$([ $? = 2 ] && grep -q -- "${bad%% *}" bad.txt && echo 0 || echo 1)" "refused with exit 2: $bad"
done
# A ceilings file with the (MPI) all-gather of the same 2 ranks.
$MPIEXEC $extra -n 2 "$F8BENCH" ceilings $Q --kinds allgather --coll-sizes 4K:64K -o c.h5 >c.txt 2>&1
ok $? "a 2-rank ceilings file of all-gathers"
"$F8BENCH" report a.h5 -o rc --ceilings c.h5 >rc.txt 2>&1
grep -q "within a node (up to 8 GPUs): .*c.h5: NCCL all-gather on 2 ranks" rc/report.md
ok $? "with --ceilings the node's link is the ceilings file's all-gather"
n=$(awk '/^$/ { b++ } END { print b + 0 }' rc/ag-busbw.dat)
ok "$([ "$n" -ge 2 ] && echo 0 || echo 1)" "ag-busbw.dat has the ceilings' line after the rows' ($n blank lines)"
# A ceilings file of several variants: the line drawn is the rows' own
# (symmetric, zero CTAs, in place, the default), once per size, by size.
$MPIEXEC $extra -n 2 "$F8BENCH" ceilings $Q --kinds allgather --coll-sizes 4K:64K \
	--nccl-buffers plain,symmetric --nccl-cta-policy default,zero --in-place on,off -o c2.h5 >c2.txt 2>&1
ok $? "a 2-rank ceilings file of all-gathers in six variants"
"$F8BENCH" report a.h5 -o rv --ceilings c2.h5 >rv.txt 2>&1
grep -q '^nccl_title = "NCCL all-gather alone, symmetric, zero CTAs, in place' rv/ag-vars.gp
ok $? "the ceilings line is the rows' variant: $(grep nccl_title rv/ag-vars.gp)"
sizes=$(awk '/^$/ { b++; next } /^#/ { next } b >= 2 * 4 { print $1 }' rv/ag-busbw.dat | tr '\n' ' ')
ok "$(echo "$sizes" | awk '{ for (i = 2; i <= NF; i++) if ($i <= $(i - 1)) bad = 1; print (NF >= 3 && !bad) ? 0 : 1 }')" \
	"the ceilings line holds each size once, in order ($sizes)"
if [ $has_gp = 1 ]; then
	for p in ag_speedup ag_busbw ag_projection; do
		[ -s "rc/$p.png" ] && [ -s "rc/$p.svg" ]
		ok $? "gnuplot drew $p (PNG and SVG)"
	done
else
	skip "no gnuplot: the plots are not drawn"
fi
done_testing
