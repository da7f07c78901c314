# Wrong: checks the summed loss instead of the forward values, so finite entries whose sum
# overflows (3e38 + 3e38 in float32) are reported as "forward".
def nan_origin(fn, x):
    """Say where the first non-finite value of ``fn`` at ``x`` appears."""
    leaf = x.detach().clone().requires_grad_(True)
    loss = fn(leaf).sum()
    if not torch.isfinite(loss):
        return "forward"
    if not loss.requires_grad:
        return "none"
    (grad,) = torch.autograd.grad(loss, leaf, allow_unused=True)
    if grad is not None and not torch.isfinite(grad).all():
        return "backward"
    return "none"
