# Right, written differently: tries the candidates from the largest down on the single
# largest magnitude (NaN and inf make it non-finite, which disqualifies everything).
def choose_loss_scale(grads, candidates):
    tensors = [grads] if torch.is_tensor(grads) else list(grads)
    peak = max((g.detach().double().abs().max() for g in tensors if g.numel()), default=torch.tensor(0.0))
    for s in sorted(candidates, reverse=True):
        if torch.isfinite((peak * s).to(torch.float16)):
            return s
    return None
