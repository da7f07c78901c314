# Right, written differently: its own shifted log-softmax, the targets picked from the flattened
# (N*C,) log-probabilities at row * C + target, reshaped with .view: shape operations, which every
# rule allows.
def cross_entropy(logits, target, reduction="mean"):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    x = logits.float() if logits.dtype != torch.float64 else logits
    rows, classes = x.shape
    shifted = x - x.detach().amax(dim=1).view(rows, 1)
    log_probs = shifted - shifted.exp().sum(dim=1).log().view(rows, 1)
    picked = log_probs.view(-1)[torch.arange(rows) * classes + target.long().view(-1)]
    losses = -picked
    if reduction == "mean":
        losses = losses.sum() / rows
    elif reduction == "sum":
        losses = losses.sum()
    return losses.to(logits.dtype)
