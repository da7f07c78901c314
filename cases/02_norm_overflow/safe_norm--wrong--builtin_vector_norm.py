# WRONG: trusts torch.linalg.vector_norm. It survives float16 [300, 300] (it accumulates in
# float32), but returns inf for float32 [1e20, 1e20] and float64 [1e200, 1e200].
def safe_norm(x, dim=None, keepdim=False):
    return torch.linalg.vector_norm(x, dim=dim, keepdim=keepdim)
