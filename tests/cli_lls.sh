#!/bin/sh
# f8bench lls end to end: bad input, every recipe on the host backend (its
# lls table and lls_kernels detail, the checks' figures), --graph off,
# --resume, mpiexec -n 2, and on a machine with a GPU the same on the cuda
# backend (every cast checked bit for bit against the host there).
. "${srcdir:-.}/tests/tap.sh"
cd "$tmp" || exit 1
PY=
for p in /usr/bin/python3 python3; do command -v "$p" >/dev/null 2>&1 && PY=$p && break; done
[ -n "$PY" ] || skip_all "no python3 to read the CSV"
Q="--min-time 0 --min-samples 3 --max-samples 5 --warmup 1"
SH="--shapes 128x256x192,256x128x64"
ALL=bf16,tensorwise,tensorwise-delayed,axiswise,lw-axiswise-gw-hp,blockwise

"$F8BENCH" lls --help >help.txt 2>&1
ok $? "lls --help exits 0"
for opt in --shapes --recipe --gemm-impl --graph --lanes --history --ceilings --backend --resume --shard; do
	grep -q -- "$opt" help.txt
	ok $? "lls --help documents $opt"
done

# Bad input: exit 2, one line naming what is accepted, no file.
bad() {
	"$F8BENCH" lls --backend host $Q "$@" -o bad.h5 >/dev/null 2>err.txt
	rc=$?
	ok "$([ $rc = 2 ] && [ ! -e bad.h5 ] && grep -q "$EXPECT" err.txt && echo 0 || echo 1)" \
		"refused with exit 2 and no file: $* ($(head -c 150 err.txt))"
}
EXPECT="accepted" bad --recipe nonsense
EXPECT="on, off" bad --graph maybe
EXPECT="accepted: 1, 2, auto" bad --lanes 3
EXPECT="accepted: 1, 2, auto" bad --lanes two
EXPECT="1..1024" bad --history 0
EXPECT="multiple of 16" bad --shapes 100x256x256
EXPECT="unknown recipe field" bad --recipe "tensorwise,bogus=1"
EXPECT="listed twice" bad --recipe tensorwise,tensorwise
EXPECT="accepted: cublaslt, f8b" bad --gemm-impl cublas
EXPECT="'f8b' is listed twice" bad --gemm-impl f8b,cublaslt,f8b

# Python reads the tables (quoted fields hold commas).
cat >rd.py <<'EOF'
import csv, sys, math
def rows(path):
    return list(csv.DictReader(open(path)))
EOF

"$F8BENCH" lls --backend host $Q $SH --recipe $ALL -o r.h5 >out.txt 2>err.txt
rc=$?
ok $rc "host: every recipe on two shapes exits 0"
[ $rc = 0 ] || diag "$(tail -5 err.txt)"
"$F8BENCH" export r.h5 --table lls >r.csv && "$F8BENCH" export r.h5 --table lls_kernels >k.csv
ok $? "export --csv of the lls and lls_kernels tables"
check() { # description, then a python expression over r (lls rows) and k (kernel rows)
	d=$1; shift
	"$PY" - "$@" <<EOF
import csv, math
r = list(csv.DictReader(open("r.csv")))
k = list(csv.DictReader(open("k.csv")))
f = lambda x: float(x)
fp8 = [x for x in r if x["recipe"] != "bf16"]
by = lambda name, m="128": [x for x in r if x["recipe"] == name and x["m"] == m][0]
import sys
sys.exit(0 if ($*) else 1)
EOF
	ok $? "$d"
}
check "12 rows, every one ok" 'len(r) == 12 and all(x["status"] == "ok" for x in r)'
check "every row's kernels are in lls_kernels, numbered 0..launches-1" \
	'all(sorted(int(y["index"]) for y in k if (y["m"], y["recipe"]) == (x["m"], x["recipe"])) == list(range(int(x["launches"]))) for x in r)'
check "bf16 steps: no cast, three bf16 GEMMs read the tensors as stored" \
	'all(x["casts_checked"] == "0" for x in r if x["recipe"] == "bf16") and sum(1 for y in k if y["recipe"] == "bf16" and y["kernel"] == "gemm" and y["dtype"] == "bf16") == 6 and not any(y["kernel"] == "cast_transpose" for y in k if y["recipe"] == "bf16")'
