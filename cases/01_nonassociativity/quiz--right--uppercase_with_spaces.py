# Right, written differently: upper-case letters with stray spaces, q3 as a literal.
q1 = " C"
q2 = "A "
q3 = 8388607
q4 = "D"
