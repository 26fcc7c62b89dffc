#!/usr/bin/env bash
# ag-node.sh - the all-gather measurements of a multi-GPU node in one job
# (doc/allgather.md, "NCCL buffers and CTA policy"): NCCL's own
# all_gather_perf in every buffer mode beside f8bench's collectives in the
# same modes, and the allgather benchmark's A/B of buffers and placement.
#
#   scripts/ag-node.sh OUTDIR [PART]...
#
# PART (default: build tests nccl-tests collectives ab):
#   build        bootstrap, configure, make into _gpu_build (kept: a later
#                call on the same machine skips it when f8bench is there)
#   tests        the multi-GPU tests (mpi_collectives.sh, mpi_allgather.sh)
#                and the allgather GPU op tests
#   nccl-tests   builds nccl-tests from NCCL_TESTS_SRC (default .nccl-tests,
#                a checkout the caller brought; it is never committed) for
#                sm_90, and runs all_gather_perf -b 1M -e 1G -f 4 -d int8
#                with plain, registered (-R 1), symmetric (-R 2) buffers and
#                the copy-engine policy (-R 2 -x 2) -> OUTDIR/nccl-tests.txt
#   collectives  f8bench ceilings all-gather in every buffer mode, CTA
#                policy and placement, and all-reduce in every buffer mode
#                (default policy) -> OUTDIR/collectives.h5
#   ab           f8bench allgather at D=8192 L=8, 2048 and 8192 tokens per
#                rank, every mode, in four configurations -> OUTDIR/allgather-ab.h5
#   ab2          the same at D=8192 L=8, 2048 and 8192 tokens per rank,
#                bf16 and fp8-allgather, for the two-communicator and
#                stream-priority options: registered (the default), with a
#                high-priority stream, with the reduce-scatter bounded to
#                16 CTAs on its own communicator, and gathers on symmetric
#                windows and the copy engines with the reduce-scatter on
#                registered buffers (with and without the priority and the
#                bound) -> OUTDIR/allgather-ab2.h5
#   ab3          the same two sizes and modes: the default (two
#                communicators), and the default with --gemm-sm-margin 4, 8
#                and 16, and 8 with a high-priority communication stream
#                -> OUTDIR/allgather-ab3.h5
#   rsq          --rs-stream: the default and --rs-stream own (bf16 and
#                fp8-allgather, 2048 and 8192 tokens per rank), then
#                --optimizer fp8 with --update after and overlap, each on
#                the shared and on its own stream -> OUTDIR/allgather-rsq.h5
#   r1           the allgather step on one rank (D=8192, L=8, 2048 and 8192
#                tokens, every mode), what the report predicts the node's
#                rows from -> OUTDIR/allgather-r1.h5
#   optim        the sharded AdamW update in the step (issue 24 item 7):
#                D=8192 L=8, 2048 and 8192 tokens, --optimizer fp8 and fp32
#                (AG_OPTIM_VARIANTS), --update after, then overlap, with
#                --rs-stream shared (AG_OPTIM_RS: a list, e.g. "shared own"),
#                AG_OPTIM_ROUNDS times (default 1), at AG_OPTIM_TOKENS
#                tokens/rank (default 2048,8192) -> OUTDIR/allgather-optim.h5
#   optimab      the update queue's priority and chunk A/B (AG_OPTIM_AB,
#                part_optimab) -> OUTDIR/optimab-NAME.h5
#   sweep        the allgather sweep in its default configuration (the
#                gpu-sweep.sh part allgather) -> OUTDIR/allgather-sweep.h5,
#                and the llama shapes appended
#   net          gpu-sweep.sh's allgather-net -> OUTDIR/allgather-net.h5
# Leaves OUTDIR/summary.txt (the last lines of each part) and
# OUTDIR/logs.tar.gz.  NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
out=${1:?usage: scripts/ag-node.sh OUTDIR [PART]...}
shift
parts=${*:-build tests nccl-tests collectives ab}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/_gpu_build"
logs="$out/logs"
mkdir -p "$logs"
summary="$out/summary.txt"
say() { echo "$*" | tee -a "$summary"; }
export NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export F8B_INPUTS="$src/inputs" F8B_ROOFLINE="$src/roofline"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
jobs=$(nproc 2>/dev/null || echo 4)
f8b="$build/f8bench"
status=0
mpi() { mpiexec -n "$ngpu" --bind-to none "$@"; }
say "== ag-node.sh on $(hostname) at $(date -u +%FT%TZ): $ngpu GPUs, parts: $parts"
say "tree: ${F8B_GIT_DESCRIBE:-$(cd "$src" && git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$summary"
nvidia-smi topo -m >"$logs/topo.txt" 2>&1

