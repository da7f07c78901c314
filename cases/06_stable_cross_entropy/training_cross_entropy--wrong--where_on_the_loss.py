# Wrong: computes every row's loss from the raw logits and zeroes the ignored rows afterwards with
# torch.where. The value is right, but on a padding row of -inf the log-softmax's backward still
# runs through its NaN: the gradient there is NaN (as F.cross_entropy's is), not 0.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    counts = target != ignore_index
    work = logits.float()
    log_probs = work - torch.logsumexp(work, dim=1, keepdim=True)
    losses = -log_probs.gather(1, target.clamp(min=0).unsqueeze(1)).squeeze(1)
    if label_smoothing:
        losses = (1 - label_smoothing) * losses - label_smoothing * log_probs.mean(dim=1)
    losses = torch.where(counts, losses, 0.0)
    if reduction == "none":
        return losses.to(logits.dtype)
    total = losses.sum()
    if reduction == "mean":
        total = total / counts.sum().clamp_min(1)
    return total.to(logits.dtype)
