# Wrong: the arithmetic done right in NumPy (float64), but without np.errstate: inf - inf for
# equal infinities warns "invalid value encountered in subtract" on stderr, which costs the cell.
def compare_results(x, y, rtol=1e-5, atol=1e-8):
    a, b = x.double().numpy(), y.double().numpy()
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    diff = np.abs(a - b)
    close = (a == b) | (diff <= atol + rtol * np.abs(b))
    return {"bitwise_equal": bool(torch.equal(x.view(bits), y.view(bits))),
            "max_abs_diff": float(diff.max()),
            "allclose": bool(close.all())}
