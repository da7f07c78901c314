# Wrong (method): right values, but calls F.binary_cross_entropy_with_logits, the built-in loss the
# exercise forbids.
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    return F.binary_cross_entropy_with_logits(logits, targets)
