# Wrong on every question: expects every failure to be loud. Shifting the logits scales the
# probabilities (q1 A), log of a probability gives NaN (q2 B), F.binary_cross_entropy returns inf
# at x = -1e4 (q3 A; it clamps the log: 100), and an overflowing float16 sum turns into NaN (q4 D).
q1 = "A"
q2 = "B"
q3 = "A"
q4 = "D"
