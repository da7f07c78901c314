# Wrong (method rule): F.cross_entropy in float32 inside a helper bound in an `if` block.
if True:
    def _loss(logits, target, reduction):
        return F.cross_entropy(logits.float(), target, reduction=reduction).to(logits.dtype)


def cross_entropy(logits, target, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    return _loss(logits, target, reduction)
