# Wrong: the sign handling is right, but the positions are subtracted in int32, which wraps
# around for distances of 2**31 or more (e.g. from -2.0 to 2.0, or -max to max).
def ulp_distance(a, b):
    for t in (a, b):
        if t.dtype != torch.float32:
            raise ValueError("float32 only")
        if not torch.isfinite(t).all():
            raise ValueError("finite values only")

    def position(t):
        bits = t.view(torch.int32)
        return torch.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return (position(a) - position(b)).abs().to(torch.int64)
