# Wrong: scales the tolerance by each entry's own size (a relative tolerance). An entry near
# zero that came out of large terms, or out of cancellation, carries an error far larger than
# its own size allows.
def compiled_close(eager, compiled, n):
    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point or n < 1:
        raise ValueError("need floating-point tensors and n >= 1")
    e, c = eager.double(), compiled.double()
    finite = torch.isfinite(e)
    if not torch.equal(finite, torch.isfinite(c)) or not torch.equal(e.isnan(), c.isnan()):
        return False
    if not torch.equal(e[torch.isinf(e)], c[torch.isinf(e)]):
        return False
    eps = torch.finfo(eager.dtype).eps
    return bool(((c - e)[finite].abs() <= n * eps * e[finite].abs()).all())
