# Right, written differently: a plain Python scan over the values with math.isfinite.
import math


def assert_finite(name, t):
    """Return t when finite, else raise."""
    values = t.detach().reshape(-1).tolist()
    bad = [v for v in values if not math.isfinite(v)]
    if not bad:
        return t
    raise FloatingPointError(
        "tensor '%s' holds %d NaN/inf entries; first offending value: %r" % (name, len(bad), bad[0])
    )
