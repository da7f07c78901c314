# Wrong: rounds float64 input once, straight to the target, instead of through float32 first, so
# a value just above 2**-25 is kept where torch rounds it to 0.
def detect_underflow(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        if dtype == "float16":
            zero = x.astype(np.float16) == 0
        elif dtype == "bfloat16":
            zero = np.abs(x) <= 2.0**-134
        else:
            zero = x.astype(np.float32) == 0
    return np.isfinite(x) & (x != 0) & zero
