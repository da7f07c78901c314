# WRONG: the overflow is handled by scaling, but eps is applied in the input dtype. In float16
# the default eps = 1e-12 rounds to 0 (as does eps=1e-50 in float32), so an all-zero slice
# computes 0/0 = NaN.
def safe_normalize(x, dim=-1, eps=1e-12):
    scale = x.abs().amax(dim=dim, keepdim=True)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    norm = torch.linalg.vector_norm(x / scale, dim=dim, keepdim=True) * scale
    return x / norm.clamp_min(eps)
