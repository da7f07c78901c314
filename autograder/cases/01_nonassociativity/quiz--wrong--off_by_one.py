# Wrong: q3 counts the steps from 1.0 to 2.0 (2**23), not the values strictly between them.
q1 = "c"
q2 = "a"
q3 = 2**23
q4 = "d"
