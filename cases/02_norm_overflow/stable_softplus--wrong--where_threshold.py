# WRONG: the torch.where patch. Forward values are right in float32, but for x > 88.7 exp(x)
# overflows in the branch not taken: exp's backward multiplies the 0 it receives by its saved
# inf, and 0 * inf = NaN. In float16 the untaken-branch trick does not even save the values:
# exp overflows already at 11.1 < 20.
def stable_softplus(x):
    return torch.where(x > 20, x, torch.log1p(torch.exp(x)))
