# Wrong: computes the lost part with the opposite sign (y - (t - s)) but still subtracts it from
# the next term, so every correction pushes the total further the wrong way.
def kahan_sum(x):
    s = np.float32(0.0)
    c = np.float32(0.0)
    for value in x.numpy():
        y = value - c
        t = s + y
        c = y - (t - s)
        s = t
    return torch.tensor(s, dtype=torch.float32)
