# Wrong: rounds to bfloat16 by zeroing the lower 16 bits (truncation rounds toward zero, and a NaN
# whose payload sits in the lower half becomes inf).
def cast_to_dtype(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    with np.errstate(over="ignore"):
        x32 = np.array(x, dtype=np.float32)
        if dtype == "float16":
            return x32.astype(np.float16)
    if dtype == "float32":
        return x32
    return (x32.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