part_build() {
	if [ -x "$f8b" ]; then
		say "build: kept (_gpu_build/f8bench exists)"
		make -C "$build" -j"$jobs" >"$logs/build.log" 2>&1 || return 1
		return 0
	fi
	local t0=$(date +%s)
	mkdir -p "$build"
	(cd "$src" && ./bootstrap) >"$logs/bootstrap.log" 2>&1 &&
		(cd "$build" && "$src/configure") >"$logs/configure.log" 2>&1 &&
		make -C "$build" -j"$jobs" >"$logs/build.log" 2>&1 || {
		say "BUILD FAILED"
		tail -30 "$logs/build.log" "$logs/configure.log"
		return 1
	}
	say "build: ok in $(($(date +%s) - t0)) s"
}

part_tests() {
	local t=(tests/gpu/mpi_collectives.sh tests/gpu/mpi_allgather.sh tests/gpu/test_ag_ops tests/gpu/test_harness_gpu)
	make -C "$build" -j"$jobs" check TESTS="${t[*]}" >"$logs/tests.log" 2>&1 || status=1
	for f in mpi_collectives mpi_allgather test_ag_ops test_harness_gpu; do
		cp "$build/tests/gpu/$f.log" "$logs/" 2>/dev/null
		say "$f: $(grep -c '^ok' "$build/tests/gpu/$f.log" 2>/dev/null) ok, $(grep -c '^not ok' "$build/tests/gpu/$f.log" 2>/dev/null) not ok"
		grep -h '^not ok' "$build/tests/gpu/$f.log" 2>/dev/null | head -10 | tee -a "$summary"
	done
	grep -h '^# ' "$build/tests/gpu/mpi_collectives.log" 2>/dev/null | head -20 >>"$summary"
}

part_nccl_tests() {
	local nt=${NCCL_TESTS_SRC:-$src/.nccl-tests} home=
	for d in /usr/local/cuda /usr; do [ -f "$d/include/nccl.h" ] && home=$d && break; done
	[ -d "$nt" ] || { say "nccl-tests: no source at $nt"; return 1; }
	make -C "$nt" -j"$jobs" MPI=0 CUDA_HOME=/usr/local/cuda ${home:+NCCL_HOME=$home} \
		NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$logs/nccl-tests-build.log" 2>&1 || {
		say "nccl-tests: build failed"; tail -20 "$logs/nccl-tests-build.log"; return 1; }
	local bin="$nt/build/all_gather_perf" f="$out/nccl-tests.txt"
	: >"$f"
	for v in "-R 0" "-R 1" "-R 2" "-R 2 -x 2"; do
		echo "+ all_gather_perf -b 1M -e 1G -f 4 -d int8 -g $ngpu $v" | tee -a "$f"
		timeout 300 "$bin" -b 1M -e 1G -f 4 -d int8 -g "$ngpu" $v >>"$f" 2>&1 || status=1
	done
	for v in "-R 0" "-R 2"; do
		echo "+ all_reduce_perf -b 1M -e 1G -f 4 -d float -g $ngpu $v" | tee -a "$f"
		timeout 300 "$nt/build/all_reduce_perf" -b 1M -e 1G -f 4 -d float -g "$ngpu" $v >>"$f" 2>&1 || status=1
	done
	grep -E '^\+|^ +(1048576|268435456|1073741824) ' "$f" | tee -a "$summary"
}

part_collectives() {
	"$src/scripts/gpu-sweep.sh" "$f8b" "$out" collectives >"$logs/collectives.log" 2>&1 || status=1
	grep -E '^\+' "$logs/collectives.log" | tee -a "$summary"
	grep -E '(1 MiB|256 MiB|1 GiB) on' "$logs/collectives.log" | sed 's/.*| //' | tee -a "$summary"
	grep wrote "$logs/collectives.log" | tee -a "$summary"
}

part_ab() {
	local f="$out/allgather-ab.h5" app=
	for cfg in "--nccl-buffers plain --in-place off" "--nccl-buffers registered" \
		"--nccl-buffers symmetric --nccl-cta-policy default" "--nccl-buffers symmetric --nccl-cta-policy zero"; do
		echo "+ mpiexec -n $ngpu f8bench allgather --tokens 2048,8192 --min-time 0.2 --max-time 3 $cfg -o allgather-ab.h5 $app" | tee -a "$summary"
		mpi "$f8b" allgather --tokens 2048,8192 --min-time 0.2 --max-time 3 $cfg -o "$f" $app \
			>>"$logs/allgather-ab.log" 2>&1 || status=1
		app=--append
	done
	grep -E '^\[' "$logs/allgather-ab.log" | sed 's/.*| //' | tee -a "$summary"
}

