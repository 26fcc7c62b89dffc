# lls_breakdown.gp - f8bench report: where the lls step's time goes at one
# shape, kernel by kernel, bf16 beside each recipe.
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='lls_breakdown.png'" lls_breakdown.gp
# Reads lls-vars.gp (bd_shape, bd_has_pred, nbars, bar_name, ncat, cat_name,
# cat_n: kernels per category) and
# lls-breakdown.dat: blocks 0..ncat-1 one per kernel category (bar, start ms,
# end ms, ...: each kernel, timed alone, a box placed after the kernels
# before it in the step), block ncat the step markers (bar, measured step
# ms, predicted step ms, sum of the kernels ms), block ncat+1 the labels of
# the wide boxes.  One horizontal bar per recipe, bf16 at the top; colour =
# category; the black tick is the step as timed, the dashed grey one the
# roofline's prediction.

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "lls_breakdown." . fmt
load "lls-vars.gp"
H = 220 + 70 * (nbars > 0 ? nbars : 1)
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

ccolor(c) = c == 1 ? "#4c72b0" : c == 2 ? "#55a868" : c == 3 ? "#8172b3" : \
	c == 4 ? "#dd8452" : "#8c8c8c"
Y(b) = nbars + 1 - b

set title sprintf("lls step at %s: where the time goes (each kernel timed alone, in step order)\n%s, %s", bd_shape, l_gpu, l_date) font ",14"
set yrange [0.4:nbars + 0.6]
set ytics () nomirror
do for [b=1:nbars] { set ytics add (bar_name[b] Y(b)) }
set xrange [0:*]
set xtics nomirror
set offsets 0, graph 0.04, 0, 0
set xlabel "time (ms)"
set grid xtics lc rgb "#e3e3e3" lw 1
set key outside right top vertical reverse Left box samplen 2 spacing 1.2 font ",10"
set style fill solid 0.9 border lc rgb "white"
set lmargin 26
set border lw 1.2
plot for [c=1:ncat] "lls-breakdown.dat" index (c-1) \
		using (($2+$3)/2):(Y($1)):2:3:(Y($1)-0.32):(Y($1)+0.32) with boxxyerror \
		lc rgb ccolor(c) title (cat_n[c] > 0 ? cat_name[c] : ""), \
	"" index ncat using 2:(Y($1)-0.42):(0):(0.84) with vectors nohead lw 3 \
		lc rgb "black" title "step, measured", \
	"" index ncat using 3:(Y($1)-0.42):(0):(0.84) with vectors nohead lw 2 dt 2 \
		lc rgb "#555555" title (bd_has_pred ? "step, roofline" : ""), \
	"" index (ncat+1) using 1:(Y($2)):3 with labels font ",8" tc rgb "white" notitle
