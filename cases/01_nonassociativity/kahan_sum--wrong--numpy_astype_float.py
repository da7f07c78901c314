# Wrong (method rule): NumPy float64 through `astype(float)`, the builtin float passed as a dtype;
# neither `.astype` nor `float` is on the list.
def kahan_sum(x):
    return torch.tensor(np.float32(x.numpy().astype(float).sum()), dtype=torch.float32)
