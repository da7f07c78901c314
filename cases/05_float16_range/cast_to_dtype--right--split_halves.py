# Right, written differently: splits the bits into upper and lower halves and compares the lower
# half with 0x8000 in uint32 arithmetic; silences NumPy with warnings.catch_warnings; puts a
# fresh NaN wherever the input was NaN.
def cast_to_dtype(x, dtype):
    if dtype == "float32" or dtype == "float16" or dtype == "bfloat16":
        pass
    else:
        raise ValueError("dtype must be 'float16', 'bfloat16' or 'float32', not %r" % (dtype,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        single = np.asarray(x, dtype=np.float32).copy()
        if dtype == "float16":
            return single.astype(np.float16)
    if dtype == "float32":
        return single
    word = single.view(np.uint32)
    upper = word >> np.uint32(16)
    lower = word & np.uint32(0xFFFF)
    go_up = (lower > 0x8000) | ((lower == 0x8000) & (upper % 2 == 1))
    upper = upper + go_up.astype(np.uint32)
    result = (upper << np.uint32(16)).view(np.float32)
    return np.where(np.isnan(single), np.float32(np.nan), result).astype(np.float32)
