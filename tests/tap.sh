# tap.sh - TAP helpers for f8bench's shell tests (sourced).
# ok COND-EXIT-STATUS "description"; skip_all "why"; done_testing
tap_n=0
tap_failed=0
# csv_get's field splitter, found before a test changes directory.
tap_csv_awk="$(cd "${srcdir:-.}" && pwd)/scripts/csv.awk"
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
# csv_get FILE COLUMN [NAME=VALUE]...: the COLUMN of every row of the CSV
# FILE (f8bench export) whose NAME columns hold VALUE, one a line.  Fields
# are split by scripts/csv.awk (RFC 4180: a quoted field may hold commas).  Lines starting with #
# are skipped; the first other line is the header.
csv_get() {
	_f=$1 _k=$2
	shift 2
	awk -v k="$_k" -v conds="$*" "$(cat "$tap_csv_awk")"'
	/^#/ { next }
	!hdr { nh = split_csv($0, h); for (i = 1; i <= nh; i++) col[h[i]] = i; hdr = 1
		nc = split(conds, cs, " "); next }
	{
		split_csv($0, f)
		for (i = 1; i <= nc; i++) {
			eq = index(cs[i], "=")
			if (f[col[substr(cs[i], 1, eq - 1)]] != substr(cs[i], eq + 1)) next
		}
		print f[col[k]]
	}' "$_f"
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
