# Right, a variant: Neumaier's improved Kahan sum in float32, which also handles a new term
# larger than the running total, and adds the correction once at the end.
def kahan_sum(x):
    total = np.float32(0)
    correction = np.float32(0)
    for value in x.numpy():
        t = total + value
        if abs(total) >= abs(value):
            correction += (total - t) + value
        else:
            correction += (value - t) + total
        total = t
    return torch.tensor(total + correction, dtype=torch.float32)
