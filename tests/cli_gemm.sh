#!/bin/sh
# f8bench gemm end to end on the host backend: the sweep of the foundation
# issue, its HDF5 table and provenance, CSV export, --append and --resume.
. "${srcdir:-.}/tests/tap.sh"
cd "$tmp" || exit 1
Q="--backend host --min-time 0 --min-samples 3 --max-samples 5 --warmup 1"
SWEEP="--shapes 256x256x256,512x1024x256 --scaling tensorwise,axiswise,blockwise --fast-accum on,off"

"$F8BENCH" --help >help.txt 2>&1
ok $? "f8bench --help exits 0"
grep -q "gemm" help.txt
ok $? "--help lists gemm"
"$F8BENCH" --version | grep -q "^f8bench [0-9]"
ok $? "--version"
"$F8BENCH" gemm --help >ghelp.txt
ok $? "gemm --help exits 0"
for opt in --shapes --scaling --fast-accum --dtypes --out-dtype --backend --output --append --resume --seed --autotune --outliers --impl --out-t; do
	grep -q -- "$opt" ghelp.txt
	ok $? "gemm --help documents $opt"
done

"$F8BENCH" gemm $Q $SWEEP -o r.h5 >out.txt 2>err.txt
rc=$?
ok $rc "host sweep exits 0"
[ $rc = 0 ] || diag "$(cat err.txt)"
grep -q "\[14/14\]" err.txt
ok $? "progress lines count cases (i/N)"
grep -q "ETA" err.txt
ok $? "progress lines show ETA"
"$F8BENCH" export r.h5 --table gemm >r.csv
ok $? "export --csv"
rows=$(($(wc -l <r.csv) - 1))
ok "$([ "$rows" = 14 ] && echo 0 || echo 1)" "14 rows: 2 shapes x (bf16 + 3 granularities x 2 fast_accum) (got $rows)"

