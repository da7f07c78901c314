# Wrong: compares with the smallest subnormal instead of casting, so values that round up
# to it (between half of it and it) are counted as lost.
def underflow_fraction(grads, scale, dtype=torch.float16):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    flat = torch.cat([g.reshape(-1).double() for g in grads])
    smallest = torch.nextafter(torch.zeros((), dtype=dtype), torch.ones((), dtype=dtype)).item()
    nonzero = flat != 0
    if not nonzero.any():
        return 0.0
    lost = nonzero & ((flat * scale).abs() < smallest)
    return lost.sum().item() / nonzero.sum().item()
