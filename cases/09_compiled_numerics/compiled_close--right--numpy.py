# Right, differently: NumPy in float64, with the non-finite entries compared through
# np.array_equal(..., equal_nan=True).
import numpy as np


def compiled_close(eager, compiled, n):
    if tuple(eager.shape) != tuple(compiled.shape):
        raise ValueError("shapes differ")
    if eager.dtype != compiled.dtype:
        raise ValueError("dtypes differ")
    if not torch.is_floating_point(eager):
        raise ValueError("not a floating-point dtype")
    if not n >= 1:
        raise ValueError("n must be >= 1")
    eps = torch.finfo(eager.dtype).eps
    e = eager.detach().double().numpy().ravel()
    c = compiled.detach().double().numpy().ravel()
    fe, fc = np.isfinite(e), np.isfinite(c)
    if not np.array_equal(fe, fc) or not np.array_equal(e[~fe], c[~fc], equal_nan=True):
        return False
    scale = np.abs(e[fe]).max() if fe.any() else 0.0
    return bool(np.all(np.abs(c[fe] - e[fe]) <= n * eps * scale))
