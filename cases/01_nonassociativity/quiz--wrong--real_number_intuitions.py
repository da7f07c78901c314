# Wrong on every question, reasoning as if floats were real numbers: q1 picks associativity,
# q2 blames the subtraction, q3 counts the steps from 1.0 to 2.0 (2**23) instead of the values
# strictly between, q4 trusts float64 to make torch.equal safe. Each question is its own group,
# so an answer set with one mistake keeps three quarters of the points.
q1 = "a"
q2 = "b"
q3 = 2**23
q4 = "b"
