# WRONG: one scale (the largest magnitude in the whole tensor) for every slice. With dim set,
# an ordinary row next to a row of 1e30s is divided by 1e30, its squares underflow, and its
# norm comes out as 0 instead of 5.
def safe_norm(x, dim=None, keepdim=False):
    s = x.abs().max()
    if s == 0:
        return torch.linalg.vector_norm(x, dim=dim, keepdim=keepdim)
    return torch.linalg.vector_norm(x / s, dim=dim, keepdim=keepdim) * s
