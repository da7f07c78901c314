# Wrong: tests each tensor through its sum (NaN and inf do survive a sum), but a sum of large
# finite values overflows to inf, so healthy steps with big values are reported as bad.
def find_first_nonfinite_step(run_step, max_steps):
    for step in range(max_steps):
        result = run_step(step)
        tensors = [result["loss"], *result["grads"].values(), *result["params"].values()]
        if any(t is not None and not torch.isfinite(t.sum()) for t in tensors):
            return step
    return None
