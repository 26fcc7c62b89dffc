# collectives.gp - f8bench report: all-gather and all-reduce bus bandwidth
# against message size (f8bench ceilings under mpiexec), log-log.
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='collectives.png'" collectives.gp
# Reads ceilings-vars.gp and collectives.dat: one index block per op and
# variant (buffers, CTA policy, placement), named by c_coll_title[i] and
# c_coll_kind[i] (0 all-gather, 1 all-reduce); columns bytes, busbw GB/s,
# datasheet GB/s.  busbw: nccl-tests' definitions.

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "collectives." . fmt
load "ceilings-vars.gp"
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
set title sprintf("Collectives: bus bandwidth against message size, %s, %s", c_gpu, c_date)
set logscale x 2
set logscale y 10
set xlabel "message size (bytes)"
set ylabel "bus bandwidth (GB/s)"
set format x "%.0b%B"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key outside right top box opaque font ",9"
# all-gather: filled circles, solid; all-reduce: triangles, dashed
plot for [i=1:c_coll_n] "collectives.dat" index (i-1) using 1:2 with linespoints \
     pt (c_coll_kind[i] ? 9 : 7) dt 1+c_coll_kind[i] lc i title (c_coll_title[i])
