# Three answers right, q1 wrong: blames the 4 extra bytes on Adam's step counters (4 bytes per
# tensor, not per parameter). Each question is its own group: 3/4 of the quiz.
q1 = "a"
q2 = "b"
q3 = "c"
q4 = "b"
