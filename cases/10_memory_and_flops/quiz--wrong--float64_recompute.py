# WRONG on every question: thinks the activations are still alive at the update (q1 c), blames
# the 6 N tokens term (q2 a), thinks checkpointing redoes forward and backward (q3 d), and that it
# recomputes in float64 (q4 a).
q1 = "c"
q2 = "a"
q3 = "d"
q4 = "a"
