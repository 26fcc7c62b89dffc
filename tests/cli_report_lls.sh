#!/bin/sh
# f8bench report for the lls benchmark, end to end on the host backend: the
# data files (the speedup and predicted columns checked against the rows,
# the breakdown against the kernel rows), report.md's sections, the rows not
# plotted, PNG and SVG from gnuplot; export and merge of the lls_kernels
# detail table (run ids remapped, --keep-last drops a row's kernels too).
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
cd "$tmp" || exit 1
unset GNUPLOT
PY=
for p in /usr/bin/python3 python3; do command -v "$p" >/dev/null 2>&1 && PY=$p && break; done
[ -n "$PY" ] || skip_all "no python3 to read the data files"

Q="--backend host --min-time 0 --min-samples 3 --max-samples 3 --warmup 1 -q"
ALL=bf16,tensorwise,tensorwise-delayed,axiswise,lw-axiswise-gw-hp,blockwise
# Measured ceilings (of an H100) give the host rows a roofline prediction.
CEIL=$top/results/h100/ceilings.h5
[ -f "$CEIL" ] && CEILOPT="--ceilings $CEIL" || CEILOPT=

"$F8BENCH" report --help | grep -q "lls_breakdown"
ok $? "report --help names the lls plots"

"$F8BENCH" lls $Q --shapes 64x64x64,128x128x128,64x128x96 --recipe $ALL $CEILOPT -o r.h5 \
	2>lls.err
ok $? "host lls sweep for the report (3 shapes x 6 recipes)"

# Without gnuplot (GPU nodes have none) report writes the data and
# report.md and exits 1; the plot checks then skip.
if GNUPLOT= command -v gnuplot >/dev/null 2>&1; then gp=1; want=0; else gp=0; want=1; fi
# Exit status 0 of a command whose report should exit $want.
want() { [ "$1" = "$want" ] && echo 0 || echo 1; }

"$F8BENCH" report r.h5 -o rep >rep.out 2>rep.err
rc=$(want $?)
ok $rc "report of an lls file exits $want (gnuplot: $gp)"
[ $rc = 0 ] || diag "$(cat rep.err rep/gnuplot.log 2>/dev/null | tail -5)"
for f in report.md lls.csv lls-kernels.csv lls-speedup.dat lls-breakdown.dat lls-vars.gp; do
	[ -s "rep/$f" ]
	ok $? "rep/$f written"
done
for p in lls_speedup lls_breakdown lls_roofline; do
	if [ $gp = 1 ]; then
		[ "$(head -c 4 "rep/$p.png" 2>/dev/null | tail -c 3)" = "PNG" ]
		ok $? "gnuplot drew $p.png"
		grep -q "<svg" "rep/$p.svg" 2>/dev/null
		ok $? "gnuplot drew $p.svg"
	else
		skip "$p.png and .svg: no gnuplot here"
	fi
done

"$F8BENCH" export r.h5 --table lls >r.csv && "$F8BENCH" export r.h5 --table lls_kernels >k.csv
ok $? "export --csv of lls and lls_kernels"
"$F8BENCH" export r.h5 >all.csv
grep -qx "# table lls" all.csv && grep -qx "# table lls_kernels" all.csv
ok $? "export without --table writes both tables"

# Reads lls-vars.gp (series) and lls-speedup.dat (one block per series).
cat >rd.py <<'EOF'
import csv, math, re, sys
def series(d):
    s = {}
    for line in open(d + "/lls-vars.gp"):
        for k, i, v in re.findall(r'(s_recipe|s_title|s_graph|bar_name)\[(\d+)\] = ("[^"]*"|\d+)', line):
            s.setdefault(k, {})[int(i)] = v.strip('"')
    return s
def blocks(path):
    out, cur = [], None
    for line in open(path):
        if line.startswith("# series") or line.startswith("# category") or line.startswith("# step") or line.startswith("# box"):
            cur = []; out.append(cur)
        elif line.strip() and not line.startswith("#") and cur is not None:
            cur.append(line.split())
    return out
def close(a, b, tol=1e-5):
    if a in ("NaN", "nan") or b in ("NaN", "nan", ""):
        return a in ("NaN", "nan") and b in ("NaN", "nan", "")
    return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(b)))
EOF

