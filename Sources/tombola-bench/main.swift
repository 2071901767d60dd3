print("tombola-bench: not built yet")
