# Right: the same answers in capitals with spaces around them.
q1 = " B"
q2 = "C "
q3 = " b "
q4 = "B"
