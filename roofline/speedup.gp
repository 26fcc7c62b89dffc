# speedup.gp - f8bench report: fp8 GEMM speedup over bf16 against shape.
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='speedup.png'" speedup.gp
# Reads plot-vars.gp and speedup.dat (one block per series: shape index,
# median, min and max of bf16 time / fp8 time over the rows of that shape).
# One panel per fp8 dtype pair; one line per granularity x fast_accum:
# colour = granularity, solid filled = fast_accum on, dashed open = off.
# Error bars: the range when a shape has several rows (repeats).

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "speedup." . fmt
load "plot-vars.gp"
H = 150 + 470 * (npairs > 0 ? npairs : 1)
if (fmt eq "svg") {
	set terminal svg size 1280,H dynamic noenhanced font "Sans,14" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1280,H noenhanced font "Sans,11" background rgb "white"
	} else {
		set terminal png size 1280,H noenhanced font "Sans,11" background rgb "white"
	}
}
set output out

gcolor(g) = g eq "bf16" ? "#000000" : g eq "tensorwise" ? "#1f77b4" : \
	g eq "axiswise" ? "#e66100" : g eq "blockwise" ? "#1a9641" : \
	g eq "blockwise-1x128" ? "#8c510a" : "#7b3294"
array PT_FILLED[5]
PT_FILLED[1] = 7; PT_FILLED[2] = 9; PT_FILLED[3] = 5; PT_FILLED[4] = 13; PT_FILLED[5] = 11
pt(i) = s_fast[i] < 0 ? 15 : PT_FILLED[(s_pair[i] - 1) % 5 + 1] - (s_fast[i] ? 0 : 1)
# (a parenthesised dt would be read as a dash pattern)
dash(i) = s_fast[i] ? 1 : 2

set xrange [0.5:nshapes + 0.5]
set xtics () rotate by 35 right font ",9" nomirror
do for [j=1:nshapes] { set xtics add (shape_name[j] j) }
set ytics nomirror
set format y "%.1f"
set offsets 0, 0, 0.05, 0.05
set ylabel "speedup over bf16 (bf16 time / fp8 time)"
set xlabel "GEMM shape M x K x N, in order of flops"
set grid xtics ytics lc rgb "#e3e3e3" lw 1
set key outside right top reverse Left box samplen 3 spacing 1.2 font ",10"
set lmargin 13 # room for the first rotated shape name
set border lw 1.2

set multiplot layout (npairs > 0 ? npairs : 1), 1 \
	title sprintf("fp8 GEMM speedup over bf16: %s, %s", gpu, date) font ",15"
do for [p=1:npairs] {
	set title sprintf("A x B = %s", pair_name[p]) font ",12"
	plot 1 with lines dt 3 lw 1.5 lc rgb "black" title "bf16 (= 1)", \
		for [i=pair_first[p]:pair_last[p]] "speedup.dat" index (i-1) using 1:2:3:4 \
			with yerrorlines pt pt(i) ps 1.3 lw 2 dt dash(i) \
			lc rgb gcolor(s_gran[i]) title s_short[i]
}
if (npairs == 0) {
	# bf16 rows only: nothing to compare, say so instead of an empty page.
	unset border
	unset tics
	unset xlabel
	unset ylabel
	unset key
	set xrange [0:1]
	set yrange [0:1]
	set label "no fp8 row has status ok: no speedup to show" at graph 0.5, 0.5 center font ",14"
	plot 2 notitle
}
unset multiplot
