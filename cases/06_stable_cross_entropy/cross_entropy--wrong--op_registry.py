# Wrong (method rule): the builtin loss through the op registry, computed in float32.
def cross_entropy(logits, target, reduction="mean"):
    codes = {"none": 0, "mean": 1, "sum": 2}
    if reduction not in codes:
        raise ValueError(f"unknown reduction {reduction!r}")
    loss = torch.ops.aten.cross_entropy_loss(logits.float(), target, None, codes[reduction], -100, 0.0)
    return loss.to(logits.dtype)
