# opcodes.awk - sums an ncu source page (`ncu -i REP --page source --csv
# --print-source sass`, gemm-profile.sh's ncu-NAME-sass.csv) by opcode:
# "OPCODE instructions-executed stall-samples", one line each.  Prepend
# scripts/csv.awk:
#   awk "$(cat scripts/csv.awk results/h100/.../opcodes.awk)" ncu-ax4k-sass.csv
# Line 1 names the kernel, line 2 the columns.  An opcode is the source's
# first word after any predicate (@P0), without its modifiers (LDG.E.64:
# LDG).  opcodes.txt is two such sums side by side (axiswise, tensorwise),
# sorted by the difference.
NR == 2 {
	n = split_csv($0, h)
	for (i = 1; i <= n; i++) col[h[i]] = i
	next
}
NR > 2 {
	split_csv($0, f)
	src = f[col["Source"]]
	sub(/^ +/, "", src)
	split(src, w, " ")
	op = w[1] ~ /^@/ ? w[2] : w[1]
	sub(/\..*/, "", op)
	if (op == "") next
	ins[op] += f[col["Instructions Executed"]]
	smp[op] += f[col["Warp Stall Sampling (All Samples)"]]
}
END { for (op in ins) print op, ins[op], smp[op] }
