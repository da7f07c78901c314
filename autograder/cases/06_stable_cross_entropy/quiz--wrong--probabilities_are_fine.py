# Wrong: believes F.cross_entropy on probabilities gives the right loss (q2 = "A").
q1 = "B"
q2 = "A"
q3 = "C"
q4 = "B"
