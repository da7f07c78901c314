# Wrong: uses torch.equal for bitwise_equal. It compares values, so +0.0 == -0.0 counts as
# equal and a NaN never equals itself, even with identical bits.
def compare_results(x, y, rtol=1e-5, atol=1e-8):
    return {
        "bitwise_equal": torch.equal(x, y),
        "max_abs_diff": (x.double() - y.double()).abs().max().item(),
        "allclose": torch.allclose(x, y, rtol=rtol, atol=atol),
    }