# Column positions from the header (of r.csv, or of the file named), so
# the test does not depend on order.
col() { head -1 "${2:-r.csv}" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
st=$(col status); re=$(col rel_error); tol=$(col tolerance); sq=$(col sqnr_db)
tf=$(col tflops); sp=$(col speedup_vs_bf16); sc=$(col scaling)
nok=$(tail -n +2 r.csv | cut -d, -f"$st" | grep -c '^"\{0,1\}ok"\{0,1\}$')
ok "$([ "$nok" = 14 ] && echo 0 || echo 1)" "every row has status ok (got $nok)"
tail -n +2 r.csv | awk -F, -v re="$re" -v tol="$tol" '!($re >= 0 && $re <= $tol) {bad=1} END {exit bad}'
ok $? "every row has an error figure within its tolerance"
tail -n +2 r.csv | awk -F, -v sq="$sq" -v sc="$sc" '$sc !~ /none/ && !($sq > 15 && $sq < 60) {bad=1} END {exit bad}'
ok $? "fp8 rows have an SQNR between 15 and 60 dB (e4m3 on normal data is about 30)"
tail -n +2 r.csv | awk -F, -v tf="$tf" -v sp="$sp" '!($tf > 0 && $sp > 0) {bad=1} END {exit bad}'
ok $? "every row has TFLOP/s and a speedup vs bf16"
ai=$(col arith_intensity); src=$(col roofline_source)
tail -n +2 r.csv | awk -F, -v ai="$ai" -v src="$src" '!($ai > 10 && $src == "datasheet") {bad=1} END {exit bad}'
ok $? "every row has its arithmetic intensity and names its roofline source"
for s in tensorwise axiswise blockwise none; do
	n=$(tail -n +2 r.csv | cut -d, -f"$sc" | grep -c "$s")
	ok "$([ "$n" -ge 2 ] && echo 0 || echo 1)" "rows for scaling $s ($n)"
done

"$F8BENCH" export r.h5 --provenance >prov.txt
ok $? "export --provenance"
grep -q -- "^command_line: f8bench gemm .*--scaling tensorwise,axiswise,blockwise" prov.txt
ok $? "provenance: the full command line"
for a in f8bench_version git_describe utc_time host backend mpi_library mpi_ranks schema_version device_name rank_devices measure seed; do
	grep -q "^$a: ." prov.txt
	ok $? "provenance attribute $a"
done
if command -v h5dump >/dev/null 2>&1; then
	h5dump -H r.h5 >h5.txt 2>&1
	ok $? "h5dump reads the file"
	grep -q 'DATASET "gemm"' h5.txt
	ok $? "h5dump shows the gemm table"
	h5dump -a /command_line r.h5 2>/dev/null | grep -q -- "--fast-accum on,off"
	ok $? "h5dump shows the provenance attributes"
else
	skip "h5dump reads the file: no h5dump (hdf5-tools) here"
fi

# --append adds a run without touching earlier rows.
cp r.h5 before.h5
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling tensorwise --fast-accum on -o r.h5 --append 2>err2.txt
ok $? "--append exits 0"
"$F8BENCH" export r.h5 --table gemm >r2.csv
rows2=$(($(wc -l <r2.csv) - 1))
ok "$([ "$rows2" = 16 ] && echo 0 || echo 1)" "--append added 2 rows (got $rows2 total)"
head -15 r2.csv | cmp -s - r.csv
ok $? "--append left the earlier rows byte-identical"
"$F8BENCH" export r.h5 --table gemm | tail -n +2 | cut -d, -f"$(col run_id)" | sort -u | tr '\n' ' ' | grep -qx "0 1 "
ok $? "--append rows carry run_id 1"
if command -v h5dump >/dev/null 2>&1; then
	h5dump -g /runs/1 -H r.h5 >/dev/null 2>&1
	ok $? "--append recorded its run under /runs/1"
fi

# --resume skips what is there and runs what is not.
"$F8BENCH" gemm $Q $SWEEP --dtypes e4m3:e4m3,e4m3:e5m2 -o r.h5 --resume 2>err3.txt
ok $? "--resume exits 0"
grep -q "already in" err3.txt
ok $? "--resume reports the cases already done"
"$F8BENCH" export r.h5 --table gemm >r3.csv
rows3=$(($(wc -l <r3.csv) - 1))
ok "$([ "$rows3" = 28 ] && echo 0 || echo 1)" "--resume ran only the 12 new e4m3:e5m2 cases (got $rows3 rows)"

# Deterministic data: the same case twice gives the same error figures.
a=$(sed -n 2p r.csv | cut -d, -f"$re")
b=$(sed -n 16p r2.csv | cut -d, -f"$re")
ok "$([ "$a" = "$b" ] && echo 0 || echo 1)" "same seed, same bf16 256^3 result in two runs ($a vs $b)"

# Outliers make tensorwise lose more accuracy than blockwise.
"$F8BENCH" gemm $Q --shapes 512x1024x256 --fast-accum off --outliers 0.001:1000 -o o.h5 2>/dev/null
ok $? "--outliers sweep"
"$F8BENCH" export o.h5 >o.csv
tw=$(grep tensorwise o.csv | cut -d, -f"$sq"); bw=$(grep blockwise o.csv | cut -d, -f"$sq")
diag "SQNR with outliers: tensorwise $tw dB, blockwise $bw dB"
awk -v t="$tw" -v b="$bw" 'BEGIN {exit !(b > t)}'
ok $? "blockwise SQNR beats tensorwise on outlier data"

# --impl: every fp8 case once per implementation, recorded in the impl
# column; the host backend runs its reference for cublaslt and refuses f8b
# (doc/gemm-kernels.md), so an f8b row never claims a kernel that did not run.
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling tensorwise --fast-accum on --impl cublaslt,f8b \
	-o i.h5 >/dev/null 2>ierr.txt
ok $? "--impl cublaslt,f8b sweep exits 0 on the host backend"
"$F8BENCH" export i.h5 --table gemm >i.csv
icol=$(head -1 i.csv | tr ',' '\n' | grep -nx impl | cut -d: -f1)
ok "$([ -n "$icol" ] && echo 0 || echo 1)" "the gemm table has an impl column"
got=$(tail -n +2 i.csv | awk -F, -v i="$icol" -v s="$st" '{printf "%s:%s ", $i, $s}')
ok "$([ "$got" = "cublaslt:ok cublaslt:ok f8b:unsupported " ] && echo 0 || echo 1)" \
	"rows: bf16 baseline, cublaslt, f8b refused on host (got: $got)"
grep -q "impl=f8b: unsupported: gemm: impl f8b is a CUDA sm_90a kernel; the host backend runs its reference GEMM only" ierr.txt
ok $? "the f8b row says why it did not run"
"$F8BENCH" gemm $Q --shapes 256x256x256 --impl cublas -o bad.h5 >/dev/null 2>berr.txt
[ $? != 0 ] && grep -q "unknown GEMM implementation 'cublas' (accepted: cublaslt, f8b)" berr.txt
ok $? "--impl with an unknown name is refused, naming the accepted ones"

# --out-dtype e4m3: D in e4m3 with its amax (doc/gemm.md "fp8 output"),
# named in out_dtype (the bf16 baseline stays bf16), checked against the
# reference quantised the same way, and 1 byte an element of D in the
# roofline; e5m2 is refused as bad input.
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling tensorwise,blockwise --fast-accum off \
	--dtypes e4m3:e4m3,e4m3:e5m2 --out-dtype e4m3 -o e.h5 >/dev/null 2>eerr.txt
rc=$?
ok $rc "--out-dtype e4m3 sweep exits 0 on the host backend"
[ $rc = 0 ] || diag "$(cat eerr.txt)"
"$F8BENCH" export e.h5 --table gemm >e.csv
oc=$(col out_dtype)
got=$(tail -n +2 e.csv | awk -F, -v o="$oc" -v s="$st" '{printf "%s:%s ", $o, $s}' | tr -d '"')
ok "$([ "$got" = "bf16:ok e4m3:ok e4m3:ok e4m3:ok e4m3:ok " ] && echo 0 || echo 1)" \
	"out_dtype: the bf16 baseline bf16, the fp8 rows e4m3, all ok (got: $got)"
tail -n +2 e.csv | awk -F, -v re="$re" -v tol="$tol" -v sq="$sq" -v sc="$sc" \
	'$sc !~ /none/ && !($tol > 0.125 && $re > 0.004 && $re <= $tol && $sq > 15 && $sq < 40) {bad=1} END {exit bad}'
ok $? "e4m3 rows: rel_error within the e4m3 tolerance (> 0.125), above bf16's rounding, SQNR 15-40 dB"
ai8=$(tail -n +2 e.csv | awk -F, -v a="$ai" -v sc="$sc" '$sc ~ /tensorwise/ {print $a; exit}')
ai16=$(tail -n +2 r.csv | awk -F, -v a="$ai" -v sc="$sc" -v fa="$(col fast_accum)" -v m="$(col m)" \
	'$m == 256 && $sc ~ /tensorwise/ && $fa == 0 {print $a; exit}')
awk -v a="$ai8" -v b="$ai16" 'BEGIN {r = a / b; exit !(r > 1.33 && r < 1.34)}'
ok $? "256^3 tensorwise: arithmetic intensity with e4m3 D is 4/3 of bf16 D's (A, B, D: 1+1+1 bytes vs 1+1+2; got $ai8 vs $ai16)"
"$F8BENCH" gemm $Q --shapes 256x256x256 --out-dtype e5m2 -o bad8.h5 >/dev/null 2>b8err.txt
rc=$?
[ $rc = 2 ] && grep -q "accepted: bf16, f32, e4m3" b8err.txt && [ ! -e bad8.h5 ]
ok $? "--out-dtype e5m2 is bad input (exit $rc), naming the accepted ones, no file"

# --out-t off,on: each fp8 case as it is, then writing D^T too (impl f8b
# only, doc/gemm.md "D^T beside D"): the host backend refuses the second
# like cuBLASLt, the row says why, out_t keys it apart from the first.
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling tensorwise --fast-accum on --out-t off,on \
	-o t.h5 >/dev/null 2>terr.txt
rc=$?
ok $rc "--out-t off,on sweep exits 0 on the host backend (a refused case is a row)"
"$F8BENCH" export t.h5 --table gemm >t.csv
got=$(tail -n +2 t.csv | awk -F, -v o="$(col out_t t.csv)" -v s="$(col status t.csv)" '{printf "%s:%s ", $o, $s}' | tr -d '"')
ok "$([ "$got" = "0:ok 0:ok 1:unsupported " ] && echo 0 || echo 1)" \
	"out_t: the baseline and the plain fp8 row 0 and ok, the D^T row 1 and unsupported (got: $got)"
grep -q "+D^T: unsupported: .*transposed write of D (out_t) is f8bench's own GEMM's" terr.txt
ok $? "the D^T row names the case (+D^T) and why the host refuses it"
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling tensorwise --fast-accum on --out-t off,on \
	-o t.h5 --resume 2>tres.txt >/dev/null
grep -q "already in" tres.txt && [ "$("$F8BENCH" export t.h5 --table gemm | wc -l)" = 4 ]
ok $? "--resume finds all three rows, none added (out_t is a key)"
"$F8BENCH" gemm $Q --shapes 256x256x256 --out-t sometimes -o badt.h5 >/dev/null 2>bterr.txt
rc=$?
[ $rc = 2 ] && grep -q -- "--out-t: 'sometimes' (accepted: on, off)" bterr.txt && [ ! -e badt.h5 ]
ok $? "--out-t with a bad value is bad input (exit $rc), naming the accepted ones, no file"

# --scaling blockwise-1x128 (any case): the blockwise recipe's grad_weight
# GEMM, A and B both scaled per 1x128 block along K, rows of their own
# beside blockwise's (A 1x128, B 128x128). 400x656x272: M != N, K and N
# not multiples of 128 (a ragged last K-block, a ragged B block row).
"$F8BENCH" gemm $Q --shapes 256x256x256,400x656x272 --scaling blockwise,BlockWise-1X128 \
	--fast-accum on,off -o b.h5 >/dev/null 2>berr.txt
rc=$?
ok $rc "--scaling blockwise,BlockWise-1X128 sweep exits 0 on the host backend"
[ $rc = 0 ] || diag "$(cat berr.txt)"
"$F8BENCH" export b.h5 --table gemm >b.csv
got=$(tail -n +2 b.csv | awk -F, -v sc="$(col scaling b.csv)" -v a="$(col a_gran b.csv)" -v b="$(col b_gran b.csv)" \
	-v s="$(col status b.csv)" -v fa="$(col fast_accum b.csv)" '{printf "%s:%s:%s:%s:%s ", $sc, $a, $b, $fa, $s}' | tr -d '"')
want=""
for i in 1 2; do
	want="${want}none:none:none:0:ok blockwise:block1x128:block128x128:1:ok blockwise:block1x128:block128x128:0:ok "
	want="${want}blockwise-1x128:block1x128:block1x128:1:ok blockwise-1x128:block1x128:block1x128:0:ok "
done
ok "$([ "$got" = "$want" ] && echo 0 || echo 1)" \
	"rows: scaling blockwise-1x128 with a_gran and b_gran block1x128, blockwise's B block128x128, all ok"
[ "$got" = "$want" ] || diag "got: $got"
tail -n +2 b.csv | awk -F, -v sc="$(col scaling b.csv)" -v re="$(col rel_error b.csv)" -v tol="$(col tolerance b.csv)" \
	-v sq="$(col sqnr_db b.csv)" '$sc == "blockwise-1x128" { n++; if (!($re > 0 && $re <= $tol && $sq > 15 && $sq < 60)) bad = 1 }
	END { exit bad || n != 4 }'
ok $? "blockwise-1x128 rows: rel_error within tolerance, SQNR 15-60 dB (4 rows)"
grep -q "400x656x272 blockwise-1x128 fast_accum=off e4m3:e4m3" berr.txt
ok $? "progress lines name the blockwise-1x128 case"
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling blockwise-1x128 --fast-accum off -o b.h5 \
	--resume 2>bres.txt
grep -q "already in" bres.txt && [ "$("$F8BENCH" export b.h5 --table gemm | wc -l)" = 11 ]
ok $? "--resume finds the blockwise-1x128 rows (key: the scaling column in full)"
# With outliers, B's 1x128 blocks keep an outlier from the 127 other rows a
# 128x128 block shares its scale with: better SQNR than blockwise.
"$F8BENCH" gemm $Q --shapes 512x1024x256 --scaling blockwise,blockwise-1x128 --fast-accum off \
	--outliers 0.001:1000 -o ob.h5 2>/dev/null
ok $? "--outliers sweep with blockwise-1x128"
"$F8BENCH" export ob.h5 --table gemm >ob.csv
osc=$(col scaling ob.csv) osq=$(col sqnr_db ob.csv)
bw=$(awk -F, -v sc="$osc" -v sq="$osq" '$sc == "blockwise" {print $sq}' ob.csv)
b1=$(awk -F, -v sc="$osc" -v sq="$osq" '$sc == "blockwise-1x128" {print $sq}' ob.csv)
diag "SQNR with outliers: blockwise $bw dB, blockwise-1x128 $b1 dB"
awk -v a="$bw" -v b="$b1" 'BEGIN {exit !(b > a + 1)}'
ok $? "blockwise-1x128 SQNR beats blockwise on outlier data by over 1 dB"

# The default output name never collides.
"$F8BENCH" gemm $Q --shapes 256x256x256 --scaling axiswise --fast-accum on 2>/dev/null
ls gemm-*.h5 >/dev/null 2>&1
ok $? "default output gemm-DATE.h5"
done_testing
