# Wrong on every question: counts divisions and outputs from 1 (q1, q2), believes check_nan=False
# checks for inf instead (q3), and blames the warm-up for the slowdown (q4).
q1 = "d"
q2 = "a"
q3 = "b"
q4 = "c"
