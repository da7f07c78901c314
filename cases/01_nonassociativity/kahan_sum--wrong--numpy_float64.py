# Wrong by the exercise's method rule: a plain running total kept as a NumPy float64. Accurate
# enough on these inputs, but np.float64 is float64, which the text does not allow here.
def kahan_sum(x):
    total = np.float64(0.0)
    for value in x.numpy():
        total += value
    return torch.tensor(total, dtype=torch.float32)
