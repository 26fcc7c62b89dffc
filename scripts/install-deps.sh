#!/bin/sh
# install-deps.sh - installs the Debian/Ubuntu packages f8bench builds with
# (as root), or prints the command that would (otherwise).
#   scripts/install-deps.sh [--test]   (--test adds what the test suite uses)
# The CUDA toolkit (nvcc, cuBLASLt, NCCL) is not a distribution package:
# install it from NVIDIA; configure finds it in /usr/local/cuda.
set -e
pkgs="build-essential autoconf automake pkg-config git mpich libmpich-dev libhdf5-dev hdf5-tools gnuplot-nox"
# slurm-wlm and munge: tests/slurm_sweep.sh runs the scripts/slurm templates
# on a one-node Slurm it starts itself; libxml2-utils: xmllint checks the
# JUnit XML of f8bench compare; procps: pgrep/pkill in tests/mpi_allgather.sh;
# groff-base: tests/man_page.sh renders the man page with warnings as errors.
[ "${1:-}" = --test ] && pkgs="$pkgs python3-h5py clang-format libxml2-utils slurm-wlm munge procps groff-base"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# An MPI other than MPICH (e.g. Open MPI already on a cluster node) is fine.
if command -v mpicc >/dev/null 2>&1; then
	missing=$(echo "$missing" | tr ' ' '\n' | grep -v -e '^mpich$' -e '^libmpich-dev$' | tr '\n' ' ')
fi
missing=$(echo $missing)
if [ -z "$missing" ]; then
	echo "install-deps: everything needed is installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages; as root run:" >&2
	echo "  apt-get update && apt-get install -y $missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: installed $missing"
