# Right: upper-case and lower-case letters with stray spaces.
q1 = "C"
q2 = " A"
q3 = "B "
q4 = "D"
q5 = "b"
q6 = "  B"
q7 = " b "
