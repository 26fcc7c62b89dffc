# f8bench report: what roofline/lls_*.gp plot.
l_gpu = "NVIDIA H100 80GB HBM3"
l_date = "2026-11-25"
l_square = 1
l_both_graphs = 1
l_has_pred = 1

ns = 7
first_fp8 = 2
array s_recipe[7]
array s_title[7]
array s_graph[7]
array s_lanes[7]
s_recipe[1] = "bf16"; s_title[1] = "bf16, graph on"; s_graph[1] = 1; s_lanes[1] = 0
s_recipe[2] = "tensorwise"; s_title[2] = "tensorwise, graph on"; s_graph[2] = 1; s_lanes[2] = 0
s_recipe[3] = "tensorwise"; s_title[3] = "tensorwise, graph off"; s_graph[3] = 0; s_lanes[3] = 0
s_recipe[4] = "tensorwise-delayed"; s_title[4] = "tensorwise-delayed, graph on"; s_graph[4] = 1; s_lanes[4] = 0
s_recipe[5] = "axiswise"; s_title[5] = "axiswise, graph on"; s_graph[5] = 1; s_lanes[5] = 0
s_recipe[6] = "lw-axiswise-gw-hp"; s_title[6] = "lw-axiswise-gw-hp, graph on"; s_graph[6] = 1; s_lanes[6] = 0
s_recipe[7] = "blockwise"; s_title[7] = "blockwise, graph on"; s_graph[7] = 1; s_lanes[7] = 0

bd_shape = "16384x16384x16384"
nbars = 6
array bar_name[6]
bar_name[1] = "bf16, graph on"
bar_name[2] = "tensorwise, graph on"
bar_name[3] = "tensorwise-delayed, graph on"
bar_name[4] = "axiswise, graph on"
bar_name[5] = "lw-axiswise-gw-hp, graph on"
bar_name[6] = "blockwise, graph on"
bd_has_pred = 1

ncat = 5
array cat_name[5]
array cat_n[5]
cat_name[1] = "GEMM"; cat_n[1] = 18
cat_name[2] = "layernorm / sigmoid"; cat_n[2] = 14
cat_name[3] = "layernorm / sigmoid + cast (fused)"; cat_n[3] = 10
cat_name[4] = "casts, amax, scales"; cat_n[4] = 29
cat_name[5] = "other"; cat_n[5] = 0
