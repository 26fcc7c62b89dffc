# sqnr.gp - f8bench report: GEMM output SQNR by granularity and fast_accum.
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='sqnr.png'" sqnr.gp
# Reads plot-vars.gp, sqnr.dat (every ok row: x, SQNR dB) and
# sqnr-summary.dat (per series: x, median, min, max).  One slot along x per
# granularity x fast_accum (bf16 first), fp8 dtype pairs side by side in it;
# small markers are single rows (spread a little by shape), the large marker
# with a bar is the median and the min-max range.

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "sqnr." . fmt
if (fmt eq "svg") {
	set terminal svg size 1280,760 dynamic noenhanced font "Sans,14" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1280,760 noenhanced font "Sans,11" background rgb "white"
	} else {
		set terminal png size 1280,760 noenhanced font "Sans,11" background rgb "white"
	}
}
set output out
load "plot-vars.gp"

gcolor(g) = g eq "bf16" ? "#000000" : g eq "tensorwise" ? "#1f77b4" : \
	g eq "axiswise" ? "#e66100" : g eq "blockwise" ? "#1a9641" : \
	g eq "blockwise-1x128" ? "#8c510a" : "#7b3294"
array PT_FILLED[5]
PT_FILLED[1] = 7; PT_FILLED[2] = 9; PT_FILLED[3] = 5; PT_FILLED[4] = 13; PT_FILLED[5] = 11
pt(i) = s_fast[i] < 0 ? 15 : PT_FILLED[(s_pair[i] - 1) % 5 + 1] - (s_fast[i] ? 0 : 1)

set title sprintf("GEMM output SQNR against a high-precision reference: %s, %s", gpu, date) \
	font ",15"
set xrange [0.4:nslots + 0.6]
set xtics () nomirror font ",10"
do for [j=1:nslots] { set xtics add (slot_name[j] j) }
set ytics nomirror
set offsets 0, 0, 2, 2
set ylabel "SQNR (dB; 20 log10 ||ref|| / ||D - ref||; higher is better)"
set xlabel "scaling granularity and fast_accum" offset 0,-0.8
set bmargin 5
set grid ytics lc rgb "#e3e3e3" lw 1
# fp8 SQNR sits far below bf16, so the upper right is normally empty.
set key inside top right reverse Left box opaque samplen 1 spacing 1.2 font ",10"
set border lw 1.2

plot for [i=1:ns] "sqnr.dat" index (i-1) using 1:2 with points pt pt(i) ps 0.6 \
		lc rgb gcolor(s_gran[i]) notitle, \
	for [i=1:ns] "sqnr-summary.dat" index (i-1) using 1:2:3:4 with yerrorbars \
		pt pt(i) ps 2 lw 2 lc rgb gcolor(s_gran[i]) title s_title[i]
