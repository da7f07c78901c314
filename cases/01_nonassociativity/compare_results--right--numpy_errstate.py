# Right, in NumPy: float64 arrays, torch.allclose's rule spelled out (equal values, infinities
# included, are close; otherwise a finite difference within atol + rtol * |y|), and the arithmetic
# inside np.errstate so that inf - inf warns nothing; bits compared as unsigned integers.
def compare_results(x, y, rtol=1e-5, atol=1e-8):
    unsigned = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.element_size()]
    signed = {2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    x_bits = x.contiguous().view(signed).numpy().view(unsigned)
    y_bits = y.contiguous().view(signed).numpy().view(unsigned)
    a, b = x.double().numpy(), y.double().numpy()
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        close = (a == b) | (np.isfinite(diff) & (diff <= atol + rtol * np.abs(b)))
    return {"bitwise_equal": bool(np.array_equal(x_bits, y_bits)),
            "max_abs_diff": float(np.max(diff)),
            "allclose": bool(np.all(close))}
