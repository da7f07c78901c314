# Wrong: ignores the dtype argument and always casts to float16.
def underflow_fraction(grads, scale, dtype=torch.float16):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    flat = torch.cat([g.reshape(-1).float() for g in grads])
    nonzero = flat != 0
    if not nonzero.any():
        return 0.0
    lost = nonzero & ((flat * scale).half() == 0)
    return lost.sum().item() / nonzero.sum().item()
