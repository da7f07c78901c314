# Right, written differently: the stable form with torch.log(1 + ...) instead of log1p and
# torch.where instead of clamp. It loses digits of a tiny log term (at most ~6e-8 absolute),
# which is below the rounding of the loss it is added to.
def bce_with_logits(logits, targets):
    """Mean binary cross-entropy between sigmoid(logits) and targets, computed from the logits."""
    relu = torch.where(logits > 0, logits, torch.zeros_like(logits))
    per_element = relu - logits * targets + torch.log(1 + torch.exp(-torch.abs(logits)))
    return per_element.sum() / per_element.numel()
