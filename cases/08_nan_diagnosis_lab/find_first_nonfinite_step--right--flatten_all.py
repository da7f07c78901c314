# Right, written differently: a while loop; all tensors of a step flattened into one float64
# vector (float16/bfloat16/integers convert exactly, inf and NaN survive), checked with isnan/isinf.
def find_first_nonfinite_step(run_step, max_steps):
    step = 0
    while step < max_steps:
        result = run_step(step)
        pieces = [result["loss"].reshape(-1).double()]
        for group in ("grads", "params"):
            pieces += [t.detach().reshape(-1).double() for t in result[group].values() if t is not None]
        everything = torch.cat(pieces)
        if torch.isnan(everything).any() or torch.isinf(everything).any():
            return step
        step += 1
    return None
