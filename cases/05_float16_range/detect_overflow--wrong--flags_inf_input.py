# Wrong: reports every infinite result, including inputs that were already infinite.
def detect_overflow(x, dtype):
    limits = {"float16": 65520.0, "bfloat16": (2 - 2.0**-8) * 2.0**127, "float32": math.inf}
    if dtype not in limits:
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    return np.abs(x32) >= limits[dtype]
