# Wrong: F.binary_cross_entropy on sigmoid(logits); it clamps the log at -100, so a logit of
# -1e4 with target 1 costs 100 instead of 10000.
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    return F.binary_cross_entropy(torch.sigmoid(logits), targets)