# The columns named, from the allgather table of an HDF5 file, one row a line.
table() { # FILE COLUMN...
	local f=$1
	shift
	"$f8b" export "$f" --csv --table allgather 2>/dev/null | awk -v want="$*" "$(cat "$src/scripts/csv.awk")"'
		/^#/ { next }
		!hdr { hdr = 1; n = split(want, w, " "); nh = split_csv($0, h); for (i = 1; i <= nh; i++) ix[h[i]] = i
			  for (j = 1; j <= n; j++) printf "%s%s", w[j], j < n ? " " : "\n"; next }
		{ split_csv($0, f); for (j = 1; j <= n; j++) printf "%s%s", f[ix[w[j]]], j < n ? " " : "\n" }'
}

# One A/B: the configurations given, each a command appended to FILE.
ab_runs() { # FILE LOG CONFIG...
	local f=$1 log=$2 app=
	shift 2
	for cfg in "$@"; do
		echo "+ mpiexec -n $ngpu f8bench allgather --modes fp8-allgather --tokens 2048,8192 --min-time 0.2 --max-time ${AG_MAX_TIME:-2} $cfg -o $(basename "$f") $app" | tee -a "$summary"
		mpi "$f8b" allgather --modes fp8-allgather --tokens 2048,8192 --min-time 0.2 \
			--max-time "${AG_MAX_TIME:-2}" $cfg -o "$f" $app >>"$log" 2>&1 || status=1
		app=--append
	done
	table "$f" mode tokens_per_rank nccl_buffers cta_policy rs_nccl_buffers rs_max_ctas comm_priority \
		gemm_sm_margin rs_stream time_median_s speedup_vs_bf16 exposed_pct ag_busbw_gbps ag_busbw_kept_pct ag_wait_s \
		rs_busbw_gbps gemm_tflops gemm_kept_pct status | tee -a "$summary"
}

part_ab2() {
	local z="--nccl-buffers symmetric --nccl-cta-policy zero --rs-nccl-buffers registered"
	ab_runs "$out/allgather-ab2.h5" "$logs/allgather-ab2.log" "--nccl-buffers registered" \
		"--nccl-buffers registered --comm-priority high" "--nccl-buffers registered --rs-max-ctas 16" \
		"$z" "$z --comm-priority high" "$z --rs-max-ctas 16 --comm-priority high"
}

part_ab3() {
	ab_runs "$out/allgather-ab3.h5" "$logs/allgather-ab3.log" "" "--gemm-sm-margin 4" \
		"--gemm-sm-margin 8" "--gemm-sm-margin 16" "--gemm-sm-margin 8 --comm-priority high"
}

part_rsq() {
	local f="$out/allgather-rsq.h5"
	ab_runs "$f" "$logs/allgather-rsq.log" "" "--rs-stream own"
	for u in after overlap; do
		for q in shared own; do
			echo "+ mpiexec -n $ngpu f8bench allgather --tokens 2048,8192 --min-time 0.2 --max-time ${AG_MAX_TIME:-2} --optimizer fp8 --update $u --rs-stream $q -o allgather-rsq.h5 --append" | tee -a "$summary"
			mpi "$f8b" allgather --tokens 2048,8192 --min-time 0.2 --max-time "${AG_MAX_TIME:-2}" \
				--optimizer fp8 --update $u --rs-stream $q -o "$f" --append >>"$logs/allgather-rsq.log" 2>&1 || status=1
		done
	done
	table "$f" mode tokens_per_rank optimizer update rs_stream time_median_s speedup_vs_bf16 exposed_pct \
		ag_busbw_kept_pct ag_wait_s rs_busbw_gbps rs_overlap_busbw_gbps rs_wait_s gemm_kept_pct peak_mem_bytes checks status | tee -a "$summary"
}

part_r1() {
	echo "+ mpiexec -n 1 f8bench allgather --tokens 2048,8192 --min-time 0.2 --max-time ${AG_MAX_TIME:-2} -o allgather-r1.h5" | tee -a "$summary"
	mpiexec -n 1 --bind-to none "$f8b" allgather --tokens 2048,8192 --min-time 0.2 \
		--max-time "${AG_MAX_TIME:-2}" -o "$out/allgather-r1.h5" >"$logs/allgather-r1.log" 2>&1 || status=1
	grep -E '^\[' "$logs/allgather-r1.log" | sed 's/.*| //' | tee -a "$summary"
}

