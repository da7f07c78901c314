# Wrong (rule): the builtin log-softmax reached through the tensor's class, with no name on the list
# written out: type(logits).log_softmax is torch.Tensor.log_softmax. Everything else is correct.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    work = logits.float()
    counts = target != ignore_index
    work = torch.where(counts.unsqueeze(1), work, torch.zeros_like(work))
    safe = torch.where(counts, target, torch.zeros_like(target))
    log_p = type(work).log_softmax(work, 1)
    losses = -log_p.gather(1, safe.unsqueeze(1)).squeeze(1)
    if label_smoothing:
        losses = (1 - label_smoothing) * losses - label_smoothing * log_p.mean(dim=1)
    losses = torch.where(counts, losses, torch.zeros_like(losses))
    if reduction == "none":
        return losses.to(logits.dtype)
    total = losses.sum()
    if reduction == "mean":
        total = total / counts.sum().clamp_min(1)
    return total.to(logits.dtype)
