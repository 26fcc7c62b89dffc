# f8bench report: what roofline/lls_*.gp plot.
l_gpu = "NVIDIA H100 80GB HBM3"
l_date = "2026-11-27"
l_square = 1
l_both_graphs = 0
l_has_pred = 1

ns = 11
first_fp8 = 2
array s_recipe[11]
array s_title[11]
array s_graph[11]
array s_lanes[11]
array s_impl[11]
s_recipe[1] = "bf16"; s_title[1] = "bf16"; s_graph[1] = 1; s_lanes[1] = 0; s_impl[1] = 0
s_recipe[2] = "tensorwise"; s_title[2] = "tensorwise"; s_graph[2] = 1; s_lanes[2] = 0; s_impl[2] = 0
s_recipe[3] = "tensorwise"; s_title[3] = "tensorwise [f8b]"; s_graph[3] = 1; s_lanes[3] = 0; s_impl[3] = 1
s_recipe[4] = "tensorwise-delayed"; s_title[4] = "tensorwise-delayed"; s_graph[4] = 1; s_lanes[4] = 0; s_impl[4] = 0
s_recipe[5] = "tensorwise-delayed"; s_title[5] = "tensorwise-delayed [f8b]"; s_graph[5] = 1; s_lanes[5] = 0; s_impl[5] = 1
s_recipe[6] = "axiswise"; s_title[6] = "axiswise"; s_graph[6] = 1; s_lanes[6] = 0; s_impl[6] = 0
s_recipe[7] = "axiswise"; s_title[7] = "axiswise [f8b]"; s_graph[7] = 1; s_lanes[7] = 0; s_impl[7] = 1
s_recipe[8] = "lw-axiswise-gw-hp"; s_title[8] = "lw-axiswise-gw-hp"; s_graph[8] = 1; s_lanes[8] = 0; s_impl[8] = 0
s_recipe[9] = "lw-axiswise-gw-hp"; s_title[9] = "lw-axiswise-gw-hp [f8b]"; s_graph[9] = 1; s_lanes[9] = 0; s_impl[9] = 1
s_recipe[10] = "blockwise"; s_title[10] = "blockwise"; s_graph[10] = 1; s_lanes[10] = 0; s_impl[10] = 0
s_recipe[11] = "blockwise"; s_title[11] = "blockwise [f8b]"; s_graph[11] = 1; s_lanes[11] = 0; s_impl[11] = 1

bd_shape = "16384x16384x16384"
nbars = 8
array bar_name[8]
bar_name[1] = "tensorwise"
bar_name[2] = "tensorwise [f8b]"
bar_name[3] = "axiswise"
bar_name[4] = "axiswise [f8b]"
bar_name[5] = "lw-axiswise-gw-hp"
bar_name[6] = "lw-axiswise-gw-hp [f8b]"
bar_name[7] = "blockwise"
bar_name[8] = "blockwise [f8b]"
bd_has_pred = 1

ncat = 5
array cat_name[5]
array cat_n[5]
cat_name[1] = "GEMM"; cat_n[1] = 24
cat_name[2] = "layernorm / sigmoid"; cat_n[2] = 12
cat_name[3] = "layernorm / sigmoid + cast (fused)"; cat_n[3] = 16
cat_name[4] = "casts, amax, scales"; cat_n[4] = 50
cat_name[5] = "other"; cat_n[5] = 0
