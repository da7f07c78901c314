# Right, written differently: bit patterns compared with XOR of same-size integer views,
# torch.isclose(...).all() for the tolerance, and the float64 difference via torch.sub/torch.max.
def compare_results(x, y, rtol=1e-5, atol=1e-8):
    ints = {torch.float16: torch.int16, torch.bfloat16: torch.int16,
            torch.float32: torch.int32, torch.float64: torch.int64}
    differing_bits = torch.bitwise_xor(x.view(ints[x.dtype]), y.view(ints[y.dtype]))
    return {
        "bitwise_equal": not bool(differing_bits.any()),
        "max_abs_diff": torch.max(torch.abs(torch.sub(x.double(), y.double()))).item(),
        "allclose": bool(torch.isclose(x, y, rtol=rtol, atol=atol).all()),
    }
