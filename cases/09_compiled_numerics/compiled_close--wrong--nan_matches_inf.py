# Wrong: checks that both sides are non-finite in the same places and that eager's infinities
# are matched, but never that a NaN in eager is a NaN in compiled: NaN against an infinity
# passes (and an infinity in compiled where eager has NaN).
def compiled_close(eager, compiled, n, terms):
    if not (eager.shape == compiled.shape == terms.shape) or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point:
        raise ValueError("need floating-point tensors")
    u = torch.finfo(eager.dtype).eps / 2
    if n < 1 or n * u >= 1:
        raise ValueError("no bound for this n")
    e, c = eager.detach().double(), compiled.detach().double()
    finite = torch.isfinite(e)
    if not torch.equal(finite, torch.isfinite(c)):
        return False
    if not torch.equal(e[torch.isinf(e)], c[torch.isinf(e)]):
        return False
    tolerance = 2 * (n * u / (1 - n * u)) * terms.detach().double()
    return bool(((c - e)[finite].abs() <= tolerance[finite]).all())
