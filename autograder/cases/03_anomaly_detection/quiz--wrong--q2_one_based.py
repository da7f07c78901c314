# Wrong: q2 says output indices count from 1.
q1 = "b"
q2 = "a"
q3 = "c"
q4 = "b"
