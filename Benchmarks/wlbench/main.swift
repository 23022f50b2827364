print("wlbench")
