# Wrong: applies the tolerance to every entry. NaN - NaN and inf - inf are NaN, which is never
# <= the tolerance, so matching NaNs and infinities count as "not close"; and one infinity in
# eager makes the scale infinite.
def compiled_close(eager, compiled, n):
    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point or n < 1:
        raise ValueError("need floating-point tensors and n >= 1")
    e, c = eager.double(), compiled.double()
    if e.numel() == 0:
        return True
    tolerance = n * torch.finfo(eager.dtype).eps * e.abs().max().item()
    return bool(((c - e).abs() <= tolerance).all())
