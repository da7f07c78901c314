# Wrong on every question: q1 keeps 3e-8 as it is (float16 has no such value), q2 halves the
# largest value, q3 reads e4m3fn's max from the e5m2 column (57344).
q1 = "c"
q2 = "a"
q3 = "c"
