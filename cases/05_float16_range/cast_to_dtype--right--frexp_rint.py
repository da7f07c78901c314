# Right, written differently: no bit patterns at all. bfloat16 keeps 8 significant bits, so the
# value is rounded in float64 to a multiple of its quantum 2**(e - 8) (frexp's exponent e; never
# below bfloat16's subnormal step 2**-133) with np.rint, which rounds ties to even. NaN and inf pass
# through the arithmetic; everything is silenced with np.errstate(all="ignore").
def cast_to_dtype(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError("dtype must be one of 'float16', 'bfloat16', 'float32'")
    with np.errstate(all="ignore"):
        single = np.array(x, dtype=np.float64).astype(np.float32)
        if dtype == "float32":
            return single
        if dtype == "float16":
            return single.astype(np.float16)
        wide = single.astype(np.float64)
        _, exponent = np.frexp(wide)
        quantum = np.maximum(np.ldexp(1.0, exponent - 8), 2.0**-133)
        rounded = np.rint(wide / quantum) * quantum
        rounded = np.where(np.isfinite(wide), rounded, wide)
        return rounded.astype(np.float32)
