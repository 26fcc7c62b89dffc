#!/bin/sh
# scripts/f8b-targets.sh (issue 23's targets for --impl f8b) on the
# committed H100 files: it runs, its tables have a row per target shape
# (two shapes may share M x K x N under different labels), its summary
# lines count what its rows say, a ratio it prints is the ratio of the two
# rows (read here with csv_get), section 6 reads the lls table's step and
# kernel sums, sections 7 and 8 its traced steps and the kernels in them,
# and it refuses bad usage.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
d=$top/results/h100
[ -f "$d/gemm-impl-sweep.h5" ] && [ -f "$d/lls-impl-sweep.h5" ] || skip_all "no results/h100 impl sweeps"
F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" "$d/lls-impl-sweep.h5" >t.md 2>t.err
ok $? "f8b-targets.sh runs on the committed sweeps ($(head -c 200 t.err))"

# 1. a row per target shape: the squares from 4096 and the 16 layers
sec() { awk -v s="### $1." '/^### / { on = index($0, s) == 1 } on' t.md; }
sec 1 | grep '^| [0-9]*x' >s1.txt
n=$(wc -l <s1.txt)
ok "$([ "$n" = 19 ] && echo 0 || echo 1)" "section 1 has the 19 target shapes ($n), 8192^3 twice (pow2 and llama2-70b wo)"
n=$(grep -c '| 8192x8192x8192 |' s1.txt)
ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "8192^3 is there under both its labels ($n)"
met=$(grep -c '| met' s1.txt)
line=$(sec 1 | grep '^Met at')
ok "$(echo "$line" | grep -q "^Met at $met of 19 " && echo 0 || echo 1)" "the summary counts the rows' verdicts ($line; $met rows met)"
bad=$(awk -F'|' '{ r = $6 + 0; v = $7; gsub(/ /, "", v)
	if ((r >= 0.97) != (v ~ /^met/)) n++ } END { print n + 0 }' s1.txt)
ok "$([ "$bad" = 0 ] && echo 0 || echo 1)" "every verdict follows its ratio and 0.97 ($bad do not)"

# the 4096^3 ratio, recomputed from the file's two rows
"$F8BENCH" export "$d/gemm-impl-sweep.h5" --table gemm -o g.csv 2>/dev/null
lt=$(csv_get g.csv tflops m=4096 k=4096 n=4096 scaling=tensorwise fast_accum=1 impl=cublaslt out_t=0 | head -1)
f8=$(csv_get g.csv tflops m=4096 k=4096 n=4096 scaling=tensorwise fast_accum=1 impl=f8b out_t=0 | head -1)
want=$(awk -v a="$f8" -v b="$lt" 'BEGIN { printf "%.3f", a / b }')
got=$(grep '^| 4096x4096x4096 ' s1.txt | awk -F'|' '{ gsub(/ /, "", $6); print $6 }')
ok "$([ -n "$lt" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" "4096^3: f8b / cuBLASLt is $want from the rows ($f8 / $lt), the table says $got"

# the fastest samples' line: its least ratio from the rows' least times
want=$(awk -F'|' '{ gsub(/ /, "", $2); gsub(/ /, "", $3); split($2, d, "x"); print d[1], d[2], d[3], $3 }' s1.txt |
	while read -r m k n l; do
		w="m=$m k=$k n=$n label=$l scaling=tensorwise fast_accum=1 out_t=0 a_dtype=e4m3 b_dtype=e4m3"
		# shellcheck disable=SC2086
		a=$(csv_get g.csv time_min_s $w impl=cublaslt | head -1)
		# shellcheck disable=SC2086
		b=$(csv_get g.csv time_min_s $w impl=f8b | head -1)
		echo "$a $b"
	done | awk '$1 > 0 && $2 > 0 { r = $1 / $2; if (!n++ || r < m) m = r } END { printf "%d %.3f", n, m }')
