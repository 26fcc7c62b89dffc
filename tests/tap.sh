# tap.sh - TAP helpers for f8bench's shell tests (sourced).
# ok COND-EXIT-STATUS "description"; skip_all "why"; done_testing
tap_n=0
tap_failed=0
ok() {
	local rc=$1; shift
	tap_n=$((tap_n + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $tap_n - $*"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $*"
	fi
}
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $*"
}
diag() { printf '# %s\n' "$@"; }
# What Open MPI's mpiexec needs beside -n here, MPICH's nothing: the flags
# given (--oversubscribe on the host, --bind-to none on GPU nodes), and
# --allow-run-as-root when root.  Use unquoted: extra=$(ompi_flags ...).
ompi_flags() {
	$MPIEXEC --version 2>&1 | grep -qE "Open MPI|OpenRTE" || return 0
	echo "$*"
	[ "$(id -u)" = 0 ] && echo --allow-run-as-root
	return 0
}
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}
done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
}
: "${F8BENCH:=$(pwd)/f8bench}"
: "${srcdir:=.}"
export F8B_INPUTS="${F8B_INPUTS:-$srcdir/inputs}"
# A scratch directory removed on exit.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/f8b-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
