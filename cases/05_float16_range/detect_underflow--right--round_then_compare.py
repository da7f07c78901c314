# Right, written differently: rounds for real (NumPy for float16, bit arithmetic for bfloat16)
# and compares with zero, instead of using thresholds.
def detect_underflow(x, dtype):
    values = np.asarray(x)
    with np.errstate(over="ignore"):
        single = values.astype(np.float32)
        if dtype == "float16":
            rounded = single.astype(np.float16)
        elif dtype == "bfloat16":
            bits = single.view(np.uint32).astype(np.int64)
            bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
            rounded = np.where(np.isnan(single), 1.0, (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32))
        elif dtype == "float32":
            rounded = single
        else:
            raise ValueError(dtype)
    was_nonzero = np.logical_and(np.isfinite(values), values != 0)
    return np.logical_and(was_nonzero, rounded == 0)
