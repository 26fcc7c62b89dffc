# optim_sqnr.gp - f8bench report: the fp8 weight's SQNR against the
# length of the trajectory, one line per variant x scaling (optim).
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='optim_sqnr.png'" optim_sqnr.gp
# Reads optim-vars.gp (o_gpu, o_date, o_params, o_nsqnr) and optim_sqnr.dat
# (one block per series: a title line, then steps, fp8 weight SQNR dB,
# master SQNR dB), each against an fp64 AdamW of the same gradients.

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "optim_sqnr." . fmt
load "optim-vars.gp"
if (fmt eq "svg") {
	set terminal svg size 1100,650 dynamic noenhanced font "Sans,14" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1100,650 noenhanced font "Sans,11" background rgb "white"
	} else {
		set terminal png size 1100,650 noenhanced font "Sans,11" background rgb "white"
	}
}
set output out
set title sprintf("fp8 weight SQNR against steps, %.4gM parameters, %s, %s", o_params / 1e6, o_gpu, o_date)
set xlabel "steps"
set ylabel "SQNR of the e4m3 weight vs fp64 AdamW (dB)"
set logscale x
set grid xtics ytics lc rgb "#dddddd"
set key outside right top box opaque
plot for [i=0:o_nsqnr-1] "optim_sqnr.dat" index i using 1:2 with linespoints pt 7 title columnheader(1)
