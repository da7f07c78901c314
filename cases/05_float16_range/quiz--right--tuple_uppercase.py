# Right, written differently: one tuple assignment, capital letters and stray spaces.
q1, q2, q3 = "B", " c", "D "
