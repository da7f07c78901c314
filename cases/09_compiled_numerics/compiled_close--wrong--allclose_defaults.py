# Wrong: torch.allclose with its default rtol=1e-5, atol=1e-8, whatever the dtype and the
# reduction length: far too strict for bfloat16 and for long sums.
def compiled_close(eager, compiled, n):
    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point or n < 1:
        raise ValueError("need floating-point tensors and n >= 1")
    return bool(torch.allclose(compiled, eager, equal_nan=True))
