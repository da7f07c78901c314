# WRONG: the values are right everywhere, but where() picks between x / eps and x / norm, and
# x / norm is 0/0 on an all-zero slice. autograd differentiates the branch not taken too:
# 0 * NaN = NaN, so the gradient of every all-zero slice is NaN.
def safe_normalize(x, dim=-1, eps=1e-12):
    eps = max(eps, torch.finfo(x.dtype).tiny)
    scale = x.abs().amax(dim=dim, keepdim=True)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    norm = torch.linalg.vector_norm(x / scale, dim=dim, keepdim=True) * scale
    return torch.where(norm < eps, x / eps, x / norm)
