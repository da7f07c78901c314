# Wrong: the compensated loop over x.tolist(), Python floats, which are float64: no forbidden name
# appears, but the arithmetic is not float32. On [1, 2**-24, 2**-50] it returns 1 + 2**-23 (the
# float64 sum rounded once) where float32 arithmetic gives 1.0.
def kahan_sum(x):
    total, lost = 0.0, 0.0
    for value in x.tolist():
        y = value - lost
        t = total + y
        lost = (t - total) - y
        total = t
    return torch.tensor(total, dtype=torch.float32)
