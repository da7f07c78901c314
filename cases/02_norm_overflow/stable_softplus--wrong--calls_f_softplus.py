# Wrong by the exercise's method rule: calls the built-in F.softplus. The values and gradients
# are right, but the text does not allow F.softplus here: the grader gives 0 points for it.
def stable_softplus(x):
    return F.softplus(x)
