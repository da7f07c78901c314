# Right, written differently: torch.logsumexp minus the target logit, computed in the logits'
# own dtype (float16 stays float16 throughout), with the reduction accumulated in float32.
def cross_entropy(logits, target, reduction="mean"):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices."""
    reducers = {
        "none": lambda l: l,
        "sum": lambda l: l.sum(dtype=torch.float32).to(l.dtype),
        "mean": lambda l: l.mean(dtype=torch.float32).to(l.dtype),
    }
    if reduction not in reducers:
        raise ValueError(f"reduction={reduction!r}")
    rows = torch.arange(logits.shape[0])
    per_row = torch.logsumexp(logits, dim=1) - logits[rows, target]
    return reducers[reduction](per_row)
