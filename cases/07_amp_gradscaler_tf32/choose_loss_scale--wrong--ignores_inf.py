# Wrong: drops gradients that are already inf or NaN before checking, so a non-finite
# gradient never disqualifies a scale.
def choose_loss_scale(grads, candidates):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    flat = torch.cat([g.reshape(-1).double() for g in grads])
    flat = flat[torch.isfinite(flat)]
    fitting = [s for s in candidates if torch.isfinite((flat * s).half()).all()]
    return max(fitting) if fitting else None
