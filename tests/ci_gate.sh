#!/bin/sh
# ci_gate.sh - scripts/ci-gate.sh, the regression gate CI jobs run.
# 1. The host accuracy gate against the committed baseline
#    (results/baselines/host-accuracy.h5): passes, and fails on a baseline
#    whose numbers differ (written with another seed).
# 2. The GPU gate on crafted files (tests/fake_results): the baseline chosen
#    by PCI id, a case slower within and beyond noise and tolerance, a wrong
#    row, a missing and a new case, a less accurate case, another GPU, no
#    baseline, --update-baseline; every JUnit file checked against
#    tests/data/junit.xsd with xmllint.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
gate="$top/scripts/ci-gate.sh"
xsd=$top/tests/data/junit.xsd
fake=$(dirname "$F8BENCH")/tests/fake_results
cd "$tmp" || exit 1

# xmllint validation, or a skip where libxml2-utils is absent.
valid() {
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout --schema "$xsd" "$1" >xl.txt 2>&1
		ok $? "$2: $1 validates against tests/data/junit.xsd ($(tail -1 xl.txt))"
	else
		skip "xmllint not installed (libxml2-utils)"
	fi
}
# The last line of compare's table: the summary.
summ() { tail -1 "$1/compare.txt"; }

# ---------------------------------------------------------------- host accuracy
GITHUB_STEP_SUMMARY=$tmp/step-summary.md
export GITHUB_STEP_SUMMARY
sh "$gate" --sweep accuracy --out acc --f8bench "$F8BENCH" >acc.txt 2>&1
rc=$?
ok "$rc" "the host accuracy gate passes against the committed baseline (exit $rc: $(tail -1 acc.txt))"
[ "$rc" = 0 ] || sed 's/^/# /' acc.txt
summ acc | grep -q "^[0-9]* same, 0 faster, 0 slower, 0 unsure, 0 missing, 0 wrong, 0 new, 0 less-accurate$"
ok $? "every case the same ($(summ acc))"
grep -q "== gemm" acc/compare.txt && grep -q "== lls" acc/compare.txt &&
	grep -q "== optim" acc/compare.txt
ok $? "gemm, lls and optim are gated"
grep -q "less-accurate if sqnr_db, rel_error change at all" acc/compare.txt &&
	grep -q "less-accurate if sqnr_min_db, sqnr_y_db, sqnr_grad_x_db, sqnr_grad_w_db change at all" acc/compare.txt &&
	grep -q "less-accurate if sqnr_w8_db, sqnr_w_db change at all" acc/compare.txt
ok $? "exactly, on every gated column"
[ -f acc/new.h5 ] && [ -f acc/sweep.log ] && [ -f acc/junit.xml ] && [ -f acc/summary.md ]
ok $? "the outputs: new.h5, sweep.log, junit.xml, summary.md"
valid acc/junit.xml "host gate"
grep -q '<testsuites name="f8bench compare" tests="[1-9][0-9]*" failures="0" errors="0">' acc/junit.xml
ok $? "JUnit: no failure, no error"
n_cases=$(grep -c '<testcase ' acc/junit.xml)
n_same=$(summ acc | sed 's/ same,.*//')
[ "$n_cases" = "$n_same" ]
ok $? "JUnit: one testcase per case ($n_cases testcases, $n_same cases)"
grep -q '^## f8bench gate: `accuracy` sweep on .*: pass$' "$GITHUB_STEP_SUMMARY" &&
	grep -q '^### lls: no regression$' "$GITHUB_STEP_SUMMARY"
ok $? "the Markdown summary went to \$GITHUB_STEP_SUMMARY"

# The same sweep with another seed as the baseline: numbers differ, so
# the exact gate fails (as it would on a change to a cast or a scale).
T="--backend host --min-time 0 --min-samples 1 --max-samples 1 --warmup 0 -q --seed 2"
"$F8BENCH" gemm $T --shapes 256x256x256 --scaling tensorwise,axiswise,blockwise \
	--fast-accum on --dtypes e4m3:e4m3 -o seed2.h5 2>/dev/null &&
	"$F8BENCH" lls $T --shapes 256x256x256 --recipe bf16,tensorwise -o seed2.h5 --append 2>/dev/null &&
	"$F8BENCH" optim $T --params 300x129,77,1000 --steps 20 --variant fp8 --scaling predicted \
		-o seed2.h5 --append 2>/dev/null