line=$(sec 1 | grep '^On the fastest samples')
ok "$(echo "$line" | grep -q "at [0-9]* of ${want% *} (${want#* }-" && echo 0 || echo 1)" "section 1's fastest-sample line starts at the least of the rows' ratios (${want#* } over ${want% *} shapes; $line)"

# 2. three ratios a shape, the summary's range from them
sec 2 | grep '^| [0-9]*x' >s2.txt
n=$(awk -F'|' 'NF == 11' s2.txt | wc -l)
ok "$([ "$n" = 19 ] && echo 0 || echo 1)" "section 2 has a row of three f8b and three cuBLASLt ratios for each of the 19 shapes ($n)"
lo=$(awk -F'|' '{ x = $5 + 0; if (NR == 1 || x < m) m = x } END { printf "%.3f", m }' s2.txt)
ok "$(sec 2 | grep -q "^- f8b tensorwise: met at [0-9]* of 19 shapes ($lo-" && echo 0 || echo 1)" "f8b's tensorwise range starts at the rows' least ratio ($lo)"
lo=$(awk -F'|' '{ x = $8 + 0; if (NR == 1 || x < m) m = x } END { printf "%.3f", m }' s2.txt)
ok "$(sec 2 | grep -q "^- cuBLASLt's own tensorwise: at or above 0.95 at [0-9]* of 19 shapes ($lo-" && echo 0 || echo 1)" "cuBLASLt's own tensorwise range starts at its rows' least ratio ($lo)"

# 3. accuracy over every pair
line=$(sec 3 | grep 'cases with both rows')
n=$(echo "$line" | sed -n 's/^- \([0-9]*\) cases.*/\1/p')
ok "$([ -n "$n" ] && [ "$n" -gt 0 ] && echo 0 || echo 1)" "section 3 pairs f8b's rows with cuBLASLt's ($line)"
ok "$(sec 3 | grep -q '^- SQNR, f8b minus cuBLASLt: at least' && echo 0 || echo 1)" "section 3 states the SQNR difference"

# 4. the lls step: targets at 8192^3 and 16384^3, none at 4096^3
n=$(sec 4 | grep -c '| 8192x8192x8192 | .* | >= ')
ok "$([ "$n" = 4 ] && echo 0 || echo 1)" "section 4 holds the four 8192^3 targets ($n)"
n=$(sec 4 | grep '| 4096x4096x4096 |' | grep -c '>= ')
ok "$([ "$n" = 0 ] && echo 0 || echo 1)" "no target at 4096^3 ($n)"

n=$(sec 4 | grep -c '| 16384x16384x16384 | .* | >= ')
ok "$([ "$n" = 4 ] && echo 0 || echo 1)" "section 4 holds the four 16384^3 targets ($n)"
"$F8BENCH" export "$d/lls-impl-sweep.h5" --table lls -o l.csv 2>/dev/null
lt=$(csv_get l.csv time_min_s m=8192 k=8192 n=8192 recipe=tensorwise gemm_impl=cublaslt status=ok | head -1)
f8=$(csv_get l.csv time_min_s m=8192 k=8192 n=8192 recipe=tensorwise gemm_impl=f8b status=ok | head -1)
want=$(awk -v a="$lt" -v b="$f8" 'BEGIN { printf "%.3f", a / b }')
got=$(sec 4 | grep '| 8192x8192x8192 | tensorwise |' | awk -F'|' '{ gsub(/ /, "", $10); print $10 }')
ok "$([ -n "$lt" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" "8192^3 tensorwise: the fastest steps' ratio is $want from the rows ($lt / $f8), the table says $got"

# 5. the lls GEMMs: a row per case with both implementations, each ratio
# from the file's lls_kernels rows, cuBLASLt's output with its sigmoid pass
sec 5 | grep '^| lls-impl-sweep.h5 |' >s5.txt
want=$(sec 4 | grep -c '^| lls-impl-sweep.h5 |')
n=$(wc -l <s5.txt)
ok "$([ "$n" -gt 0 ] && [ "$n" = "$want" ] && echo 0 || echo 1)" "section 5 has a row for each case of section 4 ($n, $want)"
"$F8BENCH" export "$d/lls-impl-sweep.h5" --table lls_kernels -o k.csv 2>/dev/null
kc() { csv_get k.csv time_median_s m=8192 k=8192 n=8192 recipe=tensorwise "$@" status=ok | head -1; }
lt=$(kc gemm_impl=cublaslt kernel=gemm tensor=grad_input)
f8=$(kc gemm_impl=f8b kernel=gemm tensor=grad_input)
want=$(awk -v a="$lt" -v b="$f8" 'BEGIN { printf "%.3f", a / b }')
row=$(grep '| 8192x8192x8192 | tensorwise |' s5.txt)
got=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $8); print $8 }')
ok "$([ -n "$lt" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" "8192^3 tensorwise grad_input: $want from the kernel rows ($lt / $f8), the table says $got"
lo=$(kc gemm_impl=cublaslt kernel=gemm tensor=output)
sg=$(kc gemm_impl=cublaslt kernel=sigmoid_fwd)
fo=$(kc gemm_impl=f8b kernel=gemm tensor=output)
want=$(awk -v a="$lo" -v s="$sg" -v b="$fo" 'BEGIN { printf "%.3f, %.3f", 1e3 * (a + s), 1e3 * b }')
got=$(echo "$row" | awk -F'|' '{ sub(/^ /, "", $5); sub(/ $/, "", $5); print $5 }')
ok "$([ -n "$sg" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" "the output column is cuBLASLt's GEMM plus its sigmoid pass against f8b's fused GEMM ($want; the table: $got)"

# 6. the step beside the sum of its kernels, from the lls table's own
# columns: a row per case of section 4, and 8192^3 axiswise's cells
sec 6 | grep '^| lls-impl-sweep.h5 |' >s6.txt
want=$(sec 4 | grep -c '^| lls-impl-sweep.h5 |')
n=$(wc -l <s6.txt)
ok "$([ "$n" -gt 0 ] && [ "$n" = "$want" ] && echo 0 || echo 1)" "section 6 has a row for each case of section 4 ($n, $want)"
"$F8BENCH" export "$d/lls-impl-sweep.h5" --table lls -o l.csv 2>/dev/null
lc() { csv_get l.csv "$1" m=8192 k=8192 n=8192 recipe=axiswise gemm_impl="$2" status=ok | head -1; }
ls_=$(lc time_median_s cublaslt) lk=$(lc kernels_time_s cublaslt)
fs=$(lc time_median_s f8b) fk=$(lc kernels_time_s f8b)
want=$(awk -v a="$ls_" -v b="$lk" -v c="$fs" -v e="$fk" 'BEGIN {
	printf "| %.3f, %.3f | %.3f | %.3f, %.3f | %.3f | %.3f | %.3f |", 1e3 * a, 1e3 * b, 1e3 * (b - a), 1e3 * c, 1e3 * e, 1e3 * (e - c), a / c, b / e }')
row=$(grep '| 8192x8192x8192 | axiswise |' s6.txt)
ok "$([ -n "$lk" ] && echo "$row" | grep -qF -- "$want" && echo 0 || echo 1)" "8192^3 axiswise: steps, sums, what each step is under its sum and the two ratios are $want from the rows ($row)"

# 7. the traced steps: the sweep's 16384^3 tensorwise ratio and verdict
# from its rows, a row per fp8 case of the sweep; a file older than the
# column has none; the in-step experiment's 8192^3 axiswise ratio and
# verdict from its rows
"$F8BENCH" export "$d/lls-impl-sweep.h5" --table lls -o l.csv 2>/dev/null
tl() { csv_get l.csv traced_time_median_s m=16384 k=16384 n=16384 recipe=tensorwise gemm_impl="$1" status=ok | head -1; }
a=$(tl cublaslt) b=$(tl f8b)
want=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "| %.4f | %.4f | %.3f |", 1e3 * a, 1e3 * b, a / b }')
verdict=$(awk -v a="$a" -v b="$b" 'BEGIN { print (a / b >= 1.02) ? "| met |" : "| not met |" }')
row=$(sec 7 | grep '| 16384x16384x16384 | tensorwise |')
ok "$([ -n "$a" ] && echo "$row" | grep -qF -- "$want" && echo "$row" | grep -qF -- ">= 1.02 $verdict" && echo 0 || echo 1)" \
	"16384^3 tensorwise traced: $want and its verdict against 1.02 from the sweep's rows ($row)"
