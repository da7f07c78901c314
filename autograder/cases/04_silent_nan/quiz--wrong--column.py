# Wrong: q3 picks column 2 (that is w @ x; in x @ w the NaN fills row 1).
q1 = "B"
q2 = "C"
q3 = "C"
q4 = "D"
