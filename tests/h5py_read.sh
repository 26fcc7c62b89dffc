#!/bin/sh
# A results file is readable with h5py alone (no f8bench), as users read it.
. "${srcdir:-.}/tests/tap.sh"
PY=
for p in /usr/bin/python3 python3; do
	if $p -c 'import h5py' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip_all "no python3 with h5py"
cd "$tmp" || exit 1
"$F8BENCH" gemm --backend host --min-time 0 --min-samples 3 --max-samples 5 --warmup 1 -q \
	--shapes 256x256x256 --scaling tensorwise,blockwise --fast-accum on -o r.h5
ok $? "write a results file"
$PY - r.h5 <<'PYEOF'
import sys, h5py, math
f = h5py.File(sys.argv[1], "r")
t = f["gemm"][:]
n = 0
def ok(c, msg):
    global n
    n += 1
    print(("ok" if c else "not ok"), n + 1, "-", msg)
ok(len(t) == 3, "h5py reads 3 rows (bf16 + 2 fp8)")
ok(set(t.dtype.names) >= {"M" if "M" in t.dtype.names else "m", "scaling", "time_median_s", "tflops", "sqnr_db", "rel_error"}, "columns present")
ok(all(s.strip(b"\0") == b"ok" for s in t["status"]), "status ok")
ok(all(x > 0 for x in t["time_median_s"]), "positive times")
ok(f.attrs["schema_version"] is not None, "schema_version attribute")
ok(b"gemm" in bytes(f.attrs["command_line"], "utf8") if isinstance(f.attrs["command_line"], str) else b"gemm" in f.attrs["command_line"], "command_line attribute")
ok(f["gemm"].attrs.get("CLASS") in (b"TABLE", "TABLE"), "HDF5 Table CLASS attribute")
ok(math.isfinite(float(t["sqnr_db"][1])), "finite SQNR")
print("1..%d" % (n + 1))
PYEOF
PYRC=$?
[ $PYRC = 0 ]
exit $PYRC
