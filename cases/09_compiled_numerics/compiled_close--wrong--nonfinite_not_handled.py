# Wrong: applies the bound to every entry. NaN - NaN and inf - inf are NaN, which is never
# <= the tolerance, so matching NaNs and infinities count as "not close".
def compiled_close(eager, compiled, n, terms):
    if not (eager.shape == compiled.shape == terms.shape) or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point:
        raise ValueError("need floating-point tensors")
    u = torch.finfo(eager.dtype).eps / 2
    if n < 1 or n * u >= 1:
        raise ValueError("no bound for this n")
    e, c = eager.detach().double(), compiled.detach().double()
    tolerance = 2 * (n * u / (1 - n * u)) * terms.detach().double()
    return bool(((c - e).abs() <= tolerance).all())
