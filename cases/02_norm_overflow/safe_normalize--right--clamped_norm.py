# RIGHT, written differently: the scale is clamped up to the dtype's smallest normal number,
# the scaled norm is clamped below at max(eps, tiny), and x is divided by it; clamp's gradient
# is 0 where the floor wins, so a zero slice gets the slope 1 / eps.
def safe_normalize(x, dim=-1, eps=1e-12):
    tiny = torch.finfo(x.dtype).tiny
    floor = max(eps, tiny)
    big = x.abs().amax(dim=dim, keepdim=True).clamp(min=tiny)
    norm = big * torch.linalg.vector_norm(x / big, dim=dim, keepdim=True)
    return x / norm.clamp(min=floor)