n=$(sec 7 | grep -c '^| lls-impl-sweep.h5 |')
want=$(csv_get l.csv traced_time_median_s gemm_impl=f8b status=ok | awk '$1 + 0 > 0 { n++ } END { print n + 0 }')
ok "$([ "$n" = "$want" ] && [ "$n" -gt 0 ] && echo 0 || echo 1)" "section 7: a row per traced f8b case of the sweep ($n of $want)"
old=$d/experiments/f8b-lls-warmup/lls-1-lanes2.h5
if [ -f "$old" ]; then
	F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" "$old" >o.md 2>o.err
	n7=$(awk '/^### 7\./ { on = 1 } /^### 8\./ { on = 0 } on' o.md | grep -c '^| no file given has traced steps |')
	n8=$(awk '/^### 8\./ { on = 1 } on' o.md | grep -c '^| no file given has in-step times |')
	ok "$([ "$n7" = 1 ] && [ "$n8" = 1 ] && echo 0 || echo 1)" \
		"a file older than the columns: sections 7 and 8 say it has no traced steps ($n7) and no in-step times ($n8)"
else
	skip "no experiments/f8b-lls-warmup file"
fi
e=$d/experiments/f8b-lls-instep/lls-instep-8192.h5
if [ -f "$e" ]; then
	F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" "$e" >i.md 2>i.err
	ok $? "with the in-step file, it runs ($(head -c 200 i.err))"
	"$F8BENCH" export "$e" --table lls -o i.csv 2>/dev/null
	tc() { csv_get i.csv traced_time_median_s m=8192 k=8192 n=8192 recipe=axiswise gemm_impl="$1" status=ok | head -1; }
	a=$(tc cublaslt) b=$(tc f8b)
	want=$(awk -v a="$a" -v b="$b" 'BEGIN { r = a / b; printf "| %.4f | %.4f | %.3f |", 1e3 * a, 1e3 * b, r }')
	verdict=$(awk -v a="$a" -v b="$b" 'BEGIN { print (a / b >= 1.04) ? "| met |" : "| not met |" }')
	row=$(awk '/^### 7\./ { on = 1 } on' i.md | grep '| 8192x8192x8192 | axiswise |')
	ok "$([ -n "$a" ] && echo "$row" | grep -qF -- "$want" && echo "$row" | grep -qF -- ">= 1.04 $verdict" && echo 0 || echo 1)" \
		"8192^3 axiswise traced: $want and its verdict against 1.04 from the rows ($row)"
	n=$(awk '/^### 7\./ { on = 1 } /^### 8\./ { on = 0 } on' i.md | grep -c '^| lls-instep-8192.h5 |')
	ok "$([ "$n" = 3 ] && echo 0 || echo 1)" "a row per recipe of the file (3: $n)"
	# 8. the GEMMs inside the step: 8192^3 axiswise grad_input from the
	# kernel rows' in_step_median_s
	"$F8BENCH" export "$e" --table lls_kernels -o ik.csv 2>/dev/null
	ic() { csv_get ik.csv in_step_median_s m=8192 k=8192 n=8192 recipe=axiswise kernel=gemm tensor=grad_input gemm_impl="$1" status=ok | head -1; }
	a=$(ic cublaslt) b=$(ic f8b)
	want=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "| %.3f, %.3f | %.3f |", 1e3 * a, 1e3 * b, a / b }')
	row=$(awk '/^### 8\./ { on = 1 } on' i.md | grep '| 8192x8192x8192 | axiswise |')
	ok "$([ -n "$a" ] && echo "$row" | grep -qF -- "$want" && echo 0 || echo 1)" \
		"section 8, 8192^3 axiswise grad_input inside the step: $want from the rows ($row)"
