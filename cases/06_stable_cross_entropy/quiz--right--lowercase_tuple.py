# Right: the same answers, lower case and assigned in one line.
q1, q2, q3, q4 = "b", "c", " c", "B"
