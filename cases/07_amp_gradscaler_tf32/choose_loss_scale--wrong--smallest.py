# Wrong: returns the smallest candidate that fits instead of the largest.
def choose_loss_scale(grads, candidates):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    fitting = [s for s in candidates
               if all(torch.isfinite((g.double() * s).half()).all() for g in grads)]
    return min(fitting) if fitting else None
