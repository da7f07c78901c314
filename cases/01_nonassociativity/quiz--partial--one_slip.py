# Three answers right, q2 wrong: each question is its own group, so this earns 3/4 of the quiz.
# q1, q2, q4: one of "a", "b", "c", "d"; q3: an integer
q1 = "c"
q2 = "b"
q3 = 2**23 - 1
q4 = "d"
