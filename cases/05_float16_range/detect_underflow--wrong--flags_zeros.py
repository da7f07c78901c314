# Wrong: flags every finite value that is 0 after rounding, including values that were already 0.
def detect_underflow(x, dtype):
    limits = {"float16": 2.0**-25, "bfloat16": 2.0**-134, "float32": 0.0}
    if dtype not in limits:
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    return np.isfinite(x) & (np.abs(x32) <= limits[dtype])
