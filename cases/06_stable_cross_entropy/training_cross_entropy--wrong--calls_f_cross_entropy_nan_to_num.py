# Wrong (method): F.cross_entropy in float32 with the NaN of an empty mean replaced by 0. The values
# are right, the padding rows' gradient is NaN, and the exercise forbids F.cross_entropy anyway.
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    loss = F.cross_entropy(logits.float(), target, reduction=reduction, ignore_index=ignore_index,
                           label_smoothing=label_smoothing)
    return torch.nan_to_num(loss, nan=0.0).to(logits.dtype)
