# Wrong: compares the largest difference with a tolerance built from the largest |y|, instead
# of checking every element against its own atol + rtol * |y|. A small entry that is far off
# hides behind a large entry elsewhere.
def compare_results(x, y, rtol=1e-5, atol=1e-8):
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    x64, y64 = x.double(), y.double()
    max_diff = (x64 - y64).abs().max().item()
    if x64.isnan().any() or y64.isnan().any():
        close = False
    elif torch.equal(x64, y64):
        close = True
    else:
        close = max_diff <= atol + rtol * y64.abs().max().item()
    return {
        "bitwise_equal": torch.equal(x.view(bits), y.view(bits)),
        "max_abs_diff": max_diff,
        "allclose": bool(close),
    }
