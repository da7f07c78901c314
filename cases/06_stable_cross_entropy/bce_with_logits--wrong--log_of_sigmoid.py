# Wrong: the textbook formula on probabilities; sigmoid(-100) is 0 in float32, its log -inf,
# so the loss is inf (or NaN where a zero target multiplies it).
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    p = torch.sigmoid(logits)
    return -(targets * torch.log(p) + (1 - targets) * torch.log(1 - p)).mean()
