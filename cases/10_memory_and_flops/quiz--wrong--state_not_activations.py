# WRONG on every question: believes fp16 halves every term (q1 a), that the sequence length only
# scales the token count (q2 d), that checkpointing is free (q3 b) and exact only by luck (q4 d).
q1 = "a"
q2 = "d"
q3 = "b"
q4 = "d"
