# Wrong: a correct compensated loop that starts from x[0], so an empty tensor raises IndexError
# instead of summing to 0.
def kahan_sum(x):
    values = x.numpy()
    s = values[0]
    c = np.float32(0.0)
    for value in values[1:]:
        y = value - c
        t = s + y
        c = (t - s) - y
        s = t
    return torch.tensor(s, dtype=torch.float32)
