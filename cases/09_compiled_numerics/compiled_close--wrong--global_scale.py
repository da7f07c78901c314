# Wrong: the old rule, n * eps * max|eager| for every entry, ignoring the terms. Where an entry's
# terms cancel (sums near 0 of terms near 1e4), its honest rounding error is far larger than
# n * eps times the largest entry, and an honest reordering is rejected.
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
    if not bool(finite.any()):
        return True
    tolerance = n * torch.finfo(eager.dtype).eps * e[finite].abs().max().item()
    return bool(((c - e)[finite].abs() <= tolerance).all())
