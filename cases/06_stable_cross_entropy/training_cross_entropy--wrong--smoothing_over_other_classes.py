# Wrong: label smoothing as 1 - e on the target and e / (C - 1) on each of the other classes; the
# exercise (and F.cross_entropy) spread e / C over all C classes, the target included.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    counts = target != ignore_index
    work = torch.where(counts.unsqueeze(1), logits.float(), 0.0)
    classes = work.shape[1]
    log_probs = work - torch.logsumexp(work, dim=1, keepdim=True)
    picked = log_probs.gather(1, torch.where(counts, target, 0).unsqueeze(1)).squeeze(1)
    losses = -picked
    if label_smoothing:
        others = log_probs.sum(dim=1) - picked
        losses = -(1 - label_smoothing) * picked - label_smoothing * others / (classes - 1)
    losses = torch.where(counts, losses, 0.0)
    if reduction == "none":
        return losses.to(logits.dtype)
    total = losses.sum()
    if reduction == "mean":
        total = total / counts.sum().clamp_min(1)
    return total.to(logits.dtype)
