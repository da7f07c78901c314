# Wrong on every question: q1 puts 3e-8 below the float16 halfway point (it is just above it),
# q2 thinks a fraction bit halves the smallest normal value, q3 expects float8_e4m3fn to overflow
# to inf like float8_e5m2 (it saturates at 448). Each question is its own group, so one mistake
# costs only a third of the point.
q1 = "a"
q2 = "b"
q3 = "a"
