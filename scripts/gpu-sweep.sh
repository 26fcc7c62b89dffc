#!/usr/bin/env bash
# gpu-sweep.sh - the reference GEMM sweeps kept under results/ (one GPU).
#
#   scripts/gpu-sweep.sh F8BENCH OUTDIR ceilings|collectives|main|lls|lls-large|lls-eager|allgather|allgather-net|extra|repeat|autotune|outliers
#
# ceilings: f8bench ceilings (bandwidth sweep, GEMM peaks, launch) -> OUTDIR/ceilings.h5
# collectives: NCCL all-gather / all-reduce bus bandwidth over every GPU of
#        the node (mpiexec -n <GPUs>): the all-gather in every buffer mode,
#        CTA policy and placement, the all-reduce in every buffer mode
#        -> OUTDIR/collectives.h5
# main:  pow2 + Llama-2-70B + Llama-3-8B shapes x tensorwise/axiswise/blockwise
#        x fast_accum on/off x e4m3:e4m3 and e4m3:e5m2, each with bf16
#        -> OUTDIR/gemm-sweep.h5, placed on the roofline of $CEILINGS (a file
#        from the ceilings part) when that is set, else of the datasheet
# repeat:   the same pow2 cases twice in one job -> OUTDIR/gemm-repeat.h5
# autotune: --autotune 8 over pow2 + model shapes (tensorwise and axiswise,
#           fast_accum on) -> OUTDIR/gemm-autotune.h5
# outliers: every granularity on inputs with outliers -> gemm-outliers.h5
# lls:   f8bench lls, every recipe on the pow2 shapes 1024..8192, each
#        beside its bf16 step, as CUDA graphs -> OUTDIR/lls-sweep.h5
#        ($CEILINGS as for main; ~3 min on an H100)
# lls-large: the same at 16384, appended to OUTDIR/lls-sweep.h5 (run after
#        lls; ~6.5 min on an H100: a part of its own, so that each part
#        fits a 10-minute job step)
# lls-eager: tensorwise on the same shapes with --graph off, appended to
#        OUTDIR/lls-sweep.h5 (run after lls and lls-large)
# allgather: f8bench allgather over every GPU of the node (mpiexec -n
#        <GPUs>): D=8192, L=8, 512..16384 tokens per rank, every mode ->
#        OUTDIR/allgather-sweep.h5, then D=16384 (L=4, 4096 tokens: gathers
#        of 256 and 512 MiB) appended, then the llama3-8b and llama2-70b
#        layer shapes (L=2, 4096 tokens) appended; the collectives part
#        (NCCL's own all-gather, the busbw reference) belongs in the same
#        job.  AG_ARGS (default empty) is added to every allgather command,
#        AG_MAX_TIME (default 3) is each case's --max-time
# allgather-net: the same at 2048 and 8192 tokens with NCCL's P2P and SHM
#        transports off (the network path) -> OUTDIR/allgather-net.h5
# extra:    repeat, autotune and outliers
# Every command is echoed, so the log holds exactly what produced each file.
set -uo pipefail
f8b=${1:?usage: gpu-sweep.sh F8BENCH OUTDIR main|extra}
out=${2:?}
part=${3:-main}
status=0
run() {
	echo "+ f8bench ${*}"
	"$f8b" "$@" || status=1
}
models=pow2,llama2-70b,llama3-8b
repeat() {
	run gemm --shapes pow2 --scaling tensorwise,axiswise,blockwise --fast-accum on,off \
		--dtypes e4m3:e4m3 -o "$out/gemm-repeat.h5"
	run gemm --shapes pow2 --scaling tensorwise,axiswise,blockwise --fast-accum on,off \
		--dtypes e4m3:e4m3 -o "$out/gemm-repeat.h5" --append
}
autotune() {
	run gemm --shapes $models --scaling tensorwise,axiswise --fast-accum on \
		--dtypes e4m3:e4m3 --autotune 8 --min-time 0.2 -o "$out/gemm-autotune.h5"
}
outliers() {
	run gemm --shapes 4096x4096x4096,8192x8192x8192 --scaling tensorwise,axiswise,blockwise \
		--fast-accum on,off --outliers 0.001:100 -o "$out/gemm-outliers.h5"
}
case $part in
ceilings)
	# Bandwidth samples are short: allow enough of them to reach 0.5 s.
	run ceilings --max-samples 5000 -o "$out/ceilings.h5"
	;;
