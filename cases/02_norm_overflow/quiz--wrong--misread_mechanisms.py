# WRONG on every question, each a misreading the notebook's output refutes: vector_norm scaling
# (q1 c; section 1 printed inf for float32 [1e20, 1e20]), inf/inf in log1p's backward (q2 c; the
# trace shows it passes on 0), an overflowing zero norm (q3 c; 0/inf would be 0, not NaN), and
# eps as a floor on the norm rather than on the squared norm (q4 a).
q1 = "c"
q2 = "c"
q3 = "c"
q4 = "a"
