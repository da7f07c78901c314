# Wrong (method rule): torch imported by a name built from strings, its dtype looked up by getattr.
def cast_to_dtype(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    lib = __import__("tor" + "ch")
    out = lib.tensor(np.array(x, dtype=np.float32)).to(getattr(lib, dtype)).float().numpy()
    return out.astype(np.float16) if dtype == "float16" else out
