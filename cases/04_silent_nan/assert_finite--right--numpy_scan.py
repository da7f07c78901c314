# Right, written differently: the scan done in NumPy on a float64 copy, the count before the
# total in the message, the name quoted, a full stop after the first bad value.
import numpy as np


def assert_finite(name, t):
    values = t.detach().cpu().reshape(-1).double().numpy()
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise FloatingPointError(
            f"{bad.size} of the {values.size} entries of {name!r} are NaN or infinite; "
            f"the first one is {float(values[bad[0]])!r}."
        )
    return t
