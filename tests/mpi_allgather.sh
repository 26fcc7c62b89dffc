#!/bin/sh
# mpi_allgather.sh - f8bench allgather on the host backend under
# mpiexec -n 1..4: every mode's exact checks pass (gathered weights bit
# for bit, the global amax, the reduce-scatter), fp8 moves half the bytes,
# the fp8 modes' SQNR against bf16 is recorded and identical across rank
# counts (rank 0's output does not depend on how the weight was sharded);
# --optimizer's step and both update schedules (memory freed by overlap);
# bad input, ranks given different arguments, and a rank that dies or
# stops responding (every rank ends, with the error, within --timeout).
. "${srcdir:-.}/tests/tap.sh"
[ -n "$MPIEXEC" ] || skip_all "no mpiexec found by configure"
cd "$tmp" || exit 1
Q="--backend host --min-time 0 --min-samples 3 --max-samples 5 --max-time 2 --warmup 1 -q"
A="allgather $Q --layers 3 --tokens 32,64"
extra=$(ompi_flags --oversubscribe)
# the value of column $2 in the row of mode $3 and tokens $4 of CSV $1
col() {
	csv_get "$1" "$2" mode="$3" tokens_per_rank="$4"
}
MODES="bf16 fp8-compute fp8-allgather fp8-allgather-axiswise"
for n in 1 2 3 4; do
	w=96x48
	[ $n = 4 ] && w=64x48
	$MPIEXEC $extra -n $n "$F8BENCH" $A --weights $w -o r$n.h5 >r$n.txt 2>&1
	rc=$?
	ok $rc "mpiexec -n $n f8bench allgather --weights $w"
	[ $rc = 0 ] || diag "$(tail -5 r$n.txt)"
	"$F8BENCH" export r$n.h5 --csv --table allgather >r$n.csv 2>/dev/null
	rows=$(($(wc -l <r$n.csv) - 1))
	ok "$([ "$rows" = 8 ] && echo 0 || echo 1)" "$n ranks: 8 rows (got $rows)"
	for m in $MODES; do
		st=$(col r$n.csv status $m 64) ck=$(col r$n.csv checks $m 64) rk=$(col r$n.csv ranks $m 64)
		ok "$([ "$st" = ok ] && [ "${ck:-0}" -ge 4 ] && [ "$rk" = $n ] && echo 0 || echo 1)" \
			"$n ranks, $m: $st after $ck exact checks (ranks=$rk)"
	done
	b=$(col r$n.csv ag_bytes_per_step bf16 32) f=$(col r$n.csv ag_bytes_per_step fp8-allgather 32)
	ok "$(awk -v b="$b" -v f="$f" 'BEGIN { print (b > 0 && 2 * f == b) ? 0 : 1 }')" \
		"$n ranks: fp8-allgather gathers half of bf16's bytes ($f of $b)"
	s=$(col r$n.csv sqnr_min_db fp8-allgather 64)
	ok "$(awk -v s="$s" 'BEGIN { print (s > 15 && s < 60) ? 0 : 1 }')" \
		"$n ranks: fp8-allgather's SQNR against bf16 is recorded ($s dB)"
	# same global scale as a cast of the whole weight: the same output
	so=$(col r$n.csv sqnr_out_db fp8-allgather 64) sc=$(col r$n.csv sqnr_out_db fp8-compute 64)
	ok "$([ -n "$so" ] && [ "$so" = "$sc" ] && echo 0 || echo 1)" \
		"$n ranks: fp8-allgather's output SQNR equals fp8-compute's ($so, $sc)"
	# in-step collectives: timed from the last rank's start, the first
	# ranks' wait apart (none on one rank)
	aw=$(col r$n.csv ag_wait_s fp8-allgather 64) rw=$(col r$n.csv rs_wait_s fp8-allgather 64)
	at=$(col r$n.csv ag_overlap_time_s fp8-allgather 64)
	ok "$(awk -v a="$aw" -v r="$rw" -v t="$at" -v n=$n 'BEGIN { print (a ~ /^[0-9.e+-]+$/ && r ~ /^[0-9.e+-]+$/ &&
		a >= 0 && r >= 0 && t > 0 && (n > 1 || a + r == 0)) ? 0 : 1 }')" \
		"$n ranks: in-step gather $at s, waits for the last rank $aw s (gathers) and $rw s (reduce-scatters)"
