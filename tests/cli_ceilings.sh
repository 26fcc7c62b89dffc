#!/bin/sh
# f8bench ceilings end to end: the host sweep (bandwidth over working sets,
# GEMM peaks, launch cost) and its table, the formulas behind each value,
# bad input, --resume; host collectives under mpiexec -n 2; and, where a
# GPU is usable, the same sweep on the cuda backend.
. "${srcdir:-.}/tests/tap.sh"
cd "$tmp" || exit 1
Q="--min-time 0 --min-samples 3 --max-samples 5 --warmup 1 -q"
SWEEP="--sizes 4K:64K --launch-bytes 256K --gemm-shapes 64x128x32 --gemm-algos 1 --launches 50"

"$F8BENCH" --help 2>&1 | grep -q "ceilings"
ok $? "f8bench --help lists ceilings"
"$F8BENCH" ceilings --help >help.txt
ok $? "ceilings --help exits 0"
for opt in --kinds --sizes --launch-bytes --gemm-shapes --launches --coll-sizes --timeout --backend --output --resume; do
	grep -q -- "$opt" help.txt
	ok $? "ceilings --help documents $opt"
done
for k in read write copy gemm launch allgather allreduce; do
	grep -q "$k" help.txt
	ok $? "ceilings --help names the $k ceiling"
done

# ---- the host sweep
"$F8BENCH" ceilings --backend host $Q $SWEEP -o c.h5 >out.txt 2>err.txt
rc=$?
ok $rc "host sweep exits 0"
[ $rc = 0 ] || diag "$(cat err.txt)"
"$F8BENCH" export c.h5 --table ceilings >c.csv
ok $? "export --table ceilings"
rows=$(($(wc -l <c.csv) - 1))
ok "$([ "$rows" = 12 ] && echo 0 || echo 1)" "12 rows: 3 kinds x 3 sizes + bf16 and e4m3 GEMMs + launch (got $rows)"

