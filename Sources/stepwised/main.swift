print("stepwised")
