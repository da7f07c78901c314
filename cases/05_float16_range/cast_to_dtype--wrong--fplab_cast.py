# Wrong (method rule): the course's own fplab.explorers.formats.cast does the rounding (through torch);
# fplab is not on the list.
import fplab.explorers.formats


def cast_to_dtype(x, dtype):
    if dtype not in ("float16", "bfloat16", "float32"):
        raise ValueError(f"unknown dtype {dtype!r}")
    return fplab.explorers.formats.cast(x, dtype).astype(np.float16 if dtype == "float16" else np.float32)
