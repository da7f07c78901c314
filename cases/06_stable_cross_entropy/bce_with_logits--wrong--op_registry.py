# Wrong (method rule): the built-in loss through the op registry `torch.ops.aten` (1: the mean).
def bce_with_logits(logits, targets):
    return torch.ops.aten.binary_cross_entropy_with_logits(logits, targets, None, None, 1)
