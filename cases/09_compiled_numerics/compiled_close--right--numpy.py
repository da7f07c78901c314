# Right, differently: NumPy in float64, the non-finite entries compared through
# np.array_equal(..., equal_nan=True), the tolerance with np.where.
import numpy as np


def compiled_close(eager, compiled, n, terms):
    if tuple(eager.shape) != tuple(compiled.shape) or tuple(terms.shape) != tuple(eager.shape):
        raise ValueError("shapes differ")
    if eager.dtype != compiled.dtype:
        raise ValueError("dtypes differ")
    if not torch.is_floating_point(eager):
        raise ValueError("not a floating-point dtype")
    u = torch.finfo(eager.dtype).eps / 2
    if not n >= 1 or not n * u < 1:
        raise ValueError("no bound for this n")
    e = eager.detach().double().numpy().ravel()
    c = compiled.detach().double().numpy().ravel()
    t = terms.detach().double().numpy().ravel()
    fe, fc = np.isfinite(e), np.isfinite(c)
    if not np.array_equal(fe, fc) or not np.array_equal(e[~fe], c[~fc], equal_nan=True):
        return False
    gamma = n * u / (1 - n * u)
    return bool(np.all(np.abs(c[fe] - e[fe]) <= 2 * gamma * t[fe]))
