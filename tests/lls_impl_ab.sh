#!/bin/sh
# scripts/lls-impl-ab.sh without a GPU: a stand-in f8bench records each lls
# command and writes, as its -o file, a canned lls table whose times
# depend on which implementation the command runs first (cuBLASLt first:
# 3.0 against 3.1 ms; f8b first: the reverse), its rows in the order they
# ran, so that the summary's per-order medians can be checked; `export
# FILE --table lls -o CSV` copies that table.  What it checks: the
# refusals, the rounds' commands (the order swapped each round, each
# AB_LANES setting), the per-round ratios, the medians over the rounds and
# per order, a row not ok left out and named, a run that fails, and
# AB_BUDGET.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
ab=$top/scripts/lls-impl-ab.sh
cd "$tmp" || exit 1
command -v bash >/dev/null || skip_all "no bash"

cat >f8bench <<'STUB'
#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
case $1 in
export)
	[ "$3" = --table ] && [ "$4" = lls ] && [ "$5" = -o ] || { echo "bad export: $*" >&2; exit 2; }
	cp "$2" "$6"
	;;
lls)
	echo "$*" >>"$here/calls"
	out= order=
	while [ $# -gt 0 ]; do
		case $1 in -o) out=$2 ;; --gemm-impl) order=$2 ;; esac
		shift
	done
	case $order in cublaslt,*) lt=0.0030 f8=0.0031 ;; *) lt=0.0031 f8=0.0030 ;; esac
	bad=ok
	[ -n "${FAKE_BAD:-}" ] && case $out in *"$FAKE_BAD"*) bad=wrong ;; esac
	# rows in the order they ran: per recipe, the implementations in
	# --gemm-impl's order (as f8bench lls writes them)
	tw='8192,8192,8192,,tensorwise,"input=tensorwise:e4m3:dynamic,weight=tensorwise:e4m3:dynamic"'
	bw='8192,8192,8192,,blockwise,"input=block1x128:e4m3:dynamic"'
	{
		echo 'm,k,n,label,recipe,recipe_long,gemm_impl,status,time_median_s,time_min_s,kernels_time_s,samples'
		for i in $(echo "$order" | tr , ' '); do
			case $i in
			cublaslt) echo "$tw,cublaslt,ok,$lt,0.0029,0.0034,65" ;;
			f8b) echo "$tw,f8b,ok,$f8,0.0029,0.0033,80" ;;
			esac
		done
		for i in $(echo "$order" | tr , ' '); do
			case $i in
			cublaslt) echo "$bw,cublaslt,ok,0.0040,0.0037,0.0042,70" ;;
			f8b) echo "$bw,f8b,$bad,0.0038,0.0036,0.0041,90" ;;
			esac
		done
	} >"$out.tmp"
	# FAKE_NOSAMPLES: a table without the samples column (an older f8bench)
	if [ -n "${FAKE_NOSAMPLES:-}" ]; then sed 's/,[^,]*$//' "$out.tmp" >"$out"; else cat "$out.tmp" >"$out"; fi
	rm -f "$out.tmp"
	exit "${FAKE_RC:-0}"
	;;
esac
STUB
chmod +x f8bench
F8BENCH=$tmp/f8bench
export F8BENCH

bash "$ab" >out 2>err
[ $? -eq 2 ] && grep -q usage err
ok $? "no arguments: a usage line and exit 2"
bash "$ab" o 2 --recipe tensorwise >out 2>err
[ $? -eq 2 ] && grep -q "no '--'" err
ok $? "no '--' before the lls arguments: refused ($(cat err))"
bash "$ab" o x -- --recipe tensorwise >out 2>err
[ $? -eq 2 ] && grep -q "ROUNDS 'x' is not a number" err
ok $? "a ROUNDS that is not a number: refused"
for a in "-o f.h5" "--gemm-impl f8b" "--lanes 1"; do
	# shellcheck disable=SC2086
	bash "$ab" o 2 -- --recipe tensorwise $a >out 2>err
	[ $? -eq 2 ] && [ ! -f calls ] && grep -q "leave ${a%% *}" err
	ok $? "'$a' among the lls arguments: refused before anything runs ($(cat err))"
done
AB_LANES="2 3" bash "$ab" o 2 -- --recipe tensorwise >out 2>err
[ $? -eq 2 ] && grep -q "AB_LANES: '3'" err
ok $? "an AB_LANES that is not 1, 2 or auto: refused"
F8BENCH=$tmp/nothing bash "$ab" o 2 -- --recipe tensorwise >out 2>err
[ $? -eq 2 ] && grep -q "no f8bench at" err
ok $? "no f8bench where F8BENCH says: refused"

