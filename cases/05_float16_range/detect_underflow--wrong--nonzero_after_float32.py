# Wrong: the thresholds are right, but "non-zero" is decided after the step to float32, so a
# float64 1e-50, which becomes 0 in that step, is not counted as an underflow.
def detect_underflow(x, dtype):
    limits = {"float16": 2.0**-25, "bfloat16": 2.0**-134, "float32": 0.0}
    if dtype not in limits:
        raise ValueError(f"unknown dtype {dtype!r}")
    with np.errstate(over="ignore"):
        x32 = np.asarray(x).astype(np.float32)
    return np.isfinite(x32) & (x32 != 0) & (np.abs(x32) <= limits[dtype])
