# Wrong: reports the step number counted from 1 (a count of steps run), one more than the index.
def find_first_nonfinite_step(run_step, max_steps):
    for step in range(max_steps):
        result = run_step(step)
        tensors = [result["loss"], *result["grads"].values(), *result["params"].values()]
        if any(t is not None and not torch.isfinite(t).all() for t in tensors):
            return step + 1
    return None
