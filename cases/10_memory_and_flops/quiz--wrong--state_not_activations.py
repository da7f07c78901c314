# WRONG on every question: believes float16 takes 4 bytes on a CPU (q1 d), that the sequence
# length only scales the token count (q2 d), that checkpointing is free (q3 b) and exact only by
# luck (q4 d).
q1 = "d"
q2 = "d"
q3 = "b"
q4 = "d"
