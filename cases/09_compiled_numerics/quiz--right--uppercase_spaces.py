# Right: the same answers in upper case, with spaces around them.
q1 = " B"
q2 = "b "
q3 = "B"
q4 = " C "