"$PY" - <<'EOF'
import csv, sys
exec(open("rd.py").read())
rows = list(csv.DictReader(open("r.csv")))
s, b = series("rep"), blocks("rep/lls-speedup.dat")
bad = []
if len(b) != len(s["s_recipe"]) or len(b) != 6:
    bad.append("blocks %d series %d" % (len(b), len(s["s_recipe"])))
pred = {r["m"] + "x" + r["k"] + "x" + r["n"]: float(r["predicted_time_s"]) for r in rows if r["recipe"] == "bf16"}
for i, blk in enumerate(b, 1):
    rec = s["s_recipe"][i]
    for x, sp, lo, hi, ps, pct, n, shape in blk:
        m, k, nn = shape.split("x")
        r = [r for r in rows if r["recipe"] == rec and (r["m"], r["k"], r["n"]) == (m, k, nn)]
        if len(r) != 1: bad.append("%s %s: %d rows" % (rec, shape, len(r))); continue
        r = r[0]
        if not close(sp, r["speedup_vs_bf16"]): bad.append("%s %s speedup %s vs %s" % (rec, shape, sp, r["speedup_vs_bf16"]))
        want = pred[shape] / float(r["predicted_time_s"])
        if not close(ps, str(want)): bad.append("%s %s predicted %s vs %s" % (rec, shape, ps, want))
        if not close(pct, r["pct_of_roofline"]): bad.append("%s %s pct" % (rec, shape))
        # not every shape square: x is M*K*N
        if float(x) != int(m) * int(k) * int(nn): bad.append("%s x %s" % (shape, x))
print("\n".join("# " + x for x in bad[:5]))
sys.exit(1 if bad else 0)
EOF
ok $? "lls-speedup.dat: each series' speedup, predicted speedup (bf16 predicted / predicted) and % of roofline match the rows; x = M*K*N"

"$PY" - <<'EOF'
import csv, sys
exec(open("rd.py").read())
rows = list(csv.DictReader(open("r.csv"))); kern = list(csv.DictReader(open("k.csv")))
s, b = series("rep"), blocks("rep/lls-breakdown.dat")
bad = []
names = s.get("bar_name", {})
if [names[i] for i in sorted(names)] != ["bf16", "tensorwise", "tensorwise-delayed", "axiswise", "lw-axiswise-gw-hp", "blockwise"]:
    bad.append("bars %s" % names)
if 'bd_shape = "128x128x128"' not in open("rep/lls-vars.gp").read():
    bad.append("breakdown shape is not the largest square one")
for bar, name in names.items():
    boxes = [l for blk in b[:5] for l in blk if l[0] == str(bar)]
    ks = [k for k in kern if k["recipe"] == name and k["m"] == "128" and k["k"] == "128" and k["n"] == "128"]
    row = [r for r in rows if r["recipe"] == name and r["m"] == "128" and r["k"] == "128"][0]
    if len(boxes) != len(ks) or len(ks) != int(row["launches"]):
        bad.append("%s: %d boxes, %d kernels, %s launches" % (name, len(boxes), len(ks), row["launches"]))
    if sum(1 for l in b[0] if l[0] == str(bar) and l[5] == "gemm") != 3:
        bad.append("%s: not 3 GEMMs in the GEMM block" % name)
    end = max(float(l[2]) for l in boxes)
    if not close(str(end), str(1e3 * float(row["kernels_time_s"])), 1e-4):
        bad.append("%s: stack ends at %s, kernels sum %s ms" % (name, end, 1e3 * float(row["kernels_time_s"])))
    mk = [l for l in b[5] if l[0] == str(bar)]
    if len(mk) != 1 or not close(mk[0][1], str(1e3 * float(row["time_median_s"]))):
        bad.append("%s: step marker" % name)
print("\n".join("# " + x for x in bad[:5]))
sys.exit(1 if bad else 0)
EOF
ok $? "lls-breakdown.dat: one bar per recipe (bf16 first) at 128x128x128, one box per kernel, 3 GEMMs, stacks end at the kernels' sum, step markers"

