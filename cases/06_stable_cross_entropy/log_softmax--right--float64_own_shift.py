# Right, written differently: float64 throughout, its own max shift made finite with torch.where
# and kept in the graph (not detached: the shift cancels in the gradient anyway), then back to the
# input dtype.
def log_softmax(z, dim=-1):
    """log(softmax(z)) along `dim`, finite wherever the true value is finite."""
    wide = z.double()
    top = wide.amax(dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    centred = wide - top
    total = torch.exp(centred).sum(dim=dim, keepdim=True)
    return (centred - torch.log(total)).to(z.dtype)
