#!/bin/sh
# scripts/impl-sweep.sh without a GPU: a stand-in f8bench in a stand-in
# build directory records each benchmark command, writes an empty -o file
# and exits FAKE_RC; its `export FILE --table T -o CSV` copies a canned
# table (fake/NAME.csv for FILE NAME.h5).  What it checks: the refusals,
# the three parts' commands, each summary table's ratios (f8b over
# cuBLASLt in the same mode, over cuBLASLt's tensorwise fast row, lls step
# times), the rows-not-ok counts, PARTS, and the exit status of a part
# that timed out or left no table.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
sweep=$top/scripts/impl-sweep.sh
cd "$tmp" || exit 1
command -v bash >/dev/null || skip_all "no bash"

mkdir -p build fake
cat >build/f8bench <<'STUB'
#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
case $1 in
export)
	name=$(basename "$2" .h5)
	[ -f "$here/../fake/$name.csv" ] || { echo "no table $4 in $2" >&2; exit 1; }
	cp "$here/../fake/$name.csv" "$6"
	;;
*)
	echo "$*" >>"$here/../calls"
	out=
	while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
	: >"$out"
	exit "${FAKE_RC:-0}"
	;;
esac
STUB
chmod +x build/f8bench

cat >fake/gemm-impl-sweep.csv <<'CSV'
m,k,n,label,scaling,fast_accum,impl,status,tflops,message
4096,4096,4096,pow2.4096,tensorwise,1,cublaslt,ok,1000,
4096,4096,4096,pow2.4096,tensorwise,1,f8b,ok,980,
4096,4096,4096,pow2.4096,axiswise,1,cublaslt,ok,900,
4096,4096,4096,pow2.4096,axiswise,1,f8b,ok,900,
4096,4096,4096,pow2.4096,tensorwise,0,f8b,ok,850,
4096,4096,4096,pow2.4096,axiswise,0,f8b,ok,800,"a message, with a comma"
4096,4096,4096,pow2.4096,blockwise,0,f8b,ok,750,
4096,4096,4096,pow2.4096,blockwise,1,cublaslt,unsupported,nan,"no fast mode, sm_90"
CSV
cat >fake/gemm-1x128.csv <<'CSV'
m,k,n,label,scaling,fast_accum,impl,status,tflops
8192,8192,8192,,tensorwise,1,cublaslt,ok,1300
8192,8192,8192,,blockwise-1x128,0,cublaslt,ok,900
8192,8192,8192,,blockwise-1x128,0,f8b,ok,780
8192,8192,8192,,blockwise-1x128,1,cublaslt,unsupported,nan
4096,4096,4096,,tensorwise,1,cublaslt,ok,1350
4096,4096,4096,,blockwise-1x128,0,cublaslt,ok,940
4096,4096,4096,,blockwise-1x128,0,f8b,wrong,700
CSV
cat >fake/lls-impl.csv <<'CSV'
m,k,n,recipe,gemm_impl,status,time_median_s,traced_time_median_s
4096,4096,4096,tensorwise,cublaslt,ok,0.0005,0.00066
4096,4096,4096,tensorwise,f8b,ok,0.0004,0.0006
4096,4096,4096,axiswise,cublaslt,ok,0.0005,nan
4096,4096,4096,axiswise,f8b,ok,0.0004,0.0006
CSV

bash "$sweep" >out 2>err
[ $? -ne 0 ] && grep -q usage err
ok $? "no arguments: a usage line and a failure"
PARTS="gemm bogus" bash "$sweep" build o0 >out 2>err
[ $? -eq 2 ] && grep -q "unknown part 'bogus'" err && [ ! -f calls ]
ok $? "an unknown part in PARTS is refused before anything runs ($(cat err))"

