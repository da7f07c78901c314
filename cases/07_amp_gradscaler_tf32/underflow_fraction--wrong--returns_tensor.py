# Wrong: the right fraction, but returned as a 0-dim tensor; the docstring says a Python float.
def underflow_fraction(grads, scale, dtype=torch.float16):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    flat = torch.cat([g.detach().reshape(-1).double() for g in grads])
    nonzero = flat != 0
    lost = nonzero & ((flat * scale).to(dtype) == 0)
    return lost.sum() / nonzero.sum().clamp(min=1)
