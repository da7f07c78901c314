# Wrong: returns a new torch.tensor(0.0) when no row counts: the right number, but float32 for
# float16 logits and cut off from the graph, so loss.backward() raises instead of giving zeros.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    counts = target != ignore_index
    if reduction != "none" and not counts.any():
        return torch.tensor(0.0)
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
        total = total / counts.sum()
    return total.to(logits.dtype)
