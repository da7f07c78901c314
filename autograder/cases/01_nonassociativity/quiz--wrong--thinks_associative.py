# Wrong: q1 picks associativity, which is exactly what floating-point addition lacks.
q1 = "a"
q2 = "a"
q3 = 2**23 - 1
q4 = "d"
