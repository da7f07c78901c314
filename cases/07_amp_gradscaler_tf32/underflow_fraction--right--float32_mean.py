# Right, written differently: one float32 vector, the lost entries selected with a boolean
# index, and the fraction as a float32 mean (correct to float32's rounding, about 1e-7).
def underflow_fraction(grads, scale, dtype=torch.float16):
    parts = [grads] if isinstance(grads, torch.Tensor) else grads
    flat = torch.cat([p.detach().flatten().float() for p in parts])
    kept = flat[flat != 0]
    if kept.numel() == 0:
        return 0.0
    return ((kept * scale).to(dtype) == 0).float().mean().item()
