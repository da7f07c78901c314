# Wrong (method): right values, but through torch's own casts, which the exercise forbids ("Nothing
# from torch may appear in this cell"); the grader reads the answer cell and gives no points.
def cast_to_dtype(x, dtype):
    import torch

    targets = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
    if dtype not in targets:
        raise ValueError(f"unknown dtype {dtype!r}")
    with np.errstate(over="ignore"):
        x32 = np.array(x, dtype=np.float32)
    t = torch.from_numpy(x32).to(targets[dtype])
    return (t.float() if dtype == "bfloat16" else t).numpy()