ok $? "a baseline written with --seed 2"
sh "$gate" --sweep accuracy --new acc/new.h5 --baseline seed2.h5 --out acc2 --f8bench "$F8BENCH" >acc2.txt 2>&1
rc=$?
ok "$([ $rc = 1 ] && echo 0 || echo 1)" "seed 2 baseline: the gate fails with exit 1 ($rc: $(summ acc2))"
grep -q "^gemm: 0 same, 0 faster, 0 slower, 0 unsure, 0 missing, 0 wrong, [0-9]* new, 4 less-accurate$" acc2/compare.txt &&
	grep -q "^lls: 0 same, .* 2 less-accurate$" acc2/compare.txt &&
	grep -q "^optim: 0 same, .* 1 less-accurate$" acc2/compare.txt
ok $? "every case both ran is less-accurate, the rest new ($(grep '^gemm:' acc2/compare.txt))"
grep -q '<failure type="less-accurate" message="less-accurate: sqnr_db ' acc2/junit.xml
ok $? "JUnit: a failure naming the column"
valid acc2/junit.xml "failing host gate"
grep -q '^## f8bench gate: `accuracy` sweep on .*: regression$' acc2/summary.md
ok $? "summary.md says regression"

# ---------------------------------------------------------------- GPU, crafted
if [ ! -x "$fake" ]; then
	diag "no $fake (built by make check)"
	for i in $(seq 1 22); do skip "no tests/fake_results"; done
	done_testing
	exit $?
fi
unset GITHUB_STEP_SUMMARY
H100="NVIDIA H100 80GB HBM3"
mkdir bl
# M K N scaling fast_accum status time_ms noise sqnr_db rel_error
"$fake" bl/0x2330-quick.h5 "$H100" 0x2330 <<'EOF'
2048 2048 2048 none       0 ok 1.00 0.002 45.0 0.001
2048 2048 2048 tensorwise 1 ok 0.50 0.002 28.5 0.002
2048 2048 2048 tensorwise 0 ok 0.60 0.002 28.5 0.002
2048 2048 2048 axiswise   1 ok 0.55 0.030 28.6 0.002
2048 2048 2048 axiswise   0 ok 0.65 0.002 28.6 0.002
2048 2048 2048 blockwise  0 ok 0.70 0.002 28.7 0.002
4096 4096 4096 tensorwise 1 ok 3.00 0.002 28.5 0.002
EOF
ok $? "a crafted H100 baseline (pci 0x2330)"
# NEW: tensorwise fa=1 +2% (within the 5% tolerance); tensorwise fa=0 +10%
# with 0.2% noise (slower); axiswise fa=1 +10% with 3% noise each (within
# 3 sigma = 12.7%: unsure); axiswise fa=0 wrong; blockwise fa=0 missing;
# blockwise fa=1 new; 4096^3 SQNR 1 dB lower (less-accurate).
"$fake" new.h5 "$H100" 0x2330 <<'EOF'
2048 2048 2048 none       0 ok    1.00 0.002 45.0 0.001
2048 2048 2048 tensorwise 1 ok    0.51 0.002 28.5 0.002
2048 2048 2048 tensorwise 0 ok    0.66 0.002 28.5 0.002
2048 2048 2048 axiswise   1 ok   0.605 0.030 28.6 0.002
2048 2048 2048 axiswise   0 wrong 0    0     0    0
2048 2048 2048 blockwise  1 ok    0.70 0.002 28.7 0.002
4096 4096 4096 tensorwise 1 ok    3.00 0.002 27.5 0.002
EOF
ok $? "a crafted H100 run"
sh "$gate" --sweep quick --new new.h5 --baselines bl --out g --f8bench "$F8BENCH" >g.txt 2>&1
rc=$?
ok "$([ $rc = 1 ] && echo 0 || echo 1)" "the gate fails with compare's exit 1 ($rc)"
grep -q "baseline bl/0x2330-quick.h5" g.txt
ok $? "the baseline was chosen by PCI id ($(grep baseline g.txt | head -1))"
[ "$(summ g)" = "2 same, 0 faster, 1 slower, 1 unsure, 1 missing, 1 wrong, 1 new, 1 less-accurate" ]
ok $? "2 same, 1 slower, 1 unsure, 1 missing, 1 wrong, 1 new, 1 less-accurate ($(summ g))"
! grep -q "2048x2048x2048 tensorwise fast_accum=on" g/compare.txt
ok $? "+2%: same (not listed)"
grep "2048x2048x2048 axiswise fast_accum=on" g/compare.txt | grep -q "unsure"
ok $? "+10% within 3 x noise: unsure"
valid g/junit.xml "GPU gate"
grep -q '<testsuite name="gemm" tests="8" failures="3" errors="1"' g/junit.xml
ok $? "JUnit: 8 testcases (7 cases of BASE, 1 new), 3 failures, 1 error"
grep -A1 'name="2048x2048x2048 tensorwise fast_accum=off e4m3:e4m3"' g/junit.xml | grep -q '<failure type="slower"' &&
	grep -A1 'name="2048x2048x2048 blockwise fast_accum=off e4m3:e4m3"' g/junit.xml | grep -q '<failure type="missing"' &&
	grep -A1 'name="4096x4096x4096 tensorwise fast_accum=on e4m3:e4m3"' g/junit.xml | grep -q '<failure type="less-accurate"' &&
	grep -A1 'name="2048x2048x2048 axiswise fast_accum=off e4m3:e4m3"' g/junit.xml | grep -q '<error type="wrong"'