check "fp8 steps: every cast checked against the host codec" \
	'all(int(x["casts_checked"]) >= 2 for x in fp8)'
check "SQNR: bf16 above 40 dB, fp8 between 15 and 45 dB (y, grad_x, grad_W)" \
	'all(f(x[c]) > 40 for x in r if x["recipe"] == "bf16" for c in ("sqnr_y_db","sqnr_grad_x_db","sqnr_grad_w_db")) and all(15 < f(x[c]) < 45 for x in fp8 for c in ("sqnr_y_db","sqnr_grad_x_db","sqnr_grad_w_db"))'
check "lw-axiswise-gw-hp: grad_W in bf16 is 5 dB better than axiswise's" \
	'f(by("lw-axiswise-gw-hp")["sqnr_grad_w_db"]) > f(by("axiswise")["sqnr_grad_w_db"]) + 5'
check "tensorwise: one fused kernel casts x_ln and x_ln^T (layernorm+amax+cast+T)" \
	'any(y["recipe"] == "tensorwise" and y["kernel"] == "layernorm_fwd_cast" and "+T" in y["fuses"] for y in k)'
check "axiswise: transposed operands by amax_t + scales + cast_transpose" \
	'sum(1 for y in k if y["recipe"] == "axiswise" and y["m"] == "128" and y["kernel"] == "cast_transpose") == 3'
check "tensorwise-delayed: history 16, its history steps, the scale current (staleness 1)" \
	'by("tensorwise-delayed")["history_len"] == "16" and f(by("tensorwise-delayed")["scale_staleness"]) == 1.0 and any(y["kernel"] == "history_scale" for y in k)'
check "dynamic recipes: no history, staleness NaN" \
	'by("tensorwise")["history_len"] == "0" and math.isnan(f(by("tensorwise")["scale_staleness"]))'
check "tensorwise keeps fewer bytes for the backward than bf16 when M > N (x_ln^T in fp8, plus W^T)" \
	'0 < int(by("tensorwise", "256")["saved_bytes"]) < int(by("bf16", "256")["saved_bytes"])'
check "peak memory at most what the step allocates, and above its inputs" \
	'all(int(x["peak_mem_bytes"]) <= int(x["device_mem_bytes"]) and int(x["peak_mem_bytes"]) > 2 * int(x["m"]) * int(x["k"]) for x in r)'
check "speedup over the same-process bf16 step on every row" \
	'all(abs(f(x["speedup_vs_bf16"]) * f(x["time_median_s"]) - f(by("bf16", x["m"])["time_median_s"])) < 1e-9 for x in r)'
check "kernel rows: bytes, time and GB/s agree" \
	'all(abs(f(y["gbps"]) - f(y["bytes"]) / f(y["time_median_s"]) / 1e9) < 1e-6 * f(y["gbps"]) for y in k)'
check "in the step: every kernel's time on its lane (in_step_median_s) and the traced step's, positive; the kernels' in-step times add up to no more than the traced step (x1.25, medians)" \
	'all(f(y["in_step_median_s"]) > 0 for y in k) and all(0 < sum(f(y["in_step_median_s"]) for y in k if (y["m"], y["recipe"]) == (x["m"], x["recipe"])) <= 1.25 * f(x["traced_time_median_s"]) for x in r)'
check "reference: every element on these shapes (host-f64)" 'all(x["reference"] == "host-f64" for x in r)'

# --gemm-impl cublaslt,f8b: each fp8 recipe on each, bf16 once on
# cuBLASLt.  The host backend refuses f8b: those rows are unsupported with
# its refusal, the exit status stays 0, and the cublaslt rows pass.
"$F8BENCH" lls --backend host $Q --shapes 128x256x192 --recipe bf16,tensorwise,lw-axiswise-gw-hp \
	--gemm-impl cublaslt,f8b -o gi.h5 >gi.out 2>gi.err
ok $? "--gemm-impl cublaslt,f8b on the host backend exits 0"
"$F8BENCH" export gi.h5 --table lls >gi.csv && "$F8BENCH" export gi.h5 --table lls_kernels >gik.csv
"$PY" - <<'EOF'
import csv, sys
r = list(csv.DictReader(open("gi.csv")))
imp = sorted((x["recipe"], x["gemm_impl"], x["status"]) for x in r)
want = [("bf16", "cublaslt", "ok"), ("lw-axiswise-gw-hp", "cublaslt", "ok"),
        ("lw-axiswise-gw-hp", "f8b", "unsupported"), ("tensorwise", "cublaslt", "ok"),
        ("tensorwise", "f8b", "unsupported")]
