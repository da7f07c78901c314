# Wrong: subtracts the raw int32 bit patterns. Fine for two positive floats, but negative floats
# are sign-magnitude: +0.0 and -0.0 come out 2**31 apart and distances across zero are wrong.
def ulp_distance(a, b):
    for t in (a, b):
        if t.dtype != torch.float32:
            raise ValueError("float32 only")
        if not torch.isfinite(t).all():
            raise ValueError("finite values only")
    return (a.view(torch.int32).to(torch.int64) - b.view(torch.int32).to(torch.int64)).abs()
