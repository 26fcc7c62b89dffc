#!/usr/bin/env bash
# gemm-bisect.sh - the study of results/h100/experiments/f8b-gemm-bisect/:
# which part of the real kernel keeps promotion's adds from overlapping
# the tensor work, when scripts/wgmma-probe.cu (two warpgroups, one SM, no
# loads) overlaps them fully.  One GPU call:
#
#   scripts/gemm-bisect.sh OUT [ROUNDS]
#
# Builds scripts/wgmma-probe.cu, and scripts/gemm-time.cu against a copy
# of kernels/ with the study's ablate.patch (its GT_ macros do nothing
# unless defined; BISECT_PATCH: another patch, such as ablate-fe82f9c.patch
# for that commit's kernels), in these variants (the 128x256 tile):
#   base   the kernel as it is;
#   notma  after the ring's first fill the producer loads nothing, only
#          arrives on the full barriers (the consumers reread stale,
#          random, nonzero data): no L2 traffic, no TMA writes to shared
#          memory, the barriers' protocol kept;
#   bare   notma, and the consumers wait for the ring's first fill only,
#          no full barrier after that;
#   noepi  no epilogue (D never stored; the sums stay live);
#   c2     a 2-CTA cluster sharing B (the /c2 tile).
#   s3     the 128x256 tile with three stages, not four (the ring's
#          depth); s3notma the same without loads;
#   pspin  the producer polls the empty barriers with test_wait (never
#          suspended in try_wait); cspin the consumers the full ones;
#          spin both; pspinnotma, spinnotma the same without loads
#          (kernels with test_next only: ablate.patch);
#   p32    the promoting halves' producer warpgroup keeps 32 registers,
#          not 24 (128 x 32 + 256 x 240 = 65536, the whole register
#          file: more than the launch gives, so it cannot run); p32notma
#          without loads;
#   t144   (with BISECT_EXTRA_PATCH=.../t144.patch) cuBLASLt's promoting
#          shape: a 128x144 tile, six stages, promotion with two partials
#          in flight, D stored from registers; t144c2 with the 2-CTA
#          cluster, t144s5 with five stages, t144notma without loads.
#          Their N is a multiple of 144: 8064, 4032, 1008 where the
#          others take 8192, 4096, 1024.
#   epiov  (with BISECT_EXTRA_PATCH=.../epi-overlap.patch) PROMOTE in
#          halves with its epilogue overlapped with the next tile's first
#          group (half 0 of K-block 0 issued between D's columns 0-127 and
#          128-255); FAST and BLOCK as in base.  (The kernels now
#          overlap their epilogue themselves: F8B_KG_EPIOV.)
#   noov   the kernels built without their overlapped epilogue
#          (-DF8B_KG_EPIOV=0): each tile's epilogue, then the next tile;
#   q1, q2, q3  the overlapped epilogue issuing the next tile's first
#          group after 1, 2 or 3 quarters of D's boxes (the kernels: 2 in
#          PROMOTE, 3 in BLOCK).
# BISECT_VARIANTS picks them (default: base notma bare noepi c2);
# BISECT_MODES the modes the shapes and onesm parts time (default "fast
# promote"; also block, the 128x128 block scales).
# Then, each round (ROUNDS, default 2), the parts of BISECT_PARTS
# (default "probe shapes onesm power"): probe, the probe on one SM and on
# every SM; shapes, each variant's fast and promote at 8192^3 and 4096^3
# (ten launches); onesm, each variant but c2 on one SM (GT_GRID=1,
# 1024x1024x8192); power, base and c2 (those of them built) over 500
# launches at 8192^3 (the GPU at its power cap).  nvidia-smi samples
# clocks, power and throttle reasons throughout (OUT/smi.csv).  Each
# result line is prefixed with "round variant".  Writes OUT/bisect.txt,
# OUT/probe.txt, OUT/ptxas-*.txt (spills) and OUT/smi.csv.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: gemm-bisect.sh OUT [ROUNDS]" >&2; exit 2; }
out=$1 rounds=${2:-2}
case $rounds in '' | *[!0-9]*) echo "gemm-bisect.sh: ROUNDS '$rounds' is not a number" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "$0")/.." && pwd)
patchf=${BISECT_PATCH:-$repo/results/h100/experiments/f8b-gemm-bisect/ablate.patch}
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
b=${BISECT_BUILD:-/tmp/gemm-bisect}
mkdir -p "$out" || exit 1
rm -rf "$b" && mkdir -p "$b/k" || exit 1
cp -r "$repo/kernels" "$b/k/" && (cd "$b/k" && patch -s -p1 <"$patchf") || {
	echo "gemm-bisect.sh: $patchf does not apply to this tree's kernels/" >&2
	exit 1
}
# BISECT_EXTRA_PATCH: a second patch on top (the t144 variants need
# t144.patch, the 144-column tile)
if [ -n "${BISECT_EXTRA_PATCH:-}" ]; then
	(cd "$b/k" && patch -s -p1 <"$BISECT_EXTRA_PATCH") || {
		echo "gemm-bisect.sh: $BISECT_EXTRA_PATCH does not apply after $patchf" >&2
		exit 1
	}
fi

