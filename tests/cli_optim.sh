#!/bin/sh
# f8bench optim end to end on the host backend (doc/optim.md): bad input,
# every variant x scaling x granularity with graphs on and off (the optim
# table, the bit-exact check, the SQNRs, bytes per parameter), non-finite
# gradients counted and reported, CSV export, report and compare.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
cd "$tmp" || exit 1
PY=
for p in /usr/bin/python3 python3; do command -v "$p" >/dev/null 2>&1 && PY=$p && break; done
[ -n "$PY" ] || skip_all "no python3 to read the CSV"
Q="--backend host --min-time 0 --min-samples 3 --max-samples 5 --warmup 1"
P="--params 300x129,77,1000"

"$F8BENCH" optim --help >help.txt 2>&1
ok $? "optim --help exits 0"
for opt in --variant --scaling --granularity --steps --params --shapes --chunk-bytes --graph \
	--stochastic --lr --weight-decay --history --nonfinite --ceilings; do
	grep -q -- "$opt" help.txt
	ok $? "optim --help documents $opt"
done

bad() {
	"$F8BENCH" optim $Q "$@" -o bad.h5 >/dev/null 2>err.txt
	rc=$?
	ok "$([ $rc = 2 ] && [ ! -e bad.h5 ] && [ "$(wc -l <err.txt)" -le 2 ] &&
		grep -q "$EXPECT" err.txt && echo 0 || echo 1)" \
		"refused with exit 2 and no file: $* ($(head -c 160 err.txt))"
}
EXPECT="empty parameter list" bad --params ""
EXPECT="empty parameter list" bad --params ","
EXPECT="accepted: fp32, bf16, fp8, fp8-master16" bad $P --variant fp4
EXPECT="accepted: dynamic, dynamic-sync, delayed, predicted" bad $P --scaling current
EXPECT="accepted: tensorwise, axiswise" bad $P --granularity blockwise
EXPECT="on, off" bad $P --graph maybe
EXPECT="chunk-bytes" bad $P --chunk-bytes 0
EXPECT="steps" bad $P --steps 0
EXPECT="params item" bad --params 10x0
EXPECT="beta1^2 < beta2" bad $P --beta1 0.99 --beta2 0.9

"$F8BENCH" optim $Q $P --steps 6 --granularity tensorwise,axiswise --graph on,off \
	-o r.h5 >out.txt 2>err.txt
rc=$?
ok $rc "host: 4 variants x 4 scalings x 2 granularities x graph on/off exits 0"
[ $rc = 0 ] || diag "$(tail -5 err.txt)"
"$F8BENCH" export r.h5 --table optim >r.csv
ok $? "export of the optim table"
check() { # description, then a python expression over r (rows)
	d=$1; shift
	"$PY" - "$@" <<PYEOF
import csv, math
r = list(csv.DictReader(open("r.csv")))
f = lambda x: float(x)
by = lambda v, s, g="tensorwise", gr="1": [x for x in r if x["variant"] == v and x["scaling"] == s and x["granularity"] == g and x["graph"] == gr][0]
import sys
sys.exit(0 if ($1) else 1)
PYEOF
	ok $? "$d"
}
check "64 rows, every one ok and bit-exact" \
	'len(r) == 64 and all(x["status"] == "ok" and x["bitexact"] == "1" for x in r)'
check "the row names: variant, scaling, params, steps, speedup_vs_fp32, status" \
	'all(k in r[0] for k in ("variant", "scaling", "params", "steps", "speedup_vs_fp32", "status")) and r[0]["params"] == "39777" and r[0]["steps"] == "6"'
check "bytes per parameter of state: 12, 8, 6.0625, 4.0625" \
	'[f(by(v, "dynamic")["state_bytes_per_param"]) for v in ("fp32", "bf16", "fp8", "fp8-master16")] == [12, 8, 6.0625, 4.0625]'
check "minimal bytes: fp32 predicted 27, fp8 predicted 15.125, dynamic adds the master" \
	'f(by("fp32", "predicted")["step_bytes_per_param"]) == 27 and f(by("fp8", "predicted")["step_bytes_per_param"]) == 15.125 and f(by("fp32", "dynamic")["step_bytes_per_param"]) == 31'
check "one launch per step, two with dynamic scaling (one with dynamic-sync)" \
	'all(x["launches"] == ("2" if x["scaling"] == "dynamic" else "1") for x in r) and sum(x["scaling"] == "dynamic-sync" for x in r) == 16'
check "dynamic-sync: dynamic's bytes, and its trajectory bit for bit (SQNRs, saturation, range)" \
	'all(by(v, "dynamic-sync", g, gr)[k] == by(v, "dynamic", g, gr)[k] for v in ("fp32", "bf16", "fp8", "fp8-master16") for g in ("tensorwise", "axiswise") for gr in ("0", "1") for k in ("step_bytes_per_param", "min_bytes", "sqnr_w_db", "sqnr_w8_db", "saturated", "range_used", "range_used_min", "clipped"))'
check "speedup_vs_fp32 is 1 for fp32 and finite for the rest" \
	'all(math.isfinite(f(x["speedup_vs_fp32"])) for x in r) and all(f(x["speedup_vs_fp32"]) == 1 for x in r if x["variant"] == "fp32")'
