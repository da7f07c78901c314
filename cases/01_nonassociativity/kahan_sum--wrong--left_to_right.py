# Wrong: a plain float32 running total, with no compensation.
def kahan_sum(x):
    total = np.float32(0.0)
    for value in x.numpy():
        total = total + value
    return torch.tensor(total, dtype=torch.float32)
