# Wrong: checks the loss and the gradients but not the updated parameters, so an update that
# overflows a parameter is missed.
def find_first_nonfinite_step(run_step, max_steps):
    for step in range(max_steps):
        result = run_step(step)
        if not torch.isfinite(result["loss"]).all():
            return step
        for grad in result["grads"].values():
            if grad is not None and not torch.isfinite(grad).all():
                return step
    return None
