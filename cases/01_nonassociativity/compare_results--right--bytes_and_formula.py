# Right, written differently: compares raw bytes, and spells out torch.allclose's rule by hand
# (exact matches, infinities included, are close; otherwise a finite |x - y| within
# atol + rtol * |y|; NaN never close).
def compare_results(x, y, rtol=1e-5, atol=1e-8):
    x_bytes = x.contiguous().reshape(-1).view(torch.uint8)
    y_bytes = y.contiguous().reshape(-1).view(torch.uint8)
    same_bits = x.dtype == y.dtype and x_bytes.shape == y_bytes.shape and bool((x_bytes == y_bytes).all())

    error = (x.to(torch.float64) - y.to(torch.float64)).abs()
    within = torch.isfinite(error) & (error <= atol + rtol * y.to(torch.float64).abs())
    close = bool(((x == y) | within).all())
    return {"bitwise_equal": same_bits, "max_abs_diff": float(error.max()), "allclose": close}
