# Wrong: scales by each entry's own size, n * eps * |eager_i| (a relative tolerance), not by its
# terms. An entry near zero that came out of large terms carries the rounding of those terms.
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
    if not torch.equal(finite, torch.isfinite(c)) or not torch.equal(e.isnan(), c.isnan()):
        return False
    if not torch.equal(e[torch.isinf(e)], c[torch.isinf(e)]):
        return False
    eps = torch.finfo(eager.dtype).eps
    return bool(((c - e)[finite].abs() <= n * eps * e[finite].abs()).all())
