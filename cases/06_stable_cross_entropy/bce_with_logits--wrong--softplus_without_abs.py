# Wrong: rewrites the loss as (1 - t) x + log(1 + exp(-x)) but forgets to keep the exponent
# non-positive; exp(-x) overflows for very negative x.
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    return ((1 - targets) * logits + torch.log1p(torch.exp(-logits))).mean()
