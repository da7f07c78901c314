# Wrong: looks at the gradient before the forward value, so sqrt(-1) (NaN in both passes)
# is reported as "backward".
def nan_origin(fn, x):
    """Say where the first non-finite value of ``fn`` at ``x`` appears."""
    leaf = x.detach().clone().requires_grad_(True)
    out = fn(leaf)
    if out.requires_grad:
        (grad,) = torch.autograd.grad(out.sum(), leaf, allow_unused=True)
        if grad is not None and not torch.isfinite(grad).all():
            return "backward"
    if not torch.isfinite(out).all():
        return "forward"
    return "none"
