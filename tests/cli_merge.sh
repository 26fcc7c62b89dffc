#!/bin/sh
# --shard I/N and f8bench merge on the host backend: three shards merged hold
# the unsharded run's cases, each exactly once, with every shard's run kept;
# --resume inside a shard; each refusal (another benchmark, another schema,
# other GPU models, duplicate cases, an existing OUT) leaves no OUT and no
# temporary file behind.
. "${srcdir:-.}/tests/tap.sh"
H100=$(cd "$srcdir/results/h100" && pwd)
cd "$tmp" || exit 1
Q="--backend host --min-time 0 --min-samples 3 --max-samples 3 --warmup 1 -q"
# Two small shapes: 14 cases (bf16 + 6 fp8 per shape), seconds on the host.
printf '256 256 256 t.square\n256 512 128 t.rect\n' >two.txt
S=./two.txt

"$F8BENCH" --help | grep -q "merge"
ok $? "f8bench --help lists merge"
"$F8BENCH" merge --help >help.txt
ok $? "merge --help exits 0"
for opt in --allow-mixed --keep-last; do
	grep -q -- "$opt" help.txt
	ok $? "merge --help documents $opt"
done
"$F8BENCH" gemm --help | grep -q -- "--shard I/N"
ok $? "gemm --help documents --shard I/N"

# ---- --shard: bad values are bad input
for bad in 3/3 -1/3 1/0 1 x/2; do
	"$F8BENCH" gemm $Q --shapes $S --shard "$bad" -o bad.h5 2>err.txt
	rc=$?
	[ $rc = 2 ] && grep -q -- "--shard" err.txt && [ ! -e bad.h5 ]
	ok $? "--shard $bad: exit 2 naming --shard, no file (rc $rc)"
done

# ---- three shards and one unsharded run
"$F8BENCH" gemm $Q --shapes $S -o all.h5 2>/dev/null
ok $? "unsharded run"
for i in 0 1 2; do
	"$F8BENCH" gemm $Q --shapes $S --shard $i/3 -o s$i.h5 2>/dev/null
	ok $? "shard $i/3"
done
"$F8BENCH" export s1.h5 --provenance | grep -qx "shard: 1/3"
ok $? "the shard is in the provenance"

# The identifying columns of a file's rows, one sorted line per row.
keys() {
	"$F8BENCH" export "$1" --table gemm >"$1.csv" || return 1
	cols=$(head -1 "$1.csv" | tr ',' '\n' | grep -nxE 'm|k|n|label|scaling|a_gran|b_gran|fast_accum|a_dtype|b_dtype|out_dtype' | cut -d: -f1 | paste -sd, -)
	tail -n +2 "$1.csv" | cut -d, -f"$cols" | sort
}
rows() { keys "$1" | wc -l; }
n_all=$(rows all.h5)
n_sum=$(($(rows s0.h5) + $(rows s1.h5) + $(rows s2.h5)))
[ "$n_all" -gt 3 ] && [ "$n_sum" = "$n_all" ]
ok $? "the shards' rows add up to the unsharded run's ($n_sum vs $n_all)"
for i in 0 1 2; do
	n=$(rows s$i.h5)
	[ $((n - n_all / 3)) -ge 0 ] && [ $((n - n_all / 3)) -le 1 ]
	ok $? "shard $i/3 has $n of $n_all cases (a third, give or take one)"
done

"$F8BENCH" merge m.h5 s0.h5 s1.h5 s2.h5 >out.txt 2>err.txt
ok $? "merge of the three shards exits 0"
grep -q "wrote $n_all gemm rows from 3 files" out.txt
ok $? "merge says what it wrote ($(cat out.txt))"
keys all.h5 >all.keys
keys m.h5 >m.keys
cmp -s all.keys m.keys
ok $? "merged cases = the unsharded run's cases"
[ -z "$(uniq -d m.keys)" ]
ok $? "every case exactly once in the merged file"
! ls | grep -q "\.merge\."
ok $? "no temporary file left"
if command -v h5ls >/dev/null 2>&1; then
	h5ls m.h5/runs >runs.txt 2>&1
	[ "$(grep -c Group runs.txt)" = 4 ]
	ok $? "the merged file has /runs/0 (the merge) and one run per shard"
