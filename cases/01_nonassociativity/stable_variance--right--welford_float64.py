# Right, written differently: Welford's one-pass update with Python floats (float64).
def stable_variance(x):
    n, mean, m2 = 0, 0.0, 0.0
    for value in x.tolist():
        n += 1
        delta = value - mean
        mean += delta / n
        m2 += delta * (value - mean)
    return m2 / n if n else 0.0
