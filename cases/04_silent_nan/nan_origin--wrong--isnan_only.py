# Wrong: tests with isnan only, so an infinity (exp(1000) forward, sqrt at 0 backward) counts as fine.
def nan_origin(fn, x):
    """Say where the first non-finite value of ``fn`` at ``x`` appears."""
    leaf = x.detach().clone().requires_grad_(True)
    out = fn(leaf)
    if torch.isnan(out).any():
        return "forward"
    if not out.requires_grad:
        return "none"
    (grad,) = torch.autograd.grad(out.sum(), leaf, allow_unused=True)
    if grad is not None and torch.isnan(grad).any():
        return "backward"
    return "none"
