# Wrong: handles NaN and infinities position by position, but takes the scale over every entry,
# infinities included: one infinity in eager makes the tolerance infinite, and any finite
# difference beside it passes.
def compiled_close(eager, compiled, n):
    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point or n < 1:
        raise ValueError("need floating-point tensors and n >= 1")
    e, c = eager.detach().double(), compiled.detach().double()
    finite = torch.isfinite(e)
    if not torch.equal(finite, torch.isfinite(c)) or not torch.equal(e.isnan(), c.isnan()):
        return False
    if not torch.equal(e[torch.isinf(e)], c[torch.isinf(e)]):
        return False
    if e.numel() == 0 or not bool(finite.any()):
        return True
    scale = e.nan_to_num(nan=0.0).abs().max().item()
    return bool(((c[finite] - e[finite]).abs() <= n * torch.finfo(eager.dtype).eps * scale).all())
