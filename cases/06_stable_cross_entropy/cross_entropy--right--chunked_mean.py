# Right, written differently: per-row losses from a log-softmax shifted by the row maximum taken
# in the graph (not detached), and the mean as a sum of float32 partial sums over chunks of 16
# rows, divided by N. A different order of the reduction; the tolerance must admit it.
def cross_entropy(logits, target, reduction="mean"):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices."""
    if reduction not in {"mean", "sum", "none"}:
        raise ValueError(f"unknown reduction {reduction!r}")
    x = logits.to(torch.float32)
    shifted = x - x.max(dim=1, keepdim=True).values
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    losses = -log_probs[torch.arange(x.shape[0]), target]
    if reduction == "none":
        return losses.to(logits.dtype)
    total = torch.stack([chunk.sum() for chunk in losses.split(16)]).sum()
    if reduction == "mean":
        total = total / losses.shape[0]
    return total.to(logits.dtype)
