# Wrong by the exercise's method rule: accumulates in float64 (torch.float64) and rounds once.
# The result meets the bound, but the text does not allow float64 here: the grader finds
# `torch.float64` in the answer cell and gives this exercise 0 points.
def kahan_sum(x):
    return x.to(torch.float64).sum().to(torch.float32)