check "the split sequence is timed beside every row" \
	'all(f(x["time_split_s"]) > 0 and math.isfinite(f(x["fused_speedup"])) for x in r)'
check "fp32 states agree with the fp64 AdamW to > 100 dB, bf16 states to > 40 dB" \
	'all(f(x["sqnr_w_db"]) > 100 for x in r if x["variant"] == "fp32") and all(f(x["sqnr_w_db"]) > 40 for x in r if x["variant"] == "bf16")'
check "the fp8 weight: SQNR > 20 dB, predicted within 0.3 dB of dynamic" \
	'all(f(x["sqnr_w8_db"]) > 20 for x in r) and all(abs(f(by(v, "predicted", g)["sqnr_w8_db"]) - f(by(v, "dynamic", g)["sqnr_w8_db"])) < 0.3 for v in ("fp32", "bf16", "fp8", "fp8-master16") for g in ("tensorwise", "axiswise"))'
check "predicted scaling saturates nothing; dynamic uses the whole range" \
	'all(x["saturated"] == "0" for x in r if x["scaling"] == "predicted") and all(abs(f(x["range_used"]) - 1) < 1e-3 for x in r if x["scaling"] in ("dynamic", "dynamic-sync"))'
check "graph on and off give the same trajectory" \
	'all(by(v, s, g, "1")["sqnr_w_db"] == by(v, s, g, "0")["sqnr_w_db"] for v in ("fp32", "fp8") for s in ("dynamic", "dynamic-sync", "predicted") for g in ("tensorwise", "axiswise"))'
check "the sample is every element on a model this small" 'all(x["sampled"] == "39777" for x in r)'

"$F8BENCH" optim $Q --params 4096,100 --steps 3 --nonfinite 4 --variant fp8 --scaling predicted \
	-o nf.h5 >/dev/null 2>err.txt
ok $? "--nonfinite 4: exits 0"
"$F8BENCH" export nf.h5 --table optim >r.csv
check "non-finite gradients counted (12) and reported in the message" \
	'r[0]["nonfinite_grads"] == "12" and "non-finite" in r[0]["message"] and r[0]["status"] == "ok" and math.isfinite(f(r[0]["sqnr_w_db"]))'

"$F8BENCH" optim $Q --params 1000 --steps 3 --variant fp8-master16 --stochastic on \
	--scaling delayed -o sr.h5 >/dev/null 2>err.txt
ok $? "fp8-master16 --stochastic on exits 0"
"$F8BENCH" export sr.h5 --table optim >r.csv
check "stochastic rounding recorded, bit-exact" 'r[0]["stochastic"] == "1" and r[0]["bitexact"] == "1"'

"$F8BENCH" report r.h5 sr.h5 -o rep >rep.txt 2>&1
rc=$?
ok "$([ $rc = 0 ] || [ $rc = 1 ] && echo 0 || echo 1)" "report exits 0 (or 1: no gnuplot) ($(tail -1 rep.txt))"
grep -q '^## Optimizer step (optim)' rep/report.md && grep -q '^### Saturation per scaling' rep/report.md &&
	grep -q '^| predicted | ' rep/report.md && grep -q '^| dynamic-sync | 16 | ' rep/report.md
ok $? "report.md: the optim section, saturation per scaling"
grep -q '^### Dynamic scaling: two launches or one' rep/report.md &&
	[ "$(grep -c '^| [a-z0-9-]* | [0-9.e+-]* | 2 | [0-9.e+-]* | 1 | ' rep/report.md)" = 4 ]
ok $? "report.md: dynamic's two launches against dynamic-sync's one, per variant"
[ -s rep/optim_time.dat ] && [ -s rep/optim_sqnr.dat ] && [ -s rep/optim.csv ] &&
	[ "$(grep -c '^[0-9]' rep/optim_time.dat)" = 4 ]
ok $? "report data: optim_time.dat (4 variants), optim_sqnr.dat, optim.csv"
if [ $rc = 0 ]; then
	[ -s rep/optim_time.png ] && [ -s rep/optim_sqnr.svg ]
	ok $? "report plots optim_time and optim_sqnr"
fi
F8BENCH=$F8BENCH sh "$top/scripts/optim-targets.sh" r.h5 >targets.md 2>&1
ok $? "scripts/optim-targets.sh reads the file ($(head -1 targets.md))"
grep -q '^- fp8 states move 0.560x the bytes of fp32 (target <= 0.58): met' targets.md &&
	[ "$(grep -c '^- .* predicted: 0 saturated' targets.md)" = 4 ]
ok $? "the targets: fp8 bytes, predicted saturation per variant"
[ "$(grep -c '^- .* dynamic-sync: .* in 1 launch against dynamic .* in 2: .* bit-exact yes / yes' targets.md)" = 4 ]
ok $? "the targets: dynamic-sync's one launch against dynamic's two, per variant"
"$F8BENCH" compare r.h5 r.h5 >cmp.txt 2>&1
ok $? "compare of a file with itself passes ($(tail -1 cmp.txt))"
done_testing
