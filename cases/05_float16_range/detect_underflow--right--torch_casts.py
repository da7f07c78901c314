# Right, written differently: rounds with torch's own casts (allowed here, unlike in cast_to_dtype)
# and looks for non-zero finite values that became zero.
def detect_underflow(x, dtype):
    import torch

    formats = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
    if dtype not in formats:
        raise ValueError(dtype)
    values = np.asarray(x)
    with np.errstate(over="ignore"):
        single = torch.from_numpy(values.astype(np.float32).reshape(values.shape))
    became_zero = (single.to(formats[dtype]) == 0).numpy()
    return np.isfinite(values) & (values != 0) & became_zero
