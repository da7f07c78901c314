# Wrong: expects F.binary_cross_entropy to return inf at x = -1e4 (it clamps the log: 100),
# and thinks a float16 sum that overflows still averages to about 1500.
q1 = "B"
q2 = "C"
q3 = "A"
q4 = "A"
