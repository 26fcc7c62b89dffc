#!/bin/sh
# cli_compare.sh - f8bench compare on every benchmark's table through the
# same code path: gemm and ceilings files from the host backend, the
# accuracy gate (exact with --accuracy-tolerance 0), --no-timing, runs timed
# with other harness settings (a warning), a table only one file holds,
# the JUnit XML (validated) and Markdown outputs, and --detail on the
# committed lls A/B (each kernel a case).
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
xsd=$top/tests/data/junit.xsd
cd "$tmp" || exit 1
Q="--backend host --min-time 0 --min-samples 3 --max-samples 5 --warmup 1 -q"
G="--shapes 256x256x256,512x512x256 --scaling tensorwise,axiswise --fast-accum on"
C="--kinds copy,gemm,launch --sizes 1M:4M --gemm-shapes 256x256x256 --gemm-algos 1"
"$F8BENCH" gemm $Q $G -o g1.h5 2>/dev/null && "$F8BENCH" gemm $Q $G -o g2.h5 2>/dev/null
ok $? "two host gemm runs"
"$F8BENCH" ceilings $Q $C -o c1.h5 2>/dev/null && "$F8BENCH" ceilings $Q $C -o c2.h5 2>/dev/null
ok $? "two host ceilings runs"

"$F8BENCH" compare g1.h5 g2.h5 --no-timing --accuracy-tolerance 0 >out.txt 2>&1
ok $? "gemm, --no-timing, exact accuracy: exit 0 (the host backend is deterministic)"
tail -1 out.txt | grep -q "^6 same, 0 faster, 0 slower, 0 unsure, 0 missing, 0 wrong, 0 new, 0 less-accurate$"
ok $? "gemm: 6 same ($(tail -1 out.txt))"
"$F8BENCH" compare c1.h5 c2.h5 --no-timing >out.txt 2>&1
ok $? "ceilings through the same command: exit 0"
tail -1 out.txt | grep -q "^5 same,"
ok $? "ceilings: 5 same ($(tail -1 out.txt))"

# Runs timed with other harness settings compare, with a warning naming
# them; the same settings give none.
"$F8BENCH" gemm $Q $G --flush-by read --no-hold -o g3.h5 2>/dev/null
"$F8BENCH" compare g1.h5 g3.h5 --no-timing >out.txt 2>&1
rc=$?
ok "$([ $rc = 0 ] && grep -q '^warning: BASE and NEW were timed differently (flush=0 / 1, flush_by=write / read, hold=1 / 0)' out.txt && echo 0 || echo 1)" "other flush and hold: compared (exit $rc) with a warning naming both"
"$F8BENCH" compare g1.h5 g2.h5 --no-timing >out2.txt 2>&1 && ! grep -q "timed differently" out2.txt
ok $? "same settings: no such warning"

# A table only one file holds is refused, naming it.
"$F8BENCH" compare g1.h5 c1.h5 >out.txt 2>err.txt
rc=$?
ok "$([ $rc = 2 ] && grep -q "no table 'gemm'" err.txt && echo 0 || echo 1)" "gemm vs ceilings: exit 2 ($rc: $(cat err.txt))"

PY=
for p in /usr/bin/python3 python3; do
	"$p" -c 'import h5py' 2>/dev/null && { PY=$p; break; }
done
if [ -n "$PY" ]; then
	# Lower one SQNR by 1 dB: beyond the default 0.5 dB, less-accurate.
	cp g2.h5 worse.h5
	"$PY" - <<'PY'
import h5py
with h5py.File("worse.h5", "r+") as f:
    t = f["gemm"][...]
    t["sqnr_db"][0] -= 1.0
    f["gemm"][...] = t
PY
	"$F8BENCH" compare g1.h5 worse.h5 --no-timing >out.txt 2>&1
	rc=$?
	ok "$([ $rc = 1 ] && tail -1 out.txt | grep -q ", 1 less-accurate$" && echo 0 || echo 1)" "SQNR 1 dB lower: less-accurate, exit 1 ($rc: $(tail -1 out.txt))"
	grep -q "sqnr_db" out.txt
	ok $? "the note names the column and both values"
	"$F8BENCH" compare g1.h5 worse.h5 --no-timing --accuracy-tolerance 2 >/dev/null 2>&1
	ok $? "--accuracy-tolerance 2 (dB): the same change passes"
	"$F8BENCH" compare g1.h5 worse.h5 --no-timing --junit j.xml --markdown m.md >/dev/null 2>&1
	ok "$([ $? = 1 ] && echo 0 || echo 1)" "--junit/--markdown keep the exit status"
	grep -q '<failure type="less-accurate"' j.xml
	ok $? "JUnit: the less-accurate case is a failure"
	grep -q 'testsuite name="gemm" tests="6" failures="1" errors="0"' j.xml
	ok $? "JUnit: suite counts"
	grep -q '| \*\*less-accurate\*\* |' m.md && grep -q '^### gemm: regression' m.md
	ok $? "Markdown: the failing case and the verdict"
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout --schema "$xsd" j.xml 2>xl.txt
		ok $? "JUnit XML validates against tests/data/junit.xsd ($(tail -1 xl.txt))"
	else
		skip "xmllint not installed (libxml2-utils)"
	fi
else
	for i in 1 2 3 4 5 6 7 8; do skip "no h5py"; done
fi
"$F8BENCH" compare c1.h5 c2.h5 --no-timing --junit cj.xml >/dev/null 2>&1
grep -q 'classname="ceilings" name="launch (empty kernel)"' cj.xml
ok $? "JUnit of a ceilings comparison names its cases"
# --detail on the committed A/B of the staged tile kernel: the kernels as
# cases of their own (lls_kernels), absent without it
sb=$top/results/h100/experiments/lls-ab/lls-ab-stage-base.h5 sn=$top/results/h100/experiments/lls-ab/lls-ab-stage-new.h5
if [ -f "$sb" ] && [ -f "$sn" ]; then
	"$F8BENCH" compare "$sb" "$sn" >plain.txt 2>&1
	rc=$?
	[ $rc = 0 ] && ! grep -q lls_kernels plain.txt
	ok $? "lls A/B without --detail: the steps only (exit $rc)"
	"$F8BENCH" compare --detail "$sb" "$sn" >det.txt 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q '^== lls_kernels' det.txt &&
		grep -q '^lls_kernels: 37 same, 7 faster, 0 slower' det.txt
	ok $? "--detail: the 44 kernels compared, 7 faster (exit $rc: $(grep '^lls_kernels:' det.txt))"
	grep '8192x8192x8192 axiswise #9 cast_transpose W ' det.txt | grep -q -- '-6.09%.*faster'
	ok $? "--detail: the axiswise cast_transpose of W, 87.8 -> 82.5 us, is faster by 6.09%"
	"$F8BENCH" compare --detail g1.h5 g1.h5 --no-timing >gd.txt 2>&1
	ok $? "--detail on gemm files (no detail table): as without it"
else
	for i in 1 2 3 4; do skip "no results/h100/experiments/lls-ab/lls-ab-stage-*.h5"; done
fi
[ -z "$(ls ./*.tmp.* 2>/dev/null)" ]
ok $? "no temporary files left"
done_testing
