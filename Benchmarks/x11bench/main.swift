print("x11bench")
