# Wrong: ignores the rows whose target is -100, whatever ignore_index says: right with the default,
# wrong for a caller who pads with another value (ignore_index=2 counts the rows of class 2).
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    counts = target != -100
    work = torch.where(counts.unsqueeze(1), logits.float(), 0.0)
    log_probs = work - torch.logsumexp(work, dim=1, keepdim=True)
    losses = -log_probs.gather(1, torch.where(counts, target, 0).unsqueeze(1)).squeeze(1)
    if label_smoothing:
        losses = (1 - label_smoothing) * losses - label_smoothing * log_probs.mean(dim=1)
    losses = torch.where(counts, losses, 0.0)
    if reduction == "none":
        return losses.to(logits.dtype)
    total = losses.sum()
    if reduction == "mean":
        total = total / counts.sum().clamp_min(1)
    return total.to(logits.dtype)
