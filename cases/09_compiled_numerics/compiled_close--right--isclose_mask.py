# Right, differently: the per-entry tolerance as a tensor, non-finite entries compared with
# torch.isclose(rtol=0, atol=0, equal_nan=True) (equal infinities are close, NaN only to NaN),
# the finite ones with torch.where, gamma written as 1 / (1 / (n u) - 1).
def compiled_close(eager, compiled, n, terms):
    if eager.dtype != compiled.dtype:
        raise ValueError(f"dtypes differ: {eager.dtype}, {compiled.dtype}")
    if eager.shape != compiled.shape or terms.shape != eager.shape:
        raise ValueError(f"shapes differ: {eager.shape}, {compiled.shape}, {terms.shape}")
    if not torch.is_floating_point(eager):
        raise ValueError("floating-point tensors only")
    unit = torch.finfo(eager.dtype).eps * 0.5
    if not 1 <= n < 1 / unit:
        raise ValueError("n must be at least 1 and below 1/u")
    e = eager.detach().to(torch.float64)
    c = compiled.detach().to(torch.float64)
    gamma = 1.0 / (1.0 / (n * unit) - 1.0)
    same_nonfinite = torch.isclose(c, e, rtol=0.0, atol=0.0, equal_nan=True)
    within = (c - e).abs() <= 2.0 * gamma * terms.to(torch.float64)
    ok = torch.where(torch.isfinite(e), within & torch.isfinite(c), same_nonfinite)
    return bool(ok.all())
