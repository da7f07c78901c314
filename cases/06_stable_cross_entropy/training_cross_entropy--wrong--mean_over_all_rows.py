# Wrong: ignored rows cost 0, but "mean" divides the sum by all N rows instead of by the rows that
# count, so every ignored row pulls the mean towards 0.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    counts = target != ignore_index
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
        total = total / len(target)
    return total.to(logits.dtype)
