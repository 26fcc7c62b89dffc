# ag_projection.gp - f8bench report: the allgather step projected past one
# node (src/model/project.c, doc/allgather.md): fp8 speedup over bf16
# against the number of GPUs, one line per fp8 mode and tokens per rank;
# the measured speedups (at the rank counts measured) as black crosses.
#
# Reads ag-vars.gp (np, p_mode, p_title, has_measured) and
# ag-projection.dat (block i-1 = line i: ranks, speedup, exposed %; block
# np = the measured points: ranks, speedup).

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "ag_projection." . fmt
load "ag-vars.gp"
if (fmt eq "svg") {
	set terminal svg size 1280,720 dynamic noenhanced font "Sans,14" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1280,720 noenhanced font "Sans,11" background rgb "white"
	} else {
		set terminal png size 1280,720 noenhanced font "Sans,11" background rgb "white"
	}
}
set output out
# (a parenthesised dt would be read as a dash pattern)
mdash(i) = (i - 1) % 4 + 1
mcolor(m) = m == 1 ? "#e66100" : m == 2 ? "#1f77b4" : m == 3 ? "#1a9641" : "#7b3294"
set title sprintf("FSDP all-gather step projected to many GPUs: fp8 speedup over bf16\n%s, %s", l_gpu, l_date) font ",14"
set logscale x 2
set format x "%.0f"
set xlabel "GPUs (8 per node unless --gpus-per-node)"
set ylabel "predicted speedup over bf16"
set format y "%.2f"
set grid xtics ytics lc rgb "#e3e3e3" lw 1
set key outside right top box font ",10"
set border lw 1.2
set offsets graph 0.04, graph 0.04, graph 0.05, graph 0.05
if (np > 0 && has_measured) {
	plot 1 with lines dt 3 lw 1.5 lc rgb "black" title "bf16 (= 1)", \
		for [i=1:np] "ag-projection.dat" index (i-1) using 1:2 with linespoints pt 7 lw 2 \
			lc rgb mcolor(p_mode[i]) dt mdash(i) title p_title[i], \
		"ag-projection.dat" index np using 1:2 with points pt 2 ps 2 lw 2 lc rgb "black" title "measured"
} else { if (np > 0) {
	plot 1 with lines dt 3 lw 1.5 lc rgb "black" title "bf16 (= 1)", \
		for [i=1:np] "ag-projection.dat" index (i-1) using 1:2 with linespoints pt 7 lw 2 \
			lc rgb mcolor(p_mode[i]) dt mdash(i) title p_title[i]
} else {
	unset border; unset tics; unset xlabel; unset ylabel; unset key; unset logscale x
	set xrange [0:1]; set yrange [0:1]
	set label "no fp8 row with an ok bf16 row beside it: nothing to project" at graph 0.5, 0.5 center font ",14"
	plot 2 notitle
}
}
