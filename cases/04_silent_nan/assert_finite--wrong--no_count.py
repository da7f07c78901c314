# Wrong: the message names the tensor and its first bad value but not how many are bad.
def assert_finite(name, t):
    """Return t when finite, else raise."""
    bad = ~torch.isfinite(t)
    if bad.any():
        first = t.detach().flatten()[bad.flatten()][0].item()
        raise FloatingPointError(f"{name} is not finite: first bad value {first}")
    return t
