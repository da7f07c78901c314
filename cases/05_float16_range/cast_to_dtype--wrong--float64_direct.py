# Wrong: casts float64 input straight to float16 (one rounding) instead of going through float32
# as torch does, so 65519.999 gives 65504 where torch gives inf.
def cast_to_dtype(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        if dtype == "float16":
            return x.astype(np.float16)
        x32 = x.astype(np.float32)
    if dtype == "float32":
        return x32
    bits = x32.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = np.where(np.isnan(x32), np.uint64(0x7FC00000), rounded)
    return out.astype(np.uint32).view(np.float32)
