# RIGHT, written differently: one denominator, max(scale * |x / scale|, eps), built with
# torch.maximum; eps is raised to the dtype's smallest normal number when it is smaller.
def safe_normalize(x, dim=-1, eps=1e-12):
    tiny = torch.finfo(x.dtype).tiny
    eps = eps if eps > tiny else tiny
    m = torch.amax(x.abs(), dim=dim, keepdim=True)
    m = torch.where(m == 0, torch.ones_like(m), m)
    u = x / m
    length = m * torch.linalg.vector_norm(u, dim=dim, keepdim=True)
    denominator = torch.maximum(length, torch.full_like(length, eps))
    return x / denominator