build() { # NAME FLAGS...
	local name=$1
	shift
	"$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I"$repo/src" -I"$b/k/kernels" \
		"$@" "$repo/scripts/gemm-time.cu" -o "$b/$name" -Xptxas -v >"$out/ptxas-$name.txt" 2>&1 ||
		{ echo "gemm-bisect.sh: build $name failed" >&2; tail -20 "$out/ptxas-$name.txt" >&2; return 1; }
}
variants=${BISECT_VARIANTS:-base notma bare noepi c2}
flags() { # the build flags of a variant
	case $1 in
	base) ;;
	notma) echo -DGT_NOTMA ;;
	bare) echo -DGT_NOTMA -DGT_NOFULL ;;
	noepi) echo -DGT_NOEPI ;;
	c2) echo -DGT_CL=2 ;;
	s3) echo -DGT_BN=256 -DGT_STAGES=3 ;;
	s3notma) echo -DGT_BN=256 -DGT_STAGES=3 -DGT_NOTMA ;;
	pspin) echo -DGT_PSPIN ;;
	cspin) echo -DGT_CSPIN ;;
	spin) echo -DGT_PSPIN -DGT_CSPIN ;;
	pspinnotma) echo -DGT_PSPIN -DGT_NOTMA ;;
	spinnotma) echo -DGT_PSPIN -DGT_CSPIN -DGT_NOTMA ;;
	p32) echo -DGT_PREGS=32 ;;
	p32notma) echo -DGT_PREGS=32 -DGT_NOTMA ;;
	t144) echo -DGT_BN=144 -DGT_STAGES=6 ;;
	t144c2) echo -DGT_BN=144 -DGT_STAGES=6 -DGT_CL=2 ;;
	t144s5) echo -DGT_BN=144 -DGT_STAGES=5 ;;
	t144notma) echo -DGT_BN=144 -DGT_STAGES=6 -DGT_NOTMA ;;
	epiov) echo -DGT_EPIOV ;;
	noov) echo -DF8B_KG_EPIOV=0 ;;
	q1 | q2 | q3) echo "-DF8B_KG_EPIOV_QUARTERS=${1#q}" ;;
	*) echo "gemm-bisect.sh: no variant '$1'" >&2; return 1 ;;
	esac
}
for v in $variants; do
	f=$(flags "$v") || exit 2
	# shellcheck disable=SC2086
	build "$v" $f &
done
"$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I"$repo/kernels" \
	"$repo/scripts/wgmma-probe.cu" -o "$b/probe" >"$out/ptxas-probe.txt" 2>&1 &
fail=0
for j in $(jobs -p); do wait "$j" || fail=1; done
[ $fail = 0 ] || exit 1
for v in $variants; do
	echo "$v: $(grep -c 'bytes spill stores' "$out/ptxas-$v.txt") kernels, spills:" \
		"$(grep -o '[1-9][0-9]* bytes spill stores' "$out/ptxas-$v.txt" | tr '\n' ' ')"
done | tee "$out/spills.txt"

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$out/gpu.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active \
	--format=csv -lms 100 >"$out/smi.csv" 2>&1 &
smi=$!
trap 'kill $smi 2>/dev/null' EXIT

run() { # ROUND VARIANT MODE M N K (environment from the caller)
	local r=$1 v=$2
	shift 2
	case $v in t144*) set -- "$1" "$2" $(($3 / 144 * 144)) "$4" ;; esac
	local line
	line=$("$b/$v" "$@" 2>&1) || fail=1
	echo "$r $v $line" | tee -a "$out/bisect.txt"
}
parts=${BISECT_PARTS:-probe shapes onesm power}
modes=${BISECT_MODES:-fast promote}
for mode in $modes; do
	case $mode in fast | promote | block) ;; *) echo "gemm-bisect.sh: no mode '$mode'" >&2; exit 2 ;; esac
done
has() { case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
: >"$out/bisect.txt"
: >"$out/probe.txt"
for r in $(seq 1 "$rounds"); do
	# (the probe exits 1 for its fast rows: fast accumulation misses the
	# 1e-3 check it prints as WRONG; only its timing is wanted here)
	if has probe; then
		{
			echo "== round $r: one SM"
			"$b/probe" 4096 1
			echo "== round $r: every SM"
			"$b/probe" 65536 all
		} >>"$out/probe.txt" 2>&1
	fi
	shapel=()
	has shapes && shapel=("8192 8192 8192" "4096 4096 4096")
	for shape in "${shapel[@]}"; do
		for v in $variants; do
			for mode in $modes; do
				# shellcheck disable=SC2086
				run "$r" "$v" $mode $shape
			done
		done
	done
	if has onesm; then
		for v in $variants; do
			case $v in *c2) continue ;; esac
			for mode in $modes; do
				GT_GRID=1 run "$r" "$v" $mode 1024 1024 8192
			done
		done
	fi
	if has power; then
		for v in base c2; do
			case " $variants " in *" $v "*) ;; *) continue ;; esac
			for mode in fast promote; do
				GT_RUNS=500 run "$r" "$v" $mode 8192 8192 8192
			done
		done
	fi
done
cat "$out/probe.txt"
exit $fail
