# RIGHT, written differently: two branches selected by torch.where, each fed a clamped input so
# that neither can overflow anywhere (the "double where"); their gradients are finite everywhere.
def stable_softplus(x):
    pos = torch.clamp(x, min=0.0)
    neg = torch.clamp(x, max=0.0)
    return torch.where(x > 0, pos + torch.log1p(torch.exp(-pos)), torch.log1p(torch.exp(neg)))
