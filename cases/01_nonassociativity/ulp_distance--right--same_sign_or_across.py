# Right, written differently: magnitudes as integers; on the same side of zero the distance is
# the difference of the magnitudes, across zero it is their sum (zero itself, of either sign, is
# magnitude 0). Validation with torch.isfinite and a set of allowed dtypes.
def ulp_distance(a, b):
    if {a.dtype, b.dtype} != {torch.float32}:
        raise ValueError("float32 tensors only")
    if not (torch.isfinite(a).all() and torch.isfinite(b).all()):
        raise ValueError("no NaN or inf")
    ma = a.view(torch.int32).to(torch.int64) & 0x7FFFFFFF
    mb = b.view(torch.int32).to(torch.int64) & 0x7FFFFFFF
    same_side = torch.signbit(a) == torch.signbit(b)
    return torch.where(same_side, (ma - mb).abs(), ma + mb)