bash "$sweep" build o1 >log 2>err
ok $? "the three parts by default: exit 0 ($(tail -n 2 err | tr '\n' ' '))"
[ "$(wc -l <calls)" -eq 3 ]
ok $? "three benchmark commands ($(wc -l <calls))"
grep -q -- "gemm --impl cublaslt,f8b --shapes pow2,llama3-8b,llama2-70b --scaling tensorwise,axiswise,blockwise --fast-accum on,off" calls &&
	grep -q -- "gemm --impl cublaslt,f8b --shapes 4096x4096x4096,8192x8192x8192,16384x16384x16384 --scaling blockwise-1x128,tensorwise --fast-accum on,off" calls &&
	grep -q -- "lls --gemm-impl cublaslt,f8b --shapes 4096x4096x4096,8192x8192x8192" calls
ok $? "each part's command, with its default shapes"
! grep -q -- "--recipe" calls
ok $? "lls runs every recipe unless LLS_RECIPES names some (no --recipe)"
s=o1/summary.txt
grep -Eq "4096x4096x4096 pow2.4096 +1000.0 +980.0 +0.980 +1.000 \| +0.850 +0.800 +0.750" $s
ok $? "gemm: f8b over cuBLASLt fast (0.980, axiswise 1.000), promotion and blockwise over its tensorwise fast row ($(grep pow2.4096 $s))"
grep -q "^  rows not ok: 1$" $s && grep -q "^  rows not ok: 2 (cuBLASLt has no blockwise-1x128" $s
ok $? "each gemm part counts its rows not ok (1; 2 with the wrong one; a quoted comma moves no column)"
grep -Eq "^  8192x8192x8192 +900.0 +780.0 +0.867 +0.600" $s
ok $? "gemm1x128: f8b over cuBLASLt's blockwise-1x128 (0.867) and over its tensorwise fast row (0.600) ($(grep '^  8192x8192x8192' $s))"
grep -Eq "^  4096x4096x4096 +940.0 +- +- +-" $s
ok $? "gemm1x128: a wrong f8b row is no number ($(grep -E '^  4096x4096x4096 +940' $s))"
grep -Eq "4096x4096x4096 tensorwise +0.5000 +0.4000 +1.250 +1.100 +ok ok" $s
ok $? "lls: each step in ms, cuBLASLt's over f8b's, and the traced steps' ratio ($(grep 'x4096 tensorwise' $s))"
grep -Eq "4096x4096x4096 axiswise +0.5000 +0.4000 +1.250 +- +ok ok" $s
ok $? "lls: a traced time that is no number gives no traced ratio ($(grep 'x4096 axiswise' $s))"

rm -f calls
PARTS=gemm1x128 GEMM1X128_SHAPES=1024x1024x1024 bash "$sweep" build o2 >log 2>err
[ $? -eq 0 ] && [ "$(wc -l <calls)" -eq 1 ] && grep -q -- "--shapes 1024x1024x1024 --scaling blockwise-1x128" calls
ok $? "PARTS=gemm1x128: that part alone, with GEMM1X128_SHAPES ($(cat calls))"

FAKE_RC=124 PARTS=lls bash "$sweep" build o3 >log 2>err
[ $? -eq 1 ] && grep -q "exit 124" o3/summary.txt && grep -q "x4096 tensorwise" o3/summary.txt
ok $? "a part that times out: exit 1, its rows so far still summarised"

rm -f calls
PARTS=lls LLS_RECIPES=tensorwise,blockwise LLS_SHAPES=16384x16384x16384 bash "$sweep" build o5 >log 2>err
[ $? -eq 0 ] && grep -q -- "lls --gemm-impl cublaslt,f8b --shapes 16384x16384x16384 --recipe tensorwise,blockwise " calls
ok $? "LLS_RECIPES and LLS_SHAPES reach lls's --recipe and --shapes ($(cat calls))"

rm -f calls
PARTS=lls LLS_ARGS="--warmup 300 --min-time 1 --max-time 3" bash "$sweep" build o9 >log 2>err
[ $? -eq 0 ] && grep -q -- "--min-time 0.2 --max-time 1 --warmup 300 --min-time 1 --max-time 3 -o " calls
ok $? "LLS_ARGS come after the part's own options, word by word ($(cat calls))"

