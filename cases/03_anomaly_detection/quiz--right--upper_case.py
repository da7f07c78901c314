# Right, written differently: upper-case letters with stray spaces, assigned in one statement.
q1, q2, q3, q4 = "B", " b", "C ", "B"
