# Wrong: a symmetric closeness rule (like math.isclose), scaling rtol by max(|x|, |y|) instead
# of |y| as torch.allclose does; x=111, y=100, rtol=0.1 comes out close.
def compare_results(x, y, rtol=1e-5, atol=1e-8):
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    x64, y64 = x.double(), y.double()
    diff = (x64 - y64).abs()
    close = (x64 == y64) | (diff <= atol + rtol * torch.maximum(x64.abs(), y64.abs()))
    return {
        "bitwise_equal": torch.equal(x.view(bits), y.view(bits)),
        "max_abs_diff": diff.max().item(),
        "allclose": bool(close.all()),
    }
