# f8bench report: what the templates in roofline/ plot (written by f8bench).
# Data blocks (gnuplot index i-1) of roofline-points.dat, speedup.dat,
# sqnr.dat and sqnr-summary.dat are series i below.
gpu = "NVIDIA H100 80GB HBM3"
date = "2026-11-22 to 2026-11-27"
rl_xmin = 20
rl_xmax = 20000
rl_ymin = 100
rl_ymax = 5000

ns = 12
array s_title[12]
array s_short[12]
array s_gran[12]
array s_fast[12]
array s_pair[12]
array s_x[12]
s_title[1] = "bf16 (baseline)"; s_short[1] = "bf16 (baseline)"; s_gran[1] = "bf16"; s_fast[1] = -1; s_pair[1] = 0; s_x[1] = 1
s_title[2] = "tensorwise, fast_accum on, e4m3 x e4m3"; s_short[2] = "tensorwise, fast_accum on"; s_gran[2] = "tensorwise"; s_fast[2] = 1; s_pair[2] = 1; s_x[2] = 1.875
s_title[3] = "tensorwise, fast_accum off, e4m3 x e4m3"; s_short[3] = "tensorwise, fast_accum off"; s_gran[3] = "tensorwise"; s_fast[3] = 0; s_pair[3] = 1; s_x[3] = 2.875
s_title[4] = "axiswise, fast_accum on, e4m3 x e4m3"; s_short[4] = "axiswise, fast_accum on"; s_gran[4] = "axiswise"; s_fast[4] = 1; s_pair[4] = 1; s_x[4] = 3.875
s_title[5] = "axiswise, fast_accum off, e4m3 x e4m3"; s_short[5] = "axiswise, fast_accum off"; s_gran[5] = "axiswise"; s_fast[5] = 0; s_pair[5] = 1; s_x[5] = 4.875
s_title[6] = "blockwise, fast_accum off, e4m3 x e4m3"; s_short[6] = "blockwise, fast_accum off"; s_gran[6] = "blockwise"; s_fast[6] = 0; s_pair[6] = 1; s_x[6] = 6.875
s_title[7] = "tensorwise, fast_accum on, e4m3 x e4m3 [f8b]"; s_short[7] = "tensorwise, fast_accum on"; s_gran[7] = "tensorwise"; s_fast[7] = 1; s_pair[7] = 2; s_x[7] = 2.125
s_title[8] = "tensorwise, fast_accum off, e4m3 x e4m3 [f8b]"; s_short[8] = "tensorwise, fast_accum off"; s_gran[8] = "tensorwise"; s_fast[8] = 0; s_pair[8] = 2; s_x[8] = 3.125
s_title[9] = "axiswise, fast_accum on, e4m3 x e4m3 [f8b]"; s_short[9] = "axiswise, fast_accum on"; s_gran[9] = "axiswise"; s_fast[9] = 1; s_pair[9] = 2; s_x[9] = 4.125
s_title[10] = "axiswise, fast_accum off, e4m3 x e4m3 [f8b]"; s_short[10] = "axiswise, fast_accum off"; s_gran[10] = "axiswise"; s_fast[10] = 0; s_pair[10] = 2; s_x[10] = 5.125
s_title[11] = "blockwise, fast_accum on, e4m3 x e4m3 [f8b]"; s_short[11] = "blockwise, fast_accum on"; s_gran[11] = "blockwise"; s_fast[11] = 1; s_pair[11] = 2; s_x[11] = 6.125
s_title[12] = "blockwise, fast_accum off, e4m3 x e4m3 [f8b]"; s_short[12] = "blockwise, fast_accum off"; s_gran[12] = "blockwise"; s_fast[12] = 0; s_pair[12] = 2; s_x[12] = 7.125

npairs = 2
array pair_name[2]
array pair_first[2]
array pair_last[2]
pair_name[1] = "e4m3 x e4m3"; pair_first[1] = 2; pair_last[1] = 6
pair_name[2] = "e4m3 x e4m3 [f8b]"; pair_first[2] = 7; pair_last[2] = 12

nshapes = 20
array shape_name[20]
shape_name[1] = "1024x1024x1024"
shape_name[2] = "2048x2048x2048"
shape_name[3] = "4096x4096x4096"
shape_name[4] = "8192x4096x4096"
shape_name[5] = "8192x4096x6144"
shape_name[6] = "16384x4096x4096"
shape_name[7] = "16384x4096x6144"
shape_name[8] = "8192x14336x4096"
shape_name[9] = "8192x8192x8192"
shape_name[10] = "8192x8192x10240"
shape_name[11] = "8192x4096x28672"
shape_name[12] = "16384x14336x4096"
shape_name[13] = "16384x8192x8192"
shape_name[14] = "16384x8192x10240"
shape_name[15] = "8192x28672x8192"
shape_name[16] = "16384x4096x28672"
shape_name[17] = "8192x8192x57344"
shape_name[18] = "16384x28672x8192"
shape_name[19] = "16384x16384x16384"
shape_name[20] = "16384x8192x57344"

nslots = 7
array slot_name[7]
slot_name[1] = "bf16"
slot_name[2] = "tensorwise\nfast_accum on"
slot_name[3] = "tensorwise\nfast_accum off"
slot_name[4] = "axiswise\nfast_accum on"
slot_name[5] = "axiswise\nfast_accum off"
slot_name[6] = "blockwise\nfast_accum on"
slot_name[7] = "blockwise\nfast_accum off"

nroofs = 4
array r_title[4]
array r_source[4]
array r_dtype[4]
array r_peak[4]
r_title[1] = "bf16 roof, measured at 8192x8192x57344, best of 16 (705.7 TFLOP/s, 2.81 TB/s)"; r_source[1] = "measured"; r_dtype[1] = "bf16"; r_peak[1] = 705.714753
r_title[2] = "fp8 roof, measured at 16384x16384x16384, best of 13 (1374 TFLOP/s, 2.81 TB/s)"; r_source[2] = "measured"; r_dtype[2] = "fp8"; r_peak[2] = 1374.46514
r_title[3] = "bf16 roof, datasheet (989.4 TFLOP/s, 3.35 TB/s)"; r_source[3] = "datasheet"; r_dtype[3] = "bf16"; r_peak[3] = 989.4
r_title[4] = "fp8 roof, datasheet (1979 TFLOP/s, 3.35 TB/s)"; r_source[4] = "datasheet"; r_dtype[4] = "fp8"; r_peak[4] = 1978.9
