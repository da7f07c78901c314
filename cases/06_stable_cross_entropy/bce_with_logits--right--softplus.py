# Right, written differently: -log(1 - sigmoid(x)) is softplus(x), so the loss is
# softplus(x) - t x; F.softplus is itself overflow-safe.
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    return torch.mean(F.softplus(logits) - targets * logits)
