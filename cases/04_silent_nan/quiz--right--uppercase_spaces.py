# Right, written differently: lowercase letters with stray spaces, assigned in one line.
q1, q2, q3, q4 = " b", "c ", "b", "d"
