#!/bin/sh
# f8bench report end to end: a host-backend gemm sweep turned into data
# files, report.md and (where gnuplot is installed) PNG and SVG plots; the
# missing-gnuplot path; argument errors; the H100 reference results.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
cd "$tmp" || exit 1
unset GNUPLOT

if ! "$F8BENCH" report --help >rhelp.txt 2>&1; then
	skip_all "this f8bench has no report command"
fi
ok 0 "report --help exits 0"
for w in -o --ceilings "Exit status" gnuplot; do
	grep -q -- "$w" rhelp.txt
	ok $? "report --help mentions $w"
done

Q="--backend host --min-time 0 --min-samples 3 --max-samples 5 --warmup 1"
"$F8BENCH" gemm $Q --shapes 256x256x256,512x1024x256 --scaling tensorwise,axiswise,blockwise \
	--fast-accum on,off -o r.h5 >/dev/null 2>gemm.err
ok $? "host gemm sweep for the report (2 shapes x 7 recipes)"

DATA="report.md plot-vars.gp roofline.csv roofs.csv speedup.csv sqnr.csv best.csv
roofline-points.dat roofline-roofs.dat speedup.dat sqnr.dat sqnr-summary.dat"
PLOTS="roofline speedup sqnr"

# The data and the Markdown, checked on whichever run wrote them.
check_data() {
	d=$1
	for f in $DATA; do
		[ -s "$d/$f" ]
		ok $? "$d: wrote $f"
	done
	n=$(($(wc -l <"$d/roofline.csv") - 1))
	ok "$([ "$n" = 14 ] && echo 0 || echo 1)" "$d: roofline.csv has one line per ok row (14, got $n)"
	n=$(($(wc -l <"$d/speedup.csv") - 1))
	ok "$([ "$n" = 12 ] && echo 0 || echo 1)" "$d: speedup.csv: 2 shapes x 6 fp8 series (got $n)"
	n=$(($(wc -l <"$d/sqnr.csv") - 1))
	ok "$([ "$n" = 7 ] && echo 0 || echo 1)" "$d: sqnr.csv: bf16 + 6 fp8 series (got $n)"
	n=$(($(wc -l <"$d/best.csv") - 1))
	ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "$d: best.csv: one line per shape (got $n)"
	n=$(grep -c "^# series" "$d/roofline-points.dat")
	ok "$([ "$n" = 7 ] && echo 0 || echo 1)" "$d: roofline-points.dat has 7 series blocks (got $n)"
	grep -q "^ns = 7$" "$d/plot-vars.gp"
	ok $? "$d: plot-vars.gp names 7 series"
	# 256^3 bf16: 2*256^3 flop / (3 * 256*256 * 2 bytes) = 85.3 flop/byte
	ai=$(awk -F, '$3 == 256 && $4 == 256 && $5 == 256 && $10 == "bf16" {print $13}' "$d/roofline.csv")
	awk -v a="$ai" 'BEGIN {exit !(a > 80 && a < 90)}'
	ok $? "$d: arithmetic intensity of bf16 256^3 is about 85 flop/byte (got $ai)"
	awk -F, 'NR > 1 && !($14 > 0) {bad = 1} END {exit bad}' "$d/roofline.csv"
	ok $? "$d: every roofline point has TFLOP/s > 0"
	awk -F, 'NR > 1 && !($8 > 0) {bad = 1} END {exit bad}' "$d/speedup.csv"
	ok $? "$d: every speedup is > 0"
	for h in "## Roofline" "## fp8 speedup over bf16" "## SQNR by granularity and fast_accum" \
		"## Best fp8 result per shape" "## Provenance"; do
		grep -q "^$h" "$d/report.md"
		ok $? "$d: report.md has section '$h'"
	done
	grep -q "^| key | value |$" "$d/report.md" && grep -q "^| --- | --- |$" "$d/report.md"
	ok $? "$d: report.md has the provenance table"
	grep -q "^| command_line | f8bench gemm " "$d/report.md"
	ok $? "$d: provenance names the command line"
	grep -q "^| shape | labels | best | TFLOP/s |" "$d/report.md"
	ok $? "$d: report.md has the best-per-shape table"
	n=$(grep -c "^| 256x256x256 | " "$d/report.md")
	ok "$([ "$n" -ge 9 ] && echo 0 || echo 1)" "$d: report.md tables list shape 256x256x256 ($n lines)"
	grep -q "no row of roofline/datasheet.tsv matches" "$d/report.md"
	ok $? "$d: a CPU has no datasheet roofs, and report.md says so"
}

