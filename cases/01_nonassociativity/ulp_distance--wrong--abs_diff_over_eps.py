# Wrong: measures |a - b| in units of float32 eps, as if the spacing were eps everywhere.
# Right only between 1 and 2; the gap grows with magnitude (neighbours near 1e8 are 8 apart).
def ulp_distance(a, b):
    for t in (a, b):
        if t.dtype != torch.float32:
            raise ValueError("float32 only")
        if not torch.isfinite(t).all():
            raise ValueError("finite values only")
    eps = torch.finfo(torch.float32).eps
    return torch.round((a.double() - b.double()).abs() / eps).to(torch.int64)