ok $? "JUnit: slower, missing and less-accurate are failures, wrong an error"
grep -A1 'name="2048x2048x2048 blockwise fast_accum=on e4m3:e4m3"' g/junit.xml | grep -q '<system-out>new'
ok $? "JUnit: the new case passes"
grep -q '| \*\*slower\*\* |' g/summary.md && grep -q '| \*\*wrong\*\* |' g/summary.md &&
	grep -q 'compare options: `--tolerance 5%`' g/summary.md
ok $? "summary.md: the failing cases and the options"
sh "$gate" --sweep quick --new new.h5 --baselines bl --out g2 --f8bench "$F8BENCH" -- --tolerance 20% >/dev/null 2>&1
[ $? = 1 ] && summ g2 | grep -q "^4 same, 0 faster, 0 slower, 0 unsure, "
ok $? "compare options after --: at 20% nothing is slower ($(summ g2))"

sh "$gate" --new new.h5 --baselines bl --out g3 >g3.txt 2>&1
ok "$([ $? = 1 ] && grep -q "baseline bl/0x2330-quick.h5" g3.txt && [ "$(summ g3)" = "$(summ g)" ] && echo 0 || echo 1)" \
	"without --sweep, a GPU file is gated as the quick sweep"

# Another GPU: the baseline it would need does not exist.
printf '2048 2048 2048 none 0 ok 1.0 0.002 45 0.001\n' | "$fake" h200.h5 "NVIDIA H200" 0x2335
sh "$gate" --sweep quick --new h200.h5 --baselines bl --out h >h.txt 2>&1
rc=$?
ok "$([ $rc = 2 ] && grep -q "no baseline bl/0x2335-quick.h5 for NVIDIA H200" h.txt && echo 0 || echo 1)" \
	"another GPU without a baseline: exit 2 naming the file ($rc: $(tail -1 h.txt))"
valid h/junit.xml "no baseline"
# ... and compared with the H100's baseline, compare refuses.
sh "$gate" --sweep quick --new h200.h5 --baseline bl/0x2330-quick.h5 --out h2 >h2.txt 2>&1
rc=$?
ok "$([ $rc = 2 ] && grep -q "different GPU" h2/compare.txt && echo 0 || echo 1)" \
	"an H200 run against the H100 baseline: exit 2 ($rc)"
sh "$gate" --sweep quick --new h200.h5 --baselines bl --update-baseline --out h3 >/dev/null 2>&1 &&
	[ -f bl/0x2335-quick.h5 ] &&
	sh "$gate" --sweep quick --new h200.h5 --baselines bl --out h4 >/dev/null 2>&1
ok $? "--update-baseline writes bl/0x2335-quick.h5, and the run then passes"

sh "$gate" --sweep bogus --new new.h5 --out x >x.txt 2>&1
ok "$([ $? = 2 ] && grep -q "accepted: quick, accuracy" x.txt && echo 0 || echo 1)" "--sweep bogus: exit 2"
sh "$gate" --help >x.txt 2>&1
ok "$([ $? = 0 ] && grep -q "update-baseline" x.txt && grep -q "host-<sweep>.h5" x.txt && echo 0 || echo 1)" "--help: exit 0, the options and the baseline names"
sh "$gate" --frobnicate >x.txt 2>&1
ok "$([ $? = 2 ] && grep -q "unknown option" x.txt && echo 0 || echo 1)" "an unknown option: exit 2"
[ -z "$(find . -name '*.tmp.*')" ]
ok $? "no temporary files left"
done_testing