# Without gnuplot: data and Markdown, exit 1, the documented message.
GNUPLOT=/nonexistent "$F8BENCH" report r.h5 -o nogp >nogp.out 2>nogp.err
rc=$?
ok "$([ $rc = 1 ] && echo 0 || echo 1)" "GNUPLOT=/nonexistent: exit status 1 (got $rc)"
grep -qF "gnuplot not found (install gnuplot-nox or set GNUPLOT); wrote data and report.md to nogp" nogp.err
ok $? "GNUPLOT=/nonexistent: says gnuplot was not found and where the data went"
[ -z "$(ls nogp/*.png nogp/*.svg 2>/dev/null)" ]
ok $? "GNUPLOT=/nonexistent: no plot files"
grep -q "gnuplot not found" nogp/report.md
ok $? "GNUPLOT=/nonexistent: report.md notes that the plots were not drawn"
check_data nogp

# With gnuplot: every plot as PNG and SVG.
if GNUPLOT= command -v gnuplot >/dev/null 2>&1; then
	"$F8BENCH" report r.h5 -o rep >rep.out 2>rep.err
	rc=$?
	ok $rc "report with gnuplot exits 0"
	[ $rc = 0 ] || diag "$(cat rep.err)" "$(cat rep/gnuplot.log 2>/dev/null)"
	check_data rep
	for p in $PLOTS; do
		sig=$(head -c 8 "rep/$p.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
		ok "$([ "$sig" = 89504e470d0a1a0a ] && echo 0 || echo 1)" "$p.png starts with the PNG signature"
		sz=$(wc -c <"rep/$p.png" 2>/dev/null || echo 0)
		ok "$([ "$sz" -gt 1024 ] && echo 0 || echo 1)" "$p.png is over 1 KB ($sz bytes)"
		if command -v python3 >/dev/null 2>&1; then
			python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "rep/$p.svg"
			ok $? "$p.svg is well-formed XML"
		else
			grep -q "<svg" "rep/$p.svg" && grep -q "</svg>" "rep/$p.svg"
			ok $? "$p.svg opens and closes <svg>"
		fi
	done
	grep -q "^!\[GEMM roofline\](roofline.png)" rep/report.md
	ok $? "report.md shows roofline.png"
	! grep -q "not drawn" rep/report.md
	ok $? "report.md has no 'not drawn' note when gnuplot ran"
	grep -q "^f8bench report: wrote rep/report.md" rep.out
	ok $? "report says what it wrote"

	# Two files: the same shapes twice, so each speedup is the median of 2 rows.
	"$F8BENCH" report r.h5 r.h5 -o two >/dev/null 2>two.err
	ok $? "report of two files exits 0"
	awk -F, 'NR > 1 && $11 != 2 {bad = 1} END {exit bad}' two/speedup.csv
	ok $? "two files: every speedup is over 2 rows"
	n=$(grep -c "^### " two/report.md)
	ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "two files: two provenance sections (got $n)"
else
	skip "PNG and SVG plots: no gnuplot here"
fi

# blockwise-1x128 rows (A and B 1x128) are a granularity of their own,
# after blockwise (A 1x128, B 128x128) in every table and plot, never
# folded into it, whatever order --scaling gave.
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling blockwise-1x128,blockwise --fast-accum off \
	-o b1.h5 >/dev/null 2>b1.err
ok $? "host gemm sweep with blockwise-1x128 for the report"
GNUPLOT=/nonexistent "$F8BENCH" report b1.h5 -o b1rep >/dev/null 2>&1
got=$(tail -n +2 b1rep/sqnr.csv | cut -d, -f1,4 | tr '\n' ' ')
ok "$([ "$got" = "bf16,1 blockwise,1 blockwise-1x128,1 " ] && echo 0 || echo 1)" \
	"sqnr.csv: bf16, blockwise, blockwise-1x128, one row each (got: $got)"
grep -q 's_gran\[3\] = "blockwise-1x128"' b1rep/plot-vars.gp &&
	grep -q '^slot_name\[3\] = "blockwise-1x128\\nfast_accum off"' b1rep/plot-vars.gp
ok $? "plot-vars.gp: blockwise-1x128 is series and SQNR slot 3"
grep -q '"blockwise-1x128" ? "#8c510a"' "$top/roofline/roofline.gp" &&
	grep -q '"blockwise-1x128" ? "#8c510a"' "$top/roofline/speedup.gp" &&
	grep -q '"blockwise-1x128" ? "#8c510a"' "$top/roofline/sqnr.gp"
ok $? "the plot templates colour blockwise-1x128 (brown), not as anything else (purple)"

# Measured roofs from a ceilings table: --ceilings FILE, or a FILE given.
if "$F8BENCH" ceilings --help >/dev/null 2>&1; then
	"$F8BENCH" ceilings $Q --kinds copy,gemm,launch --sizes 1M:4M --launch-bytes 4M \
		--gemm-shapes 256x256x256 --gemm-algos 1 --launches 10 -o c.h5 >/dev/null 2>c.err
	ok $? "host ceilings run for measured roofs"
	GNUPLOT=/nonexistent "$F8BENCH" report r.h5 --ceilings c.h5 -o meas >/dev/null 2>&1
	rc=$?
	ok "$([ $rc = 1 ] && echo 0 || echo 1)" "--ceilings: data written (exit 1 without gnuplot, got $rc)"
	grep -q "^measured,bf16," meas/roofs.csv && grep -q "^measured,fp8," meas/roofs.csv
	ok $? "--ceilings: measured bf16 and fp8 roofs in roofs.csv"
	grep -q "^| fp8 | measured | " meas/report.md
	ok $? "--ceilings: report.md lists the measured fp8 roof"
	awk -F, 'NR > 1 && $17 == "measured" && $16 > 0 {n++} END {exit !n}' meas/roofline.csv
	ok $? "--ceilings: points get a % of roofline from the measured ceilings"
	if GNUPLOT= command -v gnuplot >/dev/null 2>&1; then
		"$F8BENCH" report r.h5 c.h5 -o meas2 >/dev/null 2>meas2.err
		ok $? "ceilings file among the inputs: plots drawn with the measured roofs"
		[ "$(grep -o 'r_source\[[0-9]*\] = "measured"' meas2/plot-vars.gp | wc -l)" -eq 2 ]
		ok $? "ceilings file among the inputs: two measured roofs handed to gnuplot"
		sz=$(wc -c <meas2/roofline.png 2>/dev/null || echo 0)
		ok "$([ "$sz" -gt 1024 ] && echo 0 || echo 1)" "roofline.png with roofs is over 1 KB ($sz bytes)"
	fi
	# The ceilings table has its own report module, through the same core.
	GNUPLOT=/nonexistent "$F8BENCH" report c.h5 -o crep >/dev/null 2>&1
	ok "$([ $? = 1 ] && echo 0 || echo 1)" "report of a ceilings file: data written (exit 1 without gnuplot)"
	n=$(grep -c "^copy," crep/ceilings.csv)
	ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "ceilings.csv: the two copy working sets (got $n)"
	grep -q "^## Ceilings" crep/report.md && grep -q "^| gemm e4m3 256x256x256 | " crep/report.md
	ok $? "report.md: the ceilings section with the GEMM peaks"
	grep -q "^c_l2_bytes = " crep/ceilings-vars.gp
	ok $? "ceilings-vars.gp hands the L2 size to the template"
	if GNUPLOT= command -v gnuplot >/dev/null 2>&1; then
		"$F8BENCH" report c.h5 r.h5 -o both >/dev/null 2>&1
		ok $? "gemm and ceilings files in one report: exit 0"
		[ -s both/bandwidth.png ] && [ -s both/roofline.png ]
		ok $? "one report holds both benchmarks' plots"
	fi
	# A run placed on measured ceilings, reported without them: every figure
	# of a row comes from the report's one roof, never the row's own.
	"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling tensorwise --fast-accum on \
		--ceilings c.h5 -o onmeas.h5 >/dev/null 2>&1
	"$F8BENCH" export onmeas.h5 --table gemm | grep -q ",measured,"
	ok $? "a gemm run with --ceilings records measured roofline figures"
	GNUPLOT=/nonexistent "$F8BENCH" report onmeas.h5 -o mix >/dev/null 2>&1
	awk -F, 'NR > 1 && $17 == "measured" {bad++} END {exit bad > 0}' mix/roofline.csv
	ok $? "reported without ceilings: no row claims the measured roof"
	grep -q 'r_title\[[0-9]*\] = "fp8 roof, measured at 256x256x256' meas/plot-vars.gp
	ok $? "the measured fp8 roof says which GEMM it was measured on"
	grep -q "GEMM peaks measured at bf16 256x256x256, fp8 256x256x256" meas/report.md
	ok $? "report.md says where the measured GEMM peaks come from"
else
	skip "measured roofs: this f8bench has no ceilings command"
fi

# The H100 reference results (written before the roofline columns existed).
h100="$top/results/h100/gemm-sweep.h5"
if [ -f "$h100" ]; then
	GNUPLOT=/nonexistent "$F8BENCH" report "$h100" -o h100 >/dev/null 2>h100.err
	rc=$?
	ok "$([ $rc = 1 ] && echo 0 || echo 1)" "H100 sweep: data written, exit 1 without gnuplot (got $rc)"
	n=$(($(wc -l <h100/roofline.csv) - 1))
	ok "$([ "$n" = 231 ] && echo 0 || echo 1)" "H100 sweep: 231 ok rows on the roofline (got $n)"
	grep -q "^datasheet,fp8,1978.9,3.35," h100/roofs.csv
	ok $? "H100 sweep: the H100 SXM datasheet fp8 roof (1978.9 TFLOP/s, 3.35 TB/s)"
	grep -q "^| unsupported | blockwise | 1 | e4m3 x e4m3 | 21 |" h100/report.md
	ok $? "H100 sweep: report.md lists the unsupported blockwise fast_accum rows once"
else
	skip "H100 reference results: $h100 not here"
fi

# Argument errors: exit 2 with a message naming the problem.
"$F8BENCH" report -o x >/dev/null 2>e1.txt
rc=$?
ok "$([ $rc = 2 ] && echo 0 || echo 1)" "no results file: exit 2 (got $rc)"
grep -q "at least one results file" e1.txt
ok $? "no results file: says so"
"$F8BENCH" report r.h5 >/dev/null 2>e2.txt
rc=$?
ok "$([ $rc = 2 ] && echo 0 || echo 1)" "no -o: exit 2 (got $rc)"
grep -q -- "-o DIR" e2.txt
ok $? "no -o: names -o DIR"
"$F8BENCH" report missing.h5 -o x >/dev/null 2>e3.txt
rc=$?
ok "$([ $rc = 2 ] && echo 0 || echo 1)" "missing file: exit 2 (got $rc)"
grep -q "missing.h5" e3.txt
ok $? "missing file: names it"
echo "not hdf5" >bad.h5
"$F8BENCH" report bad.h5 -o x >/dev/null 2>e4.txt
rc=$?
ok "$([ $rc = 2 ] && echo 0 || echo 1)" "not an HDF5 file: exit 2 (got $rc)"
grep -q "bad.h5" e4.txt
ok $? "not an HDF5 file: names it"
[ ! -e x ]
ok $? "failed reports create no output directory"
GNUPLOT=/nonexistent "$F8BENCH" report r.h5 --ceilings r.h5 -o y >/dev/null 2>e5.txt
rc=$?
ok "$([ $rc = 2 ] && echo 0 || echo 1)" "--ceilings FILE without a ceilings table: exit 2 (got $rc)"
grep -q "r.h5" e5.txt
ok $? "--ceilings FILE without a ceilings table: names the file"
"$F8BENCH" report r.h5 -o x --bogus >/dev/null 2>e6.txt
rc=$?
ok "$([ $rc = 2 ] && echo 0 || echo 1)" "unknown option: exit 2 (got $rc)"

# --impl cublaslt,f8b rows (crafted: the host backend refuses f8b) get a
# section of their own: each f8b case beside cuBLASLt's, with the ratio.
fake=$(dirname "$F8BENCH")/tests/fake_results
if [ -x "$fake" ]; then
	printf '%s\n' "4096 4096 4096 none 0 ok 0.3 0.001 99 0.001" \
		"4096 4096 4096 tensorwise 1 ok 0.2 0.001 30 0.002" \
		"4096 4096 4096 tensorwise 1 ok 0.25 0.001 30 0.003 f8b" \
		"4096 4096 4096 axiswise 1 unsupported 0 0 0 0 f8b" |
		"$fake" impl.h5 "NVIDIA H100 80GB HBM3" 0x2330
	GNUPLOT=/nonexistent "$F8BENCH" report impl.h5 -o imp >/dev/null 2>imp.err
	rc=$?
	ok "$([ $rc = 1 ] && echo 0 || echo 1)" "report of a file with f8b and cublaslt rows (1: no gnuplot asked for; got $rc)"
	grep -q "^## f8b against cuBLASLt" imp/report.md
	ok $? "report.md has the f8b against cuBLASLt section"
	line=$(grep "^| 4096x4096x4096 .* tensorwise | on |" imp/report.md | head -1)
	echo "$line" | grep -q "| 687.2 | 549.8 | 0.800 | - | 2.00e-03 / 3.00e-03 |"
	ok $? "the f8b line: cuBLASLt 687.2, f8b 549.8 TFLOP/s, ratio 0.800, both errors ($line)"
	grep -q "e4m3 x e4m3 \[f8b\]" imp/report.md
	ok $? "f8b rows form a series of their own"
else
	for i in 1 2 3 4; do skip "no tests/fake_results"; done
fi
# A sweep with --out-t off,on (results/h100/experiments/f8b-gemm-outt/):
# the GEMMs that also wrote D^T form series of their own ("+D^T"), never
# averaged with D alone, and the roofline counts D^T's bytes (4096^3 bf16
# D: intensity 2048 without, 1365 with).
ot="$top/results/h100/experiments/f8b-gemm-outt/outt-bf16-1.h5"
if [ -f "$ot" ]; then
	"$F8BENCH" report "$ot" -o rot >/dev/null 2>&1
	[ -f rot/report.md ]
	ok $? "report of a --out-t off,on sweep (report.md written, with or without gnuplot)"
	grep -q "tensorwise, fast_accum on, e4m3 x e4m3 \[f8b\] +D^T | 1365 " rot/report.md &&
		grep -q "tensorwise, fast_accum on, e4m3 x e4m3 \[f8b\] | 2048 " rot/report.md
	ok $? "D^T rows: a series of their own, intensity 1365 against 2048 without"
else
	skip "no $ot"
	skip "no $ot"
fi
done_testing
