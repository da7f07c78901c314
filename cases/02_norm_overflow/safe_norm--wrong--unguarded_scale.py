# WRONG: scales each slice by its largest magnitude but never guards a zero scale, so an
# all-zero slice computes 0/0 and returns NaN instead of 0.
def safe_norm(x, dim=None, keepdim=False):
    dims = tuple(range(x.ndim)) if dim is None else dim
    scale = x.abs().amax(dim=dims, keepdim=True)
    norm = scale * torch.sqrt(((x / scale) ** 2).sum(dim=dims, keepdim=True))
    return norm if keepdim else norm.squeeze(dims)
