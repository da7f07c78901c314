# RIGHT, written differently: the scale is clamped up to the dtype's smallest normal number
# instead of replaced with 1 by where(), and the norm of the scaled slice is a hand-written
# sqrt of a sum of squares (the zero-slice gradient, not required here, is NaN).
def safe_norm(x, dim=None, keepdim=False):
    reduce_dims = list(range(x.ndim)) if dim is None else dim
    m = torch.amax(torch.abs(x), dim=reduce_dims, keepdim=True)
    m = torch.clamp(m, min=torch.finfo(x.dtype).tiny)
    r = x / m
    n = m * torch.sqrt(torch.sum(r * r, dim=reduce_dims, keepdim=True))
    if not keepdim:
        n = torch.squeeze(n, reduce_dims if isinstance(reduce_dims, int) else tuple(reduce_dims))
    return n
