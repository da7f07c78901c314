# Wrong: a tolerance of n * eps / 2 * scale, one evaluation's rounding bound (n * u). Two honest
# evaluations can each be off by that much in opposite directions; a difference of
# 0.75 * n * eps * scale is honest and fails here.
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
    if not bool(finite.any()):
        return True
    scale = e[finite].abs().max().item()
    tolerance = n * torch.finfo(eager.dtype).eps / 2 * scale
    return bool(((c[finite] - e[finite]).abs() <= tolerance).all())