else
	for i in 1 2 3 4; do skip "no experiments/f8b-lls-instep files"; done
fi
n=$(sec 8 | grep -c '^| lls-impl-sweep.h5 |')
ok "$([ "$n" -gt 0 ] && echo 0 || echo 1)" "section 8 has the sweep's in-step times ($n rows)"

# 4, over processes: the files after -- (experiments/f8b-lls-warmup/, four
# processes of one command), each process's ratio of medians and the
# median over them, recomputed here from each file's two rows
w=$d/experiments/f8b-lls-warmup
if [ -f "$w/lls-4-lanes2.h5" ]; then
	F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" -- "$w/lls-1-lanes2.h5" \
		"$w/lls-2-lanes2.h5" "$w/lls-3-lanes2.h5" "$w/lls-4-lanes2.h5" >r.md 2>r.err
	ok $? "with four files after --, it runs ($(head -c 200 r.err))"
	for i in 1 2 3 4; do
		"$F8BENCH" export "$w/lls-$i-lanes2.h5" --table lls -o r$i.csv 2>/dev/null
		a=$(csv_get r$i.csv time_median_s recipe=tensorwise gemm_impl=cublaslt status=ok | head -1)
		b=$(csv_get r$i.csv time_median_s recipe=tensorwise gemm_impl=f8b status=ok | head -1)
		awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0 && b > 0) printf "%.9f\n", a / b }'
	done | sort -n >rr.txt
	want=$(awk '{ x[NR] = $1 } END { if (NR == 4) printf "4 | %.3f | %.3f | %.3f", (x[2] + x[3]) / 2, x[1], x[4] }' rr.txt)
	row=$(grep '^| 8192x8192x8192 | tensorwise | 4 |' r.md)
	ok "$([ -n "$want" ] && echo "$row" | grep -qF "| tensorwise | $want |" && echo 0 || echo 1)" \
		"tensorwise over the four processes: count, median, least and greatest are $want from the rows ($row)"
	v=$(echo "$row" | awk -F'|' '{ m = $5 + 0; g = $8; sub(/.*>= /, "", g); verdict = $9; gsub(/ /, "", verdict)
		print ((m >= g + 0) == (verdict == "met")) ? "ok" : "bad" }')
	ok "$([ "$v" = ok ] && echo 0 || echo 1)" "its verdict follows the median and the target ($row)"
	n=$(grep -c '^| 8192x8192x8192 | axiswise | 4 |' r.md)
	ok "$([ "$n" = 1 ] && echo 0 || echo 1)" "axiswise has its row over the four processes ($n)"
	n=$(grep -c '^### 5\.' r.md)
	ok "$([ "$n" = 0 ] && echo 0 || echo 1)" "without LLS files before --, no section 5 ($n)"
