# Right, written differently: rounds for real (NumPy for float16, bit arithmetic for bfloat16)
# and looks for infinities that were not there before.
def detect_overflow(x, dtype):
    values = np.asarray(x)
    if dtype not in {"float16", "bfloat16", "float32"}:
        raise ValueError(dtype)
    with np.errstate(over="ignore"):
        single = values.astype(np.float32)
        if dtype == "float16":
            rounded = single.astype(np.float16)
        elif dtype == "bfloat16":
            bits = single.view(np.uint32).astype(np.int64)
            bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
            rounded = np.where(np.isnan(single), 0.0, (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32))
        else:
            rounded = single
    return np.isinf(rounded) & ~np.isinf(values) & ~np.isnan(values)
