# WRONG: q2 blames the branch that is taken; the NaN comes from the branch not taken.
q1 = "b"
q2 = "b"
q3 = "a"
q4 = "d"