"$PY" - <<'EOF'
import csv, sys
a = list(csv.DictReader(open("rep/lls.csv"))); r = list(csv.DictReader(open("r.csv")))
k = list(csv.DictReader(open("rep/lls-kernels.csv"))); kk = list(csv.DictReader(open("k.csv")))
cats = {x["category"] for x in k}
ok = len(a) == len(r) == 18 and len(k) == len(kk) and {"GEMM", "casts, amax, scales", "layernorm / sigmoid"} <= cats
sys.exit(0 if ok else 1)
EOF
ok $? "lls.csv has every row, lls-kernels.csv every kernel with its category"

md=rep/report.md
for sec in "## lls: LayerNorm -> Linear -> Sigmoid training step" "## lls: fp8 step speedup over bf16" \
	"## lls: step % of roofline" "## lls: where the step's time goes, 128x128x128" \
	"## lls: rows not plotted" "## Provenance"; do
	grep -qF "$sec" $md
	ok $? "report.md has \"$sec\""
done
[ "$(grep -c '^| 64x128x96 | ' $md)" = 6 ] && [ "$(grep -c '^| 128x128x128 | ' $md)" = 6 ]
ok $? "report.md: one line per shape x recipe"
grep -q '^| axiswise | [0-9.]* | [0-9.]* | [0-9.]* |' $md
ok $? "report.md: the breakdown's per-category line of axiswise"
grep -q "Every lls row has status" $md
ok $? "report.md: no row left out"
if [ $gp = 1 ]; then
	grep -qF "![lls step speedup over bf16](lls_speedup.png)" $md && grep -qF "(lls_breakdown.png)" $md
	ok $? "report.md shows the plots"
else
	grep -q "not drawn" $md
	ok $? "report.md says the plots were not drawn"
fi

# Rows that did not run: a shape no host has memory for.
"$F8BENCH" lls $Q --shapes 64x64x64,262144x262144x262144 --recipe bf16,tensorwise -o u.h5 2>/dev/null
"$F8BENCH" report u.h5 -o urep >/dev/null 2>&1
ok "$(want $?)" "report of a file with unsupported rows exits $want"
# (lanes 1: --lanes auto runs a step that large on one lane)
grep -q "^| unsupported | tensorwise | cublaslt | on | 1 | 1 | 262144x262144x262144 | needs " urep/report.md
ok $? "report.md lists the unsupported rows with their message"
grep -q "262144" urep/lls-speedup.dat
ok "$([ $? = 1 ] && echo 0 || echo 1)" "the unsupported rows are not plotted"
grep -q ",unsupported," urep/lls.csv
ok $? "lls.csv keeps the unsupported rows"

# Only bf16: the speedup plot says so instead of failing.
"$F8BENCH" lls $Q --shapes 64x64x64 --recipe bf16 -o b.h5 2>/dev/null
"$F8BENCH" report b.h5 -o brep >/dev/null 2>&1
ok "$(want $?)" "report of bf16 rows only exits $want (plots drawn: $(cd brep && ls *.png 2>/dev/null | tr '\n' ' '))"

# merge carries lls_kernels, run ids remapped; --keep-last drops the kernels of a dropped row.
"$F8BENCH" lls $Q --shapes 64x64x64 --recipe bf16,tensorwise --graph off -o g.h5 2>/dev/null
"$F8BENCH" merge -q m.h5 r.h5 g.h5
ok $? "merge of two lls files"
"$F8BENCH" export m.h5 --table lls_kernels >mk.csv && "$F8BENCH" export g.h5 --table lls_kernels >gk.csv
"$F8BENCH" export m.h5 --table lls >m.csv
"$PY" - <<'EOF'
import csv, sys
k, g, mk, m = (list(csv.DictReader(open(f))) for f in ("k.csv", "gk.csv", "mk.csv", "m.csv"))
ids = {x["run_id"] for x in mk}
key = lambda x: (x["m"], x["k"], x["n"], x["recipe"], x["index"], x["kernel"])
ok = len(mk) == len(k) + len(g) and ids == {"1", "2"} \
    and sorted(map(key, (x for x in mk if x["run_id"] == "1"))) == sorted(map(key, k)) \
    and sorted(map(key, (x for x in mk if x["run_id"] == "2"))) == sorted(map(key, g)) \
    and {x["run_id"] for x in m} == ids
