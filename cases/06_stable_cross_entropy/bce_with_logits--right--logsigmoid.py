# Right, written differently: -t log(sigmoid(x)) - (1 - t) log(sigmoid(-x)) with F.logsigmoid
# (allowed: it is computed stably), the mean as a sum over numel.
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    per_element = -(targets * F.logsigmoid(logits) + (1 - targets) * F.logsigmoid(-logits))
    return per_element.sum() / logits.numel()
