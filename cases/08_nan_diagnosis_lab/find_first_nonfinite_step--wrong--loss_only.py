# Wrong: looks only at the loss, so a NaN born in backward (finite loss, NaN gradient) or an
# infinite parameter made by the optimizer goes unnoticed.
def find_first_nonfinite_step(run_step, max_steps):
    for step in range(max_steps):
        if not torch.isfinite(run_step(step)["loss"]):
            return step
    return None
