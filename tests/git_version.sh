#!/bin/sh
# git_version.sh - the git description in the provenance is this source
# tree's own: a tree that is no git checkout but sits inside another
# repository reports VERSION-nogit, not the other repository's commit.
. "${srcdir:-.}/tests/tap.sh"
command -v git >/dev/null 2>&1 || skip_all "no git"
gv="$(cd "${srcdir:-.}" && pwd)/scripts/git-version.sh"
cd "$tmp" || exit 1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
unset F8B_GIT_DESCRIBE
git init -q outer && echo x >outer/f && git -C outer add f && git -C outer commit -qm outer
outer=$(git -C outer rev-parse --short HEAD)
mkdir -p outer/sub/f8bench-0.1.0
v=$(sh "$gv" outer/sub/f8bench-0.1.0 0.1.0)
ok "$([ "$v" = 0.1.0-nogit ] && echo 0 || echo 1)" "a tree inside another repository: '$v' (not its commit $outer)"
git init -q own && echo y >own/g && git -C own add g && git -C own commit -qm own
own=$(git -C own rev-parse --short HEAD)
v=$(sh "$gv" own 0.1.0)
ok "$([ "$v" = "$own" ] && echo 0 || echo 1)" "a tree that is its repository's top level: '$v' ($own)"
v=$(F8B_GIT_DESCRIBE=given sh "$gv" outer/sub/f8bench-0.1.0 0.1.0)
ok "$([ "$v" = given ] && echo 0 || echo 1)" "F8B_GIT_DESCRIBE wins: '$v'"
v=$(sh "$gv" "$tmp/none" 0.1.0)
ok "$([ "$v" = 0.1.0-nogit ] && echo 0 || echo 1)" "no such directory: '$v'"
done_testing
