# f8bench report: what roofline/ag_*.gp plot.
l_gpu = "NVIDIA H100 80GB HBM3"
l_date = "2026-11-24"
array b_title[84]
array p_mode[64]
array p_title[64]
ns = 3
array s_mode[3]
array s_title[3]
s_mode[1] = 1; s_title[1] = "fp8-compute, 8x[8192x8192], 1 rank"
s_mode[2] = 2; s_title[2] = "fp8-allgather, 8x[8192x8192], 1 rank"
s_mode[3] = 3; s_title[3] = "fp8-ag-axiswise, 8x[8192x8192], 1 rank"
nb = 0
has_nccl = 0
p_mode[1] = 1; p_title[1] = "fp8-compute, 2048 tok/rank"
p_mode[2] = 1; p_title[2] = "fp8-compute, 8192 tok/rank"
p_mode[3] = 2; p_title[3] = "fp8-allgather, 2048 tok/rank"
p_mode[4] = 2; p_title[4] = "fp8-allgather, 8192 tok/rank"
p_mode[5] = 3; p_title[5] = "fp8-ag-axiswise, 2048 tok/rank"
p_mode[6] = 3; p_title[6] = "fp8-ag-axiswise, 8192 tok/rank"
np = 6
has_measured = 1
