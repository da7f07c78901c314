# Wrong: compares with float16's max (65504) instead of casting, so products that round down
# to 65504 (up to just below 65520) are wrongly taken as overflow.
def choose_loss_scale(grads, candidates):
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    limit = torch.finfo(torch.float16).max
    fitting = [s for s in candidates
               if all(bool(((g.double() * s).abs() <= limit).all()) for g in grads)]
    return max(fitting) if fitting else None
