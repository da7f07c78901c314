# Wrong on every question, from one misconception: anomaly mode is taken to check for inf (q1, q2)
# and to be cheap enough to leave on (q4); and a NaN is thought to poison all of x @ w (q3).
q1 = "c"
q2 = "d"
q3 = "d"
q4 = "b"