done
s1=$(col r1.csv sqnr_out_db fp8-allgather 32) s2=$(col r2.csv sqnr_out_db fp8-allgather 32)
s3=$(col r3.csv sqnr_out_db fp8-allgather 32)
ok "$([ -n "$s1" ] && [ "$s1" = "$s2" ] && [ "$s1" = "$s3" ] && echo 0 || echo 1)" \
	"rank 0's output is the same on 1, 2 and 3 ranks ($s1 / $s2 / $s3 dB)"
lib=$(col r2.csv library bf16 32) tr=$(col r2.csv transport bf16 32)
ok "$([ "$lib" = MPI ] && echo 0 || echo 1)" "host rows name MPI as the library ($lib, $tr)"
$MPIEXEC $extra -n 2 "$F8BENCH" $A --weights 64 --modes fp8-allgather --rs-dtype f32 -o f32.h5 >f32.txt 2>&1
ok $? "--rs-dtype f32 (bf16 baseline measured though not listed)"
"$F8BENCH" export f32.h5 --csv --table allgather >f32.csv 2>/dev/null
ok "$([ "$(col f32.csv rs_dtype fp8-allgather 64)" = f32 ] && [ "$(col f32.csv status fp8-allgather 64)" = ok ] && echo 0 || echo 1)" \
	"f32 reduce-scatter row ok, speedup $(col f32.csv speedup_vs_bf16 fp8-allgather 64)"

# --gemm-impl: each fp8 mode on each implementation, bf16 once on cuBLASLt;
# the host backend refuses f8b, so its rows are unsupported (exit 0) and
# say why, while the cublaslt rows pass their checks.
$MPIEXEC $extra -n 2 "$F8BENCH" $A --weights 64 --tokens 32 --modes bf16,fp8-allgather \
	--gemm-impl cublaslt,f8b -o gi.h5 >gi.txt 2>&1
ok $? "mpiexec -n 2 allgather --gemm-impl cublaslt,f8b exits 0"
"$F8BENCH" export gi.h5 --csv --table allgather >gi.csv 2>/dev/null
rows=$(($(wc -l <gi.csv) - 1))
got="$(csv_get gi.csv gemm_impl mode=bf16)/$(csv_get gi.csv status mode=fp8-allgather gemm_impl=cublaslt)/$(csv_get gi.csv status mode=fp8-allgather gemm_impl=f8b)"
ok "$([ "$rows" = 3 ] && [ "$got" = cublaslt/ok/unsupported ] && echo 0 || echo 1)" \
	"3 rows: bf16 on cublaslt, fp8-allgather ok on cublaslt, unsupported on f8b ($rows, $got)"
msg=$(csv_get gi.csv message mode=fp8-allgather gemm_impl=f8b)
case "$msg" in *"impl f8b"*host*) r=0 ;; *) r=1 ;; esac
ok $r "the f8b row gives the host backend's refusal ($msg)"
$MPIEXEC $extra -n 1 "$F8BENCH" $A --weights 64 --gemm-impl cublaslt,nccl -o bad.h5 >bad.txt 2>&1
rc=$?
ok "$([ $rc = 2 ] && [ ! -e bad.h5 ] && grep -q "accepted: cublaslt, f8b" bad.txt && echo 0 || echo 1)" \
	"--gemm-impl nccl refused with exit 2, no file, the accepted names ($rc)"

