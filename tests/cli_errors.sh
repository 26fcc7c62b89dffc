#!/bin/sh
# Every class of bad input: a one-line error naming the input and what is
# accepted, exit status 2, and no results file left behind.
. "${srcdir:-.}/tests/tap.sh"
cd "$tmp" || exit 1

# expect_error DESCRIPTION NEEDLE COMMAND...: runs COMMAND, checks.
expect_error() {
	desc=$1; needle=$2; shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	ok "$([ $rc = 2 ] && echo 0 || echo 1)" "$desc: exit status 2 (got $rc)"
	lines=$(wc -l <err.txt)
	ok "$([ "$lines" = 1 ] && echo 0 || echo 1)" "$desc: one-line error (got $lines lines)"
	grep -qF -- "$needle" err.txt
	ok $? "$desc: message names '$needle'"
	[ "$(ls | grep -c '\.h5')" = "$h5_before" ]
	ok $? "$desc: no results file left behind"
	[ -s err.txt ] && diag "$(cat err.txt)"
	rm -f out.txt err.txt
}

h5_before=0
G="$F8BENCH gemm --backend host -q"
expect_error "unknown granularity" "rowwisee" $G --scaling tensorwise,rowwisee -o a.h5
expect_error "unknown granularity lists accepted" "accepted" $G --scaling nope -o a.h5
expect_error "a block size --scaling does not have" \
	"unknown granularity 'blockwise-1x64' (accepted: tensorwise, axiswise, blockwise, blockwise-1x128)" \
	$G --scaling blockwise,blockwise-1x64 -o a.h5
expect_error "blockwise-1x128 with a trailing character" "'blockwise-1x1280'" $G --scaling blockwise-1x1280 -o a.h5
expect_error "unknown dtype" "e9m9" $G --dtypes e4m3:e9m9 -o a.h5
expect_error "e5m2 x e5m2" "e5m2:e5m2" $G --dtypes e5m2:e5m2 -o a.h5
expect_error "bad fast-accum value" "maybe" $G --fast-accum maybe -o a.h5
expect_error "bad --flush-by value" "sideways" $G --flush-by sideways -o a.h5
expect_error "unknown recipe" "nosuch" "$F8BENCH" recipe nosuch
expect_error "dimension not a multiple of 16" "100" $G --shapes 100x256x256 -o a.h5
expect_error "zero dimension" "0x256x256" $G --shapes 0x256x256 -o a.h5
expect_error "negative dimension" "-16" $G --shapes -16x256x256 -o a.h5
expect_error "overflowing dimension" "99999999999999999999" $G --shapes 99999999999999999999x16x16 -o a.h5
expect_error "too-large dimension" "2097152" $G --shapes 2097152x16x16 -o a.h5
expect_error "garbage shape" "banana" $G --shapes banana -o a.h5
expect_error "unreadable shape file" "/nonexistent/shapes.txt" $G --shapes /nonexistent/shapes.txt -o a.h5
printf '256 256 256\n512 oops 256\n' >bad.txt
expect_error "malformed shape file names file:line" "bad.txt:2" $G --shapes ./bad.txt -o a.h5
: >empty.txt
expect_error "empty shape file" "empty.txt" $G --shapes ./empty.txt -o a.h5
expect_error "unwritable output path" "/nonexistent-dir/r.h5" $G --shapes 256x256x256 -o /nonexistent-dir/r.h5
expect_error "unreadable ceilings file" "/nonexistent/c.h5" $G --shapes 256x256x256 --ceilings /nonexistent/c.h5 -o a.h5
expect_error "unknown option" "--frobnicate" $G --frobnicate
expect_error "missing option argument" "--shapes" $G --shapes
expect_error "bad number" "--min-samples" $G --min-samples many
expect_error "unknown backend" "tpu" "$F8BENCH" gemm --backend tpu
expect_error "unknown command" "frob" "$F8BENCH" frob
if [ ! -e /dev/nvidia0 ]; then
	expect_error "--backend cuda without a GPU" "--backend cuda" "$F8BENCH" gemm --backend cuda -q -o a.h5
else
	skip "--backend cuda without a GPU: this machine has a GPU"
fi

# An existing file is never overwritten without --append.
echo "precious" >exists.h5
h5_before=1
expect_error "existing output without --append" "--append" $G --shapes 256x256x256 -o exists.h5
[ "$(cat exists.h5)" = precious ]
ok $? "existing file untouched"
expect_error "export of a non-HDF5 file" "exists.h5" "$F8BENCH" export exists.h5
# --append to a file that is no HDF5 file, or a truncated one: each failure
# gets its own advice, and neither is told about file locking.
expect_error "--append to a text file" "not an HDF5 file" $G --shapes 256x256x256 --append -o exists.h5
$G --shapes 256x256x256 --min-time 0 --min-samples 3 --max-samples 3 -o whole.h5 2>/dev/null
head -c $(($(wc -c <whole.h5) / 2)) whole.h5 >trunc.h5 && rm -f whole.h5
h5_before=2
expect_error "--append to a truncated file" "is truncated" $G --shapes 256x256x256 --append -o trunc.h5
$G --shapes 256x256x256 --append -o trunc.h5 2>&1 | grep -q HDF5_USE_FILE_LOCKING
ok "$([ $? != 0 ] && echo 0 || echo 1)" "--append to a truncated file: no advice about file locking"
# A case too big for memory is refused before it allocates: an unsupported
# row naming the need and what is free, promptly.  Under a 4 GiB address-space
# limit a missing check fails at once instead of waking the OOM killer.
(ulimit -v 4000000 2>/dev/null; exec $G --shapes 262144x262144x262144 --scaling tensorwise \
	--fast-accum on -o big.h5) >big.out 2>&1
rc=$?
ok "$([ $rc = 0 ] && echo 0 || echo 1)" "262144^3 on the host (no machine holds it): exit 0, nothing allocated (got $rc)"
"$F8BENCH" export big.h5 --table gemm >big.csv 2>/dev/null
n=$(grep -c ",unsupported," big.csv)
ok "$([ "$n" = 2 ] && echo 0 || echo 1)" "262144^3: both rows unsupported (got $n)"
grep -q "needs [0-9.]* [KMGTP]iB, [0-9.]* [KMGTP]iB free on host" big.csv
ok $? "262144^3: the message names the need and what is free"
# A run killed before it recorded a row (the OOM killer, kill -9) leaves no
# results file: the new file takes its name with its first rows.
$G --shapes 4096x4096x4096 --scaling tensorwise --fast-accum on -o killed.h5 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ ! -e killed.h5 ]
ok $? "killed before its first row: no killed.h5"
rm -f killed.h5.tmp.*
done_testing