else
	for i in 1 2 3 4 5; do skip "no experiments/f8b-lls-warmup files"; done
fi
# gemm files after --: sections 1 and 2 again, on the median over them
g=$d/experiments/f8b-gemm-repeat
if [ -f "$g/gemm-p5.h5" ]; then
	F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" -- "$g/gemm-p1.h5" \
		"$g/gemm-p2.h5" "$g/gemm-p3.h5" "$g/gemm-p4.h5" "$g/gemm-p5.h5" >gr.md 2>gr.err
	ok $? "f8b-targets.sh runs on five gemm processes after -- ($(head -c 200 gr.err))"
	awk '/^#### Sections 1 and 2 over 5 processes/ { on = 1 } /^### 3\./ { on = 0 } on' gr.md >g5.md
	grep '^| [0-9]*x' g5.md >g5.txt
	n=$(wc -l <g5.txt)
	ok "$([ "$n" = 19 ] && echo 0 || echo 1)" "the table over the processes has the 19 target shapes ($n)"
	# 8192^3 (pow2): f8b / cuBLASLt with fast accumulation in each file,
	# then their median, least and greatest
	for i in 1 2 3 4 5; do
		"$F8BENCH" export "$g/gemm-p$i.h5" --table gemm -o gp$i.csv 2>/dev/null
		w="m=8192 k=8192 n=8192 label=pow2.8192 scaling=tensorwise fast_accum=1 out_t=0 a_dtype=e4m3 status=ok"
		# shellcheck disable=SC2086
		a=$(csv_get gp$i.csv tflops $w impl=f8b | head -1)
		# shellcheck disable=SC2086
		b=$(csv_get gp$i.csv tflops $w impl=cublaslt | head -1)
		awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0 && b > 0) printf "%.9f\n", a / b }'
	done | sort -n >gq.txt
	want=$(awk '{ x[NR] = $1 } END { if (NR == 5) printf "%.3f (%.3f-%.3f)", x[3], x[1], x[5] }' gq.txt)
	row=$(grep '^| 8192x8192x8192 | pow2.8192 | 5 |' g5.txt)
	ok "$([ -n "$want" ] && echo "$row" | grep -qF "| 5 | $want" && echo 0 || echo 1)" \
		"8192^3 fast: the median, least and greatest over the five are $want from the rows ($row)"
	met=$(awk -F'|' '$5 ~ / met/' g5.txt | wc -l)
	ok "$(grep -q "^- tensorwise fast, on the median over processes: met at $met of 19 shapes" g5.md && echo 0 || echo 1)" \
		"the fast line counts the rows' verdicts ($met)"
	bad=$(awk -F'|' '{ for (j = 6; j <= 8; j++) { m = $j + 0; if ((m >= 0.95) != ($j ~ / met/)) n++ }
		m = $5 + 0; if ((m >= 0.97) != ($5 ~ / met/)) n++ } END { print n + 0 }' g5.txt)
	ok "$([ "$bad" = 0 ] && echo 0 || echo 1)" "every verdict follows its median and target ($bad do not)"
	n=$(grep -c '^No lls file given' gr.md)
	ok "$([ "$n" = 1 ] && echo 0 || echo 1)" "gemm files alone after --: no lls section ($n)"
	if [ -f "$w/lls-1-lanes2.h5" ]; then
		F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" -- "$g/gemm-p1.h5" \
			"$w/lls-1-lanes2.h5" "$g/gemm-p2.h5" "$w/lls-2-lanes2.h5" >gm.md 2>gm.err
		n=$(grep -c -e '^#### Sections 1 and 2 over 2 processes' -e '^Over 2 processes of one command (the lls files' gm.md)
		ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "gemm and lls files mixed after --: each kind over its own two ($n of 2 headings)"
	else
		skip "no experiments/f8b-lls-warmup files"
	fi
