# Right, written differently: a single boolean expression per format, with the float16 and
# bfloat16 thresholds written as the smallest subnormal halved (the tie goes to 0), and
# np.logical_and.reduce over the three conditions.
def detect_underflow(x, dtype):
    smallest_subnormal = {"float16": 2.0**-24, "bfloat16": 2.0**-133, "float32": 2.0**-149}
    if dtype not in smallest_subnormal:
        raise ValueError(f"unknown dtype {dtype!r}")
    values = np.asarray(x)
    with np.errstate(over="ignore"):
        single = np.abs(values.astype(np.float32)).astype(np.float64)
    limit = 0.0 if dtype == "float32" else smallest_subnormal[dtype] / 2
    return np.logical_and.reduce([np.isfinite(values), values != 0, single <= limit])