# NCCL buffers, CTA policy and placement: recorded in every row (MPI
# takes host memory whatever is asked), checked the same in place or not,
# on 1 to 4 ranks; the default is symmetric, zero CTAs, in place, with the
# reduce-scatter on registered buffers (a communicator of its own).
for n in 1 2 3 4; do
	w=96x48
	[ $n = 4 ] && w=64x48
	got="$(col r$n.csv nccl_buffers bf16 32)/$(col r$n.csv cta_policy bf16 32)/$(col r$n.csv in_place bf16 32)/$(col r$n.csv rs_nccl_buffers bf16 32)"
	ok "$([ "$got" = symmetric/zero/1/registered ] && echo 0 || echo 1)" \
		"$n ranks: default rows record symmetric buffers, zero CTAs, in place, the reduce-scatter on registered buffers ($got)"
	$MPIEXEC $extra -n $n "$F8BENCH" $A --weights $w --tokens 32 --modes fp8-allgather \
		--nccl-buffers symmetric --nccl-cta-policy zero -o z$n.h5 >z$n.txt 2>&1
	ok $? "mpiexec -n $n allgather --nccl-buffers symmetric --nccl-cta-policy zero"
	"$F8BENCH" export z$n.h5 --csv --table allgather >z$n.csv 2>/dev/null
	got="$(col z$n.csv status fp8-allgather 32)/$(col z$n.csv nccl_buffers fp8-allgather 32)/$(col z$n.csv cta_policy fp8-allgather 32)"
	ok "$([ "$got" = ok/symmetric/zero ] && echo 0 || echo 1)" "$n ranks: symmetric, zero CTAs recorded ($got)"
	# the reduce-scatter on a communicator of its own, a high-priority
	# communication stream: recorded, checked, and the same numbers
	$MPIEXEC $extra -n $n "$F8BENCH" $A --weights $w --tokens 32 --modes fp8-allgather \
		--nccl-buffers symmetric --nccl-cta-policy zero --rs-nccl-buffers registered \
		--rs-max-ctas 8 --comm-priority high --gemm-sm-margin 4 -o t$n.h5 >t$n.txt 2>&1
	ok $? "mpiexec -n $n allgather --rs-nccl-buffers registered --rs-max-ctas 8 --comm-priority high --gemm-sm-margin 4"
	"$F8BENCH" export t$n.h5 --csv --table allgather >t$n.csv 2>/dev/null
	got="$(col t$n.csv status fp8-allgather 32)/$(col t$n.csv rs_nccl_buffers fp8-allgather 32)/$(col t$n.csv rs_max_ctas fp8-allgather 32)/$(col t$n.csv comm_priority fp8-allgather 32)/$(col t$n.csv nccl_buffers fp8-allgather 32)/$(col t$n.csv gemm_sm_margin fp8-allgather 32)"
	ok "$([ "$got" = ok/registered/8/high/symmetric/4 ] && echo 0 || echo 1)" \
		"$n ranks: the reduce-scatter's communicator and the stream priority recorded ($got)"
	a=$(col t$n.csv sqnr_grad_w_db fp8-allgather 32) b=$(col r$n.csv sqnr_grad_w_db fp8-allgather 32)
	ok "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 0 || echo 1)" \
		"$n ranks: the same grad_weight SQNR on two communicators ($a, $b)"
	got="$(col z$n.csv rs_nccl_buffers fp8-allgather 32)/$(col z$n.csv rs_max_ctas fp8-allgather 32)/$(col z$n.csv comm_priority fp8-allgather 32)"
	ok "$([ "$got" = registered/0/default ] && echo 0 || echo 1)" \
		"$n ranks: on symmetric gathers the reduce-scatter takes registered buffers by default ($got)"
	$MPIEXEC $extra -n $n "$F8BENCH" $A --weights $w --tokens 32 --in-place off --nccl-buffers plain \
		-o o$n.h5 >o$n.txt 2>&1
	ok $? "mpiexec -n $n allgather --in-place off --nccl-buffers plain"
	"$F8BENCH" export o$n.h5 --csv --table allgather >o$n.csv 2>/dev/null
	got=$(col o$n.csv rs_nccl_buffers fp8-allgather 32)
	ok "$([ "$got" = plain ] && echo 0 || echo 1)" "$n ranks: with plain gathers the reduce-scatter's buffers are plain too ($got)"
	for m in $MODES; do
		got="$(col o$n.csv status $m 32)/$(col o$n.csv nccl_buffers $m 32)/$(col o$n.csv cta_policy $m 32)/$(col o$n.csv in_place $m 32)"
		ok "$([ "$got" = ok/plain/default/0 ] && echo 0 || echo 1)" \
			"$n ranks, $m out of place on plain buffers: $got"
		# the same data gathered either way: the same outputs
		a=$(col o$n.csv sqnr_out_db $m 32) b=$(col r$n.csv sqnr_out_db $m 32)
		[ $m = bf16 ] || ok "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 0 || echo 1)" \
			"$n ranks, $m: the same output SQNR in place and out of place ($a, $b)"
	done
