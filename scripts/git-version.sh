#!/bin/sh
# git-version.sh SRCDIR VERSION - the git description of the source tree in
# SRCDIR, for the provenance of every results file (src/git-version.h).
# $F8B_GIT_DESCRIBE wins when set (trees copied without .git).  git is
# asked only when SRCDIR is the top level of its own repository: a tarball
# unpacked inside some other checkout must not report that checkout's
# commit.  Otherwise: VERSION-nogit.
src=${1:?usage: git-version.sh SRCDIR VERSION}
version=${2:?usage: git-version.sh SRCDIR VERSION}
if [ -n "${F8B_GIT_DESCRIBE:-}" ]; then
	echo "$F8B_GIT_DESCRIBE"
	exit 0
fi
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || top=
here=$(cd "$src" 2>/dev/null && pwd -P) || here=
if [ -n "$top" ] && [ -n "$here" ] && [ "$(cd "$top" && pwd -P)" = "$here" ] &&
	d=$(git -C "$src" describe --always --dirty --tags 2>/dev/null); then
	echo "$d"
else
	echo "$version-nogit"
fi
