# optim_time.gp - f8bench report: the optim step's time per state variant
# under each scaling of the fp8 weight (bars, left axis) and the minimal
# bytes per parameter of its single pass (points, right axis).
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='optim_time.png'" optim_time.gp
# Reads optim-vars.gp (o_gpu, o_date, o_params, o_steps, o_graph) and
# optim_time.dat (i, variant, bytes/param, dynamic, dynamic-sync, delayed,
# predicted and split ms).  The split bar is update, amax and cast as
# three launches.

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "optim_time." . fmt
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
set title sprintf("AdamW step, %.4gM parameters, %s, %s", o_params / 1e6, o_gpu, o_date)
set ylabel "step time (ms)"
set y2label "bytes per parameter (single pass)"
set yrange [0:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set grid ytics lc rgb "#dddddd"
set key top right box opaque
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.9
set xtics nomirror
plot "optim_time.dat" using 4:xtic(2) lc rgb "#1f77b4" title "dynamic (2 passes)", \
     "" using 5 lc rgb "#5e3c99" title "dynamic-sync (1 pass, grid barrier)", \
     "" using 6 lc rgb "#e66100" title "delayed", \
     "" using 7 lc rgb "#1a9641" title "predicted", \
     "" using 8 lc rgb "#999999" title "split: update, amax, cast", \
     "" using 1:3 axes x1y2 with points pt 7 ps 1.8 lc rgb "#000000" title "bytes / parameter"