part_optim() {
	local f="$out/allgather-optim.h5" app= tk=${AG_OPTIM_TOKENS:-2048,8192}
	for r in $(seq 1 "${AG_OPTIM_ROUNDS:-1}"); do
	for q in ${AG_OPTIM_RS:-shared}; do
		for v in ${AG_OPTIM_VARIANTS:-fp8 fp32}; do
			for u in after overlap; do
				echo "+ round $r: mpiexec -n $ngpu f8bench allgather --tokens $tk --min-time 0.2 --max-time ${AG_MAX_TIME:-2} --optimizer $v --update $u --rs-stream $q -o allgather-optim.h5 $app" | tee -a "$summary"
				mpi "$f8b" allgather --tokens "$tk" --min-time 0.2 --max-time "${AG_MAX_TIME:-2}" \
					--optimizer $v --update $u --rs-stream $q -o "$f" $app >>"$logs/allgather-optim.log" 2>&1 || status=1
				app=--append
			done
		done
	done
	done
	table "$f" mode tokens_per_rank optimizer update rs_stream time_median_s speedup_vs_bf16 exposed_pct \
		gemm_kept_pct peak_mem_bytes optim_bytes checks status | tee -a "$summary"
}

# The update's queue priority and chunk size (doc/allgather-history.md
# "The optimizer in the step"): each AG_OPTIM_AB entry
# NAME:UPDATE:PRIORITY:CHUNK_KIB runs --optimizer fp8 (AG_OPTIM_VARIANTS) at
# 2048 and 8192 tokens/rank with F8B_AG_UPDATE_PRIORITY and
# F8B_AG_OPT_CHUNK_KIB set -> OUTDIR/optimab-NAME.h5
part_optimab() {
	local e n u p k v
	for e in ${AG_OPTIM_AB:-after:after:low:1024 low1m:overlap:low:1024 low128k:overlap:low:128 def128k:overlap:default:128 after128k:after:low:128}; do
		IFS=: read -r n u p k <<<"$e"
		local f="$out/optimab-$n.h5" app=
		for v in ${AG_OPTIM_VARIANTS:-fp8}; do
			echo "+ F8B_AG_UPDATE_PRIORITY=$p F8B_AG_OPT_CHUNK_KIB=$k mpiexec -n $ngpu f8bench allgather --tokens 2048,8192 --min-time 0.2 --max-time ${AG_MAX_TIME:-2} --optimizer $v --update $u -o optimab-$n.h5 $app" | tee -a "$summary"
			F8B_AG_UPDATE_PRIORITY=$p F8B_AG_OPT_CHUNK_KIB=$k mpi -x F8B_AG_UPDATE_PRIORITY -x F8B_AG_OPT_CHUNK_KIB \
				"$f8b" allgather --tokens 2048,8192 --min-time 0.2 --max-time "${AG_MAX_TIME:-2}" \
				--optimizer $v --update $u -o "$f" $app >>"$logs/optimab.log" 2>&1 || status=1
			app=--append
		done
		say "-- $n ($u, priority $p, chunk $k KiB)"
		table "$f" mode tokens_per_rank optimizer update time_median_s time_min_s exposed_pct \
			gemm_kept_pct peak_mem_bytes checks status | tee -a "$summary"
	done
}

part_sweep() {
	"$src/scripts/gpu-sweep.sh" "$f8b" "$out" allgather >"$logs/sweep.log" 2>&1 || status=1
	grep -E '^\+|^\[' "$logs/sweep.log" | sed 's/elapsed.*| //' | tee -a "$summary"
}

part_net() {
	"$src/scripts/gpu-sweep.sh" "$f8b" "$out" allgather-net >"$logs/net.log" 2>&1 || status=1
	grep -E '^\+|^\[' "$logs/net.log" | sed 's/elapsed.*| //' | tee -a "$summary"
}

for p in $parts; do
	t0=$(date +%s)
	case $p in
	build) part_build || { status=1; break; } ;;
	tests) part_tests ;;
	nccl-tests) part_nccl_tests || status=1 ;;
	collectives) part_collectives ;;
	ab) part_ab ;;
	ab2) part_ab2 ;;
	ab3) part_ab3 ;;
	rsq) part_rsq ;;
	r1) part_r1 ;;
	optim) part_optim ;;
	optimab) part_optimab ;;
	sweep) part_sweep ;;
	net) part_net ;;
	*) say "ag-node.sh: unknown part '$p'"; status=2 ;;
	esac
	say "-- $p: $(($(date +%s) - t0)) s"
done
tar -czf "$out/logs.tar.gz" -C "$logs" . && rm -rf "$logs"
say "== ag-node.sh: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
