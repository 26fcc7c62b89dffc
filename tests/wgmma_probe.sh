#!/bin/sh
# The study tools outside the build still compile against the kernel
# headers they borrow, for sm_90a, without spills: scripts/wgmma-probe.cu
# (kernels/gemm/ptx/wgmma.cuh, common/smem.cuh) and scripts/gemm-time.cu
# (the whole GEMM kernel, as scripts/gemm-bisect.sh builds it, unpatched);
# and gemm-bisect.sh parses.  nvcc only, no GPU needed.  Skips without
# nvcc (configured without CUDA).
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
[ -n "${NVCC:-}" ] && command -v "$NVCC" >/dev/null 2>&1 || skip_all "no nvcc (NVCC='${NVCC:-}')"
"$NVCC" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -I"$top/kernels" \
	-c "$top/scripts/wgmma-probe.cu" -o "$tmp/probe.o" >"$tmp/log" 2>&1
rc=$?
ok $rc "nvcc compiles scripts/wgmma-probe.cu for sm_90a (exit $rc: $(grep -m1 -i error "$tmp/log"))"
n=$(grep -c "Compiling entry function" "$tmp/log")
spills=$(grep -E "[1-9][0-9]* bytes spill" "$tmp/log" | head -n 1)
[ "$n" -ge 2 ] && [ -z "$spills" ] && ! grep -qi "C75[0-9][0-9]\|serializ" "$tmp/log"
ok $? "both probe kernels (promote, fast) built, no spills, no wgmma serialisation ($n entries; ${spills:-no spills})"
"$NVCC" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -I"$top/src" \
	-I"$top/kernels" -c "$top/scripts/gemm-time.cu" -o "$tmp/time.o" >"$tmp/log2" 2>&1
rc=$?
ok $rc "nvcc compiles scripts/gemm-time.cu for sm_90a (exit $rc: $(grep -m1 -i error "$tmp/log2"))"
n=$(grep -c "Compiling entry function" "$tmp/log2")
spills=$(grep -E "[1-9][0-9]* bytes spill" "$tmp/log2" | head -n 1)
[ "$n" -ge 3 ] && [ -z "$spills" ]
ok $? "its three kernels (fast, promote, block on 128x256) built, no spills ($n entries; ${spills:-no spills})"
bash -n "$top/scripts/gemm-bisect.sh"
ok $? "scripts/gemm-bisect.sh parses (bash -n)"
done_testing
