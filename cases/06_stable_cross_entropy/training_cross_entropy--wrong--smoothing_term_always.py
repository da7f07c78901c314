# Wrong: always adds the smoothing term, e * mean(-log p), even for e = 0. A class masked with
# -inf in a row that counts has -log p = inf there, and 0 * inf is NaN: F.cross_entropy's loss is
# finite.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    counts = target != ignore_index
    work = torch.where(counts.unsqueeze(1), logits.float(), 0.0)
    log_probs = work - torch.logsumexp(work, dim=1, keepdim=True)
    nll = -log_probs.gather(1, torch.where(counts, target, 0).unsqueeze(1)).squeeze(1)
    losses = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    losses = torch.where(counts, losses, 0.0)
    if reduction == "none":
        return losses.to(logits.dtype)
    total = losses.sum()
    if reduction == "mean":
        total = total / counts.sum().clamp_min(1)
    return total.to(logits.dtype)