AB_LANES="2 1" bash "$ab" o1 4 -- --recipe tensorwise,blockwise --shapes 8192x8192x8192 >log 2>err
ok $? "four rounds on two lane settings: exit 0 ($(tail -n 2 err | tr '\n' ' '))"
[ "$(wc -l <calls)" -eq 8 ]
ok $? "eight lls commands ($(wc -l <calls))"
sed -n 1p calls | grep -q -- "^lls --gemm-impl cublaslt,f8b --lanes 2 --recipe tensorwise,blockwise --shapes 8192x8192x8192 -o $tmp/o1/lls-1-lanes2.h5$" &&
	sed -n 2p calls | grep -q -- "--gemm-impl cublaslt,f8b --lanes 1 .* -o $tmp/o1/lls-1-lanes1.h5$" &&
	sed -n 3p calls | grep -q -- "--gemm-impl f8b,cublaslt --lanes 2 .* -o $tmp/o1/lls-2-lanes2.h5$" &&
	sed -n 8p calls | grep -q -- "--gemm-impl f8b,cublaslt --lanes 1 .* -o $tmp/o1/lls-4-lanes1.h5$"
ok $? "the order swapped each round, every lane setting, one file each ($(sed -n 3p calls))"
s=o1/summary.txt
grep -Eq "^1 +cublaslt +2 +8192x8192x8192 +tensorwise +3.0000 +3.1000 +0.968 +1.000 +3.4000 +3.3000 +65 +80$" $s &&
	grep -Eq "^2 +f8b +2 +8192x8192x8192 +tensorwise +3.1000 +3.0000 +1.033 +1.000" $s &&
	grep -Eq "^1 +cublaslt +1 +8192x8192x8192 +blockwise +4.0000 +3.8000 +1.053 +1.028 +4.2000 +4.1000 +70 +90$" $s
ok $? "each round's steps, cuBLASLt's over f8b's, the fastest steps' ratio, the kernel sums and the samples ($(grep -E '^[12] .* 2 .*tensorwise' $s | tr '\n' ';'))"
grep -Eq "^2 +8192x8192x8192 +tensorwise +4 +1.001 +0.968 +1.033 +0.968 +1.033 +1.000 +1.030$" $s &&
	grep -Eq "^1 +8192x8192x8192 +blockwise +4 +1.053 +1.053 +1.053 +1.053 +1.053 +1.028 +1.024$" $s
ok $? "over the rounds: median, least, greatest, per order, and the fastest steps' and kernel sums' medians ($(grep -E '^[12] +8192x8192x8192 +tensorwise +4' $s | head -1))"

AB_LANES=2 bash "$ab" o1 2 -- --recipe tensorwise >log 2>err
grep -Eq "^2 +8192x8192x8192 +tensorwise +2 +1.001" o1/summary.txt && ! grep -q "^4 " o1/summary.txt
ok $? "a second run into the same OUTDIR: only its own rounds, not the files an earlier run left"

rm -f calls
FAKE_BAD=lls-2-lanes2 bash "$ab" o2 2 -- --recipe tensorwise,blockwise >log 2>err
[ $? -eq 1 ] && grep -q "^round 2, lanes 2, 8192x8192x8192 blockwise, f8b: wrong$" o2/summary.txt &&
	grep -Eq "^2 +8192x8192x8192 +blockwise +1 +1.053" o2/summary.txt
ok $? "a row not ok: exit 1, named, and its pair left out of the medians"

FAKE_RC=124 bash "$ab" o3 1 -- --recipe tensorwise >log 2>err
[ $? -eq 1 ] && grep -q "exit 124" log && grep -Eq "^1 +cublaslt +2 +8192x8192x8192 +tensorwise" o3/summary.txt
ok $? "a run that fails: exit 1, and what it wrote is still summarised"

FAKE_NOSAMPLES=1 bash "$ab" o5 1 -- --recipe tensorwise >log 2>err
grep -Eq "^1 +cublaslt +2 +8192x8192x8192 +tensorwise +3.0000 +3.1000 +0.968 +1.000 +3.4000 +3.3000 +- +-$" o5/summary.txt
ok $? "a table without a samples column: '-' in its place ($(grep -E '^1 +cublaslt' o5/summary.txt))"

rm -f calls
AB_BUDGET=0 bash "$ab" o4 3 -- --recipe tensorwise >log 2>err
grep -q "AB_BUDGET of 0 s spent: no round 1" log && [ ! -f calls ]
ok $? "AB_BUDGET spent: no further round starts"
done_testing
