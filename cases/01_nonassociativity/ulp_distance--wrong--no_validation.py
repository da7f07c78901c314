# Wrong: correct arithmetic, but no input checks: float64, NaN and inf inputs give numbers
# (or a different error) instead of ValueError.
def ulp_distance(a, b):
    def position(t):
        bits = t.view(torch.int32).to(torch.int64)
        return torch.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return (position(a) - position(b)).abs()
