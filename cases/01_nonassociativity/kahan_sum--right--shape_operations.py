# Right, written differently: the compensated loop over the terms as a (n, 1) NumPy view
# (.reshape, .flatten and .view are shape operations, allowed on every list).
def kahan_sum(x):
    column = x.detach().view(-1).numpy().reshape(-1, 1)
    total, carry = np.float32(0.0), np.float32(0.0)
    for row in column:
        y = row.flatten()[0] - carry
        t = total + y
        carry = (t - total) - y
        total = t
    return torch.tensor(total, dtype=torch.float32).reshape(())
