# Wrong: runs backward on the caller's own x, so x.grad is created or accumulated (and
# requires_grad is switched on for a plain tensor).
def nan_origin(fn, x):
    """Say where the first non-finite value of ``fn`` at ``x`` appears."""
    x.requires_grad_(True)
    out = fn(x)
    if not torch.isfinite(out).all():
        return "forward"
    if out.grad_fn is None:
        return "none"
    out.sum().backward()
    if not torch.isfinite(x.grad).all():
        return "backward"
    return "none"
