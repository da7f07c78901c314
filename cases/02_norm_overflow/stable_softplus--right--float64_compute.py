# RIGHT, written differently: the stable formula evaluated in float64 and rounded once to x's
# dtype, so it rounds differently from a float32 or float16 computation; the tolerance must
# admit it. max(x, 0) is written as relu, the small term as log1p(exp(-|x|)).
def stable_softplus(x):
    wide = x.to(torch.float64)
    return (torch.relu(wide) + torch.log1p(torch.exp(-wide.abs()))).to(x.dtype)
