# Right, written differently: the rows that count picked out by boolean indexing (the ignored rows,
# -inf padding included, never reach the arithmetic), in float64; the smoothed target built as a
# distribution from F.one_hot; the per-row losses written back into zeros for "none"; the mean as the
# sum over max(count, 1).
def training_cross_entropy(logits, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if reduction not in {"mean", "sum", "none"}:
        raise ValueError(f"reduction={reduction!r}")
    counts = target != ignore_index
    kept = logits[counts].double()
    classes = logits.shape[1]
    log_probs = kept - torch.logsumexp(kept, dim=1, keepdim=True)
    hot = F.one_hot(target[counts], classes).double()
    if label_smoothing > 0:
        wanted = (1 - label_smoothing) * hot + label_smoothing / classes
    else:
        wanted = hot
    per_kept = -(wanted * log_probs.masked_fill(wanted == 0, 0.0)).sum(dim=1)
    if reduction == "none":
        out = logits.new_zeros(logits.shape[0], dtype=torch.float64)
        out[counts] = per_kept
        return out.to(logits.dtype)
    total = per_kept.sum()
    if reduction == "mean":
        total = total / max(int(counts.sum()), 1)
    return total.to(logits.dtype)
