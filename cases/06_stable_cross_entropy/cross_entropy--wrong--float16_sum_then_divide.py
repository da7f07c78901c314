# Wrong: stable per-sample losses, but the mean is a float16 sum divided by N; the sum of
# thousands-sized float16 losses overflows to inf although the mean fits.
def cross_entropy(logits, target, reduction="mean"):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction)
    m = logits.detach().max(dim=1, keepdim=True).values
    lse = (m + torch.log(torch.exp(logits - m).sum(dim=1, keepdim=True))).squeeze(1)
    losses = lse - logits.gather(1, target.view(-1, 1)).squeeze(1)
    if reduction == "none":
        return losses
    total = losses.sum()
    return total if reduction == "sum" else total / losses.shape[0]