done

# --optimizer, --update (doc/allgather.md "The optimizer"): every variant,
# both schedules, on 1, 2 and 4 ranks: the optimizer's step bit for bit
# against the host reference, the global scales, the next gather (checks
# = 1 + 2L + the reduce-scatter's); overlap keeps two grad buffers
# instead of L, so its peak is lower by at least the L-2 shards it frees.
ok "$([ "$(col r2.csv optimizer fp8-allgather 32)/$(col r2.csv update fp8-allgather 32)" = none/after ] && echo 0 || echo 1)" \
	"rows without --optimizer record none/after"
for n in 1 2 4; do
	w=96x48 nk=4608
	[ $n = 4 ] && w=64x48 nk=3072
	for v in fp32 bf16 fp8 fp8-master16; do
		for u in after overlap; do
			$MPIEXEC $extra -n $n "$F8BENCH" allgather $Q --layers 3 --tokens 32 --weights $w \
				--optimizer $v --update $u -o o-$n-$v-$u.h5 >o.txt 2>&1
			rc=$?
			"$F8BENCH" export o-$n-$v-$u.h5 --csv --table allgather >o-$n-$v-$u.csv 2>/dev/null
			c=o-$n-$v-$u.csv
			got="$(col $c status fp8-allgather 32)/$(col $c optimizer fp8-allgather 32)/$(col $c update fp8-allgather 32)"
			ck=$(col $c checks fp8-allgather 32) ob=$(col $c optim_bytes fp8-allgather 32)
			ok "$([ $rc = 0 ] && [ "$got" = ok/$v/$u ] && [ "${ck:-0}" -ge 8 ] && awk -v b="$ob" 'BEGIN { exit !(b > 0) }' && echo 0 || echo 1)" \
				"$n ranks, --optimizer $v --update $u: $got after $ck exact checks, $ob optimizer bytes"
			[ $rc = 0 ] || diag "$(tail -3 o.txt)"
		done
		a=$(col o-$n-$v-after.csv peak_mem_bytes fp8-allgather 32)
		b=$(col o-$n-$v-overlap.csv peak_mem_bytes fp8-allgather 32)
		# one of the three layers' bf16 grad shards (nk/R elements each)
		free=$((nk / n * 2))
		ok "$([ -n "$a" ] && [ -n "$b" ] && [ $((a - b)) -ge $free ] && echo 0 || echo 1)" \
			"$n ranks, $v: overlap's peak $b is below after's $a by at least the $free bytes of the freed grad shards"
	done
done
# --rs-stream own: the reduce-scatters and the updates on a queue (and a
# communicator) of their own, the same weights either way
for u in after overlap; do
	$MPIEXEC $extra -n 2 "$F8BENCH" allgather $Q --layers 3 --tokens 32 --weights 96x48 \
		--optimizer fp8 --update $u --rs-stream own -o os-$u.h5 >o.txt 2>&1
	rc=$?
	"$F8BENCH" export os-$u.h5 --csv --table allgather >os-$u.csv 2>/dev/null
	got="$(col os-$u.csv status fp8-allgather 32)/$(col os-$u.csv rs_stream fp8-allgather 32)"
	a=$(col os-$u.csv sqnr_out_db fp8-allgather 32) b=$(col o-2-fp8-$u.csv sqnr_out_db fp8-allgather 32)
	ok "$([ $rc = 0 ] && [ "$got" = ok/own ] && [ -n "$a" ] && [ "$a" = "$b" ] && echo 0 || echo 1)" \
		"2 ranks, --optimizer fp8 --update $u --rs-stream own: $got, the same output SQNR as on one queue ($a, $b)"
