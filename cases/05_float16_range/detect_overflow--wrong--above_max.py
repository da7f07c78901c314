# Wrong: flags everything above the largest finite value, although values up to the rounding
# boundary (e.g. 65519 in float16) round back down to the max.
def detect_overflow(x, dtype):
    largest = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}
    if dtype not in largest:
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    return np.isfinite(x) & (np.abs(x32) > largest[dtype])
