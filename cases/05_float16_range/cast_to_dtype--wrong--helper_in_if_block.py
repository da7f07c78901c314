# Wrong (method rule): torch's casts in a helper bound inside an `if` block.
if True:
    import torch as _t

    def _round(a, dtype):
        return _t.from_numpy(a).to(getattr(_t, dtype)).float().numpy()


def cast_to_dtype(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    out = _round(np.array(x, dtype=np.float32), dtype)
    return out.astype(np.float16) if dtype == "float16" else out
