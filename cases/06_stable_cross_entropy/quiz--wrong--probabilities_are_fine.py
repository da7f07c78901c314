# Wrong on every question: trusts whatever comes out without an error. Only the max shift keeps
# softmax unchanged (q1 C), probabilities are fine logits (q2 A), a loss that cannot be computed
# comes back as inf (q3 A), and a float16 sum of 64 losses of 1500 still averages to 1500 (q4 A).
q1 = "C"
q2 = "A"
q3 = "A"
q4 = "A"