# GEMM_DTYPES: a second pair's rows are lines of their own, after the label
cp fake/gemm-impl-sweep.csv fake/gemm-impl-sweep.keep
cat >fake/gemm-impl-sweep.csv <<'CSV'
m,k,n,label,scaling,fast_accum,a_dtype,b_dtype,impl,status,tflops
8192,8192,8192,,none,0,bf16,bf16,cublaslt,ok,700
8192,8192,8192,,tensorwise,1,e4m3,e4m3,cublaslt,ok,1300
8192,8192,8192,,tensorwise,1,e4m3,e4m3,f8b,ok,1274
8192,8192,8192,,tensorwise,1,e5m2,e4m3,cublaslt,ok,1400
8192,8192,8192,,tensorwise,1,e5m2,e4m3,f8b,ok,1260
8192,8192,8192,,tensorwise,0,e5m2,e4m3,f8b,ok,1190
CSV
rm -f calls
PARTS=gemm GEMM_DTYPES=e4m3:e4m3,e5m2:e4m3 bash "$sweep" build o6 >log 2>err
[ $? -eq 0 ] && grep -q -- "--dtypes e4m3:e4m3,e5m2:e4m3 " calls
ok $? "GEMM_DTYPES reaches gemm's --dtypes ($(cat calls))"
s=o6/summary.txt
grep -Eq "^  8192x8192x8192 +1300.0 +1274.0 +0.980 +- \| +- +- +-" $s &&
	grep -Eq "^  8192x8192x8192 e5m2:e4m3 +1400.0 +1260.0 +0.900 +- \| +0.850 +- +-" $s &&
	[ "$(grep -c '^  8192x8192x8192' $s)" -eq 2 ]
ok $? "gemm: each dtype pair on a line of its own, ratios within the pair, the bf16 row on neither ($(grep '^  8192x' $s | tr '\n' ';'))"
mv fake/gemm-impl-sweep.keep fake/gemm-impl-sweep.csv

# GEMM_REPEAT: the gemm part again in more processes, each its own file
# and table
cp fake/gemm-impl-sweep.csv fake/gemm-impl-sweep-2.csv
cp fake/gemm-impl-sweep.csv fake/gemm-impl-sweep-3.csv
rm -f calls
PARTS=gemm GEMM_REPEAT=3 bash "$sweep" build o7 >log 2>err
rc=$?
n=$(grep -c -- "^gemm --impl cublaslt,f8b " calls)
outs=$(grep -o -- "-o [^ ]*" calls | sed "s|.*/||" | tr '\n' ' ')
[ $rc -eq 0 ] && [ "$n" = 3 ] && [ "$outs" = "gemm-impl-sweep.h5 gemm-impl-sweep-2.h5 gemm-impl-sweep-3.h5 " ]
ok $? "GEMM_REPEAT=3: three gemm processes, one file each ($n: $outs)"
[ "$(grep -c '^  4096x4096x4096 pow2.4096 ' o7/summary.txt)" -eq 3 ] &&
	grep -q "^== 3 processes of one command: scripts/f8b-targets.sh" o7/summary.txt
ok $? "GEMM_REPEAT=3: a table for each process and the hint for f8b-targets.sh"
for bad in 0 x -1; do
	rm -f calls
	GEMM_REPEAT=$bad PARTS=gemm bash "$sweep" build o8 >log 2>err
	[ $? -eq 2 ] && grep -q "GEMM_REPEAT" err && [ ! -f calls ]
	ok $? "GEMM_REPEAT=$bad is refused before anything runs ($(cat err))"
done

mv fake/lls-impl.csv fake/lls-impl.away
PARTS=lls bash "$sweep" build o4 >log 2>err
[ $? -eq 1 ] && grep -q "no lls table to read" o4/summary.txt
ok $? "a part that left no table: exit 1 and says so"
done_testing
