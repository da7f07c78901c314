# Wrong: clamps the probability into [eps, 1 - eps] before the log; finite, but the loss
# saturates near 16 for confidently wrong logits instead of growing with |x|.
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    eps = 1e-7
    p = torch.sigmoid(logits).clamp(eps, 1 - eps)
    return (-targets * torch.log(p) - (1 - targets) * torch.log(1 - p)).mean()
