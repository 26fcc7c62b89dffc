#!/bin/sh
# results/README.md is the index of results/ (its header has the rule): every
# file under results/ that git tracks (in a tarball: every file there) is
# covered by an entry, except the README.md pages; every path an entry names
# exists; every entry has a command and a tree (a commit hash).  The checker
# must also fail on a bogus entry, a missing entry and an entry without its
# tree, so it is run on three broken copies of the index too.
. "${srcdir:-.}/tests/tap.sh"
top=$(cd "${srcdir:-.}" && pwd)
index=$top/results/README.md
[ -f "$index" ] || skip_all "no results/README.md"
cd "$tmp" || exit 1

# The files: git's list in a checkout, else what is on disk (make distcheck).
# git's list is of the tree on disk, not of HEAD: tracked and untracked
# files that .gitignore lets in, less those deleted (a copy of a tree that
# travelled with an older .git, as on the project's GPU machines, would
# otherwise be checked against that older commit).
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	git -C "$top" ls-files --cached --others --exclude-standard results >all.txt 2>/dev/null &&
	[ -s all.txt ]; then
	(cd "$top" && while IFS= read -r p; do [ -f "$p" ] && echo "$p"; done) <all.txt | sort -u >files.txt
	from="git ls-files"
else
	(cd "$top" && find results -type f) >files.txt
	from="the files on disk"
fi
sort -o files.txt files.txt

# check INDEX: prints one line per problem, exits 1 if there is any.
check() {
	awk -v top="$top" '
	FNR == NR { file[$0] = 1; nfile++; next }
	/^\| `/ {
		line = $0
		gsub(/\\\|/, "\001", line) # an escaped | inside a cell
		n = split(line, cell, "|")
		# "| a | b | c |" splits into "", " a ", " b ", " c ", ""
		if (n < 5) { print FNR ": fewer than three cells: " $0; bad = 1; next }
		paths = cell[2]; cmd = cell[3]; tree = cell[n - 1]
		if (cmd !~ /[^ ]/) { print FNR ": no command"; bad = 1 }
		if (tree !~ /[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]/) {
			print FNR ": no tree (a commit hash of 7+ hex digits) in \"" tree "\""; bad = 1
		}
		np = 0
		while (match(paths, /`[^`]*`/)) {
			p = substr(paths, RSTART + 1, RLENGTH - 2)
			paths = substr(paths, RSTART + RLENGTH)
			np++
			if (p !~ /^results\// || p ~ /[*?{}\[\]]|\.\.\.|…/) {
				print FNR ": \"" p "\": not a path from the repository root under results/ (no globs, braces or ellipses)"
				bad = 1; continue
			}
			if (p ~ /\/$/) {
				dir[p] = 1; hit = 0
				for (f in file) if (index(f, p) == 1) { hit = 1; break }
				if (!hit) { print FNR ": \"" p "\": no such folder (no file under it)"; bad = 1 }
			} else {
				listed[p] = 1
				if (!(p in file)) { print FNR ": \"" p "\": no such file"; bad = 1 }
			}
		}
		if (!np) { print FNR ": no path in the first cell"; bad = 1 }
	}
	END {
		for (f in file) {
			if (f ~ /(^|\/)README\.md$/ || f in listed) continue
			covered = 0
			for (d in dir) if (index(f, d) == 1) { covered = 1; break }
			if (!covered) { print "\"" f "\": in no entry of the index"; bad = 1 }
		}
		exit bad
	}' files.txt "$1"
}

check "$index" >problems.txt
ok $? "results/README.md indexes the $(wc -l <files.txt) files of $from, each path it names exists"
sed 's/^/# /' problems.txt | head -40

# The checker fails where it must.
cp "$index" bogus.md
echo '| `results/h100/no-such-file.h5` | f8bench gemm | 0123abc |' >>bogus.md
check bogus.md >p1.txt
[ $? = 1 ] && grep -q 'no-such-file.h5": no such file' p1.txt
ok $? "a bogus entry fails: $(head -1 p1.txt)"

first=$(grep -v '/README.md$' files.txt | head -1)
grep -v "^| \`$first\`" "$index" | sed "s#\`$first\`, ##; s#, \`$first\`##" >missing.md
check missing.md >p2.txt
[ $? = 1 ] && grep -qF "\"$first\": in no entry" p2.txt
ok $? "a file without an entry fails ($first): $(grep -F "$first" p2.txt | head -1)"

cp "$index" notree.md
echo '| `results/h100/targets.md` | a command | not known |' >>notree.md
check notree.md >p3.txt
[ $? = 1 ] && grep -q 'no tree' p3.txt
ok $? "an entry without a tree fails: $(grep 'no tree' p3.txt | head -1)"
done_testing
