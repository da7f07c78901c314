# Wrong: q3 expects float8_e4m3fn to overflow to inf, like float8_e5m2; it saturates at 448.
q1 = "b"
q2 = "c"
q3 = "a"
