# ag_busbw.gp - f8bench report: the allgather benchmark's all-gather bus
# bandwidth (nccl-tests' busbw: algbw x (R-1)/R) against message size,
# timed alone (solid) and inside the step, overlapped with compute
# (dashed), per mode and rank count; NCCL's own all-gather from a ceilings
# file (--ceilings) in black.
#
# Reads ag-vars.gp (nb, b_title, has_nccl, nccl_title) and ag-busbw.dat
# (block i-1 = series i: bytes, busbw alone, busbw in the step; block nb =
# NCCL's all-gather alone in the rows' variant, from the ceilings file).

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "ag_busbw." . fmt
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
set title sprintf("all-gather bus bandwidth: alone (solid), inside the step (dashed)\n%s, %s", l_gpu, l_date) font ",14"
set logscale x 2
set format x "%.0b %BB"
set xlabel "message size (the all-gather's output)"
set ylabel "busbw (GB/s)"
set grid xtics ytics lc rgb "#e3e3e3" lw 1
set key left top box font ",10"
set border lw 1.2
set offsets graph 0.04, graph 0.04, graph 0.05, graph 0.05
color(i) = word("#1f77b4 #e66100 #1a9641 #7b3294 #b2182b #56b4e9 #555555 #a6761d", (i - 1) % 8 + 1)
if (has_nccl) {
	plot for [i=1:nb] "ag-busbw.dat" index (i-1) using 1:2 with linespoints pt 7 lw 2 lc rgb color(i) title b_title[i], \
		for [i=1:nb] "ag-busbw.dat" index (i-1) using 1:3 with linespoints pt 6 lw 1.5 dt 2 lc rgb color(i) notitle, \
		"ag-busbw.dat" index nb using 1:2 with linespoints pt 1 lw 2 lc rgb "black" title nccl_title
} else { if (nb > 0) {
	plot for [i=1:nb] "ag-busbw.dat" index (i-1) using 1:2 with linespoints pt 7 lw 2 lc rgb color(i) title b_title[i], \
		for [i=1:nb] "ag-busbw.dat" index (i-1) using 1:3 with linespoints pt 6 lw 1.5 dt 2 lc rgb color(i) notitle
} else {
	unset border; unset tics; unset xlabel; unset ylabel; unset key; unset logscale x
	set xrange [0:1]; set yrange [0:1]
	set label "no row of two or more ranks: no bus bandwidth to show" at graph 0.5, 0.5 center font ",14"
	plot 2 notitle
}
}
