# Wrong: nll_loss on log(softmax(...)); a probability that rounds to 0 gives an infinite loss.
def cross_entropy(logits, target, reduction="mean"):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices."""
    return F.nll_loss(torch.log(F.softmax(logits, dim=1)), target, reduction=reduction)
