# Wrong: assumes the candidates are sorted in ascending order and stops at the first one
# that overflows.
def choose_loss_scale(grads, candidates):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    best = None
    for s in candidates:
        if all(torch.isfinite((g.double() * s).half()).all() for g in grads):
            best = s
        else:
            break
    return best
