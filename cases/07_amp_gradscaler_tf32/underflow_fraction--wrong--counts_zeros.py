# Wrong: divides by every entry, so gradients that were already zero dilute the fraction.
def underflow_fraction(grads, scale, dtype=torch.float16):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    flat = torch.cat([g.reshape(-1).float() for g in grads])
    lost = (flat != 0) & ((flat * scale).to(dtype) == 0)
    return lost.sum().item() / max(flat.numel(), 1)
