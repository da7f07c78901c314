# Wrong: rounds float64 input once, straight to the target, instead of through float32 first, so
# 65519.999 does not overflow float16 here while torch makes it inf.
def detect_overflow(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        if dtype == "float16":
            big = np.isinf(x.astype(np.float16))
        elif dtype == "bfloat16":
            big = np.abs(x) >= (2 - 2.0**-8) * 2.0**127
        else:
            big = np.isinf(x.astype(np.float32))
    return np.isfinite(x) & big
