# Wrong (method rule): NumPy's sum told to accumulate in float64 by a string, "f8": the grader
# reads strings that NumPy takes for a wider type.
def kahan_sum(x):
    return torch.tensor(np.float32(x.numpy().sum(dtype="f8")), dtype=torch.float32)
