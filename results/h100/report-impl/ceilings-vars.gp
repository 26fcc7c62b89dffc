# f8bench report: what roofline/bandwidth.gp and collectives.gp plot.
c_gpu = "NVIDIA H100 80GB HBM3"
c_date = "2026-11-22 to 2026-11-27"
c_l2_bytes = 52428800
c_hbm_gbs = 2810.16568
c_coll_n = 0
array c_coll_title[1]
array c_coll_kind[1]