collectives)
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	b=plain,registered,symmetric
	echo "+ mpiexec -n $ngpu f8bench ceilings --kinds allgather --nccl-buffers $b --nccl-cta-policy default,efficiency,zero"
	NCCL_NVLS_ENABLE=0 mpiexec -n "$ngpu" --bind-to none "$f8b" ceilings --kinds allgather \
		--nccl-buffers $b --nccl-cta-policy default,efficiency,zero \
		-o "$out/collectives.h5" || status=1
	echo "+ mpiexec -n $ngpu f8bench ceilings --kinds allreduce --nccl-buffers $b --append"
	NCCL_NVLS_ENABLE=0 mpiexec -n "$ngpu" --bind-to none "$f8b" ceilings --kinds allreduce \
		--nccl-buffers $b -o "$out/collectives.h5" --append || status=1
	;;
main)
	run gemm --shapes $models --scaling tensorwise,axiswise,blockwise --fast-accum on,off \
		--dtypes e4m3:e4m3,e4m3:e5m2 ${CEILINGS:+--ceilings "$CEILINGS"} -o "$out/gemm-sweep.h5"
	;;
lls)
	run lls --shapes 1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192 \
		--min-time 0.2 --max-time 2 ${CEILINGS:+--ceilings "$CEILINGS"} -o "$out/lls-sweep.h5"
	;;
lls-large)
	run lls --shapes 16384x16384x16384 --min-time 0.2 --max-time 2 \
		${CEILINGS:+--ceilings "$CEILINGS"} -o "$out/lls-sweep.h5" --append
	;;
lls-eager)
	# The same step launched kernel by kernel (no graph), for one recipe,
	# appended to the lls part's file.
	run lls --shapes pow2 --recipe tensorwise --graph off --min-time 0.2 --max-time 2 \
		${CEILINGS:+--ceilings "$CEILINGS"} -o "$out/lls-sweep.h5" --append
	;;
allgather | allgather-net)
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	env=() file=allgather-sweep.h5 tok=512,1024,2048,4096,8192,16384
	[ $part = allgather-net ] && env=(NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1) file=allgather-net.h5 tok=2048,8192
	mt=${AG_MAX_TIME:-3} ag=${AG_ARGS:-}
	echo "+ ${env[*]} mpiexec -n $ngpu f8bench allgather --tokens $tok --min-time 0.2 --max-time $mt $ag"
	env NCCL_NVLS_ENABLE=0 "${env[@]}" mpiexec -n "$ngpu" --bind-to none "$f8b" allgather \
		--tokens $tok --min-time 0.2 --max-time $mt $ag -o "$out/$file" || status=1
	# Gathers of 256 MiB and more (D=16384: 512 MiB in bf16, 256 in fp8),
	# for the busbw against NCCL's own plain call (the collectives part).
	if [ $part = allgather ]; then
		echo "+ mpiexec -n $ngpu f8bench allgather --weights 16384 --layers 4 --tokens 4096 --min-time 0.2 --max-time $mt $ag --append"
		env NCCL_NVLS_ENABLE=0 mpiexec -n "$ngpu" --bind-to none "$f8b" allgather \
			--weights 16384 --layers 4 --tokens 4096 --min-time 0.2 --max-time $mt $ag \
			-o "$out/$file" --append || status=1
		echo "+ mpiexec -n $ngpu f8bench allgather --weights llama3-8b,llama2-70b --layers 2 --tokens 4096 --min-time 0.2 --max-time $mt $ag --append"
		env NCCL_NVLS_ENABLE=0 mpiexec -n "$ngpu" --bind-to none "$f8b" allgather \
			--weights llama3-8b,llama2-70b --layers 2 --tokens 4096 --min-time 0.2 \
			--max-time $mt $ag -o "$out/$file" --append || status=1
	fi
	;;
repeat | autotune | outliers) $part ;;
extra) repeat; autotune; outliers ;;
*)
	echo "gpu-sweep.sh: unknown part '$part' (accepted: ceilings, collectives, main, lls, lls-large, lls-eager, allgather, allgather-net, extra, repeat, autotune, outliers)" >&2
	exit 2
	;;
esac
exit $status
