#!/bin/sh
# Under mpiexec -n 4 the cases are spread over ranks and rank 0 writes one
# file holding every case exactly once, with the rows a single rank gives.
. "${srcdir:-.}/tests/tap.sh"
[ -n "$MPIEXEC" ] || skip_all "no mpiexec found by configure"
cd "$tmp" || exit 1
Q="--backend host --min-time 0 --min-samples 3 --max-samples 5 --warmup 1 -q"
SWEEP="--shapes 256x256x256,512x1024x256 --scaling tensorwise,axiswise,blockwise --fast-accum on,off"
extra=$(ompi_flags --oversubscribe)

$MPIEXEC $extra -n 4 "$F8BENCH" gemm $Q $SWEEP -o m.h5 >out.txt 2>err.txt
rc=$?
ok $rc "mpiexec -n 4 f8bench gemm exits 0"
[ $rc = 0 ] || diag "$(cat err.txt)"
"$F8BENCH" gemm $Q $SWEEP -o s.h5 2>/dev/null
ok $? "single-rank run of the same sweep"
"$F8BENCH" export m.h5 --table gemm >m.csv && "$F8BENCH" export s.h5 --table gemm >s.csv
ok $? "export both"
col() { head -1 m.csv | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
key="$(col m),$(col k),$(col n),$(col scaling),$(col fast_accum),$(col a_dtype),$(col b_dtype)"
n=$(($(wc -l <m.csv) - 1))
ok "$([ "$n" = 14 ] && echo 0 || echo 1)" "14 rows under 4 ranks (got $n)"
dups=$(tail -n +2 m.csv | cut -d, -f"$key" | sort | uniq -d | wc -l)
ok "$([ "$dups" = 0 ] && echo 0 || echo 1)" "no case twice"
tail -n +2 m.csv | cut -d, -f"$key" | sort >mk.txt
tail -n +2 s.csv | cut -d, -f"$key" | sort >sk.txt
cmp -s mk.txt sk.txt
ok $? "the same cases as a single rank"
ranks=$(tail -n +2 m.csv | cut -d, -f"$(col rank)" | sort -u | tr '\n' ' ')
ok "$([ "$ranks" = "0 1 2 3 " ] && echo 0 || echo 1)" "rows came from ranks 0-3 ($ranks)"
# Same data, same arithmetic: the error figures agree row for row.
k2="$key,$(col rel_error),$(col sqnr_db)"
tail -n +2 m.csv | cut -d, -f"$k2" | sort >me.txt
tail -n +2 s.csv | cut -d, -f"$k2" | sort >se.txt
cmp -s me.txt se.txt
ok $? "rel_error and SQNR identical to the single-rank run"
"$F8BENCH" export m.h5 --provenance | grep -qx "mpi_ranks: 4"
ok $? "provenance records 4 ranks"
n=$("$F8BENCH" export m.h5 --provenance | grep -c "^rank [0-3] ")
ok "$([ "$n" = 3 ] && echo 0 || echo 1)" "provenance lists every rank's device (continuation lines: $n)"

# --interleave: a rank takes a whole group a round (gemm's groups: the
# implementations and D^T of one case; on the host the f8b rows are
# unsupported), and rank 0 writes every row of every rank's group.
ISWEEP="--shapes 256x256x256,512x1024x256 --scaling tensorwise,axiswise --fast-accum on,off --impl cublaslt,f8b --out-t on,off"
$MPIEXEC $extra -n 3 "$F8BENCH" gemm $Q $ISWEEP --interleave -o i.h5 >out.txt 2>err.txt
ok $? "mpiexec -n 3 f8bench gemm --interleave exits 0 ($(tail -c 300 err.txt))"
"$F8BENCH" export i.h5 --table gemm >i.csv
ikey="$key,$(col impl),$(col out_t)"
n=$(($(wc -l <i.csv) - 1))
ok "$([ "$n" = 34 ] && echo 0 || echo 1)" "34 rows under 3 ranks with --interleave (got $n)"
dups=$(tail -n +2 i.csv | cut -d, -f"$ikey" | sort | uniq -d | wc -l)
ok "$([ "$dups" = 0 ] && echo 0 || echo 1)" "no case twice"
ranks=$(tail -n +2 i.csv | cut -d, -f"$(col rank)" | sort -u | tr '\n' ' ')
ok "$([ "$ranks" = "0 1 2 " ] && echo 0 || echo 1)" "rows came from ranks 0-2 ($ranks)"
done_testing
