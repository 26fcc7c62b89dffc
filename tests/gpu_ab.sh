#!/bin/sh
# scripts/gpu-ab.sh without a GPU or a compiler: its refusals, and the
# whole flow on two stand-in source trees whose "f8bench" writes what it
# was asked into its -o file (one a directory, one a tar archive; one
# whose build fails).  What it checks: each build's own provenance label,
# one file and log per build and round, the builds alternating within a
# round, the exit status of a failed run and of a failed build, AB_BUDGET,
# AB_BUILDS.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
ab=$top/scripts/gpu-ab.sh
cd "$tmp" || exit 1
command -v bash >/dev/null || skip_all "no bash"

refuse() { # WHAT-IT-MUST-SAY ARGS...
	want=$1
	shift
	bash "$ab" "$@" >out 2>err
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$want" err
	ok $? "refused with exit 2 and '$want': $* (exit $rc: $(head -c 200 err))"
}
mkdir -p tree
refuse "usage" out
refuse "is not a number" out x A=tree -- lls
refuse "at least 1" out 0 A=tree -- lls
refuse "is not LABEL=SRC" out 1 tree -- lls
refuse "letters, digits" out 1 "a/b=tree" -- lls
refuse "given twice" out 1 A=tree A=tree -- lls
refuse "no such tree or archive" out 1 A=nowhere -- lls
refuse "no '--'" out 1 A=tree
refuse "no f8bench arguments" out 1 A=tree --
refuse "leave -o/--output out" out 1 A=tree -- lls -o x.h5
refuse "leave -o/--output out" out 1 A=tree -- lls --output=x.h5

# A stand-in tree: bootstrap and configure of its own; its Makefile's
# f8bench is a shell script that writes the label it was built with into
# its -o file and exits RC.
mk_tree() { # DIR RC
	mkdir -p "$1"
	printf '#!/bin/sh\nexit 0\n' >"$1/bootstrap"
	printf '#!/bin/sh\ncp "$(dirname "$0")/Makefile.in" Makefile\n' >"$1/configure"
	printf 'src/git-version.h:\n\tmkdir -p src && echo "$$F8B_GIT_DESCRIBE" > src/git-version.h\nf8bench:\n\tcp ../f8bench.in f8bench && chmod +x f8bench\n' >"$1/Makefile.in"
	cat >"$1/f8bench.in" <<STUB
#!/bin/sh
label=\$(cat "\$(dirname "\$0")/src/git-version.h")
out=
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
[ -n "\$out" ] && echo "\$label" > "\$out"
exit $2
STUB
	chmod +x "$1/bootstrap" "$1/configure"
}
mk_tree good 0
mk_tree bad 3
(cd good && tar -cf ../good.tar .)

F8B_GIT_DESCRIBE=outer bash "$ab" run 2 base=good.tar new=good -- lls --shapes 8x8x8 >log 2>err
ok $? "two builds, two rounds: exit 0 ($(tail -n 3 err | tr '\n' ' '))"
for l in base new; do
	for k in 1 2; do
		[ -f "run/$l-$k.h5" ] && [ "$(cat "run/$l-$k.h5")" = "$l" ] && [ -f "run/$l-$k.log" ]
		ok $? "run/$l-$k.h5 written by the build labelled $l, not by F8B_GIT_DESCRIBE ($(cat "run/$l-$k.h5" 2>/dev/null))"
	done
done
order=$(grep '^+ \[' log | sed 's/^+ \[\([a-z]*\) round \([0-9]\)\].*/\1\2/' | tr '\n' ' ')
[ "$order" = "base1 new1 base2 new2 " ]
ok $? "the builds alternate within each round ($order)"
grep -q -- "f8bench lls --shapes 8x8x8 -o $tmp/run/base-1.h5" log
ok $? "the log holds each command"
[ -f run/compare-new.txt ] && grep -q "base -> new (round 1)" log
ok $? "each build's first round compared with the first build's (run/compare-new.txt)"

# OUTDIR inside a tree it copies: not copied into itself
bash "$ab" good/ab 1 a=good -- lls >log 2>err
[ $? -eq 0 ] && [ -f good/ab/a-1.h5 ] && [ ! -e good/ab/src-a/ab ]
ok $? "OUTDIR inside the tree: the copy leaves it out"

bash "$ab" run2 1 a=good b=bad -- lls >log 2>err
[ $? -eq 1 ] && [ -f run2/a-1.h5 ]
ok $? "a run that fails: exit 1, the others still run"

printf 'garbage' >broken.tar
bash "$ab" run3 1 a=good b=broken.tar -- lls >log 2>err
[ $? -eq 1 ] && grep -q "build of b FAILED" err && [ ! -f run3/a-1.h5 ]
ok $? "a build that fails: exit 1 and no run"

AB_BUDGET=0 bash "$ab" run4 3 a=good -- lls >log 2>err
[ $? -eq 0 ] && grep -q "AB_BUDGET of 0 s spent: no round 1" log && [ ! -f run4/a-1.h5 ]
ok $? "AB_BUDGET: no round starts once it is spent"
# AB_BUILDS: the builds live there; a second run on the same labels
# reuses them (the stand-in Makefile would fail now), into its own OUTDIR.
AB_BUILDS=builds bash "$ab" run5 1 a=good -- lls >log 2>err
[ $? -eq 0 ] && [ -x builds/src-a/b/f8bench ] && [ ! -e run5/src-a ] && [ "$(cat run5/a-1.h5)" = a ]
ok $? "AB_BUILDS: the build goes there, the run's files into OUTDIR"
printf 'f8bench:\n\tfalse\n' >builds/src-a/b/Makefile
AB_BUILDS=builds bash "$ab" run6 1 a=good -- lls >log 2>err
[ $? -eq 0 ] && grep -q "a: reusing" run6/build-a.log && [ "$(cat run6/a-1.h5)" = a ]
ok $? "AB_BUILDS: a second run reuses the build ($(tail -n 2 err | tr '\n' ' '))"
bash "$ab" run7 1 a=good -- lls >log 2>err
[ $? -eq 0 ] && ! grep -q "reusing" run7/build-a.log && [ -x run7/src-a/b/f8bench ]
ok $? "without AB_BUILDS every run builds afresh"
done_testing
