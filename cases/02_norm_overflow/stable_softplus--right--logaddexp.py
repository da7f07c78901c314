# RIGHT, written differently: log(1 + e^x) = log(e^0 + e^x) = logaddexp(0, x).
def stable_softplus(x):
    return torch.logaddexp(x, torch.zeros_like(x))
