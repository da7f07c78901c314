# Wrong: q2 blames the subtraction; the 1 was lost when 16777217 was stored as float32.
q1 = "c"
q2 = "b"
q3 = 2**23 - 1
q4 = "d"
