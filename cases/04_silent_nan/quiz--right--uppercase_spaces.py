# Right, written differently: capital letters with stray spaces, assigned in one line.
q1, q2, q3, q4 = " B", "C ", "B", " D "