done
ok "$([ "$(col o-2-fp8-after.csv rs_stream fp8-allgather 32)" = shared ] && echo 0 || echo 1)" \
	"rows without --rs-stream record shared"

# more layers than the 8 doubles an all-reduce once took
$MPIEXEC $extra -n 2 "$F8BENCH" allgather $Q --layers 9 --tokens 32 --weights 64x48 \
	--optimizer fp8 -o o9.h5 >o9.txt 2>&1
rc=$?
"$F8BENCH" export o9.h5 --csv --table allgather >o9.csv 2>/dev/null
ok "$([ $rc = 0 ] && [ "$(col o9.csv status fp8-allgather 32)" = ok ] && echo 0 || echo 1)" \
	"--optimizer fp8 on 9 layers: ok ($(tail -1 o9.txt))"
# out of place, and the same weights' step: the same outputs either way
$MPIEXEC $extra -n 2 "$F8BENCH" allgather $Q --layers 3 --tokens 32 --weights 96x48 \
	--optimizer fp8 --update overlap --in-place off --nccl-buffers plain -o oo.h5 >o.txt 2>&1
"$F8BENCH" export oo.h5 --csv --table allgather >oo.csv 2>/dev/null
a=$(col oo.csv sqnr_out_db fp8-allgather 32) b=$(col o-2-fp8-overlap.csv sqnr_out_db fp8-allgather 32)
ok "$([ "$(col oo.csv status fp8-allgather 32)" = ok ] && [ -n "$a" ] && [ "$a" = "$b" ] && echo 0 || echo 1)" \
	"--optimizer out of place: ok, the same output SQNR as in place ($a, $b)"
a=$(col o-2-fp8-after.csv sqnr_out_db fp8-allgather 32)
ok "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 0 || echo 1)" \
	"after and overlap update the same weights: the same output SQNR ($a, $b)"

# Bad input: exit 2, the option named.
bad() { # expected-text args...
	want=$1
	shift
	$MPIEXEC $extra -n 2 "$F8BENCH" allgather $Q "$@" -o bad.h5 >bad.txt 2>&1
	rc=$?
	ok "$([ $rc = 2 ] && grep -q -- "$want" bad.txt && [ ! -e bad.h5 ] && echo 0 || echo 1)" \
		"refused with exit 2 naming $want: $*"
	[ $rc = 2 ] || diag "exit $rc: $(tail -3 bad.txt)"
}
bad "--modes" --modes fp8,bf16
bad "--tokens" --tokens 17
bad "--layers" --layers 0
bad "--prefetch" --prefetch 9
bad "--rs-dtype" --rs-dtype f16
bad "--weights" --weights 100
bad "--timeout" --timeout -1
bad "accepted: plain, registered, symmetric" --nccl-buffers shiny
bad "accepted: default, efficiency, zero" --nccl-cta-policy most
bad "needs --nccl-buffers symmetric" --nccl-buffers plain --nccl-cta-policy zero
bad "--in-place" --in-place maybe
bad "accepted: default, high" --comm-priority urgent
bad "accepted: plain, registered, symmetric" --rs-nccl-buffers pinned
bad "--rs-max-ctas" --rs-max-ctas 65
bad "--rs-max-ctas" --rs-max-ctas -1
bad "--gemm-sm-margin" --gemm-sm-margin 33
bad "no SM margin yet" --gemm-impl cublaslt,f8b --gemm-sm-margin 4
bad "accepted: none, fp32, bf16, fp8, fp8-master16" --optimizer adam
bad "--update" --optimizer fp32 --update sometimes
bad "without --optimizer" --update overlap
bad "--rs-dtype f32 is not accepted" --optimizer fp32 --rs-dtype f32
bad "fp8-allgather only" --optimizer fp8 --modes bf16,fp8-allgather
bad "accepted: shared, own" --rs-stream separate
$MPIEXEC $extra -n 3 "$F8BENCH" $A --weights 64x48 -o bad.h5 >bad.txt 2>&1
ok "$([ $? = 2 ] && grep -q "on 3 ranks" bad.txt && echo 0 || echo 1)" "64 rows over 3 ranks: refused"
# Ranks given different arguments.
cat >diff.sh <<EOS
r=\${PMI_RANK:-\${OMPI_COMM_WORLD_RANK:-0}}
t=32; [ "\$r" = 1 ] && t=64
exec "$F8BENCH" $A --weights 64 --tokens \$t -o diff.h5
EOS
$MPIEXEC $extra -n 2 sh diff.sh >diff.txt 2>&1
rc=$?
ok "$([ $rc = 2 ] && grep -q "at --tokens, rank 0 has '32' and rank 1 has '64'" diff.txt && echo 0 || echo 1)" \
	"ranks with different --tokens: refused, the option named"
