# lls_roofline.gp - f8bench report: the lls training step's % of roofline
# against size, one line per recipe (bf16 included).
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='lls_roofline.png'" lls_roofline.gp
# Reads lls-vars.gp and lls-speedup.dat (column 6: the median % of roofline,
# 100 x predicted / measured step time).  Drawn only when some row has one.

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "lls_roofline." . fmt
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
rpt(r) = r eq "bf16" ? 15 : r eq "tensorwise" ? 7 : r eq "tensorwise-delayed" ? 9 : \
	r eq "axiswise" ? 5 : r eq "lw-axiswise-gw-hp" ? 13 : r eq "blockwise" ? 11 : 15
pt(i) = rpt(s_recipe[i]) - (s_graph[i] ? 0 : 1)
mdash(i) = s_impl[i] ? 3 : !s_graph[i] ? 4 : s_lanes[i] == 1 ? 5 : 1

set title sprintf("lls training step: %% of roofline (100 x predicted / measured)\n%s, %s", l_gpu, l_date) font ",14"
set logscale x 2
if (l_square) {
	set xlabel "size: M = K = N"
	set format x "%.0f"
} else {
	set xlabel "size: M x K x N"
	set format x "2^%L"
}
set ylabel "% of roofline"
set yrange [0:*]
set offsets graph 0.04, graph 0.04, graph 0.05, 0
set grid xtics ytics lc rgb "#e3e3e3" lw 1
set key outside right top reverse Left box samplen 3 spacing 1.2 font ",10"
set border lw 1.2
plot 100 with lines dt 3 lw 1.5 lc rgb "#555555" title "the roofline (100 %)", \
	for [i=1:ns] "lls-speedup.dat" index (i-1) using 1:6 with linespoints pt pt(i) ps 1.3 \
		lw 2 dt mdash(i) lc rgb rcolor(s_recipe[i]) title s_title[i]
