# Right, written differently: counts tensor by tensor with count_nonzero, in float32.
def underflow_fraction(grads, scale, dtype=torch.float16):
    tensors = [grads] if torch.is_tensor(grads) else list(grads)
    lost = nonzero = 0
    for g in tensors:
        g = g.detach().to(torch.float32)
        survives = (g * scale).to(dtype) != 0
        nonzero += int(torch.count_nonzero(g))
        lost += int(torch.count_nonzero((g != 0) & ~survives))
    return lost / nonzero if nonzero else 0.0