else
	for i in 1 2 3 4 5 6 7; do skip "no experiments/f8b-gemm-repeat files"; done
fi
F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" -- "$tmp/no-such.h5" >/dev/null 2>e.txt
ok "$([ $? = 2 ] && grep -q 'no-such.h5' e.txt && echo 0 || echo 1)" "a missing file after --: exit 2, named ($(head -c 160 e.txt))"
F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$d/gemm-impl-sweep.h5" -- >/dev/null 2>e.txt
ok "$([ $? = 2 ] && grep -q usage e.txt && echo 0 || echo 1)" "nothing after --: exit 2 and the usage ($(cat e.txt))"
F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" -- "$d/lls-impl-sweep.h5" >/dev/null 2>e.txt
ok "$([ $? = 2 ] && grep -q usage e.txt && echo 0 || echo 1)" "-- where GEMM.h5 should be: exit 2 and the usage ($(cat e.txt))"

# bad usage
F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" >/dev/null 2>e.txt
ok "$([ $? = 2 ] && grep -q usage e.txt && echo 0 || echo 1)" "no file: exit 2 and the usage ($(cat e.txt))"
F8BENCH="$F8BENCH" sh "$top/scripts/f8b-targets.sh" "$tmp/no-such.h5" >/dev/null 2>e.txt
ok "$([ $? = 2 ] && grep -q 'no-such.h5' e.txt && echo 0 || echo 1)" "a missing file: exit 2, named ($(head -c 160 e.txt))"
done_testing
