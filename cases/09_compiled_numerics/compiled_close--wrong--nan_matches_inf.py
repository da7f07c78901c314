# Wrong: checks that both sides are non-finite in the same places and that eager's infinities
# are matched, but never that a NaN in eager is a NaN in compiled: NaN against an infinity
# passes (and an infinity in compiled where eager has NaN).
def compiled_close(eager, compiled, n):
    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point or n < 1:
        raise ValueError("need floating-point tensors and n >= 1")
    e, c = eager.detach().double(), compiled.detach().double()
    finite = torch.isfinite(e)
    if not torch.equal(finite, torch.isfinite(c)):
        return False
    infinite = torch.isinf(e)
    if not torch.equal(e[infinite], c[infinite]):
        return False
    if not bool(finite.any()):
        return True
    scale = e[finite].abs().max().item()
    return bool(((c[finite] - e[finite]).abs() <= n * torch.finfo(eager.dtype).eps * scale).all())
