# Wrong: the shortcut E[x^2] - E[x]^2, computed in float64. Accurate enough for the large-mean
# data, but for a constant input the two terms can round apart and give a small negative
# variance (about -4e-9 for 1000 copies of -4369.854).
def stable_variance(x):
    x = x.double()
    return ((x * x).mean() - x.mean() ** 2).item()