print("# %s" % imp)
sys.exit(0 if imp == want else 1)
EOF
ok $? "5 rows: bf16 once on cublaslt, each fp8 recipe ok on cublaslt and unsupported on f8b"
"$PY" - <<'EOF'
import csv, sys
r = list(csv.DictReader(open("gi.csv"))); k = list(csv.DictReader(open("gik.csv")))
bad = [x for x in r if x["gemm_impl"] == "f8b" and not ("impl f8b" in x["message"] and "host" in x["message"] and x["message"].startswith("output: "))]
kern = all(y["gemm_impl"] == "cublaslt" for y in k) and len(k) == sum(int(x["launches"]) for x in r if x["status"] == "ok")
sys.exit(0 if not bad and kern else 1)
EOF
ok $? "the f8b rows name the refused GEMM and the host's refusal; every kernel row carries gemm_impl"
grep -q "tensorwise gemm f8b: unsupported" gi.err
ok $? "the progress line names the implementation beside the recipe"

# --graph off computes the same numbers.
"$F8BENCH" lls --backend host $Q --shapes 128x256x192 --recipe tensorwise,blockwise --graph off -o g.h5 2>/dev/null
ok $? "--graph off runs"
"$F8BENCH" export g.h5 --table lls >g.csv
"$PY" - <<'EOF'
import csv, sys
a = {x["recipe"]: x for x in csv.DictReader(open("r.csv")) if x["m"] == "128"}
b = {x["recipe"]: x for x in csv.DictReader(open("g.csv"))}
sys.exit(0 if all(b[n]["graph"] == "0" and b[n]["sqnr_min_db"] == a[n]["sqnr_min_db"] for n in b) else 1)
EOF
ok $? "--graph off: graph 0 in the row, the same SQNRs as with the graph"
check "the default (auto) runs these small steps on two lanes (lanes 2 in every row)" 'all(x["lanes"] == "2" for x in r)'
"$F8BENCH" lls --backend host $Q --shapes 128x256x192 --recipe tensorwise --lanes auto -o la.h5 2>/dev/null &&
	"$F8BENCH" export la.h5 --table lls | grep -q ',2,'
ok $? "--lanes auto is accepted and runs a small step on two lanes"

# --lanes 1: one stream, the same kernels and numbers (on the host the
# lanes are program order either way).
"$F8BENCH" lls --backend host $Q --shapes 128x256x192 --recipe $ALL --lanes 1 -o l1.h5 2>/dev/null
ok $? "--lanes 1 runs"
"$F8BENCH" export l1.h5 --table lls >l1.csv
"$PY" - <<'EOF'
import csv, sys
a = {x["recipe"]: x for x in csv.DictReader(open("r.csv")) if x["m"] == "128"}
b = {x["recipe"]: x for x in csv.DictReader(open("l1.csv"))}
sys.exit(0 if b.keys() == a.keys() and all(b[n]["lanes"] == "1" and b[n]["launches"] == a[n]["launches"] and b[n]["sqnr_min_db"] == a[n]["sqnr_min_db"] for n in b) else 1)
EOF
ok $? "--lanes 1: lanes 1 in the row, the same kernels and SQNRs as with two"
"$F8BENCH" lls --backend host $Q --shapes 128x256x192 --recipe $ALL --lanes 2 -o l1.h5 --resume >/dev/null 2>l1res.txt
"$F8BENCH" export l1.h5 --table lls >l12.csv
"$PY" - <<'EOF'
import csv, sys
r = list(csv.DictReader(open("l12.csv")))
sys.exit(0 if len(r) == 12 and sorted(x["lanes"] for x in r) == ["1"] * 6 + ["2"] * 6 else 1)
EOF
ok $? "--resume with another --lanes runs every case again (6 rows of each lane count)"

# A long form runs as its own case.
"$F8BENCH" lls --backend host $Q --shapes 128x256x192 --recipe "tensorwise,grad_output=tensorwise:e4m3" -o c.h5 2>/dev/null
ok $? "a long-form recipe runs"
"$F8BENCH" export c.h5 --table lls | grep -q "grad_output=tensorwise:e4m3:dynamic"
ok $? "its recipe_long column holds the override"

