# Right, written differently: one float64 vector, the fitting candidates filtered with
# isinf/isnan of the cast, then max(..., default=None).
def choose_loss_scale(grads, candidates):
    parts = [grads] if isinstance(grads, torch.Tensor) else grads
    flat = torch.cat([p.detach().reshape(-1).double() for p in parts])

    def fits(scale):
        cast = (flat * scale).to(torch.float16)
        return not bool(torch.isinf(cast).any() or torch.isnan(cast).any())

    return max((c for c in candidates if fits(c)), default=None)
