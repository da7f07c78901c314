# Wrong: reports the last non-finite value instead of the first.
def assert_finite(name, t):
    """Return t when finite, else raise."""
    bad = ~torch.isfinite(t)
    if bad.any():
        last = t.detach().flatten()[bad.flatten()][-1].item()
        raise FloatingPointError(f"{name}: {int(bad.sum())} non-finite value(s), e.g. {last}")
    return t