# --resume: nothing run twice, the detail table kept.
nk=$(($(wc -l <k.csv) - 1))
"$F8BENCH" lls --backend host $Q $SH --recipe $ALL -o r.h5 --resume >/dev/null 2>res.txt
ok $? "--resume of a finished sweep exits 0"
grep -q "0 cases left" res.txt
ok $? "--resume finds every case done"
"$F8BENCH" export r.h5 --table lls_kernels >k2.csv
ok "$([ $(($(wc -l <k2.csv) - 1)) = "$nk" ] && echo 0 || echo 1)" "the kernels table untouched ($nk rows)"

# mpiexec -n 2: every case once, every case's kernels.
if [ -n "$MPIEXEC" ]; then
	extra=$(ompi_flags --oversubscribe)
	$MPIEXEC $extra -n 2 "$F8BENCH" lls --backend host $Q $SH --recipe $ALL -q -o m.h5 2>merr.txt
	ok $? "mpiexec -n 2 f8bench lls"
	"$F8BENCH" export m.h5 --table lls >m.csv && "$F8BENCH" export m.h5 --table lls_kernels >mk.csv
	"$PY" - <<'EOF'
import csv, sys
r = list(csv.DictReader(open("m.csv"))); k = list(csv.DictReader(open("mk.csv")))
s = list(csv.DictReader(open("r.csv")))
key = lambda x: (x["m"], x["recipe"])
same = sorted((key(x), x["sqnr_min_db"]) for x in r) == sorted((key(x), x["sqnr_min_db"]) for x in s)
ranks = {x["rank"] for x in r}
kern = all(sum(1 for y in k if key(y) == key(x)) == int(x["launches"]) for x in r)
sys.exit(0 if same and ranks == {"0", "1"} and kern else 1)
EOF
	ok $? "2 ranks: the same cases and SQNRs as one rank, both ranks ran cases, every case's kernels"
else
	skip "no mpiexec found by configure"
fi

# The cuda backend, where there is a GPU.
cp r.csv host.csv
"$F8BENCH" lls --backend cuda $Q --shapes 128x256x192,256x128x64 --recipe $ALL -o cu.h5 >/dev/null 2>cerr.txt
rc=$?
if [ $rc = 2 ] && grep -qE "no usable GPU|without CUDA" cerr.txt; then
	skip "no GPU: the cuda backend's lls runs on GPU machines ($(head -c 100 cerr.txt))"
else
	ok $rc "cuda: every recipe on two shapes exits 0"
	[ $rc = 0 ] || diag "$(tail -5 cerr.txt)"
	"$F8BENCH" export cu.h5 --table lls >r.csv && "$F8BENCH" export cu.h5 --table lls_kernels >k.csv
	check "cuda: every row ok (casts bit-exact with the host, SQNRs above their floors)" \
		'len(r) == 12 and all(x["status"] == "ok" for x in r)'
	check "cuda: in the step, every kernel's time positive and within the traced step; the traced (eager) step within 5x the graph's" \
		'all(0 < f(y["in_step_median_s"]) <= 1.05 * f(by(y["recipe"], y["m"])["traced_time_median_s"]) for y in k) and all(0 < f(x["traced_time_median_s"]) < 5 * f(x["time_median_s"]) for x in r)'
	"$PY" - <<'EOF2'
import csv, sys
g = {(x["m"], x["recipe"]): float(x["sqnr_min_db"]) for x in csv.DictReader(open("r.csv"))}
h = {(x["m"], x["recipe"]): float(x["sqnr_min_db"]) for x in csv.DictReader(open("host.csv"))}
sys.exit(0 if g.keys() == h.keys() and all(abs(g[c] - h[c]) < 1.0 for c in g) else 1)
EOF2
	ok $? "cuda: each case's worst SQNR within 1 dB of the host backend's"
	"$F8BENCH" lls --backend cuda $Q --shapes 256x256x256 --recipe tensorwise-delayed,axiswise --graph off -o cg.h5 >/dev/null 2>&1
	ok $? "cuda: --graph off"
	# One stream against two: the same results (the GEMMs' algorithms and
	# every cast are the same; only the order in time differs).
	"$F8BENCH" lls --backend cuda $Q --shapes 256x256x256 --recipe $ALL -o c2.h5 >/dev/null 2>&1 &&
		"$F8BENCH" lls --backend cuda $Q --shapes 256x256x256 --recipe $ALL --lanes 1 -o c1.h5 >/dev/null 2>&1
	ok $? "cuda: --lanes 2 and --lanes 1"
	"$F8BENCH" export c2.h5 --table lls >c2.csv && "$F8BENCH" export c1.h5 --table lls >c1.csv
	"$PY" - <<'EOF2'
