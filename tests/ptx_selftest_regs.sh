#!/bin/sh
# The setmaxnreg layer test (kernels/gemm/ptx_selftest.cu, setmaxnreg_kernel)
# tests what it says: its consumer warpgroups hold more values live than
# the 168 registers a thread of a 384-thread launch gets, so ptxas compiles
# them without a spill only because setmaxnreg.inc raises the count, and
# with the inc left out (-DF8B_SELFTEST_NREG_NO_INC) the same code spills.
# The GPU run of the kernel (tests/gpu/test_f8b_gemm_layers) checks its
# sums.  nvcc only, no GPU needed; skips without nvcc.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
[ -n "${NVCC:-}" ] && command -v "$NVCC" >/dev/null 2>&1 || skip_all "no nvcc (NVCC='${NVCC:-}')"
# build OBJ LOG [DEFINES]: ptx_selftest.cu compiled with ptxas -v
build() {
	"$NVCC" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -I"$top/src" \
		-I"$top/kernels" $3 -c "$top/kernels/gemm/ptx_selftest.cu" -o "$1" >"$2" 2>&1
}
kernel_line() { # LOG: the ptxas line with the kernel's spills
	grep -A1 "Function properties for .*setmaxnreg_kernel" "$1" | grep "bytes spill"
}
build "$tmp/with.o" "$tmp/with.log"
rc=$?
ok $rc "nvcc compiles kernels/gemm/ptx_selftest.cu for sm_90a (exit $rc: $(grep -m1 -i error "$tmp/with.log"))"
line=$(kernel_line "$tmp/with.log")
echo "$line" | grep -q " 0 bytes spill stores, 0 bytes spill loads"
ok $? "setmaxnreg_kernel after setmaxnreg.inc: no spills (${line:-no ptxas line})"
build "$tmp/without.o" "$tmp/without.log" -DF8B_SELFTEST_NREG_NO_INC
rc=$?
ok $rc "the same without setmaxnreg.inc compiles (exit $rc)"
line=$(kernel_line "$tmp/without.log")
echo "$line" | grep -qE "[1-9][0-9]* bytes spill stores"
ok $? "setmaxnreg_kernel without setmaxnreg.inc spills: its live values need the larger count (${line:-no ptxas line})"
done_testing
