# Wrong: q1 puts unscale_ before backward; the others are right.
q1 = "a"
q2 = "a"
q3 = "b"
q4 = "d"
q5 = "b"
