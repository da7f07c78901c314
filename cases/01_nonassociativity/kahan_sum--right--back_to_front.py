# Right, in another order: the compensated loop run from the last term to the first. The bound
# 2 * eps * sum(|x_i|) does not depend on the order of the terms.
def kahan_sum(x):
    total, carry = np.float32(0.0), np.float32(0.0)
    for value in x.numpy()[::-1]:
        y = value - carry
        t = total + y
        carry = (t - total) - y
        total = t
    return torch.tensor(total, dtype=torch.float32)
