#!/bin/sh
# scripts/kernel-diff.sh: one kernel source against itself (the working
# tree beside a copy of it: every kernel the same, exit 0), against a copy
# where one kernel's code changed (that kernel named, exit 1), and its
# usage errors (exit 2).  nvcc only, no GPU; skips without nvcc (configured
# without CUDA) or python3.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
[ -n "${NVCC:-}" ] && command -v "$NVCC" >/dev/null 2>&1 || skip_all "no nvcc (NVCC='${NVCC:-}')"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
kd="$top/scripts/kernel-diff.sh"
export NVCC KDIFF_FILES=kernels/fill.cu KDIFF_JOBS=2

mkdir -p "$tmp/copy" && cp -R "$top/kernels" "$top/src" "$tmp/copy/"
"$kd" "$tmp/copy" "$top" >"$tmp/same" 2>&1
rc=$?
[ $rc = 0 ] && grep -Eq '^kernels/fill.cu: [1-9][0-9]* kernels the same, 0 differ, 0 only in OLD, 0 only in NEW$' "$tmp/same"
ok $? "a copy of the tree: every kernel of fill.cu the same, exit 0 (exit $rc: $(head -n 1 "$tmp/same"))"

# the fill's hash constant changed: the code of the kernels that use it differs
sed 's/0x9E3779B97F4A7C15ull/0x9E3779B97F4A7C17ull/' "$top/kernels/fill.cu" >"$tmp/copy/kernels/fill.cu"
! cmp -s "$top/kernels/fill.cu" "$tmp/copy/kernels/fill.cu"
ok $? "the copy's fill.cu is changed"
"$kd" "$tmp/copy" "$top" >"$tmp/diff" 2>&1
rc=$?
[ $rc = 1 ] && grep -Eq '^kernels/fill.cu: [0-9]+ kernels the same, [1-9][0-9]* differ' "$tmp/diff" &&
	grep -q '^  differs: ' "$tmp/diff"
ok $? "one changed constant: the kernels that use it differ, named, exit 1 (exit $rc: $(head -n 2 "$tmp/diff" | tr '\n' ' '))"

"$kd" >"$tmp/u1" 2>&1
rc=$?
[ $rc = 2 ] && grep -q usage "$tmp/u1"
ok $? "no argument: usage, exit 2 (exit $rc)"
"$kd" no-such-commit-or-dir >"$tmp/u2" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "neither a directory nor a commit" "$tmp/u2"
ok $? "an unknown OLD is refused, exit 2 (exit $rc: $(cat "$tmp/u2"))"
mkdir -p "$tmp/empty"
"$kd" "$tmp/empty" >"$tmp/u3" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "holds no kernels/ and src/" "$tmp/u3"
ok $? "a directory without a tree is refused, exit 2 (exit $rc)"
KDIFF_JOBS=x "$kd" "$tmp/copy" >"$tmp/u4" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "KDIFF_JOBS" "$tmp/u4"
ok $? "a bad KDIFF_JOBS is refused, exit 2 (exit $rc)"
done_testing
