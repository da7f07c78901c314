# Wrong: demands the same bits (NaN matching NaN). Compiled code may round differently and
# still be right, so honest results are rejected.
def compiled_close(eager, compiled, n):
    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point or n < 1:
        raise ValueError("need floating-point tensors and n >= 1")
    both_nan = eager.isnan() & compiled.isnan()
    return bool(((eager == compiled) | both_nan).all())
