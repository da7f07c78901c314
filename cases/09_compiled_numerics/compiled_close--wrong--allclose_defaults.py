# Wrong: torch.allclose with its default rtol=1e-5, atol=1e-8, whatever the dtype, n and the
# terms: far too strict for bfloat16 and for sums that cancel.
def compiled_close(eager, compiled, n, terms):
    if not (eager.shape == compiled.shape == terms.shape) or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point:
        raise ValueError("need floating-point tensors")
    u = torch.finfo(eager.dtype).eps / 2
    if n < 1 or n * u >= 1:
        raise ValueError("no bound for this n")
    return bool(torch.allclose(compiled, eager, equal_nan=True))
