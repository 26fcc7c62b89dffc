#!/bin/sh
# f8b_gemm_direct.sh - test_f8b_gemm's cluster and direct-store passes
# (F8B_TEST_PASSES=cluster,direct) as a test of their own, so that make
# check -j runs them beside the main and ping-pong passes
# (AM_TESTS_ENVIRONMENT gives test_f8b_gemm itself
# F8B_TEST_PASSES=main,pingpong) and the e4m3 pass (f8b_gemm_e4m3.sh): in
# one process the four passes outgrew a GPU call's make check.  Skips
# without the CUDA build; the program prints its own skip plan without a
# GPU.
. "${srcdir:-.}/tests/tap.sh"
bin="$(dirname "${F8BENCH:-./f8bench}")/tests/gpu/test_f8b_gemm"
[ -x "$bin" ] || skip_all "no tests/gpu/test_f8b_gemm (a build without CUDA)"
F8B_TEST_PASSES=cluster,direct exec "$bin"
