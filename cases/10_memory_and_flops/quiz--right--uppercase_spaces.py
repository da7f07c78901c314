# RIGHT: the right letters in upper case with surrounding spaces.
q1 = " B"
q2 = "B "
q3 = " c "
q4 = "B"
