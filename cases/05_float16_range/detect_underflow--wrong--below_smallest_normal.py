# Wrong: flags every non-zero value below the smallest normal number, although subnormals keep
# those values non-zero.
def detect_underflow(x, dtype):
    smallest_normal = {"float16": 2.0**-14, "bfloat16": 2.0**-126, "float32": 2.0**-126}
    if dtype not in smallest_normal:
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    return np.isfinite(x) & (x != 0) & (np.abs(x32) < smallest_normal[dtype])
