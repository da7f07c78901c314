# Wrong: rounds bfloat16 ties upwards (adds 0x8000 and truncates) instead of to the even neighbour.
def cast_to_dtype(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    with np.errstate(over="ignore"):
        x32 = np.array(x, dtype=np.float32)
        if dtype == "float16":
            return x32.astype(np.float16)
    if dtype == "float32":
        return x32
    bits = x32.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x8000) >> 16) << 16
    out = np.where(np.isnan(x32), np.uint64(0x7FC00000), rounded)
    return out.astype(np.uint32).view(np.float32)
