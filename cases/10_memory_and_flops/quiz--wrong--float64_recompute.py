# WRONG on every question: forgets the master copy and its gradients (q1 b), blames the 6 N tokens
# term (q2 a), thinks checkpointing redoes forward and backward (q3 d), and that it recomputes in
# float64 (q4 a).
q1 = "b"
q2 = "a"
q3 = "d"
q4 = "a"
