#!/bin/sh
# scripts/wgmma-probe.cu (a study tool outside the build) still compiles
# against the kernel headers it borrows (kernels/gemm/ptx/wgmma.cuh,
# common/smem.cuh), for sm_90a, without spills: nvcc only, no GPU needed.
# Skips without nvcc (configured without CUDA).
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
done_testing
