# bandwidth.gp - f8bench report: read, write and copy bandwidth against
# working set (f8bench ceilings), log-log.
#
# Run by `f8bench report` inside its output directory, as
#     gnuplot -e "fmt='png'; out='bandwidth.png'" bandwidth.gp
# Reads ceilings-vars.gp (c_gpu, c_date, c_l2_bytes, c_hbm_gbs) and
# bandwidth.dat (index 0 read, 1 write, 2 copy: bytes, GB/s, datasheet GB/s).
# A working set that fits in L2 is swept from L2; the dashed vertical line
# is the L2 size and the horizontal one the HBM plateau the roofline uses.

if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "bandwidth." . fmt
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
set title sprintf("Bandwidth against working set, %s, %s", c_gpu, c_date)
set logscale xy 2
set xlabel "working set (bytes; read + written for copy)"
set ylabel "bandwidth (GB/s, bytes read + written)"
set format x "%.0b%B"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key top right box opaque
if (c_l2_bytes == c_l2_bytes) {
	set arrow 1 from c_l2_bytes, graph 0 to c_l2_bytes, graph 1 nohead dt 2 lc rgb "#555555"
	set label 1 sprintf(" L2 %.0f MiB", c_l2_bytes / 1048576.0) at c_l2_bytes, graph 0.05 left
}
hbm = (c_hbm_gbs == c_hbm_gbs) ? c_hbm_gbs : 1/0
plot "bandwidth.dat" index 0 using 1:2 with linespoints pt 7 lc rgb "#1f77b4" title "read", \
     "" index 1 using 1:2 with linespoints pt 9 lc rgb "#e66100" title "write", \
     "" index 2 using 1:2 with linespoints pt 5 lc rgb "#1a9641" title "copy", \
     hbm with lines dt 3 lw 2 lc rgb "#000000" title sprintf("HBM plateau %.0f GB/s", c_hbm_gbs)
