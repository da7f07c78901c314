# Wrong: float16 right (65520, the midpoint), but for bfloat16 it takes the format's max from
# torch.finfo as the limit, so values between the max and the midpoint to 2**128, which round
# back down to the max, are flagged.
def detect_overflow(x, dtype):
    limits = {"float16": 65520.0, "bfloat16": torch.finfo(torch.bfloat16).max, "float32": math.inf}
    if dtype not in limits:
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    return np.isfinite(x) & (np.abs(x32) > limits[dtype])
