#!/bin/sh
# f8b_gemm_e4m3.sh - test_f8b_gemm's e4m3-output pass (F8B_TEST_PASSES=e4m3)
# as a test of its own, so that make check -j runs it beside the other
# passes (AM_TESTS_ENVIRONMENT gives test_f8b_gemm itself
# F8B_TEST_PASSES=main,pingpong; f8b_gemm_direct.sh the cluster and direct
# passes): its host references are the longest part of the GPU tests.  Skips without the CUDA build; the
# program prints its own skip plan without a GPU.
. "${srcdir:-.}/tests/tap.sh"
bin="$(dirname "${F8BENCH:-./f8bench}")/tests/gpu/test_f8b_gemm"
[ -x "$bin" ] || skip_all "no tests/gpu/test_f8b_gemm (a build without CUDA)"
F8B_TEST_PASSES=e4m3 exec "$bin"