import csv, sys
a = {x["recipe"]: x for x in csv.DictReader(open("c2.csv"))}
b = {x["recipe"]: x for x in csv.DictReader(open("c1.csv"))}
c = ("sqnr_y_db", "sqnr_grad_x_db", "sqnr_grad_w_db")
ok = len(a) == 6 and a.keys() == b.keys() and all(a[n]["status"] == b[n]["status"] == "ok" and a[n]["lanes"] == "2" and b[n]["lanes"] == "1" and all(abs(float(a[n][k]) - float(b[n][k])) < 0.05 for k in c) for n in a)
sys.exit(0 if ok else 1)
EOF2
	ok $? "cuda: every recipe ok on one lane and on two, SQNRs within 0.05 dB"
	# --gemm-impl f8b beside cublaslt: on an sm_90 GPU every recipe's f8b
	# step passes the same checks (every cast bit for bit, the SQNR
	# floors) within 0.5 dB of cuBLASLt's; elsewhere the f8b rows are
	# unsupported, naming sm_90a, and the cublaslt rows still pass.
	"$F8BENCH" lls --backend cuda $Q --shapes 256x256x256,512x256x384 --recipe $ALL \
		--gemm-impl cublaslt,f8b -o cg8.h5 >/dev/null 2>cg8.err
	rc=$?
	"$F8BENCH" export cg8.h5 --table lls >cg8.csv 2>/dev/null
	"$PY" - <<'EOF2'
import csv, sys
r = list(csv.DictReader(open("cg8.csv")))
cub = {(x["m"], x["recipe"]): x for x in r if x["gemm_impl"] == "cublaslt"}
own = {(x["m"], x["recipe"]): x for x in r if x["gemm_impl"] == "f8b"}
fp8 = {c for c in cub if c[1] != "bf16"}
ok = len(r) == 2 + 2 * 2 * 5 and set(own) == fp8 and all(x["status"] == "ok" for x in cub.values())
if all(x["status"] == "unsupported" and "sm_90a" in x["message"] for x in own.values()):
    print("# not an sm_90 GPU: %s" % list(own.values())[0]["message"])
    sys.exit(0 if ok else 1)
c = ("sqnr_y_db", "sqnr_grad_x_db", "sqnr_grad_w_db")
bad = [k for k in own if own[k]["status"] != "ok" or
       any(abs(float(own[k][n]) - float(cub[k][n])) > 0.5 for n in c)]
print("# f8b against cublaslt, not within 0.5 dB or not ok: %s" % bad)
sys.exit(0 if ok and not bad else 1)
EOF2
	st=$?
	[ $rc = 0 ] && [ $st = 0 ]
	ok $? "cuda --gemm-impl cublaslt,f8b: f8b rows ok within 0.5 dB of cuBLASLt's on sm_90, else unsupported naming sm_90a (rc $rc)"
	# A recipe cuBLASLt cannot run here (blockwise with fast_accum on
	# Hopper) is an unsupported row that says why, and exit status 0.
	"$F8BENCH" lls --backend cuda $Q --shapes 256x256x256 \
		--recipe 'blockwise,output=fast_accum' -o cf.h5 >/dev/null 2>cf.err
	rc=$?
	"$F8BENCH" export cf.h5 --table lls >cf.csv 2>/dev/null
	"$PY" - <<'EOF2'
import csv, sys
r = list(csv.DictReader(open("cf.csv")))
ok = len(r) == 1 and r[0]["status"] in ("unsupported", "ok") and \
    (r[0]["status"] == "ok" or "fast_accum" in r[0]["message"])
print("# %s: %s" % (r[0]["status"], r[0]["message"][:150]) if r else "# no row")
sys.exit(0 if ok else 1)
EOF2
	st=$?
	[ $rc = 0 ] && [ $st = 0 ]
	ok $? "cuda: blockwise with fast_accum: exit 0, an unsupported row naming fast_accum where cuBLASLt has no kernel (rc $rc)"
fi
done_testing