sys.exit(0 if ok else 1)
EOF
ok $? "merged lls_kernels: every input's kernels, run ids 1 and 2 like the lls rows'"
"$F8BENCH" report m.h5 -o mrep >/dev/null 2>&1
ok "$(want $?)" "report of the merged file exits $want"
grep -q '"tensorwise, graph off"' mrep/lls-vars.gp && ! grep -q "have no kernels" mrep/report.md
ok $? "the merged report tells graph on from off and pairs every row with its kernels"
"$F8BENCH" merge -q kl.h5 g.h5 g.h5 --keep-last
"$F8BENCH" export kl.h5 --table lls_kernels >klk.csv
ok "$([ "$(wc -l <klk.csv)" = "$(wc -l <gk.csv)" ] && echo 0 || echo 1)" \
	"merge --keep-last keeps the kept rows' kernels only ($(wc -l <klk.csv) lines)"

# A step far longer than any of its kernels (host timings under load): no
# box of the breakdown is wide enough for a label, and the breakdown is
# still drawn (gnuplot 5.4 died of SIGSEGV on the empty labels block).
PYH=
for p in /usr/bin/python3 python3; do "$p" -c 'import h5py' 2>/dev/null && { PYH=$p; break; }; done
if [ -n "$PYH" ]; then
	cp r.h5 slow.h5
	"$PYH" - <<'EOF'
import h5py
with h5py.File("slow.h5", "r+") as f:
    t = f["lls"][...]
    t["time_median_s"] *= 100.0
    f["lls"][...] = t
EOF
	"$F8BENCH" report slow.h5 -o srep >/dev/null 2>&1
	ok "$(want $?)" "report of steps 100x longer than their kernels exits $want"
	grep -q '^0 1 ""$' srep/lls-breakdown.dat && ! grep -q 'NaN NaN ""' srep/lls-breakdown.dat
	ok $? "no box wide enough for a label: one empty label at a real point, no NaN-only block"
	if [ $gp = 1 ]; then
		[ -s srep/lls_breakdown.png ] && [ -s srep/lls_breakdown.svg ]
		ok $? "gnuplot drew that breakdown"
	else
		skip "no gnuplot: the plots are not drawn"
	fi
else
	for i in 1 2 3; do skip "no python3 with h5py"; done
fi

# One lane beside two (--lanes): separate series, titled by their lanes,
# and a lanes column in lls.csv.
"$F8BENCH" lls $Q --shapes 64x64x64 --recipe bf16,tensorwise --lanes 1 -o l1.h5 2>/dev/null
"$F8BENCH" lls $Q --shapes 64x64x64 --recipe bf16,tensorwise -o l2.h5 2>/dev/null
"$F8BENCH" report l1.h5 l2.h5 -o lrep >/dev/null 2>&1
ok "$(want $?)" "report of a one-lane and a two-lane file exits $want"
grep -q '"tensorwise, 1 lane"' lrep/lls-vars.gp && grep -q '"tensorwise, 2 lanes"' lrep/lls-vars.gp &&
	! grep -q "have no kernels" lrep/report.md
ok $? "the report tells one lane from two and pairs every row with its kernels"
"$PY" - <<'EOF'
import csv, sys
r = list(csv.DictReader(open("lrep/lls.csv")))
sys.exit(0 if sorted(x["lanes"] for x in r) == ["1", "1", "2", "2"] else 1)
EOF
ok $? "lls.csv has the lanes of every row"
"$F8BENCH" report l2.h5 -o l2rep >/dev/null 2>&1
! grep -qE ', (1 lane|2 lanes)' l2rep/lls-vars.gp
ok $? "one lane count only: no lanes in the titles"
# Lanes that follow the shape (--lanes auto: two for small steps, one for
# the largest) are not a comparison: one series per recipe, untitled lanes.
"$F8BENCH" lls $Q --shapes 128x128x128 --recipe bf16,tensorwise --lanes 1 -o l3.h5 2>/dev/null
"$F8BENCH" report l2.h5 l3.h5 -o l3rep >/dev/null 2>&1
ok "$(want $?)" "report of lanes 2 at one shape and 1 at another exits $want"
! grep -qE ', (1 lane|2 lanes)' l3rep/lls-vars.gp &&
	[ "$(grep -c '^s_recipe\[' l3rep/lls-vars.gp)" = 2 ]
ok $? "lanes that differ only between shapes: one series per recipe, no lanes in the titles"

done_testing
