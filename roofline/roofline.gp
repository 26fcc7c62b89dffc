# roofline.gp - f8bench report: the log-log GEMM roofline.
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='roofline.png'" roofline.gp
# (fmt 'png' uses pngcairo when this gnuplot has it, else png; 'svg').
# Reads plot-vars.gp (series, roofs, ranges, GPU, date), roofline-points.dat
# (one block per series: arithmetic intensity, TFLOP/s) and
# roofline-roofs.dat (one block per roof: min(peak, intensity x bandwidth)).
# Colour = scaling granularity; filled = fast_accum on, open = off; marker
# shape = fp8 dtype pair.  Roofs: solid = measured, dashed = datasheet;
# grey = bf16, red = fp8 (the png terminal without cairo draws no dashes:
# there, datasheet roofs are thin).

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "roofline." . fmt
dashes = 1
if (fmt eq "svg") {
	set terminal svg size 1280,820 dynamic noenhanced font "Sans,14" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1280,820 noenhanced font "Sans,11" background rgb "white"
	} else {
		set terminal png size 1280,820 noenhanced font "Sans,11" background rgb "white"
		dashes = 0 # libgd draws no dashes: datasheet roofs are thin instead
	}
}
set output out
load "plot-vars.gp"

# Style: one colour per granularity, one marker per dtype pair.
gcolor(g) = g eq "bf16" ? "#000000" : g eq "tensorwise" ? "#1f77b4" : \
	g eq "axiswise" ? "#e66100" : g eq "blockwise" ? "#1a9641" : \
	g eq "blockwise-1x128" ? "#8c510a" : "#7b3294"
array PT_FILLED[5]
PT_FILLED[1] = 7; PT_FILLED[2] = 9; PT_FILLED[3] = 5; PT_FILLED[4] = 13; PT_FILLED[5] = 11
pt(i) = s_fast[i] < 0 ? 15 : PT_FILLED[(s_pair[i] - 1) % 5 + 1] - (s_fast[i] ? 0 : 1)
roofcolor(d) = d eq "fp8" ? "#b2182b" : "#606060"
roofdash(s) = s eq "measured" ? 1 : 2
roofwidth(s) = s eq "measured" || dashes ? 2.5 : 1

set title sprintf("GEMM roofline: %s, %s", gpu, date) font ",15"
set logscale xy 10
set xrange [rl_xmin:rl_xmax]
set yrange [rl_ymin:rl_ymax]
set format x "%g"
set format y "%g"
set mxtics 10
set mytics 10
# Label 2 and 5 of every decade too: the points span about one decade.
do for [e=-9:9] {
	set xtics add (sprintf("%g", 2 * 10.0**e) 2 * 10.0**e, sprintf("%g", 5 * 10.0**e) 5 * 10.0**e)
	set ytics add (sprintf("%g", 2 * 10.0**e) 2 * 10.0**e, sprintf("%g", 5 * 10.0**e) 5 * 10.0**e)
}
set xlabel "arithmetic intensity (flop/byte: 2MNK / minimal bytes moved to and from device memory)"
set ylabel "achieved TFLOP/s (2MNK / median time)"
set grid xtics ytics mxtics mytics lc rgb "#d9d9d9" lw 1, lc rgb "#f0f0f0" lw 1
set key top left reverse Left box opaque samplen 2.5 spacing 1.15 font ",10"
set border lw 1.2

points = "for [i=1:ns] 'roofline-points.dat' index (i-1) using 1:2 with points " . \
	"pt pt(i) ps 1.5 lw 1.5 lc rgb gcolor(s_gran[i]) title s_title[i]"
if (nroofs > 0) {
	plot for [i=1:nroofs] "roofline-roofs.dat" index (i-1) using 1:2 with lines \
		lw roofwidth(r_source[i]) dt roofdash(r_source[i]) lc rgb roofcolor(r_dtype[i]) title r_title[i], \
		@points
} else {
	# No roof known for this device (a CPU, or a GPU not in datasheet.tsv).
	plot @points
}
