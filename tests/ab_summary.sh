#!/bin/sh
# scripts/ab-summary.sh on a stand-in f8bench whose `export FILE --table T`
# prints FILE.T.csv (the columns f8bench's gemm and lls tables have, the
# ones the script reads): the means, least and greatest over rounds, the
# speed ratios (gemm new / base, lls base / new), rows not ok left out and
# counted, files of another label or round name skipped, and the refusals.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
sum=$top/scripts/ab-summary.sh
command -v bash >/dev/null || skip_all "no bash"
cd "$tmp" || exit 1
cat >f8 <<'STUB'
#!/bin/sh
[ "$1" = export ] && [ "$3" = --table ] && [ -f "$2.$4.csv" ] && exec cat "$2.$4.csv"
exit 1
STUB
chmod +x f8
mkdir ab
g="m,k,n,scaling,fast_accum,a_dtype,b_dtype,out_dtype,impl,out_t,status,tflops,message"
gemm() { # FILE TFLOPS-OF-CASE-1 TFLOPS-OF-CASE-2 [STATUS-OF-CASE-2]
	: >"$1"
	printf '%s\n4096,4096,4096,tensorwise,0,e4m3,e4m3,bf16,f8b,0,ok,%s,"a, quoted, message"\n8192,4096,4096,axiswise,1,e4m3,e4m3,bf16,f8b,0,%s,%s,\n' \
		"$g" "$2" "${4:-ok}" "$3" >"$1.gemm.csv"
}
gemm ab/base-1.h5 1000 1200
gemm ab/base-2.h5 1100 1300
gemm ab/new-1.h5 1050 1260
gemm ab/new-2.h5 1155 9999 wrong
gemm ab/base-old-1.h5 1 1 # another label's file: not base's round
printf 'm,k,n,recipe,graph,lanes,gemm_impl,status,time_median_s\n8192,8192,8192,axiswise,1,2,f8b,ok,0.004\n' >ab/base-1.h5.lls.csv
printf 'm,k,n,recipe,graph,lanes,gemm_impl,status,time_median_s\n8192,8192,8192,axiswise,1,2,f8b,ok,0.005\n' >ab/base-2.h5.lls.csv
printf 'm,k,n,recipe,graph,lanes,gemm_impl,status,time_median_s\n8192,8192,8192,axiswise,1,2,f8b,ok,0.003\n' >ab/new-1.h5.lls.csv
bash "$sum" --f8bench ./f8 ab base new >out 2>err
ok $? "two builds, two rounds: exit 0 ($(head -c 200 err))"
line() { grep -F -- "$1" out; }
l=$(line "4096x4096x4096 tensorwise fast_accum=0 e4m3:e4m3->bf16 f8b")
echo "$l" | grep -q "base 1050.0 (1000.0-1100.0, 2)  new 1102.5 (1050.0-1155.0, 2)  new/base 1.050$"
ok $? "gemm: means, least-greatest, rounds and new / base (a quoted message with commas in the row): $l"
l=$(line "8192x4096x4096 axiswise fast_accum=1")
echo "$l" | grep -q "base 1250.0 (1200.0-1300.0, 2)  new 1260.0 (1260.0-1260.0, 1)  new/base 1.008$"
ok $? "gemm: a row not ok is left out of new's mean: $l"
grep -q "^# new: 1 rows not ok, left out" out
ok $? "the row not ok is counted: $(grep 'not ok' out)"
l=$(line "8192x8192x8192 axiswise graph=1 lanes=2 f8b")
echo "$l" | grep -q "base 4.5000 (4.0000-5.0000, 2)  new 3.0000 (3.0000-3.0000, 1)  new/base 1.500$"
ok $? "lls: the step in ms, speed base / new: $l"
! grep -q "1\.0 (1\.0" out
ok $? "base-old-1.h5 (another name) is not one of base's rounds"
bash "$sum" --f8bench ./f8 ab none >out 2>err
rc=$?
[ $rc -eq 1 ] && grep -q "no gemm or lls rows" err
ok $? "a label without files: exit 1 and says so (exit $rc: $(cat err))"
bash "$sum" --f8bench ./f8 ab >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q usage err
ok $? "no label: usage, exit 2 (exit $rc)"
bash "$sum" --f8bench ./f8 nowhere base >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "no such folder" err
ok $? "no such folder: exit 2 (exit $rc)"
bash "$sum" --f8bench ./f8 ab "a/b" >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "letters, digits" err
ok $? "a bad label: exit 2 (exit $rc)"
bash "$sum" --help >out 2>err
rc=$?
[ $rc -eq 0 ] && grep -q "^  scripts/ab-summary.sh \[--f8bench PATH\] OUTDIR LABEL" out && ! grep -q "^set " out
ok $? "--help: the header, exit 0 (exit $rc: $(head -n 1 out))"
done_testing
