# ag_speedup.gp - f8bench report: the allgather step's fp8 speedup over
# bf16 (left) and its exposed communication (right) against tokens per
# rank, one line per fp8 mode and setting (weight, ranks).
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='ag_speedup.png'" ag_speedup.gp
# Reads ag-vars.gp (series s_mode, s_title) and ag-speedup.dat (block i-1 =
# series i: tokens per rank, speedup, exposed %).  Colour = mode (1
# fp8-compute, 2 fp8-allgather, 3 fp8-allgather-axiswise).

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "ag_speedup." . fmt
load "ag-vars.gp"
if (fmt eq "svg") {
	set terminal svg size 1600,640 dynamic noenhanced font "Sans,14" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1600,640 noenhanced font "Sans,11" background rgb "white"
	} else {
		set terminal png size 1600,640 noenhanced font "Sans,11" background rgb "white"
	}
}
set output out
# (a parenthesised dt would be read as a dash pattern)
mdash(i) = (i - 1) % 4 + 1
mcolor(m) = m == 1 ? "#e66100" : m == 2 ? "#1f77b4" : m == 3 ? "#1a9641" : "#7b3294"
set logscale x 2
set format x "%.0f"
set xlabel "tokens per rank"
set grid xtics ytics lc rgb "#e3e3e3" lw 1
set border lw 1.2
set offsets graph 0.04, graph 0.04, graph 0.05, graph 0.05
if (ns > 0) {
	set multiplot layout 1,2 title sprintf("FSDP all-gather step (forward + backward): fp8 over bf16\n%s, %s", l_gpu, l_date) font ",14"
	set ylabel "speedup over bf16 (bf16 step / fp8 step)"
	set format y "%.2f"
	set key left top box font ",10"
	plot 1 with lines dt 3 lw 1.5 lc rgb "black" title "bf16 (= 1)", \
		for [i=1:ns] "ag-speedup.dat" index (i-1) using 1:2 with linespoints pt 7 ps 1.2 lw 2 \
			lc rgb mcolor(s_mode[i]) dt mdash(i) title s_title[i]
	set ylabel "exposed communication (% of the step)"
	set format y "%.0f%%"
	set key right top box font ",10"
	plot 0 with lines dt 3 lw 1 lc rgb "black" notitle, \
		for [i=1:ns] "ag-speedup.dat" index (i-1) using 1:3 with linespoints pt 5 ps 1.1 lw 2 \
			lc rgb mcolor(s_mode[i]) dt mdash(i) title s_title[i]
	unset multiplot
} else {
	unset border; unset tics; unset xlabel; unset ylabel; unset key; unset logscale x
	set xrange [0:1]; set yrange [0:1]
	set label "no fp8 row with a bf16 row beside it has status ok: no speedup to show" at graph 0.5, 0.5 center font ",14"
	plot 2 notitle
}
