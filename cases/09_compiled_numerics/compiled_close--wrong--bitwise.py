# Wrong: demands the same bits (NaN matching NaN). Compiled code may round differently and
# still be right, so honest results are rejected.
def compiled_close(eager, compiled, n, terms):
    if not (eager.shape == compiled.shape == terms.shape) or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point:
        raise ValueError("need floating-point tensors")
    u = torch.finfo(eager.dtype).eps / 2
    if n < 1 or n * u >= 1:
        raise ValueError("no bound for this n")
    both_nan = eager.isnan() & compiled.isnan()
    return bool(((eager == compiled) | both_nan).all())
