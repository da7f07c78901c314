# Wrong: applies the round-to-nearest-even increment to NaN bit patterns too; the carry turns
# some NaNs into inf, -0.0 or 0.0.
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
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return (rounded & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
