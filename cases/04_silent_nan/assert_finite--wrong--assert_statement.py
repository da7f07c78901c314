# Wrong: uses an assert statement, which raises AssertionError (and vanishes under python -O).
def assert_finite(name, t):
    """Return t when finite, else raise."""
    bad = ~torch.isfinite(t)
    first = t.detach().flatten()[bad.flatten()][0].item() if bad.any() else None
    assert not bad.any(), f"{name}: {int(bad.sum())} non-finite value(s), the first is {first}"
    return t
