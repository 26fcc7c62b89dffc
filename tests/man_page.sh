#!/bin/sh
# The man page, f8bench.1 (written by `f8bench man` at build time): groff
# renders it with every warning an error; it is what f8bench writes now;
# every command that `f8bench --help` lists has its section; and every
# option that a command's --help prints is in that section (a benchmark's
# common options: in "Options of every benchmark").  Skips without groff.
. "${srcdir:-.}/tests/tap.sh"
command -v groff >/dev/null 2>&1 || skip_all "no groff (Debian and Ubuntu: groff-base)"
page=$(pwd)/f8bench.1
[ -f "$page" ] || page=$(cd "${srcdir:-.}" && pwd)/f8bench.1
cd "$tmp" || exit 1

[ -f "$page" ]
ok $? "the page is built: $page"
groff -man -ww -z "$page" >render.err 2>&1 && [ ! -s render.err ]
ok $? "groff -man -ww renders it without a warning$(head -3 render.err | tr '\n' ' ')"
groff -man -ww -z -Tutf8 "$page" >render.err 2>&1 && [ ! -s render.err ]
ok $? "the same on a terminal (-Tutf8)$(head -3 render.err | tr '\n' ' ')"
if command -v man >/dev/null 2>&1 && man --help 2>&1 | grep -q -- --warnings; then
	MANWIDTH=80 man --warnings -l "$page" >page.txt 2>man.err && [ ! -s man.err ] && [ -s page.txt ]
	ok $? "man --warnings -l reads it cleanly$(head -3 man.err | tr '\n' ' ')"
else
	skip "no man-db (man --warnings)"
fi
"$F8BENCH" man >now.1 2>/dev/null && cmp -s now.1 "$page"
ok $? "it is what f8bench man writes now"

# The commands: the two-space-indented names of f8bench --help.
cmds=$("$F8BENCH" --help | awk '/^  [a-z]/ { print $1 }')
benches=$("$F8BENCH" --help | awk '/^Benchmarks/ { b = 1; next } /^$/ { b = 0 } b && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] && [ -n "$benches" ]
ok $? "f8bench --help lists commands ($(echo $cmds)) and benchmarks ($(echo $benches))"
# section PAGE TITLE: the lines of .SS "TITLE" up to the next .SS or .SH.
section() { awk -v t=".SS \"$2\"" '$0 == t { p = 1; next } /^\.S[SH] / { p = 0 } p' "$1"; }
# missing PAGE CMD: the options of CMD --help that CMD's section of PAGE
# lacks (with, for a benchmark, the common section), or "no section".
missing() {
	section "$1" "f8bench $2" >sec.txt
	[ -s sec.txt ] || { echo "no section"; return; }
	case " $(echo $benches) " in *" $2 "*) section "$1" "Options of every benchmark" >>sec.txt ;; esac
	# Every option --help prints: "  -o, --output FILE  ..." or "      --all  ...".
	"$F8BENCH" "$2" --help >help.txt 2>&1
	for o in $(sed -n 's/^ \{1,8\}\(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' help.txt); do
		grep -qF "\\fB$(printf '%s' "$o" | sed 's/-/\\-/g')\\fR" sec.txt || printf ' %s' "$o"
	done
	for c in $(sed -n 's/^ \{1,8\}-\([A-Za-z]\), --.*/\1/p' help.txt); do
		grep -qF "\\fB\\-$c\\fR" sec.txt || printf ' -%s' "$c"
	done
}
section "$page" "Options of every benchmark" | grep -q '^\.TP'
ok $? "the page has the options every benchmark takes"
for c in $cmds; do
	m=$(missing "$page" "$c")
	n=$("$F8BENCH" "$c" --help 2>&1 | grep -cE '^ {1,8}(-[A-Za-z], )?--[a-z]')
	[ -z "$m" ]
	ok $? "$c: its section has every option of its --help ($n)${m:+; missing:$m}"
done
# The check fails where it must: a page without compare's --tolerance.
grep -vF '\fB\-\-tolerance\fR' "$page" >cut.1
m=$(missing cut.1 compare)
[ "$m" = " --tolerance" ]
ok $? "a page without compare's --tolerance is caught (missing:$m)"
done_testing
