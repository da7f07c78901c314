# Wrong: uses float32's eps for every dtype, so bfloat16 and float16 results get a tolerance
# thousands of times too tight (and float64 one far too loose).
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
    if not bool(finite.any()):
        return True
    tolerance = n * torch.finfo(torch.float32).eps * e[finite].abs().max().item()
    return bool(((c - e)[finite].abs() <= tolerance).all())
