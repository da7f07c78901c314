# Wrong: computes every row's loss from the raw logits, then multiplies by the 0/1 mask of rows that
# count. A padding row of -inf has a NaN log-softmax, and NaN * 0 is NaN: the loss itself is NaN.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    counts = target != ignore_index
    work = logits.float()
    log_probs = work - torch.logsumexp(work, dim=1, keepdim=True)
    losses = -log_probs.gather(1, target.clamp(min=0).unsqueeze(1)).squeeze(1)
    if label_smoothing:
        losses = (1 - label_smoothing) * losses - label_smoothing * log_probs.mean(dim=1)
    losses = losses * counts.float()
    if reduction == "none":
        return losses.to(logits.dtype)
    total = losses.sum()
    if reduction == "mean":
        total = total / counts.sum().clamp_min(1)
    return total.to(logits.dtype)
