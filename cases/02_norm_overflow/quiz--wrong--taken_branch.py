# WRONG on every question: blames the value that is visible rather than the intermediate. The
# norm "is too big" (q1 a), the taken branch overflows (q2 b), float16 has no exact zero (q3 b),
# and eps can be ignored so the denominator reaches 0 (q4 c).
q1 = "a"
q2 = "b"
q3 = "b"
q4 = "c"
