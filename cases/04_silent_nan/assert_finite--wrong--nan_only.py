# Wrong: only looks for NaN, so a tensor holding inf or -inf passes as finite.
def assert_finite(name, t):
    """Return t when finite, else raise."""
    bad = torch.isnan(t)
    if bad.any():
        first = t.detach().flatten()[bad.flatten()][0].item()
        raise FloatingPointError(f"{name}: {int(bad.sum())} NaN value(s), the first is {first}")
    return t
