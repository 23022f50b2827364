print("kbwatch")
