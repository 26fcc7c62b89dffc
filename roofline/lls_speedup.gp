# lls_speedup.gp - f8bench report: the lls training step's fp8 speedup over
# bf16 against size, one line per recipe, the roofline's prediction beside it.
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='lls_speedup.png'" lls_speedup.gp
# Reads lls-vars.gp (series s_recipe, s_title, s_graph, s_lanes, s_impl; bf16 series before
# first_fp8) and lls-speedup.dat (block i-1 = series i: x, median speedup,
# min, max, predicted speedup, % of roofline).  x is M for square shapes,
# else M*K*N, on a log2 axis.  Colour = recipe; solid line = measured
# (open markers and dash-dot when the step ran without a graph, where both
# kinds are present; dash-dot-dot for a one-lane step, --lanes 1; dotted
# where the fp8 GEMMs ran on f8bench's own kernel, --gemm-impl f8b), dashed
# line of the same colour = the roofline's
# predicted speedup (bf16 predicted / recipe predicted).

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "lls_speedup." . fmt
load "lls-vars.gp"
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

rcolor(r) = r eq "bf16" ? "#000000" : r eq "tensorwise" ? "#1f77b4" : \
	r eq "tensorwise-delayed" ? "#56b4e9" : r eq "axiswise" ? "#e66100" : \
	r eq "lw-axiswise-gw-hp" ? "#b2182b" : r eq "blockwise" ? "#1a9641" : "#7b3294"
rpt(r) = r eq "tensorwise" ? 7 : r eq "tensorwise-delayed" ? 9 : r eq "axiswise" ? 5 : \
	r eq "lw-axiswise-gw-hp" ? 13 : r eq "blockwise" ? 11 : 15
pt(i) = rpt(s_recipe[i]) - (s_graph[i] ? 0 : 1)
# (a parenthesised dt would be read as a dash pattern)
mdash(i) = s_impl[i] ? 3 : !s_graph[i] ? 4 : s_lanes[i] == 1 ? 5 : 1

set title sprintf("lls training step (LayerNorm -> Linear -> Sigmoid, fwd + bwd): fp8 speedup over bf16\n%s, %s", l_gpu, l_date) font ",14"
set logscale x 2
if (l_square) {
	set xlabel "size: M = K = N"
	set format x "%.0f"
} else {
	set xlabel "size: M x K x N"
	set format x "2^%L"
}
set ylabel "speedup over bf16 (bf16 step time / fp8 step time)"
set format y "%.2f"
set offsets graph 0.04, graph 0.04, graph 0.05, graph 0.05
set grid xtics ytics lc rgb "#e3e3e3" lw 1
set key outside right top reverse Left box samplen 3 spacing 1.2 font ",10"
set border lw 1.2

if (first_fp8 <= ns) {
	plot 1 with lines dt 3 lw 1.5 lc rgb "black" title "bf16 (= 1)", \
		for [i=first_fp8:ns] "lls-speedup.dat" index (i-1) using 1:2:3:4 \
			with yerrorlines pt pt(i) ps 1.3 lw 2 dt mdash(i) \
			lc rgb rcolor(s_recipe[i]) title s_title[i], \
		for [i=first_fp8:ns] "lls-speedup.dat" index (i-1) using 1:5 \
			with lines dt 2 lw 1.5 lc rgb rcolor(s_recipe[i]) notitle, \
		(l_has_pred ? NaN : 1/0) with lines dt 2 lw 1.5 lc rgb "#555555" \
			title "dashed: the roofline's prediction"
} else {
	# bf16 rows only: nothing to compare, say so instead of an empty page.
	unset border
	unset tics
	unset xlabel
	unset ylabel
	unset key
	unset logscale x
	set xrange [0:1]
	set yrange [0:1]
	set label "no fp8 row has status ok: no speedup to show" at graph 0.5, 0.5 center font ",14"
	plot 2 notitle
}
