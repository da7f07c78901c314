# Wrong: looks at the largest gradient value, not the largest magnitude, so large negative
# gradients overflow unnoticed.
def choose_loss_scale(grads, candidates):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    top = max(g.double().max().item() for g in grads)
    fitting = [s for s in candidates if torch.isfinite(torch.tensor(top * s).half())]
    return max(fitting) if fitting else None
