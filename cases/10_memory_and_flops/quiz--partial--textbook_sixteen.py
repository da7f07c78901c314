# Three answers right, q1 wrong: the textbook 16 bytes per parameter, forgetting the fp32 gradient
# copies the update holds. Each question is its own group: 3/4 of the quiz.
q1 = "c"
q2 = "b"
q3 = "c"
q4 = "b"
