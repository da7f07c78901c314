# Right, differently: one torch.isclose call in float64 with rtol=0 and the tolerance as atol
# (isclose treats equal infinities as close and, with equal_nan, NaN as close to NaN only),
# the scale from a masked abs with the non-finite entries set to 0.
def compiled_close(eager, compiled, n):
    if eager.dtype != compiled.dtype:
        raise ValueError(f"dtypes differ: {eager.dtype}, {compiled.dtype}")
    if eager.shape != compiled.shape:
        raise ValueError(f"shapes differ: {eager.shape}, {compiled.shape}")
    if not torch.is_floating_point(eager) or n < 1:
        raise ValueError("floating-point tensors and n >= 1 only")
    e = eager.detach().to(torch.float64)
    c = compiled.detach().to(torch.float64)
    scale = torch.where(torch.isfinite(e), e.abs(), torch.zeros_like(e)).amax().item() if e.numel() else 0.0
    atol = n * torch.finfo(eager.dtype).eps * scale
    return bool(torch.isclose(c, e, rtol=0.0, atol=atol, equal_nan=True).all())