col() { head -1 "${2:-c.csv}" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
KIND=$(col kind); DT=$(col dtype); BY=$(col bytes); M=$(col m); K=$(col k); N=$(col n)
ST=$(col status); T=$(col time_median_s); V=$(col value); U=$(col unit)
DS=$(col datasheet_value); RK=$(col ranks); BE=$(col backend); MSG=$(col message)
for c in KIND DT BY M K N ST T V U DS RK BE MSG; do
	eval "v=\$$c"
	[ -n "$v" ] || diag "column for $c not found in $(head -1 c.csv)"
done
body() { tail -n +2 "${1:-c.csv}"; }

for k in read write copy gemm launch; do
	n=$(body | cut -d, -f"$KIND" | grep -cx "$k")
	ok "$([ "$n" -ge 1 ] && echo 0 || echo 1)" "rows of kind $k ($n)"
done
nok=$(body | cut -d, -f"$ST" | grep -cx ok)
ok "$([ "$nok" = 12 ] && echo 0 || echo 1)" "every row has status ok (got $nok)"
[ "$nok" = 12 ] || diag "$(cut -d, -f"$KIND,$BY,$ST,$MSG" c.csv)"
body | awk -F, -v v="$V" -v t="$T" '!($v > 0 && $t > 0) {bad=1} END {exit bad}'
ok $? "every row has a positive value and median time"
body | awk -F, -v k="$KIND" -v u="$U" '
	($k ~ /^(read|write|copy)$/ && $u != "B/s") || ($k == "gemm" && $u != "FLOP/s") ||
	($k == "launch" && $u != "s") {bad=1} END {exit bad}'
ok $? "units: B/s for bandwidth, FLOP/s for GEMMs, s for the launch"
body | awk -F, -v k="$KIND" -v b="$BY" '$k ~ /^(read|write|copy)$/ {s[$b]++} END {exit !(s[4096] == 3 && s[16384] == 3 && s[65536] == 3)}'
ok $? "--sizes 4K:64K gave 4K, 16K and 64K for each of read, write, copy"
body | awk -F, -v k="$KIND" -v d="$DT" '$k == "gemm" {s[$d]++} END {exit !(s["bf16"] == 1 && s["e4m3"] == 1)}'
ok $? "one bf16 and one e4m3 GEMM row"
body | awk -F, -v k="$KIND" -v m="$M" -v kk="$K" -v n="$N" '$k == "gemm" && !($m == 64 && $kk == 128 && $n == 32) {bad=1} END {exit bad}'
ok $? "GEMM rows carry the shape MxKxN = 64x128x32"
body | awk -F, -v r="$RK" -v be="$BE" '$r != 1 || $be != "host" {bad=1} END {exit bad}'
ok $? "rows record 1 rank and the host backend"
body | awk -F, -v d="$DS" 'tolower($d) != "nan" {bad=1} END {exit bad}'
ok $? "no datasheet value for a host CPU (NaN)"

# The value is the formula of doc/roofline.md applied to the median time.
# Bandwidth: passes x working set / time, passes = ceil(launch bytes / set).
body | awk -F, -v k="$KIND" -v b="$BY" -v v="$V" -v t="$T" '
	$k ~ /^(read|write|copy)$/ {
		p = int((262144 + $b - 1) / $b); r = $v * $t / ($b * p);
		if (r < 0.999999 || r > 1.000001) bad = 1 }
	END {exit bad}'
ok $? "bandwidth = passes x working set / median time"
body | awk -F, -v k="$KIND" -v b="$BY" -v msg="$MSG" '
	$k ~ /^(read|write|copy)$/ && $b == 4096 && $msg !~ /64 passes/ && $msg !~ /not converged/ {bad=1}
	END {exit bad}'
ok $? "a 4 KiB set is swept 64 times per 256 KiB launch (message)"
body | awk -F, -v k="$KIND" -v m="$M" -v kk="$K" -v n="$N" -v v="$V" -v t="$T" '
	$k == "gemm" { r = $v * $t / (2 * $m * $kk * $n); if (r < 0.999999 || r > 1.000001) bad = 1 }
	END {exit bad}'
ok $? "GEMM rate = 2MNK / median time"
body | awk -F, -v k="$KIND" -v v="$V" -v t="$T" '
	$k == "launch" { r = $v * 50 / $t; if (r < 0.999999 || r > 1.000001) bad = 1 }
	END {exit bad}'
ok $? "launch cost = median time / --launches"
# (unless the message says the timing did not converge, which it keeps instead)
n=$(body | grep "^gemm" | grep -c "sample of D: rel_error\|timing not converged")
ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "GEMM rows say how they were checked ($n of 2)"

"$F8BENCH" export c.h5 --provenance >prov.txt
grep -qx "benchmark: ceilings" prov.txt
ok $? "provenance names the benchmark"
grep -q "^command_line: f8bench ceilings .*--launch-bytes 256K" prov.txt
ok $? "provenance keeps the command line"
if command -v h5dump >/dev/null 2>&1; then
	h5dump -H c.h5 2>/dev/null | grep -q 'DATASET "ceilings"'
	ok $? "h5dump shows the ceilings table"
else
	skip "h5dump shows the ceilings table: no h5dump here"
fi

# --kinds picks ceilings; --resume runs only what is missing.
"$F8BENCH" ceilings --backend host $Q --kinds launch,copy --sizes 4K --launches 10 -o k.h5 2>/dev/null
ok $? "--kinds launch,copy"
"$F8BENCH" export k.h5 >k.csv
n=$(($(wc -l <k.csv) - 2))
ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "--kinds launch,copy --sizes 4K gives 2 rows (got $n)"
"$F8BENCH" ceilings --backend host $Q --kinds launch,copy,read --sizes 4K --launches 10 -o k.h5 --resume 2>res.txt
ok $? "--resume exits 0"
grep -q "already in" res.txt
ok $? "--resume reports the cases already done"
n=$(($("$F8BENCH" export k.h5 | wc -l) - 2))
ok "$([ "$n" = 3 ] && echo 0 || echo 1)" "--resume added only the read row (got $n rows)"

# ---- bad input: exit 2 and a message naming the input and what is accepted
bad() {
	exp=$1; shift
	"$F8BENCH" ceilings --backend host $Q -o bad.h5 "$@" >/dev/null 2>berr.txt
	rc=$?
	ok "$([ $rc = 2 ] && echo 0 || echo 1)" "ceilings $* exits 2 (got $rc)"
	grep -q -- "$exp" berr.txt
	ok $? "ceilings $*: message says '$exp'"
	[ ! -e bad.h5 ]
	ok $? "ceilings $*: no results file left"
}
bad "multiple of 256" --sizes 100
bad "K/M/G/T" --sizes 4Q
bad "MAX is below MIN" --sizes 1M:4K
bad "accepted: read, write" --kinds read,flops
bad "more than one MPI rank" --kinds allgather
bad "expected an integer" --launches 0
bad "expected seconds" --timeout -1
bad "multiple of 16" --gemm-shapes 100x128x128

# ---- collectives on host buffers (MPI) under mpiexec -n 2
if [ -n "$MPIEXEC" ]; then
	extra=$(ompi_flags --oversubscribe)
	$MPIEXEC $extra -n 2 "$F8BENCH" ceilings --backend host $Q --kinds read,allgather,allreduce \
		--sizes 4K --launch-bytes 64K --coll-sizes 4K,64K -o m.h5 >mout.txt 2>merr.txt
	rc=$?
	ok $rc "mpiexec -n 2 f8bench ceilings (host collectives) exits 0"
	[ $rc = 0 ] || diag "$(cat merr.txt)"
	"$F8BENCH" export m.h5 >m.csv
	rows=$(($(wc -l <m.csv) - 2))
	ok "$([ "$rows" = 9 ] && echo 0 || echo 1)" "9 rows: read + 2 all-gather + 2 all-reduce sizes, in place and out of place (got $rows)"
	mb() { tail -n +3 m.csv; }
	nok=$(mb | cut -d, -f"$ST" | grep -cx ok)
	ok "$([ "$nok" = 9 ] && echo 0 || echo 1)" "every collective-run row is ok (got $nok)"
	[ "$nok" = 9 ] || diag "$(cat m.csv)"
	mb | awk -F, -v r="$RK" '$r != 2 {bad=1} END {exit bad}'
	ok $? "rows record 2 ranks"
	for k in allgather allreduce; do
		n=$(mb | cut -d, -f"$KIND" | grep -cx "$k")
		ok "$([ "$n" = 4 ] && echo 0 || echo 1)" "four $k rows ($n)"
		n=$(csv_get m.csv in_place kind=$k | sort | tr '\n' ' ')
		ok "$([ "$n" = "0 0 1 1 " ] && echo 0 || echo 1)" "$k: in place and out of place by default ($n)"
	done
	# busbw = size / time x factor: (n-1)/n = 1/2 for all-gather,
	# 2(n-1)/n = 1 for all-reduce on 2 ranks (nccl-tests).
	mb | awk -F, -v k="$KIND" -v b="$BY" -v v="$V" -v t="$T" '
		$k == "allgather" { r = $v * $t / $b; if (r < 0.499999 || r > 0.500001) bad = 1 }
		$k == "allreduce" { r = $v * $t / $b; if (r < 0.999999 || r > 1.000001) bad = 1 }
		END {exit bad}'
	ok $? "busbw = size / time x (n-1)/n (all-gather), x 2(n-1)/n (all-reduce)"
	n=$(mb | grep "^all" | grep -c ",MPI; ")
	ok "$([ "$n" = 8 ] && echo 0 || echo 1)" "collective rows name the library, MPI ($n of 8)"
	# Collectives time an adaptive batch of back-to-back calls (1 to 64 per
	# sample, recorded); the read row keeps one launch per sample.
	bcol() { sed -n 2p "$1" | tr ',' '\n' | grep -nx batch | cut -d: -f1; }
	mb | awk -F, -v k="$KIND" -v c="$(bcol m.csv)" '
		$k ~ /^all/ && !($c >= 1 && $c <= 64) {bad=1} $k == "read" && $c != 1 {bad=1}
		END {exit bad}'
	ok $? "batch column: collectives 1..64 calls per sample, read 1"
	$MPIEXEC $extra -n 2 "$F8BENCH" ceilings --backend host $Q --kinds allgather \
		--coll-sizes 4K --batch 7 -o mb.h5 >/dev/null 2>merr.txt &&
		"$F8BENCH" export mb.h5 >mb.csv
	ok $? "mpiexec -n 2 f8bench ceilings --batch 7 (host collectives)"
	tail -n +3 mb.csv | awk -F, -v c="$(bcol mb.csv)" '$c != 7 {bad=1} END {exit bad}'
	ok $? "--batch 7 fixes a collective's batch (recorded 7)"
	# Buffer modes, CTA policies and placements are case axes, each a row
	# that records them (MPI takes host memory whatever is asked); zero
	# CTAs only on symmetric buffers.  On 1 to 4 ranks.
	for n in 1 2 3 4; do
		[ $n = 1 ] && continue # a collective needs 2 ranks (tested above)
		$MPIEXEC $extra -n $n "$F8BENCH" ceilings --backend host $Q --kinds allgather,allreduce \
			--coll-sizes 4K --nccl-buffers plain,registered,symmetric \
			--nccl-cta-policy default,zero --in-place on -o nb$n.h5 >/dev/null 2>merr.txt &&
			"$F8BENCH" export nb$n.h5 --table ceilings >nb$n.csv
		ok $? "mpiexec -n $n ceilings --nccl-buffers plain,registered,symmetric --nccl-cta-policy default,zero"
		got=$(csv_get nb$n.csv nccl_buffers kind=allgather | tr '\n' ' ')
		want="plain registered symmetric symmetric "
		ok "$([ "$got" = "$want" ] && echo 0 || echo 1)" "-n $n: all-gather rows in buffer order, zero CTAs on symmetric only ($got)"
		got=$(csv_get nb$n.csv cta_policy kind=allreduce | tr '\n' ' ')
		ok "$([ "$got" = "default default default zero " ] && echo 0 || echo 1)" "-n $n: all-reduce rows record their CTA policy ($got)"
		got=$(csv_get nb$n.csv status in_place=1 | grep -cx ok)
		ok "$([ "$got" = 8 ] && echo 0 || echo 1)" "-n $n: 8 in-place rows, each checked ok ($got)"
	done
	$MPIEXEC $extra -n 2 "$F8BENCH" ceilings --backend host $Q --kinds allgather --coll-sizes 4K \
		--nccl-buffers shiny -o bad.h5 >/dev/null 2>merr.txt
	rc=$?
	ok "$([ $rc = 2 ] && grep -q "accepted: plain, registered, symmetric" merr.txt && [ ! -e bad.h5 ] && echo 0 || echo 1)" \
		"--nccl-buffers shiny: exit 2 naming what is accepted, no file ($rc)"
	$MPIEXEC $extra -n 2 "$F8BENCH" ceilings --backend host $Q --kinds allgather --coll-sizes 4K \
		--nccl-cta-policy zero -o bad.h5 >/dev/null 2>merr.txt
	rc=$?
	ok "$([ $rc = 2 ] && grep -q "needs --nccl-buffers symmetric" merr.txt && echo 0 || echo 1)" \
		"--nccl-cta-policy zero on plain buffers: exit 2 saying it needs symmetric ($rc)"
else
	skip "mpiexec -n 2 collectives: no mpiexec found by configure"
fi

# ---- the cuda backend, where a GPU is usable (the lead's GPU runs)
"$F8BENCH" ceilings --backend cuda $Q --kinds launch --launches 10 -o g0.h5 >/dev/null 2>gerr.txt
if grep -q "no usable GPU\|built without CUDA" gerr.txt; then
	skip "cuda backend sweep: $(head -1 gerr.txt)"
else
	"$F8BENCH" ceilings --backend cuda $Q --sizes 1M,256M --launch-bytes 64M --gemm-algos 1 \
		--gemm-shapes 1024x1024x1024 --launches 100 -o g.h5 >/dev/null 2>gerr.txt
	rc=$?
	ok $rc "cuda sweep exits 0"
	[ $rc = 0 ] || diag "$(cat gerr.txt)"
	"$F8BENCH" export g.h5 >g.csv
	rows=$(($(wc -l <g.csv) - 2))
	ok "$([ "$rows" = 9 ] && echo 0 || echo 1)" "9 GPU rows (got $rows)"
	nok=$(tail -n +3 g.csv | cut -d, -f"$ST" | grep -cx ok)
	ok "$([ "$nok" = 9 ] && echo 0 || echo 1)" "every GPU row is checked and ok (got $nok)"
	[ "$nok" = 9 ] || diag "$(cut -d, -f"$KIND,$BY,$ST,$MSG" g.csv)"
	tail -n +3 g.csv | awk -F, -v v="$V" '!($v > 0) {bad=1} END {exit bad}'
	ok $? "every GPU row has a positive value"
fi
# GEMM peaks over several shapes and algorithm candidates: one row each,
# a candidate the backend does not offer is unsupported, and the roof is
# the best row, named with its shape.
"$F8BENCH" ceilings --backend host $Q --kinds gemm --gemm-shapes 256x256x256,512x256x256 \
	--gemm-algos 2 -o algos.h5 >/dev/null 2>algos.err
ok $? "--gemm-algos 2 over two shapes: exit 0"
"$F8BENCH" export algos.h5 --table ceilings >algos.csv
n=$(($(wc -l <algos.csv) - 1))
ok "$([ "$n" = 8 ] && echo 0 || echo 1)" "2 shapes x 2 dtypes x 2 candidates = 8 rows (got $n)"
n=$(grep -c ",unsupported," algos.csv)
ok "$([ "$n" = 4 ] && echo 0 || echo 1)" "the host's missing candidate 1 is unsupported, 4 rows (got $n)"
GNUPLOT=/nonexistent "$F8BENCH" report algos.h5 -o algos >/dev/null 2>&1
"$F8BENCH" gemm --backend host $Q --shapes 256x256x256 --scaling tensorwise --fast-accum on \
	--ceilings algos.h5 -o on.h5 >/dev/null 2>&1
GNUPLOT=/nonexistent "$F8BENCH" report on.h5 --ceilings algos.h5 -o on >/dev/null 2>&1
grep -q "GEMM peaks measured at bf16 [0-9x]*, best of 2, fp8 [0-9x]*, best of 2" on/report.md
ok $? "the measured roofs are the best of the 2 ok rows of each dtype, shape named"
"$F8BENCH" ceilings --backend host --gemm-algos 0 -o x.h5 >/dev/null 2>err.txt
ok "$([ $? = 2 ] && grep -q -- "--gemm-algos '0'" err.txt && echo 0 || echo 1)" "--gemm-algos 0: exit 2 naming it"
done_testing
