# WRONG: the overflow is fixed (exp only sees -|x|), but log(1 + u) instead of log1p(u) loses
# the small values: for x = -20, 1 + 2.06e-9 rounds to 1, and the answer 2.06e-9 becomes 0.
def stable_softplus(x):
    return torch.clamp(x, min=0) + torch.log(1 + torch.exp(-torch.abs(x)))
