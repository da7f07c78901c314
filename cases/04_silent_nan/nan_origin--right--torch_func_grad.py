# Right, written differently: torch.func.grad of the summed function on a detached copy (no
# .grad is ever written), and the checks written as "any NaN or inf" rather than "all finite".
def nan_origin(fn, x):
    base = x.detach().clone()
    value = fn(base)
    if bool(torch.isnan(value).any() | torch.isinf(value).any()):
        return "forward"
    grad = torch.func.grad(lambda v: fn(v).sum())(base)
    return "backward" if bool(torch.isnan(grad).any() | torch.isinf(grad).any()) else "none"