else
	skip "no h5ls (hdf5-tools) here"
fi
rid=$(head -1 m.h5.csv | tr ',' '\n' | grep -nx run_id | cut -d: -f1)
[ "$(tail -n +2 m.h5.csv | cut -d, -f"$rid" | sort -u | paste -sd' ' -)" = "1 2 3" ]
ok $? "rows point at runs 1, 2 and 3"
if command -v h5dump >/dev/null 2>&1; then
	h5dump -a /runs/2/shard m.h5 2>/dev/null | grep -q '"1/3"'
	ok $? "run 2 is shard 1/3's provenance"
	h5dump -a /runs/2/merged_from m.h5 2>/dev/null | grep -q 's1.h5:/runs/0'
	ok $? "run 2 says where it came from"
	h5dump -a /merged_from m.h5 2>/dev/null | grep -q 's2.h5'
	ok $? "the root lists the merged files"
else
	for i in 1 2 3; do skip "no h5dump (hdf5-tools) here"; done
fi
GNUPLOT=/nonexistent "$F8BENCH" report m.h5 -o rep >/dev/null 2>&1
rc=$?
ok "$([ $rc -le 1 ] && [ -s rep/report.md ] && echo 0 || echo 1)" "report reads the merged file (exit $rc, report.md written)"

# ---- --resume inside a shard: the first shape's cases keep their indices
head -1 two.txt >first.txt
"$F8BENCH" gemm $Q --shapes ./first.txt --shard 1/3 -o r1.h5 2>/dev/null
ok $? "shard 1/3 of the first shape"
"$F8BENCH" gemm $Q --shapes $S --shard 1/3 --resume -o r1.h5 2>err.txt
ok $? "--resume with the whole set"
grep -q -- "--resume: [1-9][0-9]* cases already" err.txt
ok $? "--resume skipped the cases already run"
keys r1.h5 >r1.keys
keys s1.h5 >s1.keys
cmp -s r1.keys s1.keys
ok $? "the resumed shard holds shard 1/3's cases, each once"

# ---- refusals: exit 2, one line, no OUT, no temporary file
refused() { # WHAT PATTERN ARGS...
	what=$1 pat=$2
	shift 2
	rm -f x.h5
	"$F8BENCH" merge x.h5 "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q -- "$pat" err.txt &&
		[ ! -e x.h5 ] && ! ls | grep -q "\.merge\.\|\.tmp\."
	ok $? "$what: refused ($(cat err.txt))"
}
"$F8BENCH" ceilings $Q --kinds read --sizes 4K:4K -o c.h5 2>/dev/null
ok $? "a ceilings file"
refused "another benchmark" "holds ceilings results" s0.h5 c.h5
refused "another schema" "another schema" s0.h5 "$H100/experiments/gemm-extra/gemm-repeat.h5"
refused "other GPU models" "--allow-mixed" s0.h5 "$H100/gemm-sweep.h5"
refused "a case in two files" "--keep-last" s0.h5 all.h5
refused "the same file twice" "--keep-last" s0.h5 s0.h5
refused "a missing input" "nope.h5" s0.h5 nope.h5
refused "an input that is not HDF5" "not an HDF5 file" s0.h5 m.h5.csv
refused "no inputs" "at least one input"
cp s0.h5 x.h5
sum=$(cksum <x.h5)
"$F8BENCH" merge x.h5 s1.h5 2>err.txt
[ $? = 2 ] && grep -q "already exists" err.txt && [ "$(cksum <x.h5)" = "$sum" ]
ok $? "an existing OUT is refused and left as it was"
rm -f x.h5

# ---- the overrides
"$F8BENCH" merge k.h5 s0.h5 all.h5 --keep-last >out.txt 2>&1
ok $? "--keep-last merges a case in two files"
keys k.h5 >k.keys
cmp -s k.keys all.keys && grep -q "dropped $(rows s0.h5) earlier rows" out.txt
ok $? "--keep-last keeps each case once ($(cat out.txt))"
# (the H100 sweep file holds repeated cases of its own: --keep-last too)
"$F8BENCH" merge mix.h5 s0.h5 "$H100/gemm-sweep.h5" --allow-mixed --keep-last >/dev/null 2>&1
ok $? "--allow-mixed merges runs on two GPU models"

done_testing