[ $rc = 2 ] || diag "exit $rc: $(tail -3 diff.txt)"

# A rank that stops responding (SIGSTOP) or dies (SIGKILL): every rank
# ends within --timeout (plus start-up), with an error; no results file.
fault() { # signal
	L="allgather --backend host --weights 96x48 --layers 2 --tokens 32,64,128,256 --min-time 0.3 --timeout 4 -q"
	rm -f fault.h5
	$MPIEXEC $extra -n 3 "$F8BENCH" $L -o fault.h5 >fault.txt 2>&1 &
	job=$!
	i=0
	while [ $i -lt 50 ] && ! ls fault.h5.tmp.* >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
	sleep 1
	victim=$(pgrep -f "f8bench $L" | tail -1)
	[ -n "$victim" ] && kill -"$1" "$victim"
	t0=$(date +%s)
	w=0
	while kill -0 $job 2>/dev/null && [ $w -lt 60 ]; do sleep 1; w=$((w + 1)); done
	kill -0 $job 2>/dev/null && { kill -9 $job; pkill -9 -f "f8bench $L"; }
	wait $job
	rc=$?
	dt=$(($(date +%s) - t0))
	# Rows written before the fault are results and stay (each case is
	# appended whole, and the file published with its first rows); a
	# fast host finishes a case or two before the signal, a slow one none.
	nok=0 nall=0
	if [ -e fault.h5 ]; then
		"$F8BENCH" export fault.h5 --csv --table allgather >fault.csv 2>/dev/null
		nok=$(csv_get fault.csv status | grep -cx ok)
		nall=$(($(wc -l <fault.csv) - 1))
	fi
	ok "$([ -n "$victim" ] && [ $rc != 0 ] && [ $dt -le 20 ] && [ "$nok" = "$nall" ] && echo 0 || echo 1)" \
		"SIG$1 to one rank: the job ended in $dt s with exit $rc; the rows kept are whole cases ($nok ok of $nall)"
	[ "$1" = STOP ] && {
		grep -q "did not complete within 4 s (--timeout)" fault.txt
		ok $? "the waiting ranks say why (a rank is dead or stuck)"
		diag "$(head -c 1500 fault.txt)"
	}
	pkill -9 -f "f8bench $L" 2>/dev/null
	# A stopped rank: rank 0 (the victim is the newest rank) ends by its
	# own timeout and takes its temporary file back before the abort.
	# (A killed rank has the launcher kill the others, which leaves them
	# no time to.)
	left=$(ls fault.h5.tmp.* 2>/dev/null | wc -l)
	[ "$1" = STOP ] && ok "$([ "$left" = 0 ] && echo 0 || echo 1)" "SIGSTOP: no temporary results file left behind ($left)"
	rm -f fault.h5.tmp.*
}
fault STOP
fault KILL
done_testing
